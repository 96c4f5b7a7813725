#include "engine/project/project_format.h"

#include <array>
#include <utility>

#include "engine/train/initializer.h"

namespace bps::project::format {

namespace {

// One table per enumeration keeps word, value and the list of choices together.
template <typename Enum, std::size_t N>
using Table = std::array<std::pair<Enum, const char*>, N>;

constexpr Table<model::LossKind, 2> loss_table{{
    {model::LossKind::softmax_cross_entropy, "softmax_cross_entropy"},
    {model::LossKind::mean_squared_error, "mean_squared_error"},
}};

constexpr Table<model::Padding, 2> padding_table{{{model::Padding::valid, "valid"}, {model::Padding::same, "same"}}};

constexpr Table<model::Activation, 4> activation_table{{
    {model::Activation::relu, "relu"},
    {model::Activation::leaky_relu, "leaky_relu"},
    {model::Activation::sigmoid, "sigmoid"},
    {model::Activation::tanh, "tanh"},
}};

constexpr Table<train::OptimizerKind, 3> optimizer_table{{
    {train::OptimizerKind::sgd, "sgd"},
    {train::OptimizerKind::adam, "adam"},
    {train::OptimizerKind::adamw, "adamw"},
}};

constexpr Table<train::ScheduleKind, 3> schedule_table{{
    {train::ScheduleKind::constant, "constant"},
    {train::ScheduleKind::step, "step"},
    {train::ScheduleKind::cosine, "cosine"},
}};

constexpr std::array layer_types{
    model::LayerType::input,      model::LayerType::dense,      model::LayerType::conv2d,
    model::LayerType::max_pool,   model::LayerType::avg_pool,   model::LayerType::global_avg_pool,
    model::LayerType::flatten,    model::LayerType::activation, model::LayerType::dropout,
    model::LayerType::batch_norm, model::LayerType::add,        model::LayerType::concat,
};

constexpr std::array initializers{
    train::Initializer::he_uniform,    train::Initializer::he_normal, train::Initializer::glorot_uniform,
    train::Initializer::glorot_normal, train::Initializer::zeros,     train::Initializer::ones,
};

template <typename Enum, std::size_t N>
const char* word(const Table<Enum, N>& table, Enum value) {
    for (const auto& [entry, text] : table)
        if (entry == value) return text;
    return "?";
}

template <typename Enum, std::size_t N>
std::optional<Enum> value(const Table<Enum, N>& table, std::string_view text) {
    for (const auto& [entry, entry_text] : table)
        if (text == entry_text) return entry;
    return std::nullopt;
}

template <typename Enum, std::size_t N>
std::string choices(const Table<Enum, N>& table) {
    std::string list;
    for (const auto& entry : table) {
        if (!list.empty()) list += ", ";
        list += entry.second;
    }
    return list;
}

}  // namespace

const char* loss(model::LossKind kind) {
    return word(loss_table, kind);
}
std::optional<model::LossKind> loss_from(std::string_view text) {
    return value(loss_table, text);
}
std::string loss_choices() {
    return choices(loss_table);
}

std::optional<model::LayerType> layer_type_from(std::string_view text) {
    for (model::LayerType type : layer_types)
        if (text == model::layer_type_name(type)) return type;
    return std::nullopt;
}
std::string layer_type_choices() {
    std::string list;
    for (model::LayerType type : layer_types) {
        if (!list.empty()) list += ", ";
        list += model::layer_type_name(type);
    }
    return list;
}

const char* padding(model::Padding kind) {
    return word(padding_table, kind);
}
std::optional<model::Padding> padding_from(std::string_view text) {
    return value(padding_table, text);
}
std::string padding_choices() {
    return choices(padding_table);
}

const char* activation(model::Activation kind) {
    return word(activation_table, kind);
}
std::optional<model::Activation> activation_from(std::string_view text) {
    return value(activation_table, text);
}
std::string activation_choices() {
    return choices(activation_table);
}

std::string initializer_choices() {
    std::string list;
    for (train::Initializer kind : initializers) {
        if (!list.empty()) list += ", ";
        list += train::initializer_name(kind);
    }
    return list;
}

const char* optimizer(train::OptimizerKind kind) {
    return word(optimizer_table, kind);
}
std::optional<train::OptimizerKind> optimizer_from(std::string_view text) {
    return value(optimizer_table, text);
}
std::string optimizer_choices() {
    return choices(optimizer_table);
}

const char* schedule(train::ScheduleKind kind) {
    return word(schedule_table, kind);
}
std::optional<train::ScheduleKind> schedule_from(std::string_view text) {
    return value(schedule_table, text);
}
std::string schedule_choices() {
    return choices(schedule_table);
}

}  // namespace bps::project::format
