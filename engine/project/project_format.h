#pragma once
// What the reader and the writer of project files share, so the two can never disagree: the
// words a file uses for the engine's enumerations and the default canvas layout. Private to
// engine/project.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "engine/model/network_spec.h"
#include "engine/project/project.h"
#include "engine/train/optimizer_settings.h"
#include "engine/train/schedule.h"

namespace bps::project::format {

inline constexpr std::string_view format_tag = "backprop-studio-project";

// Where a node without a stored position goes: a left-to-right chain, so a network built in code
// or written by hand still opens readable on the canvas.
inline model::CanvasPosition default_position(std::size_t index) {
    return model::CanvasPosition{40.0 + 160.0 * static_cast<double>(index), 200.0};
}

// Each enumeration: the file's word for a value, the value for a word, and "a, b, c" for messages.
const char* loss(model::LossKind kind);
std::optional<model::LossKind> loss_from(std::string_view word);
std::string loss_choices();

std::optional<model::LayerType> layer_type_from(std::string_view word);  // the layer_type_name words
std::string layer_type_choices();

const char* padding(model::Padding padding);
std::optional<model::Padding> padding_from(std::string_view word);
std::string padding_choices();

const char* activation(model::Activation kind);
std::optional<model::Activation> activation_from(std::string_view word);
std::string activation_choices();

std::string initializer_choices();  // names from train::initializer_name

const char* optimizer(train::OptimizerKind kind);
std::optional<train::OptimizerKind> optimizer_from(std::string_view word);
std::string optimizer_choices();

const char* schedule(train::ScheduleKind kind);
std::optional<train::ScheduleKind> schedule_from(std::string_view word);
std::string schedule_choices();

}  // namespace bps::project::format
