// Writing a project file (the format is described in project_json_read.cpp). The output starts
// from the document the project was read from, so fields this version does not know survive; the
// known fields come first, in the order a learner reads them.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include "engine/base/atomic_file.h"
#include "engine/project/project.h"
#include "engine/project/project_format.h"
#include "engine/train/initializer.h"

namespace bps::project {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// A float as the shortest decimal that reads back as the same float: 0.01f is written 0.01, not
// 0.009999999776482582 (what its exact double value would print).
ordered_json float_value(float value) {
    char text[32];
    for (int digits = 6; digits <= 9; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
        if (std::strtof(text, nullptr) == value) break;
    }
    return std::strtod(text, nullptr);
}

ordered_json pair_value(int first, int second) {
    return ordered_json::array({first, second});
}

// `known` (the fields this version writes, in order) followed by the fields of `old` it does not
// know, as they were.
ordered_json merged(ordered_json known, const json& old) {
    if (!old.is_object()) return known;
    for (const auto& [key, value] : old.items())
        if (!known.contains(key)) known[key] = ordered_json::parse(value.dump());
    return known;
}

const json& member(const json& object, const char* key) {
    static const json none;
    return object.is_object() && object.contains(key) ? object[key] : none;
}

ordered_json params_of(const model::LayerSpec& layer) {
    using model::LayerType;
    ordered_json params = ordered_json::object();
    switch (layer.type) {
        case LayerType::dense:
            params["units"] = layer.units;
            params["initializer"] = train::initializer_name(layer.initializer);
            break;
        case LayerType::conv2d:
            params["filters"] = layer.units;
            params["kernel"] = pair_value(layer.conv.kernel_h, layer.conv.kernel_w);
            params["stride"] = pair_value(layer.conv.stride_h, layer.conv.stride_w);
            params["padding"] = format::padding(layer.conv.padding);
            params["initializer"] = train::initializer_name(layer.initializer);
            break;
        case LayerType::max_pool:
        case LayerType::avg_pool:
            params["size"] = pair_value(layer.pool.size_h, layer.pool.size_w);
            params["stride"] = pair_value(layer.pool.stride_h, layer.pool.stride_w);
            break;
        case LayerType::activation:
            params["activation"] = format::activation(layer.activation);
            params["slope"] = float_value(layer.slope);
            break;
        case LayerType::dropout:
            params["rate"] = float_value(layer.rate);
            break;
        case LayerType::batch_norm:
            params["momentum"] = float_value(layer.momentum);
            params["epsilon"] = float_value(layer.epsilon);
            break;
        default:
            break;
    }
    return params;
}

ordered_json network_json(const Project& project, const json& old) {
    // Old nodes by name, so unknown fields inside a node stay with that node.
    std::map<std::string, const json*> old_nodes;
    const json& old_list = member(old, "nodes");
    if (old_list.is_array())
        for (const json& node : old_list)
            if (node.is_object() && node.contains("name") && node["name"].is_string())
                old_nodes.emplace(node["name"].get<std::string>(), &node);

    const std::vector<model::LayerSpec>& layers = project.network.layers;
    ordered_json nodes = ordered_json::array();
    ordered_json edges = ordered_json::array();
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const model::LayerSpec& layer = layers[i];
        const auto found = old_nodes.find(layer.name);
        const json& old_node = found == old_nodes.end() ? json() : *found->second;
        const char* type = model::layer_type_name(layer.type);

        ordered_json node = ordered_json::object();
        node["name"] = layer.name;
        node["type"] = type;
        ordered_json params = params_of(layer);
        // Unknown parameters belong to the type they were written for; a changed type drops them.
        if (member(old_node, "type") == type) params = merged(std::move(params), member(old_node, "params"));
        if (!params.empty()) node["params"] = std::move(params);
        const model::CanvasPosition position = layer.position.value_or(format::default_position(i));
        node["position"] = merged(ordered_json{{"x", position.x}, {"y", position.y}}, member(old_node, "position"));
        nodes.push_back(merged(std::move(node), old_node));

        // A spec built in code may leave inputs implicit (the previous layer); a file says every edge.
        if (!layer.inputs.empty()) {
            for (const std::string& from : layer.inputs) edges.push_back({{"from", from}, {"to", layer.name}});
        } else if (layer.type != model::LayerType::input && i > 0 && !project.network.explicit_inputs) {
            edges.push_back({{"from", layers[i - 1].name}, {"to", layer.name}});
        }
    }
    ordered_json network = {{"loss", format::loss(project.network.loss)}, {"nodes", nodes}, {"edges", edges}};
    return merged(std::move(network), old);
}

ordered_json dataset_json(const DatasetSettings& dataset, const json& old) {
    const datasets::Augmentation& augmentation = dataset.augmentation;
    ordered_json augmented = {{"random_crop", augmentation.random_crop},
                              {"crop_padding", augmentation.crop_padding},
                              {"horizontal_flip", augmentation.horizontal_flip}};
    ordered_json fields = {{"name", dataset.name},
                           {"folder", dataset.folder},
                           {"image_size", pair_value(dataset.height, dataset.width)},
                           {"channels", dataset.channels},
                           {"validation_fraction", dataset.validation_fraction},
                           {"normalize", dataset.normalize},
                           {"shuffle", dataset.shuffle},
                           {"augmentation", merged(std::move(augmented), member(old, "augmentation"))}};
    return merged(std::move(fields), old);
}

ordered_json training_json(const TrainingSettings& training, const json& old) {
    const train::OptimizerSettings& settings = training.optimizer;
    ordered_json optimizer = {{"type", format::optimizer(settings.kind)},
                              {"learning_rate", float_value(settings.learning_rate)},
                              {"momentum", float_value(settings.momentum)},
                              {"nesterov", settings.nesterov},
                              {"weight_decay", float_value(settings.weight_decay)},
                              {"beta1", float_value(settings.beta1)},
                              {"beta2", float_value(settings.beta2)},
                              {"epsilon", float_value(settings.epsilon)}};
    const train::Schedule& plan = training.schedule;
    ordered_json schedule = {{"type", format::schedule(plan.kind)},
                             {"step_size", plan.step_size},
                             {"gamma", float_value(plan.gamma)},
                             {"total_epochs", plan.total_epochs},
                             {"min_rate", float_value(plan.min_rate)}};
    ordered_json fields = {{"epochs", training.epochs},
                           {"batch_size", training.batch_size},
                           {"seed", training.seed},
                           {"optimizer", merged(std::move(optimizer), member(old, "optimizer"))},
                           {"schedule", merged(std::move(schedule), member(old, "schedule"))}};
    return merged(std::move(fields), old);
}

}  // namespace

std::string project_to_json(const Project& project) {
    const json& old = project.document;
    ordered_json file = {{"format", format::format_tag},
                         {"version", project_format_version},
                         {"name", project.name},
                         {"description", project.description},
                         {"network", network_json(project, member(old, "network"))},
                         {"dataset", dataset_json(project.dataset, member(old, "dataset"))},
                         {"training", training_json(project.training, member(old, "training"))},
                         {"device", project.device}};
    // Text that is not UTF-8 (a folder named in another encoding) is replaced, never a failed save.
    return merged(std::move(file), old).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void save_project(const std::filesystem::path& file, const Project& project) {
    const std::string text = project_to_json(project);
    const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
    std::error_code error;
    if (std::filesystem::is_directory(file, error))
        throw ProjectError(file.string(), "is a folder; save the project under another name");
    if (!std::filesystem::is_directory(folder, error))
        throw ProjectError(file.string(), "could not be saved: the folder " + folder.string() + " does not exist");
    // A unique temporary beside the file, then a rename: a crash, a full disk or a second save at
    // the same moment never leaves half a project.
    try {
        io::save_atomically(file, text);
    } catch (const io::SaveProblem& problem) {
        throw ProjectError(file.string(), std::string("could not be saved: ") + problem.what());
    }
}

}  // namespace bps::project
