// The structure checks: what the network and its settings are, instantly and without training.
// Each failure names the node at fault, so the studio can point at it.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "engine/base/number_text.h"
#include "engine/course/check_parts.h"
#include "engine/project/project_data.h"

namespace bps::course::detail {

namespace {

using model::LayerSpec;

// The layers that run, in execution order (every layer when the network builds).
std::vector<const LayerSpec*> layers_in_order(const NetworkFacts& facts) {
    std::vector<const LayerSpec*> layers;
    for (const int index : facts.report.execution_order)
        layers.push_back(&facts.spec.layers[static_cast<std::size_t>(index)]);
    return layers;
}

bool is_type(const LayerSpec& layer, const std::string& type) {
    return same_words(model::layer_type_name(layer.type), type);
}

std::string type_list(const std::vector<const LayerSpec*>& layers) {
    std::string text;
    for (const LayerSpec* layer : layers) {
        if (!text.empty()) text += ", ";
        text += model::layer_type_name(layer->type);
    }
    return text.empty() ? "no layers" : text;
}

std::string words_list(const std::vector<std::string>& words) {
    std::string text;
    for (const std::string& word : words) {
        if (!text.empty()) text += ", ";
        text += word;
    }
    return text;
}

// "a Conv2D layer", "an Activation layer", "2 Dense layers"
std::string layers_of(std::size_t count, const std::string& type, bool article = true) {
    const bool vowel = !type.empty() && std::string("AEIOU").find(type.front()) != std::string::npos;
    if (count == 1) return (article ? (vowel ? "an " : "a ") : "1 ") + type + " layer";
    return std::to_string(count) + " " + type + " layers";
}

void at_node(CheckResult& result, const LayerSpec& layer) {
    result.node = layer.name;
    result.point_at = "node:" + layer.name;
}

std::size_t parameters_of(const NetworkFacts& facts, const LayerSpec* layer) {
    const auto index = static_cast<std::size_t>(layer - facts.spec.layers.data());
    return facts.report.nodes[index].parameters;
}

void has_layers(CheckResult& result, const Check& check, const NetworkFacts& facts) {
    const std::vector<const LayerSpec*> layers = layers_in_order(facts);
    // ["Dense", "Dense"] asks for two Dense layers: each type as many times as it is listed.
    std::vector<std::string> asked;
    for (const std::string& type : check.layers) {
        if (std::any_of(asked.begin(), asked.end(), [&](const std::string& seen) { return same_words(seen, type); }))
            continue;
        asked.push_back(type);
        const auto wanted =
            static_cast<std::size_t>(std::count_if(check.layers.begin(), check.layers.end(),
                                                   [&](const std::string& other) { return same_words(other, type); }));
        const auto found = static_cast<std::size_t>(
            std::count_if(layers.begin(), layers.end(), [&](const LayerSpec* layer) { return is_type(*layer, type); }));
        if (found >= wanted) continue;
        result.expected = layers_of(wanted, type);
        result.found = found == 0 ? "none" : std::to_string(found);
        fail(
            result, check,
            "Expected " + result.expected + "; found " + result.found + ". The network has " + type_list(layers) + ".");
        result.point_at = "dock:palette";
        return;
    }
    pass(result, check, "The network has " + words_list(check.layers) + ".");
}

void lacks_layers(CheckResult& result, const Check& check, const NetworkFacts& facts) {
    for (const LayerSpec* layer : layers_in_order(facts))
        for (const std::string& type : check.layers)
            if (is_type(*layer, type)) {
                result.expected = "no " + type;
                result.found = node_text(*layer);
                fail(result, check, node_text(*layer) + " is not allowed in this exercise.");
                at_node(result, *layer);
                return;
            }
    pass(result, check, "The network has no " + words_list(check.layers) + ".");
}

void layer_order(CheckResult& result, const Check& check, const NetworkFacts& facts) {
    const std::vector<const LayerSpec*> layers = layers_in_order(facts);
    result.expected = words_list(check.layers) + " in this order";
    // Each type matched at its earliest place after the previous one: a subsequence exists
    // exactly when this greedy walk finds one.
    std::size_t next = 0;
    const LayerSpec* previous = nullptr;
    for (const std::string& type : check.layers) {
        std::size_t at = next;
        while (at < layers.size() && !is_type(*layers[at], type)) ++at;
        if (at < layers.size()) {
            previous = layers[at];
            next = at + 1;
            continue;
        }
        const std::string start = "Expected the layers " + result.expected + "; found ";
        const std::string network = ". The network has " + type_list(layers) + ".";
        if (!previous) {
            result.found = "no " + type;
            fail(result, check, start + result.found + network);
            result.point_at = "dock:palette";
            return;
        }
        // One before the previous match is out of place; none at all needs adding after it.
        const LayerSpec* misplaced = nullptr;
        for (std::size_t i = 0; i + 1 < next; ++i)
            if (is_type(*layers[i], type)) misplaced = layers[i];
        if (misplaced) {
            result.found = node_text(*misplaced) + " before " + node_text(*previous);
            fail(result, check, start + result.found + network);
            at_node(result, *misplaced);
        } else {
            result.found = "no " + type + " after " + node_text(*previous);
            fail(result, check, start + result.found + network);
            at_node(result, *previous);
        }
        return;
    }
    pass(result, check, "The layers " + result.expected + ".");
}

std::string bound_text(const Check& check) {
    const auto number = [](double value) { return session::format_rate(value); };
    if (check.min && check.max) {
        if (*check.min == *check.max) return number(*check.min);
        return "between " + number(*check.min) + " and " + number(*check.max);
    }
    if (check.min) return "at least " + number(*check.min);
    if (check.max) return "at most " + number(*check.max);
    return "any number of";
}

bool within(const Check& check, double value) {
    return (!check.min || value >= *check.min) && (!check.max || value <= *check.max);
}

void layer_count(CheckResult& result, const Check& check, const NetworkFacts& facts) {
    std::vector<const LayerSpec*> counted;
    for (const LayerSpec* layer : layers_in_order(facts))
        if (check.layer_type.empty() ? layer->type != model::LayerType::input : is_type(*layer, check.layer_type))
            counted.push_back(layer);
    const std::string type = check.layer_type.empty() ? "" : check.layer_type + " ";
    const std::string bound = bound_text(check);
    const bool one = bound == "1" || (bound.size() > 2 && bound.compare(bound.size() - 2, 2, " 1") == 0);
    result.expected = bound + " " + type + (one ? "layer" : "layers");
    result.found = std::to_string(counted.size());
    if (within(check, static_cast<double>(counted.size()))) {
        pass(result, check,
             "The network has " + result.found + " " + type + (counted.size() == 1 ? "layer." : "layers."));
        return;
    }
    std::string message = "Expected " + result.expected + "; found " + result.found;
    if (!counted.empty()) {
        std::string names;
        for (const LayerSpec* layer : counted) names += (names.empty() ? "" : ", ") + layer->name;
        message += " (" + names + ")";
    }
    fail(result, check, message + ".");
    if (check.max && static_cast<double>(counted.size()) > *check.max)
        at_node(result, *counted.back());
    else
        result.point_at = "dock:palette";
}

void output_width(CheckResult& result, const Check& check, const NetworkFacts& facts) {
    const std::optional<int> wanted =
        check.value ? std::optional<int>(static_cast<int>(std::lround(*check.value))) : facts.classes;
    if (!wanted) {
        fail(result, check,
             "Expected one output per class; the classes of " + facts.data_title + " cannot be counted.");
        return;
    }
    const bool per_class = facts.classes && *facts.classes == *wanted;
    result.expected = std::to_string(*wanted) + " outputs" + (per_class ? ", one per class" : "");
    const LayerSpec& last = facts.spec.layers[static_cast<std::size_t>(*facts.report.output)];
    const Shape& shape = *facts.report.nodes[static_cast<std::size_t>(*facts.report.output)].output;
    const bool flat = shape.h == 1 && shape.w == 1;
    if (flat && shape.c == *wanted) {
        result.found = std::to_string(shape.c);
        pass(result, check, "The network ends in " + result.expected + ".");
        return;
    }
    if (!flat)
        result.found = node_text(last) + " gives " + shape.sample_text();
    else if (last.type == model::LayerType::dense)
        result.found = node_text(last) + " has " + std::to_string(shape.c) + (shape.c == 1 ? " unit" : " units");
    else
        result.found = node_text(last) + " gives " + std::to_string(shape.c);
    fail(result, check, "Expected " + result.expected + "; " + result.found + ".");
    at_node(result, last);
}

void max_parameters(CheckResult& result, const Check& check, const NetworkFacts& facts) {
    const auto limit = static_cast<std::uint64_t>(std::llround(check.value.value_or(0)));
    std::size_t total = 0;
    const LayerSpec* largest = nullptr;
    for (const LayerSpec* layer : layers_in_order(facts)) {
        total += parameters_of(facts, layer);
        if (!largest || parameters_of(facts, layer) > parameters_of(facts, largest)) largest = layer;
    }
    result.expected = "at most " + session::format_thousands(limit) + " parameters";
    result.found = session::format_thousands(total);
    if (total <= limit) {
        pass(result, check,
             "The network has " + result.found + " parameters, within " + session::format_thousands(limit) + ".");
        return;
    }
    fail(result, check,
         "The network has " + result.found + " parameters; the exercise allows at most " +
             session::format_thousands(limit) + ". The largest is " + node_text(*largest) + " with " +
             session::format_thousands(parameters_of(facts, largest)) + ".");
    at_node(result, *largest);
}

void max_layer_parameters(CheckResult& result, const Check& check, const NetworkFacts& facts) {
    const auto limit = static_cast<std::uint64_t>(std::llround(check.value.value_or(0)));
    // The largest layer over the limit is the one to name: shrinking it matters most.
    const LayerSpec* worst = nullptr;
    for (const LayerSpec* layer : layers_in_order(facts)) {
        if (!check.layer_type.empty() && !is_type(*layer, check.layer_type)) continue;
        if (parameters_of(facts, layer) <= limit) continue;
        if (!worst || parameters_of(facts, layer) > parameters_of(facts, worst)) worst = layer;
    }
    const std::string which = check.layer_type.empty() ? "every layer" : "every " + check.layer_type + " layer";
    result.expected = "at most " + session::format_thousands(limit) + " parameters per layer";
    if (!worst) {
        result.found = which + " within it";
        pass(result, check, "Every layer has at most " + session::format_thousands(limit) + " parameters.");
        return;
    }
    result.found = session::format_thousands(parameters_of(facts, worst));
    fail(result, check,
         node_text(*worst) + " has " + result.found + " parameters; the exercise allows at most " +
             session::format_thousands(limit) + ".");
    at_node(result, *worst);
}

// training_setting: each setting as learners call it, its value as text and as a number (when
// it is one), and the control that changes it.
struct Setting {
    std::string noun;
    std::string text;
    std::optional<double> number;
    std::string control;
};

const char* optimizer_word(train::OptimizerKind kind) {
    switch (kind) {
        case train::OptimizerKind::sgd:
            return "sgd";
        case train::OptimizerKind::adam:
            return "adam";
        case train::OptimizerKind::adamw:
            return "adamw";
    }
    return "?";
}

std::optional<Setting> setting_of(const project::Project& project, const std::string& name) {
    const auto on_off = [](bool on) { return std::string(on ? "on" : "off"); };
    const train::OptimizerSettings& optimizer = project.training.optimizer;
    if (name == "learning_rate")
        return Setting{"learning rate", session::format_rate(optimizer.learning_rate), optimizer.learning_rate,
                       "control:learning_rate"};
    if (name == "epochs")
        return Setting{"number of epochs", std::to_string(project.training.epochs), project.training.epochs,
                       "control:epochs"};
    if (name == "batch_size")
        return Setting{"batch size", std::to_string(project.training.batch_size), project.training.batch_size,
                       "control:batch_size"};
    if (name == "optimizer") return Setting{"optimizer", optimizer_word(optimizer.kind), {}, "control:optimizer"};
    if (name == "momentum")
        return Setting{"momentum", session::format_rate(optimizer.momentum), optimizer.momentum, "control:optimizer"};
    if (name == "validation_fraction")
        return Setting{"validation fraction", session::format_rate(project.dataset.validation_fraction),
                       project.dataset.validation_fraction, "control:validation_fraction"};
    if (name == "random_crop")
        return Setting{"random crop", on_off(project.dataset.augmentation.random_crop), {}, "control:augmentation"};
    if (name == "horizontal_flip")
        return Setting{
            "horizontal flip", on_off(project.dataset.augmentation.horizontal_flip), {}, "control:augmentation"};
    return std::nullopt;
}

void training_setting(CheckResult& result, const Check& check, const project::Project& project) {
    const std::optional<Setting> setting = setting_of(project, check.setting);
    if (!setting) {
        fail(result, check, "The exercise asks about '" + check.setting + "', which is not a training setting.");
        return;
    }
    result.point_at = setting->control;
    result.found = setting->text;
    bool ok = false;
    if (!check.equals.empty()) {
        // "true" and "false" read as the on and off of a switch.
        std::string wanted = check.equals;
        if (same_words(wanted, "true")) wanted = "on";
        if (same_words(wanted, "false")) wanted = "off";
        result.expected = wanted;
        if (setting->number) {
            char* end = nullptr;
            const double value = std::strtod(wanted.c_str(), &end);
            ok = end != wanted.c_str() && std::fabs(value - *setting->number) <= 1e-6 * std::max(1.0, std::fabs(value));
        } else {
            ok = same_words(wanted, setting->text);
        }
        if (ok) return pass(result, check, "The " + setting->noun + " is " + setting->text + ".");
        if (setting->number)
            return fail(result, check,
                        "Expected a " + setting->noun + " of " + wanted + "; found " + setting->text + ".");
        return fail(result, check,
                    "Expected the " + setting->noun + " to be " + wanted + "; found " + setting->text + ".");
    }
    result.expected = bound_text(check);
    ok = setting->number && within(check, *setting->number);
    if (ok) return pass(result, check, "The " + setting->noun + " is " + setting->text + ".");
    // "a learning rate between 0.005 and 0.2", "a batch size of at most 256"
    const std::string joint = check.min && check.max && *check.min != *check.max ? " " : " of ";
    fail(result, check, "Expected a " + setting->noun + joint + result.expected + "; found " + setting->text + ".");
}

}  // namespace

NetworkFacts network_facts(const project::Project& project) {
    NetworkFacts facts;
    datasets::ImageShape shape{project.dataset.channels, project.dataset.height, project.dataset.width};
    facts.data_title = project.dataset.folder.empty() ? project.dataset.name : project.dataset.folder;
    try {
        const session::DataFacts data = session::project_data_facts(project.dataset);
        shape = data.shape;
        facts.data_title = data.title;
        if (data.class_count > 0) facts.classes = static_cast<int>(data.class_count);
    } catch (const std::exception&) {
        // An image folder that is not there: its size is the project's, its classes unknown.
    }
    facts.spec = project::project_network(project, shape);
    facts.report = model::analyse_graph_report(facts.spec);
    return facts;
}

CheckResult structure_check(const std::string& step, const Check& check, const project::Project& project,
                            const NetworkFacts& facts) {
    CheckResult result = result_for(step, check);
    if (check.type == "training_setting") {
        training_setting(result, check, project);
        return result;
    }
    if (fail_unbuildable(result, facts)) return result;
    if (check.type == "has_layers")
        has_layers(result, check, facts);
    else if (check.type == "lacks_layers")
        lacks_layers(result, check, facts);
    else if (check.type == "layer_order")
        layer_order(result, check, facts);
    else if (check.type == "layer_count")
        layer_count(result, check, facts);
    else if (check.type == "output_width")
        output_width(result, check, facts);
    else if (check.type == "max_parameters")
        max_parameters(result, check, facts);
    else if (check.type == "max_layer_parameters")
        max_layer_parameters(result, check, facts);
    else
        fail(result, check, "This checker does not know the structure check '" + check.type + "'.");
    return result;
}

}  // namespace bps::course::detail
