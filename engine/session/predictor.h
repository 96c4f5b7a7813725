#pragma once
// A trained network kept on one device for looking inside it: what it predicts, what every layer
// outputs, which parts of an image its answer depends on (occlusion), and how its class score
// moves with each pixel (saliency). Made once from a weights file or a run's weights, it builds
// its kernels and uploads its weights once, so a drawn digit can be classified on every stroke.
// Nothing here reaches an OpenCL header.
//
// Images are given as the files and datasets give them: CHW floats in [0, 1] of the model card's
// shape, before normalisation; the predictor normalises them as the network was trained.
//
//     session::Predictor predictor(session::Predictor::from_file("fashion.h5"));
//     const auto probabilities = predictor.predict(image);               // one per class
//     const auto maps = predictor.activations(image, {"conv1"});         // every channel of conv1
//     const auto where = predictor.occlusion(image, 4, 2);               // drops of the predicted class
//     const auto saliency = predictor.input_gradient(image, label);      // d score / d pixel
//
// A predictor is used by one thread at a time (a worker): its calls wait on the device. Calls from
// two threads at once are serialised, never interleaved.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/io/weights_file.h"
#include "engine/model/network_spec.h"
#include "engine/project/project.h"
#include "engine/runs/model_card.h"
#include "engine/runs/saved_weights.h"

namespace bps::session {

// What a predictor is made from: the project's network, the images it was trained on (the card)
// and its trained weights as the engine's arrays (what a run's result or a weights file holds).
struct PredictorSource {
    project::Project project;
    ModelCard card;
    std::vector<io::NamedArray> weights;
    std::string source;  // how messages name it: the weights file, or "the run 'cnn'"
};

// Where the predictor runs, and who hears how the preparation goes.
struct PredictorSetup {
    std::string device_request;  // "" for the best device, an index or part of a name
    std::function<void(std::size_t done, std::size_t total)> building_kernels;
    std::function<void(const std::string&)> note;  // a kernel cache that was cleared, and the like
};

// One layer's output for one image: channels x height x width values (a flat layer has one value
// per unit: channels = units, height = width = 1). The input layer's output is the image as the
// network sees it (normalised); a Dense or Conv2D layer's is its own, before the Activation after
// it (which training runs inside the layer).
struct LayerOutput {
    std::string name;
    model::LayerType type = model::LayerType::input;
    int channels = 0, height = 0, width = 0;
    std::vector<float> values;  // CHW
};

// How much the watched class's probability drops when a grey patch (pixel value 0.5) covers the
// image at each position: the patch's top-left corner at (row * stride, column * stride), for
// every position where the patch lies inside the image.
struct OcclusionMap {
    int label = 0;          // the class watched
    float probability = 0;  // its probability on the whole image
    int patch = 0, stride = 0;
    int rows = 0, columns = 0;
    std::vector<float> drops;  // rows x columns: probability - the probability with the patch there
    // Each pixel's mean drop over the positions whose patch covers it (height x width of the
    // image; a pixel no patch covers gets 0): the map to draw over the image.
    std::vector<float> pixel_drops(int height, int width) const;
};

// The gradient of one class's score (the network's output before the softmax) with respect to the
// image's pixels, as given (before normalisation): the saliency of that class.
struct InputGradient {
    int label = 0;
    float score = 0;
    std::vector<float> values;  // CHW, the image's shape
};

// One image file as a predictor takes it: decoded, made grayscale or RGB and scaled to the card's
// shape as the datasets' images are. `adjusted` says what was done ("scaled from 64x48 RGB to
// 28x28 grayscale"), empty when the file already fitted. datasets::DatasetError naming the file.
struct ImageForPredictor {
    std::vector<float> pixels;
    std::string adjusted;
};
ImageForPredictor read_image_for(const ModelCard& card, const std::filesystem::path& file);

class Predictor {
public:
    // Reads a weights file saved by Backprop Studio (it carries its project and model card): a
    // finished run's weights.h5, or a running run's checkpoint.h5, written after every epoch.
    // Throws io::WeightsFileError naming the file when it cannot be used.
    static PredictorSource from_file(const std::filesystem::path& weights);
    static PredictorSource from_saved(const SavedWeights& weights, const project::Project& project);

    // Opens the device, builds the kernels and uploads the weights. Throws model::ModelError or
    // project::ProjectError for a network that cannot work, io::WeightsFileError naming the layer
    // and both shapes for weights of another network, device::NoDeviceError and cl errors for the
    // device.
    explicit Predictor(PredictorSource source, PredictorSetup setup = {});
    ~Predictor();
    Predictor(Predictor&&) noexcept;
    Predictor& operator=(Predictor&&) noexcept;

    const ModelCard& card() const;
    const project::Project& project() const;
    std::string device_name() const;
    // Every layer in execution order with its output shape per image (n = 1).
    std::vector<LayerOutput> layers() const;  // values empty
    int class_count() const;
    // The network's weights now (as io::download_parameters names them), from the source or the
    // last set_weights.
    const std::vector<io::NamedArray>& weights() const;
    // Other weights of the same network (a later snapshot of a run in training, a replayed
    // epoch), uploaded in place of the present ones: nothing is built again. Throws
    // io::WeightsFileError naming the array and both shapes for weights of another network, and
    // then keeps the present ones.
    void set_weights(std::vector<io::NamedArray> weights);

    // Every call refuses values that are not whole images of the card's shape (one image where it
    // takes one) and a class outside the network's with std::invalid_argument.

    // Every class's probability for each of `images.size() / pixels` images, in class order.
    std::vector<std::vector<float>> predict(std::span<const float> images);
    // The outputs of the layers named (every layer, the input included, when `layers` is empty),
    // in execution order. std::invalid_argument naming a layer the network lacks and its layers.
    std::vector<LayerOutput> activations(std::span<const float> image, const std::vector<std::string>& layers = {});
    // The drop of `label`'s probability (the most probable class when none is given) under a
    // patch x patch grey square moved by `stride`, a batch of positions per forward pass.
    // std::invalid_argument for a patch larger than the image or a stride below 1.
    OcclusionMap occlusion(std::span<const float> image, int patch, int stride, std::optional<int> label = {});
    // The saliency of `label` for one image.
    InputGradient input_gradient(std::span<const float> image, int label);

    struct State;

private:
    std::unique_ptr<State> state_;
};

}  // namespace bps::session
