// Reading a project file.
//
// The format, version 1 (every field but format, version, network.nodes and each node's name and
// type may be left out; a missing field takes the default of the structs in project.h):
//
// {
//   "format": "backprop-studio-project", "version": 1,
//   "name": "cnn", "description": "...",
//   "network": {
//     "loss": "softmax_cross_entropy" | "mean_squared_error",
//     "nodes": [ {"name": "input", "type": "Input", "position": {"x": 40, "y": 200}},
//                {"name": "conv1", "type": "Conv2D", "position": {"x": 200, "y": 200},
//                 "params": {"filters": 32, "kernel": [3, 3], "stride": [1, 1], "padding": "valid",
//                            "initializer": "he_uniform"}}, ... ],
//     "edges": [ {"from": "input", "to": "conv1"}, ... ]
//   },
//   "dataset": {"name": "fashion-mnist", "folder": "", "image_size": [28, 28], "channels": 1,
//               "validation_fraction": 0.1, "normalize": true, "shuffle": true,
//               "augmentation": {"random_crop": false, "crop_padding": 4, "horizontal_flip": false}},
//   "training": {"epochs": 1, "batch_size": 64, "seed": 42,
//                "optimizer": {"type": "sgd" | "adam" | "adamw", "learning_rate": 0.01, "momentum": 0.9,
//                              "nesterov": false, "weight_decay": 0, "beta1": 0.9, "beta2": 0.999,
//                              "epsilon": 1e-7},
//                "schedule": {"type": "constant" | "step" | "cosine", "step_size": 1, "gamma": 0.1,
//                             "total_epochs": 1, "min_rate": 0}},
//   "device": ""
// }
//
// Node types are model::layer_type_name's words. Params per type (missing ones take LayerSpec's
// defaults): Dense {units (required), initializer}; Conv2D {filters (required), kernel [h, w] or a
// number, stride [h, w] or a number, padding "valid" | "same", initializer}; MaxPool2D and AvgPool2D
// {size [h, w] or a number, stride (default: the size)}; Activation {activation: relu | leaky_relu |
// sigmoid | tanh, slope}; Dropout {rate}; BatchNormalization {momentum, epsilon}. A layer's inputs
// are the "from" of the edges into it, in edge order. Fields this version does not know are kept in
// Project::document and written back by project_to_json.
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <new>
#include <sstream>

#include "datasets/catalogue.h"
#include "engine/base/bounded_text.h"
#include "engine/io/input_file.h"
#include "engine/io/json_damage.h"
#include "engine/project/project.h"
#include "engine/project/project_format.h"
#include "engine/train/initializer.h"
#include "engine/train/optimizer_settings.h"

namespace bps::project {

using nlohmann::json;

ProjectError::ProjectError(const std::string& source, const std::string& problem)
    : std::runtime_error(source + ": " + problem), source_(source) {}

namespace {

// A value as the learner wrote it, shortened so that a whole object does not flood a message.
std::string shown(const json& value) {
    std::string text = value.dump();
    constexpr std::size_t longest = 60;
    if (text.size() > longest) text = text.substr(0, longest - 3) + "...";
    return text;
}

// Reads fields of one JSON object; every message names the field by its path in the file
// ("training.optimizer.learning_rate") so a learner can find it.
class Fields {
public:
    Fields(const std::string& source, const json& object, std::string path)
        : source_(source), object_(object), path_(std::move(path)) {}

    const std::string& source() const { return source_; }
    std::string path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
    bool has(const std::string& key) const { return object_.is_object() && object_.contains(key); }
    const json& at(const std::string& key) const { return object_.at(key); }

    [[noreturn]] void fail(const std::string& key, const std::string& expected) const {
        throw ProjectError(source_, path(key) + " must be " + expected + ", not " + shown(at(key)));
    }

    std::string text(const std::string& key, std::string fallback) const {
        if (!has(key)) return fallback;
        if (!at(key).is_string()) fail(key, "text");
        return at(key).get<std::string>();
    }

    bool boolean(const std::string& key, bool fallback) const {
        if (!has(key)) return fallback;
        if (!at(key).is_boolean()) fail(key, "true or false");
        return at(key).get<bool>();
    }

    double number(const std::string& key, double fallback) const {
        if (!has(key)) return fallback;
        if (!at(key).is_number()) fail(key, "a number");
        return at(key).get<double>();
    }

    // A number with a lower bound (inclusive or not) and optionally an upper one (exclusive).
    double number_in(const std::string& key, double fallback, double low, bool low_inclusive,
                     double high = std::numeric_limits<double>::infinity()) const {
        const double value = number(key, fallback);
        const bool above = low_inclusive ? value >= low : value > low;
        if (!above || !(value < high)) fail(key, range_words(low, low_inclusive, high));
        return value;
    }

    float number_f(const std::string& key, float fallback, double low, bool low_inclusive,
                   double high = std::numeric_limits<double>::infinity()) const {
        return static_cast<float>(number_in(key, fallback, low, low_inclusive, high));
    }

    // Whole numbers: integers, or floats with no fraction (64.0), within [minimum, int's range].
    long long whole(const std::string& key, long long fallback, long long minimum,
                    long long maximum = std::numeric_limits<int>::max()) const {
        if (!has(key)) return fallback;
        const json& value = at(key);
        if (!is_whole(value)) fail(key, "a whole number");
        if (value.is_number_unsigned() && value.get<unsigned long long>() > static_cast<unsigned long long>(maximum))
            fail(key, "a whole number of at most " + std::to_string(maximum));
        const long double number = value.get<long double>();
        if (number < static_cast<long double>(minimum))
            fail(key, "a whole number of at least " + std::to_string(minimum));
        if (number > static_cast<long double>(maximum))
            fail(key, "a whole number of at most " + std::to_string(maximum));
        return value.is_number_integer() ? value.get<long long>() : static_cast<long long>(number);
    }

    int whole_int(const std::string& key, int fallback, int minimum) const {
        return static_cast<int>(whole(key, fallback, minimum));
    }

    // [height, width] or one number for both.
    std::pair<int, int> pair(const std::string& key, std::pair<int, int> fallback, const std::string& what) const {
        if (!has(key)) return fallback;
        const json& value = at(key);
        const std::string expected =
            "a whole number of at least 1 or a list of two of them ([" + what + "]), not " + shown(value);
        auto valid = [](const json& item) {
            return is_whole(item) && item.get<double>() >= 1 && item.get<double>() <= std::numeric_limits<int>::max();
        };
        if (valid(value)) return {value.get<int>(), value.get<int>()};
        if (value.is_array() && value.size() == 2 && valid(value[0]) && valid(value[1]))
            return {value[0].get<int>(), value[1].get<int>()};
        throw ProjectError(source_, path(key) + " must be " + expected);
    }

    // A word from a fixed list; `what` names the kind in the message ("a padding").
    template <typename Enum, typename Lookup>
    Enum choice(const std::string& key, Enum fallback, Lookup lookup, const std::string& what,
                const std::string& choices) const {
        if (!has(key)) return fallback;
        const json& value = at(key);
        if (value.is_string())
            if (auto found = lookup(value.get<std::string>())) return *found;
        // Appended, not "'" + text + "'": GCC 12 warns falsely (-Wrestrict) on that once inlined.
        std::string written = "'";
        if (value.is_string())
            written.append(value.get<std::string>()).append("'");
        else
            written = shown(value);
        throw ProjectError(source_,
                           path(key) + " is " + written + ", which is not " + what + "; the choices are " + choices);
    }

    // A nested object (absent: an empty one, so every field inside takes its default).
    Fields object(const std::string& key) const {
        static const json empty = json::object();
        if (!has(key)) return Fields(source_, empty, path(key));
        if (!at(key).is_object()) fail(key, "an object ({...})");
        return Fields(source_, at(key), path(key));
    }

private:
    static bool is_whole(const json& value) {
        if (value.is_number_integer()) return true;
        if (!value.is_number_float()) return false;
        const double number = value.get<double>();
        return std::isfinite(number) && number == std::floor(number);
    }

    static std::string number_text(double value) {
        std::ostringstream out;
        out << value;
        return out.str();
    }

    static std::string range_words(double low, bool low_inclusive, double high) {
        std::string words = "a number ";
        if (std::isinf(high)) return words + (low_inclusive ? "of at least " : "above ") + number_text(low);
        return words + "from " + number_text(low) + (low_inclusive ? "" : " (not included)") + " up to " +
               number_text(high) + " (not included)";
    }

    const std::string& source_;
    const json& object_;
    std::string path_;
};

// More values than any project holds (a large one has a few thousand). Counted while parsing:
// 16 MiB of "[0,0,0..." would otherwise become 8 million values and hundreds of MB, and a parse
// that runs out of memory half-way can abort the process in nlohmann::json's destructor.
constexpr std::size_t kMostValues = 1'000'000;

json parse_json(std::string_view text, const std::string& source) {
    std::size_t values = 0;
    const json::parser_callback_t count = [&](int, json::parse_event_t event, json&) {
        if (event == json::parse_event_t::value && ++values > kMostValues)
            throw ProjectError(source, "holds more than " + std::to_string(kMostValues) +
                                           " values, far more than any project; is it the right file?");
        return true;
    };
    try {
        return json::parse(text.begin(), text.end(), count);
    } catch (const json::parse_error& error) {
        const io::JsonDamage damage = io::json_damage(text, error);
        throw ProjectError(source, "is not valid JSON (line " + std::to_string(damage.line) + ", column " +
                                       std::to_string(damage.column) + ": " + damage.what + ")");
    }
}

void check_format_and_version(const json& document, const std::string& source) {
    const std::string not_ours = "is not a Backprop Studio project (no \"format\": \"backprop-studio-project\")";
    if (!document.is_object() || !document.contains("format") || document["format"] != format::format_tag)
        throw ProjectError(source, not_ours);
    if (!document.contains("version"))
        throw ProjectError(source, "has no \"version\"; a project file says which version of the format it uses");
    const Fields top(source, document, "");
    const long long version = top.whole("version", 0, 1, std::numeric_limits<long long>::max());
    if (version > project_format_version)
        throw ProjectError(source, "was saved by a newer Backprop Studio (project version " + std::to_string(version) +
                                       "); this version opens version " + std::to_string(project_format_version) +
                                       " and older");
}

// One node's parameters into `layer`; missing ones keep LayerSpec's defaults.
void read_params(const Fields& params, model::LayerSpec& layer) {
    using model::LayerType;
    auto initializer = [&] {
        return params.choice("initializer", train::Initializer::he_uniform, train::initializer_from_name,
                             "an initializer", format::initializer_choices());
    };
    auto require = [&](const std::string& key, const std::string& example) {
        if (!params.has(key)) throw ProjectError(params.source(), params.path(key) + " is missing; give " + example);
    };
    switch (layer.type) {
        case LayerType::dense:
            require("units", "the number of outputs, e.g. \"units\": 128");
            layer.units = params.whole_int("units", 0, 1);
            layer.initializer = initializer();
            break;
        case LayerType::conv2d: {
            require("filters", "the number of output channels, e.g. \"filters\": 32");
            layer.units = params.whole_int("filters", 0, 1);
            const auto kernel = params.pair("kernel", {layer.conv.kernel_h, layer.conv.kernel_w}, "height, width");
            const auto stride = params.pair("stride", {layer.conv.stride_h, layer.conv.stride_w}, "height, width");
            layer.conv.kernel_h = kernel.first;
            layer.conv.kernel_w = kernel.second;
            layer.conv.stride_h = stride.first;
            layer.conv.stride_w = stride.second;
            layer.conv.padding = params.choice("padding", layer.conv.padding, format::padding_from, "a padding",
                                               format::padding_choices());
            layer.initializer = initializer();
            break;
        }
        case LayerType::max_pool:
        case LayerType::avg_pool: {
            const auto size = params.pair("size", {layer.pool.size_h, layer.pool.size_w}, "height, width");
            const auto stride = params.pair("stride", size, "height, width");  // Keras: the stride is the size
            layer.pool = model::PoolGeometry{size.first, size.second, stride.first, stride.second};
            break;
        }
        case LayerType::activation:
            layer.activation = params.choice("activation", layer.activation, format::activation_from, "an activation",
                                             format::activation_choices());
            layer.slope = static_cast<float>(params.number("slope", layer.slope));
            break;
        case LayerType::dropout:
            layer.rate = params.number_f("rate", layer.rate, 0.0, true, 1.0);
            break;
        case LayerType::batch_norm:
            layer.momentum = params.number_f("momentum", layer.momentum, 0.0, true, 1.0);
            layer.epsilon = params.number_f("epsilon", layer.epsilon, 0.0, false);
            break;
        default:
            break;  // Input, Flatten, GlobalAveragePooling2D, Add, Concatenate have no parameters
    }
}

void read_network(const Fields& network, Project& project) {
    const std::string& source = network.source();
    // Every connection is an edge: a node with none into it is unconnected, for the report to name.
    project.network.explicit_inputs = true;
    project.network.loss =
        network.choice("loss", project.network.loss, format::loss_from, "a loss", format::loss_choices());
    if (!network.has("nodes")) throw ProjectError(source, "has no network.nodes; a project needs at least an Input");
    const json& nodes = network.at("nodes");
    if (!nodes.is_array()) network.fail("nodes", "a list ([...])");

    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const std::string where = "network.nodes[" + std::to_string(i) + "]";
        const json& node = nodes[i];
        if (!node.is_object())
            throw ProjectError(source,
                               where + " must be an object ({\"name\": ..., \"type\": ...}), not " + shown(node));
        const Fields fields(source, node, where);
        if (!fields.has("name")) throw ProjectError(source, where + " has no \"name\"; every node needs a unique name");
        model::LayerSpec layer;
        layer.name = fields.text("name", "");
        if (layer.name.empty())
            throw ProjectError(source, where + " has an empty name; every node needs a unique name");
        const std::string named = where + " ('" + layer.name + "')";
        for (std::size_t j = 0; j < i; ++j)
            if (project.network.layers[j].name == layer.name)
                throw ProjectError(source, named + " has the same name as network.nodes[" + std::to_string(j) +
                                               "]; node names must be unique");
        if (!fields.has("type"))
            throw ProjectError(source, named + " has no \"type\"; the types are " + format::layer_type_choices());
        const json& type = fields.at("type");
        const auto found = type.is_string() ? format::layer_type_from(type.get<std::string>()) : std::nullopt;
        if (!found)
            throw ProjectError(
                source, named + " has type " + (type.is_string() ? "'" + type.get<std::string>() + "'" : shown(type)) +
                            ", which is not a layer type; the types are " + format::layer_type_choices());
        layer.type = *found;
        // Parameter messages name the node first: "network.nodes[2] ('fc1'): params.units ...".
        if (fields.has("params") && !fields.at("params").is_object()) fields.fail("params", "an object ({...})");
        static const json no_params = json::object();
        read_params(Fields(source, fields.has("params") ? fields.at("params") : no_params, named + ": params"), layer);
        const Fields position = fields.object("position");
        const model::CanvasPosition fallback = format::default_position(i);
        layer.position = model::CanvasPosition{position.number("x", fallback.x), position.number("y", fallback.y)};
        project.network.layers.push_back(std::move(layer));
    }

    if (!network.has("edges")) return;
    const json& edges = network.at("edges");
    if (!edges.is_array()) network.fail("edges", "a list ([...])");
    auto index_of = [&](const std::string& name) -> int {
        for (std::size_t i = 0; i < project.network.layers.size(); ++i)
            if (project.network.layers[i].name == name) return static_cast<int>(i);
        return -1;
    };
    for (std::size_t i = 0; i < edges.size(); ++i) {
        const std::string where = "network.edges[" + std::to_string(i) + "]";
        const json& edge = edges[i];
        if (!edge.is_object())
            throw ProjectError(source, where + " must be an object ({\"from\": ..., \"to\": ...}), not " + shown(edge));
        const Fields fields(source, edge, where);
        for (const char* end : {"from", "to"})
            if (!fields.has(end)) throw ProjectError(source, where + " has no \"" + end + "\"");
        const std::string from = fields.text("from", "");
        const std::string to = fields.text("to", "");
        if (index_of(from) < 0) throw ProjectError(source, where + " goes from '" + from + "', which is not a node");
        if (index_of(to) < 0) throw ProjectError(source, where + " goes to '" + to + "', which is not a node");
        project.network.layers[static_cast<std::size_t>(index_of(to))].inputs.push_back(from);
    }
}

void read_dataset(const Fields& fields, Project& project) {
    DatasetSettings& dataset = project.dataset;
    dataset.folder = fields.text("folder", dataset.folder);
    // A project on an image folder names no catalogue dataset.
    dataset.name = fields.text("name", dataset.folder.empty() ? dataset.name : "");
    const std::string& source = fields.source();
    if (!dataset.name.empty() && !dataset.folder.empty())
        throw ProjectError(source, "dataset has both a name ('" + dataset.name + "') and a folder ('" + dataset.folder +
                                       "'); keep one of them");
    if (dataset.name.empty() && dataset.folder.empty())
        throw ProjectError(source, "dataset has neither a name nor a folder; give a \"name\" (one of " +
                                       datasets::catalogue_ids() + ") or the \"folder\" of your images");
    const auto size = fields.pair("image_size", {dataset.height, dataset.width}, "height, width");
    dataset.height = size.first;
    dataset.width = size.second;
    dataset.channels = fields.whole_int("channels", dataset.channels, 1);
    dataset.validation_fraction = fields.number_in("validation_fraction", dataset.validation_fraction, 0.0, true, 1.0);
    dataset.normalize = fields.boolean("normalize", dataset.normalize);
    dataset.shuffle = fields.boolean("shuffle", dataset.shuffle);
    const Fields augmentation = fields.object("augmentation");
    dataset.augmentation.random_crop = augmentation.boolean("random_crop", dataset.augmentation.random_crop);
    dataset.augmentation.crop_padding = augmentation.whole_int("crop_padding", dataset.augmentation.crop_padding, 0);
    dataset.augmentation.horizontal_flip =
        augmentation.boolean("horizontal_flip", dataset.augmentation.horizontal_flip);

    // The network's input is the dataset's image: the catalogue knows its datasets' shapes.
    datasets::ImageShape shape{dataset.channels, dataset.height, dataset.width};
    if (!dataset.name.empty()) {
        try {
            const datasets::CatalogueEntry& entry = datasets::catalogue_entry(dataset.name);
            dataset.name = entry.id;
            shape = entry.shape;
            // The size fields are for image folders; left out, they show the catalogue's size.
            if (!fields.has("image_size") && !fields.has("channels")) {
                dataset.height = shape.height;
                dataset.width = shape.width;
                dataset.channels = shape.channels;
            }
        } catch (const std::invalid_argument&) {
            throw ProjectError(source, "dataset.name is '" + dataset.name +
                                           "', which is not a dataset Backprop Studio knows; the choices are " +
                                           datasets::catalogue_ids() + " (or give the \"folder\" of your images)");
        }
    }
    project.network.input = Shape{1, shape.channels, shape.height, shape.width};
}

void read_training(const Fields& fields, TrainingSettings& training) {
    training.epochs = fields.whole_int("epochs", training.epochs, 1);
    training.batch_size = fields.whole_int("batch_size", training.batch_size, 1);
    training.seed = static_cast<std::uint64_t>(
        fields.whole("seed", static_cast<long long>(training.seed), 0, std::numeric_limits<long long>::max()));

    const Fields optimizer = fields.object("optimizer");
    train::OptimizerSettings& settings = training.optimizer;
    settings.kind =
        optimizer.choice("type", settings.kind, format::optimizer_from, "an optimizer", format::optimizer_choices());
    const double rate = optimizer.number("learning_rate", settings.learning_rate);
    if (!train::learning_rate_accepted(rate))
        optimizer.fail("learning_rate", std::string("a number ") + train::learning_rate_range);
    settings.learning_rate = static_cast<float>(rate);
    settings.momentum = optimizer.number_f("momentum", settings.momentum, 0.0, true, 1.0);
    settings.nesterov = optimizer.boolean("nesterov", settings.nesterov);
    settings.weight_decay = optimizer.number_f("weight_decay", settings.weight_decay, 0.0, true);
    settings.beta1 = optimizer.number_f("beta1", settings.beta1, 0.0, true, 1.0);
    settings.beta2 = optimizer.number_f("beta2", settings.beta2, 0.0, true, 1.0);
    settings.epsilon = optimizer.number_f("epsilon", settings.epsilon, 0.0, false);

    const Fields schedule = fields.object("schedule");
    train::Schedule& plan = training.schedule;
    plan.kind = schedule.choice("type", plan.kind, format::schedule_from, "a schedule", format::schedule_choices());
    plan.step_size = schedule.whole_int("step_size", plan.step_size, 1);
    plan.gamma = schedule.number_f("gamma", plan.gamma, 0.0, false);
    plan.total_epochs = schedule.whole_int("total_epochs", plan.total_epochs, 1);
    plan.min_rate = schedule.number_f("min_rate", plan.min_rate, 0.0, true);
}

}  // namespace

Project parse_project(std::string_view text, const std::string& source) {
    Project project;
    project.document = parse_json(text, source);
    check_format_and_version(project.document, source);

    const Fields top(source, project.document, "");
    project.name = top.text("name", project.name);
    project.description = top.text("description", project.description);
    project.device = top.text("device", project.device);
    if (!top.has("network")) throw ProjectError(source, "has no \"network\"; a project needs at least an Input node");
    read_network(top.object("network"), project);
    read_dataset(top.object("dataset"), project);
    read_training(top.object("training"), project.training);
    return project;
}

Project read_project(const std::filesystem::path& file) {
    const io::InputKind kind = io::input_kind(file);
    if (kind == io::InputKind::missing) throw ProjectError(file.string(), "the file does not exist");
    if (kind == io::InputKind::folder) throw ProjectError(file.string(), "is a folder, not a project file");
    if (kind == io::InputKind::special) throw ProjectError(file.string(), io::special_file_problem);
    io::BoundedText read = io::read_bounded_text(file, max_project_file_bytes);
    if (read.outcome == io::TextRead::unreadable)
        throw ProjectError(file.string(), "could not be read; check that you may read it");
    if (read.outcome == io::TextRead::too_large)
        throw ProjectError(file.string(), "is larger than " + io::size_cap_words(max_project_file_bytes) +
                                              ", far more than any project file; is it the right file?");
    try {
        return parse_project(read.text, file.string());
    } catch (const std::bad_alloc&) {
        throw ProjectError(file.string(), "could not be read: its " + std::to_string(read.text.size()) +
                                              " bytes need more memory than this computer can give");
    }
}

}  // namespace bps::project
