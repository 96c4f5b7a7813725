// The predictor's network is built once for a batch of occlusion positions, with every layer's
// own output kept and the input's gradient computed, on a device opened like a training job's.
#include "engine/session/predictor.h"

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "datasets/image_folder.h"
#include "engine/bench/self_test.h"
#include "engine/cl/device.h"
#include "engine/io/network_weights.h"
#include "engine/model/graph_report.h"
#include "engine/model/network.h"
#include "engine/ops/device_for_work.h"

namespace bps::session {

namespace {

// The network's memory for one batch of images stays near this, whatever the images' size: a
// 28x28 cnn gets about 200 occlusion positions per forward pass, a large network a few.
constexpr std::size_t batch_memory_bytes = std::size_t{64} << 20;
constexpr int largest_batch = 256;

std::string channels_text(int channels) {
    switch (channels) {
        case 1:
            return "grayscale";
        case 2:
            return "grayscale with alpha";
        case 3:
            return "RGB";
        case 4:
            return "RGBA";
        default:
            return std::to_string(channels) + " channels";
    }
}

// How many images one forward pass takes: activations and their gradients within the budget.
int batch_capacity(const project::Project& project, const ModelCard& card, const std::string& source) {
    const model::GraphReport report =
        project::project_report(project, card.shape, static_cast<int>(card.class_names.size()));
    if (!report.ok()) {
        const model::GraphProblem& first = report.problems.front();
        std::string problem = first.message;
        if (first.node)
            problem = "layer '" + project.network.layers[static_cast<std::size_t>(*first.node)].name + "': " + problem;
        throw project::ProjectError(source, problem);
    }
    std::size_t per_image = 0;
    for (const model::NodeReport& node : report.nodes) per_image += node.activation_bytes;
    const std::size_t fits = batch_memory_bytes / std::max<std::size_t>(2 * per_image, 1);
    return static_cast<int>(std::clamp<std::size_t>(fits, 1, largest_batch));
}

}  // namespace

std::vector<float> OcclusionMap::pixel_drops(int height, int width) const {
    std::vector<float> sums(static_cast<std::size_t>(height) * static_cast<std::size_t>(width), 0.0f);
    std::vector<int> covers(sums.size(), 0);
    for (int row = 0; row < rows; ++row)
        for (int column = 0; column < columns; ++column) {
            const float drop = drops[static_cast<std::size_t>(row * columns + column)];
            for (int y = row * stride; y < std::min(row * stride + patch, height); ++y)
                for (int x = column * stride; x < std::min(column * stride + patch, width); ++x) {
                    const std::size_t i =
                        static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x);
                    sums[i] += drop;
                    ++covers[i];
                }
        }
    for (std::size_t i = 0; i < sums.size(); ++i)
        if (covers[i] > 0) sums[i] /= static_cast<float>(covers[i]);
    return sums;
}

ImageForPredictor read_image_for(const ModelCard& card, const std::filesystem::path& file) {
    datasets::StoredImage stored;
    ImageForPredictor image;
    image.pixels = datasets::read_image_file(
        file, datasets::ImageFolderOptions{card.shape.height, card.shape.width, card.shape.channels}, &stored);
    const bool same_size = stored.width == card.shape.width && stored.height == card.shape.height;
    // Gray with alpha is taken as gray, and RGB with alpha as RGB, as the datasets take them.
    const int colour_channels = stored.channels == 2 ? 1 : stored.channels == 4 ? 3 : stored.channels;
    if (same_size && colour_channels == card.shape.channels) return image;
    image.adjusted = "scaled from " + std::to_string(stored.width) + "x" + std::to_string(stored.height) + " " +
                     channels_text(stored.channels) + " to " + std::to_string(card.shape.width) + "x" +
                     std::to_string(card.shape.height) + " " + channels_text(card.shape.channels) +
                     ", as the network's training images were";
    return image;
}

struct Predictor::State {
    PredictorSource source;
    std::unique_ptr<device::DeviceForWork> device;
    std::unique_ptr<model::Network> network;
    std::vector<LayerOutput> layers;  // shapes only
    std::size_t pixels = 0;           // per image
    int classes = 0;
    std::mutex mutex;  // one call at a time

    // Images as given, normalised as the network was trained.
    std::vector<float> normalized(std::span<const float> images) const {
        std::vector<float> values(images.begin(), images.end());
        const datasets::Normalization& n = source.card.normalization;
        if (n.mean.empty()) return values;
        const std::size_t plane = source.card.shape.plane();
        const std::size_t channels = static_cast<std::size_t>(source.card.shape.channels);
        for (std::size_t i = 0; i < values.size(); ++i) {
            const std::size_t c = (i / plane) % channels;
            values[i] = (values[i] - n.mean[c]) / n.stddev[c];
        }
        return values;
    }
    std::size_t image_count(std::span<const float> images, const char* what) const {
        if (images.empty() || images.size() % pixels != 0)
            throw std::invalid_argument(std::string(what) + ": " + std::to_string(images.size()) +
                                        " values are not whole images of " + source.card.shape.to_string());
        return images.size() / pixels;
    }
    void require_one(std::span<const float> image, const char* what) const {
        if (image_count(image, what) != 1)
            throw std::invalid_argument(std::string(what) + " takes one image of " + source.card.shape.to_string());
    }
    void require_label(int label, const char* what) const {
        if (label < 0 || label >= classes)
            throw std::invalid_argument(std::string(what) + ": class " + std::to_string(label) +
                                        " is outside the network's " + std::to_string(classes) + " classes");
    }
    // Probabilities of normalised images, a batch per forward pass.
    std::vector<float> probabilities(std::span<const float> images) {
        const std::size_t count = images.size() / pixels;
        const std::size_t batch = static_cast<std::size_t>(network->batch_size());
        std::vector<float> all;
        all.reserve(count * static_cast<std::size_t>(classes));
        for (std::size_t first = 0; first < count; first += batch) {
            const std::size_t n = std::min(batch, count - first);
            const std::vector<float> some =
                network->predict(images.subspan(first * pixels, n * pixels), static_cast<int>(n));
            all.insert(all.end(), some.begin(), some.end());
        }
        return all;
    }
};

PredictorSource Predictor::from_saved(const SavedWeights& weights, const project::Project& project) {
    PredictorSource source;
    source.card = card_of(weights);
    source.project = project;
    source.weights = weights_for_network(weights, project, source.card.shape);
    source.source = weights.file.string();
    return source;
}

PredictorSource Predictor::from_file(const std::filesystem::path& weights) {
    const SavedWeights saved = read_saved_weights(weights);
    return from_saved(saved, project_of(saved));
}

Predictor::Predictor(PredictorSource source, PredictorSetup setup) : state_(std::make_unique<State>()) {
    State& s = *state_;
    s.source = std::move(source);
    const ModelCard& card = s.source.card;
    const std::string name = s.source.source.empty() ? std::string("the weights") : s.source.source;
    // The network against its images first: nothing is built for one that cannot work.
    const int capacity = batch_capacity(s.source.project, card, name);
    const datasets::Normalization& normalization = card.normalization;
    if (!normalization.mean.empty() && (normalization.mean.size() != static_cast<std::size_t>(card.shape.channels) ||
                                        normalization.stddev.size() != normalization.mean.size()))
        throw std::invalid_argument(name +
                                    ": the model card's normalisation does not have one mean and deviation per "
                                    "channel of its " +
                                    card.shape.to_string() + " images");

    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    const cl::DeviceInfo device = devices.at(cl::select_device(devices, setup.device_request));
    s.device =
        std::make_unique<device::DeviceForWork>(device, device::DeviceOpening{setup.note, setup.building_kernels});
    ops::Runtime& runtime = s.device->runtime();
    device::test_before_first_use(device, runtime, setup.note);

    model::NetworkOptions options;
    options.every_output = true;
    options.input_gradient = true;
    s.network = std::make_unique<model::Network>(runtime, project::project_network(s.source.project, card.shape),
                                                 capacity, train::OptimizerSettings{}, 0, options);
    io::upload_parameters(runtime, *s.network, s.source.weights, name);
    s.pixels = card.shape.per_sample();
    s.classes = static_cast<int>(s.network->output_shape().per_sample());
    for (const model::LayerSummary& layer : s.network->summary())
        s.layers.push_back(LayerOutput{layer.name, layer.type, layer.output.c, layer.output.h, layer.output.w, {}});
}

Predictor::~Predictor() = default;
Predictor::Predictor(Predictor&&) noexcept = default;
Predictor& Predictor::operator=(Predictor&&) noexcept = default;

const ModelCard& Predictor::card() const {
    return state_->source.card;
}

const project::Project& Predictor::project() const {
    return state_->source.project;
}

std::string Predictor::device_name() const {
    return state_->device->device().name;
}

const std::vector<io::NamedArray>& Predictor::weights() const {
    return state_->source.weights;
}

void Predictor::set_weights(std::vector<io::NamedArray> weights) {
    State& s = *state_;
    std::lock_guard lock(s.mutex);
    // upload_parameters checks every array before it writes any.
    io::upload_parameters(s.device->runtime(), *s.network, weights,
                          s.source.source.empty() ? std::string("the weights") : s.source.source);
    s.source.weights = std::move(weights);
}

std::vector<LayerOutput> Predictor::layers() const {
    return state_->layers;
}

int Predictor::class_count() const {
    return state_->classes;
}

std::vector<std::vector<float>> Predictor::predict(std::span<const float> images) {
    State& s = *state_;
    std::lock_guard lock(s.mutex);
    const std::size_t count = s.image_count(images, "predict");
    const std::vector<float> all = s.probabilities(s.normalized(images));
    const auto classes = static_cast<std::size_t>(s.classes);
    std::vector<std::vector<float>> result;
    for (std::size_t i = 0; i < count; ++i)
        result.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(i * classes),
                            all.begin() + static_cast<std::ptrdiff_t>((i + 1) * classes));
    return result;
}

std::vector<LayerOutput> Predictor::activations(std::span<const float> image, const std::vector<std::string>& layers) {
    State& s = *state_;
    std::lock_guard lock(s.mutex);
    s.require_one(image, "activations");
    std::vector<LayerOutput> wanted;
    for (const LayerOutput& layer : s.layers)
        if (layers.empty() || std::find(layers.begin(), layers.end(), layer.name) != layers.end())
            wanted.push_back(layer);
    for (const std::string& name : layers)
        if (std::none_of(s.layers.begin(), s.layers.end(), [&](const LayerOutput& l) { return l.name == name; })) {
            std::string known;
            for (const LayerOutput& layer : s.layers) known += (known.empty() ? "" : ", ") + layer.name;
            throw std::invalid_argument("the network has no layer named '" + name + "'; its layers are " + known);
        }
    s.network->upload_images(s.normalized(image), 1);
    s.network->forward(1, false);
    for (LayerOutput& layer : wanted) layer.values = s.network->read_output(layer.name, 1);
    return wanted;
}

OcclusionMap Predictor::occlusion(std::span<const float> image, int patch, int stride, std::optional<int> label) {
    State& s = *state_;
    std::lock_guard lock(s.mutex);
    s.require_one(image, "occlusion");
    const datasets::ImageShape& shape = s.source.card.shape;
    if (stride < 1)
        throw std::invalid_argument("the occlusion's stride must be at least 1, not " + std::to_string(stride));
    if (patch < 1 || patch > std::min(shape.height, shape.width))
        throw std::invalid_argument("an occlusion patch of " + std::to_string(patch) + " pixels does not fit " +
                                    std::to_string(shape.width) + "x" + std::to_string(shape.height) +
                                    " images; give 1 to " + std::to_string(std::min(shape.height, shape.width)));
    if (label) s.require_label(*label, "occlusion");

    const std::vector<float> base = s.normalized(image);
    const std::vector<float> base_probabilities = s.probabilities(base);
    OcclusionMap map;
    map.label = label ? *label
                      : static_cast<int>(std::max_element(base_probabilities.begin(), base_probabilities.end()) -
                                         base_probabilities.begin());
    map.probability = base_probabilities[static_cast<std::size_t>(map.label)];
    map.patch = patch;
    map.stride = stride;
    map.rows = (shape.height - patch) / stride + 1;
    map.columns = (shape.width - patch) / stride + 1;

    // Grey (0.5) as the network sees it in each channel.
    const std::vector<float> grey = s.normalized(std::vector<float>(s.pixels, 0.5f));
    const std::size_t plane = shape.plane();
    const auto positions = static_cast<std::size_t>(map.rows) * static_cast<std::size_t>(map.columns);
    std::vector<float> occluded;
    occluded.reserve(positions * s.pixels);
    for (int row = 0; row < map.rows; ++row)
        for (int column = 0; column < map.columns; ++column) {
            const std::size_t start = occluded.size();
            occluded.insert(occluded.end(), base.begin(), base.end());
            for (int c = 0; c < shape.channels; ++c)
                for (int y = row * stride; y < row * stride + patch; ++y)
                    for (int x = column * stride; x < column * stride + patch; ++x) {
                        const std::size_t i = static_cast<std::size_t>(c) * plane +
                                              static_cast<std::size_t>(y) * static_cast<std::size_t>(shape.width) +
                                              static_cast<std::size_t>(x);
                        occluded[start + i] = grey[i];
                    }
        }
    const std::vector<float> probabilities = s.probabilities(occluded);
    map.drops.resize(positions);
    for (std::size_t p = 0; p < positions; ++p)
        map.drops[p] = map.probability -
                       probabilities[p * static_cast<std::size_t>(s.classes) + static_cast<std::size_t>(map.label)];
    return map;
}

InputGradient Predictor::input_gradient(std::span<const float> image, int label) {
    State& s = *state_;
    std::lock_guard lock(s.mutex);
    s.require_one(image, "input_gradient");
    s.require_label(label, "input_gradient");
    s.network->upload_images(s.normalized(image), 1);
    s.network->forward(1, false);
    InputGradient gradient;
    gradient.label = label;
    gradient.score = s.network->read_output(s.layers.back().name, 1)[static_cast<std::size_t>(label)];
    std::vector<float> one_hot(static_cast<std::size_t>(s.classes), 0.0f);
    one_hot[static_cast<std::size_t>(label)] = 1.0f;
    s.network->backward_from_output(one_hot, 1);
    gradient.values = s.network->read_input_gradient(1);
    // Through the normalisation: the network's input is (pixel - mean) / stddev.
    const datasets::Normalization& n = s.source.card.normalization;
    if (!n.stddev.empty()) {
        const std::size_t plane = s.source.card.shape.plane();
        for (std::size_t i = 0; i < gradient.values.size(); ++i) gradient.values[i] /= n.stddev[i / plane];
    }
    return gradient;
}

}  // namespace bps::session
