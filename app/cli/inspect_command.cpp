// backprop inspect: what a trained network does with one image: its prediction, every layer's
// output (figures, and PNG grids with --activations), which parts of the image its answer depends
// on (--occlusion) and the saliency of its class score (--saliency).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/file_clashes.h"
#include "app/cli/predictor_argument.h"
#include "app/cli/printable.h"
#include "datasets/dataset.h"
#include "engine/base/picture.h"
#include "engine/io/weights_file.h"
#include "engine/runs/reports.h"

namespace bps::cli {

const char* const inspect_help =
    "usage: backprop inspect WEIGHTS.h5 IMAGE [options]\n"
    "       backprop inspect PROJECT --weights FILE IMAGE [options]\n"
    "\n"
    "Shows what a trained network does with one PNG or JPEG image: its three most probable classes,\n"
    "and every layer's output shape with the smallest, largest and mean value and the share of zeros.\n"
    "The image is scaled to the size the network was trained on, as the dataset's images were.\n"
    "\n"
    "options:\n"
    "  --layer NAME         only this layer (with --json its values too)\n"
    "  --activations DIR    one PNG per layer in DIR: every channel as a tile, each scaled to its own\n"
    "                       range (black its smallest value, white its largest)\n"
    "  --occlusion FILE     a PNG of how much the class's probability drops where a grey patch\n"
    "                       covers the image (red: the answer depends on it; blue: it counts against)\n"
    "  --patch N            the occlusion patch's side in pixels (default 4)\n"
    "  --stride N           how far the patch moves each step (default 2)\n"
    "  --saliency FILE      a PNG of the gradient of the class's score with respect to each pixel\n"
    "                       (red where a small change moves the score most)\n"
    "  --class NAME|INDEX   the class for --occlusion and --saliency (default: the most probable)\n"
    "  --device INDEX|NAME  the OpenCL device (as `backprop devices` lists them)\n"
    "  --json               one JSON object with every figure (and the occlusion drops)\n"
    "\n"
    "A layer the network lacks, an unreadable image or weights of another network are refused with\n"
    "the name at fault (exit status 2). No output may replace the image or the weights.\n";

namespace {

// The pictures are drawn at least this many pixels on a side, so that 28x28 stays readable.
constexpr int picture_side = 256;

struct LayerFigures {
    float min = 0, max = 0, mean = 0, zero_fraction = 0;
};

LayerFigures figures_of(const std::vector<float>& values) {
    LayerFigures figures;
    if (values.empty()) return figures;
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    figures.min = *low;
    figures.max = *high;
    double sum = 0;
    std::size_t zeros = 0;
    for (float v : values) {
        sum += v;
        zeros += v == 0.0f ? 1 : 0;
    }
    figures.mean = static_cast<float>(sum / static_cast<double>(values.size()));
    figures.zero_fraction = static_cast<float>(static_cast<double>(zeros) / static_cast<double>(values.size()));
    return figures;
}

std::string shape_text(const session::LayerOutput& layer) {
    if (layer.height == 1 && layer.width == 1) return std::to_string(layer.channels);
    return std::to_string(layer.channels) + "x" + std::to_string(layer.height) + "x" + std::to_string(layer.width);
}

// "--class Shirt" or "--class 6".
int class_of(const std::string& text, const std::vector<std::string>& names) {
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == text) return static_cast<int>(i);
    if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos && text.size() < 6) {
        const int index = std::stoi(text);
        if (index < static_cast<int>(names.size())) return index;
    }
    std::string known;
    for (const std::string& name : names) known += (known.empty() ? "" : ", ") + name;
    throw UsageError("--class '" + text + "' is not one of the network's classes (" + known +
                     ") or an index from 0 to " + std::to_string(names.size() - 1));
}

// "03-pool1.png": in execution order, with the layer's name made safe for any file system.
std::string picture_name(std::size_t index, const std::string& layer) {
    std::string safe;
    for (char c : layer) safe += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
    std::ostringstream name;
    name << std::setw(2) << std::setfill('0') << index << "-" << safe << ".png";
    return name.str();
}

// The largest |value| of each pixel over the channels: a saliency map of the image's size.
std::vector<float> strongest_per_pixel(const std::vector<float>& values, const datasets::ImageShape& shape) {
    std::vector<float> map(shape.plane(), 0.0f);
    for (std::size_t i = 0; i < values.size(); ++i)
        map[i % shape.plane()] = std::max(map[i % shape.plane()], std::fabs(values[i]));
    return map;
}

// Input problems end the command with status 2 and the name at fault, without the help text.
class BadInput : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

int inspect(Arguments& arguments) {
    const std::optional<std::string> weights_file = arguments.take_option("--weights");
    const std::optional<std::string> device_flag = arguments.take_option("--device");
    const std::optional<std::string> layer_flag = arguments.take_option("--layer");
    const std::optional<std::string> activations_dir = arguments.take_file_option("--activations");
    const std::optional<std::string> occlusion_file = arguments.take_file_option("--occlusion");
    const std::optional<std::string> saliency_file = arguments.take_file_option("--saliency");
    const std::optional<std::string> class_flag = arguments.take_option("--class");
    const int patch = arguments.take_whole_number("--patch").value_or(4);
    const int stride = arguments.take_whole_number("--stride").value_or(2);
    const bool json = arguments.take_flag("--json");
    std::vector<std::string> words = arguments.take_words();
    arguments.expect_nothing_left();
    if (words.empty()) throw UsageError("which weights? Give a weights file, or a project with --weights FILE");
    if (words.size() == 1) throw UsageError("give the image file to inspect");
    if (words.size() > 2) throw UsageError("inspect takes one image; give '" + words[1] + "' alone");
    const std::filesystem::path image_file = words[1];

    const OpenedProject opened = open_project(words[0]);
    const std::filesystem::path weights = weights_file ? std::filesystem::path(*weights_file) : opened.weights_file;
    const std::vector<NamedFile> inputs = {
        {image_file, "the image"}, {weights, "the weights file"}, {opened.project_file, "the project file"}};
    std::vector<NamedFile> outputs;
    if (occlusion_file) outputs.push_back({*occlusion_file, "--occlusion"});
    if (saliency_file) outputs.push_back({*saliency_file, "--saliency"});
    refuse_clashing_files(outputs, inputs, "picture");

    session::Predictor predictor = open_predictor(opened, weights_file, device_flag);
    const session::ModelCard& card = predictor.card();
    const session::ImageForPredictor image = session::read_image_for(card, image_file);
    if (!image.adjusted.empty() && !json)
        std::cerr << "note: " << image_file.string() << ": " << image.adjusted << "\n";
    std::optional<int> chosen;
    if (class_flag) chosen = class_of(*class_flag, card.class_names);
    const int smaller_side = std::min(card.shape.height, card.shape.width);
    if (occlusion_file && patch > smaller_side)
        throw UsageError("--patch " + std::to_string(patch) + " is larger than the network's " +
                         std::to_string(card.shape.width) + "x" + std::to_string(card.shape.height) +
                         " images; give 1 to " + std::to_string(smaller_side));

    const std::vector<float> probabilities = predictor.predict(image.pixels).front();
    const std::vector<session::ClassScore> top = session::top_classes(probabilities, 3);
    const int label = chosen ? *chosen : top.front().label;
    std::vector<std::string> wanted;
    if (layer_flag) wanted.push_back(*layer_flag);
    std::vector<session::LayerOutput> layers;
    try {
        layers = predictor.activations(image.pixels, wanted);
    } catch (const std::invalid_argument& error) {
        throw BadInput(std::string("--layer: ") + error.what());
    }
    // Every layer's picture is named now, so that none is written before all are known to be safe.
    std::vector<std::filesystem::path> pictures;
    if (activations_dir) {
        for (std::size_t i = 0; i < layers.size(); ++i) {
            pictures.push_back(std::filesystem::path(*activations_dir) / picture_name(i, layers[i].name));
            outputs.push_back({pictures.back(), "--activations"});
        }
        refuse_clashing_files(outputs, inputs, "picture");
    }

    nlohmann::json report = {{"file", image_file.string()}, {"probabilities", probabilities}};
    if (!image.adjusted.empty()) report["adjusted"] = image.adjusted;
    for (const session::ClassScore& score : top)
        report["top"].push_back(
            {{"class", card.class_names[static_cast<std::size_t>(score.label)]}, {"probability", score.probability}});

    std::ostringstream text;
    text << image_file.string() << ":";
    const char* separator = " ";
    for (const session::ClassScore& score : top) {
        text << separator << printable(card.class_names[static_cast<std::size_t>(score.label)]) << " " << std::fixed
             << std::setprecision(3) << score.probability;
        separator = ", ";
    }
    text << "\n\n"
         << std::left << std::setw(20) << "layer" << std::setw(18) << "type" << std::setw(14) << "output" << std::right
         << std::setw(11) << "min" << std::setw(11) << "max" << std::setw(11) << "mean" << std::setw(8) << "zeros"
         << "\n";
    if (activations_dir) std::filesystem::create_directories(*activations_dir);
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const session::LayerOutput& layer = layers[i];
        const LayerFigures figures = figures_of(layer.values);
        nlohmann::json entry = {{"name", layer.name},
                                {"type", model::layer_type_name(layer.type)},
                                {"shape", {layer.channels, layer.height, layer.width}},
                                {"min", figures.min},
                                {"max", figures.max},
                                {"mean", figures.mean},
                                {"zero_fraction", figures.zero_fraction}};
        if (layer_flag) entry["values"] = layer.values;
        if (activations_dir) {
            const std::filesystem::path& file = pictures[i];
            const int scale = io::scale_for(std::max(layer.height, layer.width), picture_side / 4);
            io::write_png(file, io::activation_grid(layer.channels, layer.height, layer.width, layer.values, scale));
            entry["picture"] = file.string();
        }
        report["layers"].push_back(entry);
        text << std::left << std::setw(20) << printable(layer.name) << std::setw(18)
             << model::layer_type_name(layer.type) << std::setw(14) << shape_text(layer) << std::right
             << std::setprecision(3) << std::setw(11) << figures.min << std::setw(11) << figures.max << std::setw(11)
             << figures.mean << std::setw(7) << std::setprecision(0) << figures.zero_fraction * 100 << "%\n";
    }
    if (activations_dir)
        text << "\nactivations: " << layers.size() << (layers.size() == 1 ? " picture" : " pictures") << " in "
             << *activations_dir << "\n";

    const datasets::ImageShape& shape = card.shape;
    const int scale = io::scale_for(std::max(shape.height, shape.width), picture_side);
    const std::string class_name = card.class_names[static_cast<std::size_t>(label)];
    if (occlusion_file) {
        session::OcclusionMap map;
        try {
            map = predictor.occlusion(image.pixels, patch, stride, label);
        } catch (const std::invalid_argument& error) {
            throw UsageError(std::string("--patch: ") + error.what());
        }
        io::write_png(*occlusion_file, io::heatmap_overlay(shape.channels, shape.height, shape.width, image.pixels,
                                                           map.pixel_drops(shape.height, shape.width), scale));
        const auto largest = std::max_element(map.drops.begin(), map.drops.end());
        const auto at = static_cast<int>(largest - map.drops.begin());
        report["occlusion"] = {{"class", class_name}, {"probability", map.probability},
                               {"patch", map.patch},  {"stride", map.stride},
                               {"rows", map.rows},    {"columns", map.columns},
                               {"drops", map.drops},  {"picture", *occlusion_file}};
        text << "occlusion of " << class_name << " (probability " << std::setprecision(3) << map.probability
             << ", patch " << patch << ", stride " << stride << ", " << map.rows << "x" << map.columns
             << " positions): " << *occlusion_file << "; the largest drop, " << *largest << ", with the patch at x "
             << (at % map.columns) * stride << ", y " << (at / map.columns) * stride << "\n";
    }
    if (saliency_file) {
        const session::InputGradient gradient = predictor.input_gradient(image.pixels, label);
        io::write_png(*saliency_file, io::heatmap_overlay(shape.channels, shape.height, shape.width, image.pixels,
                                                          strongest_per_pixel(gradient.values, shape), scale));
        report["saliency"] = {{"class", class_name}, {"score", gradient.score}, {"picture", *saliency_file}};
        text << "saliency of " << class_name << " (score " << std::setprecision(3) << gradient.score
             << "): " << *saliency_file << "\n";
    }
    if (json)
        std::cout << report.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else
        std::cout << text.str();
    return exit_ok;
}

}  // namespace

int run_inspect(Arguments& arguments) {
    try {
        return inspect(arguments);
    } catch (const BadInput& error) {
        std::cerr << "backprop inspect: error: " << error.what() << "\n";
        return exit_usage;
    } catch (const datasets::DatasetError& error) {
        std::cerr << "backprop inspect: error: " << error.what() << "\n";
        return exit_usage;
    } catch (const io::WeightsFileError& error) {
        std::cerr << "backprop inspect: error: " << error.what() << "\n";
        return exit_usage;
    } catch (const project::ProjectError& error) {
        std::cerr << "backprop inspect: error: " << error.what() << "\n";
        return exit_usage;
    }
}

}  // namespace bps::cli
