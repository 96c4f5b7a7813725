// backprop predict: the three most probable classes for each image file, with probabilities.
#include <iomanip>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/project_argument.h"
#include "app/cli/trained_network.h"
#include "datasets/image_folder.h"
#include "engine/session/evaluation.h"
#include "engine/session/training_data.h"

namespace bps::cli {

const char* const predict_help =
    "usage: backprop predict PROJECT --weights FILE [--device INDEX|NAME] IMAGE...\n"
    "\n"
    "Prints the three most probable classes for each PNG or JPEG image, with their probabilities.\n"
    "Images are scaled to the size the network was trained on (and made grayscale or RGB to match).\n"
    "An image that cannot be read is reported and the others are still predicted (exit status 1).\n";

int run_predict(Arguments& arguments) {
    const std::optional<std::string> weights_file = arguments.take_option("--weights");
    const std::optional<std::string> device_flag = arguments.take_option("--device");
    std::vector<std::string> words = arguments.take_words();
    arguments.expect_nothing_left();
    if (!weights_file) throw UsageError("--weights FILE is needed: the trained weights to predict with");
    if (words.empty()) throw UsageError("which project? Give a project file or an example name (mlp, cnn, cifar)");
    const std::string project_word = words.front();
    words.erase(words.begin());
    if (words.empty()) throw UsageError("give at least one image file to predict");

    const OpenedProject opened = open_project(project_word);
    const WeightsOnDisk weights = read_weights(*weights_file);
    const session::ModelCard& card = weights.card;
    session::DataFacts facts;
    facts.title = "the weights' images";
    facts.shape = card.shape;
    facts.class_count = card.class_names.size();
    check_project(opened, facts);
    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    const cl::DeviceInfo& device = devices.at(cl::select_device(
        devices, cl::device_request(device_flag ? device_flag : std::optional(opened.project.device))));

    // Read every image first: the readable ones are predicted together.
    datasets::Dataset images;
    images.shape = card.shape;
    images.class_names = card.class_names;
    std::vector<std::string> names;
    int status = exit_ok;
    for (const std::string& file : words) {
        try {
            const std::vector<float> pixels = datasets::read_image_file(
                file, datasets::ImageFolderOptions{card.shape.height, card.shape.width, card.shape.channels});
            images.images.insert(images.images.end(), pixels.begin(), pixels.end());
            images.labels.push_back(0);
            names.push_back(file);
        } catch (const std::exception& error) {
            std::cerr << "backprop predict: error: " << error.what() << "\n";
            status = exit_failure;
        }
    }
    if (names.empty()) return status;
    session::normalize_like(images, card.normalization);

    LoadedNetwork loaded = load_network(device, session::project_network(opened.project, card.shape),
                                        static_cast<int>(std::min<std::size_t>(names.size(), 64)), weights);
    const std::vector<std::vector<float>> probabilities =
        session::predict_probabilities(*loaded.network, images.images, names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        std::cout << names[i] << ":";
        const char* separator = " ";
        for (const session::ClassScore& score : session::top_classes(probabilities[i], 3)) {
            std::cout << separator << card.class_names[static_cast<std::size_t>(score.label)] << " " << std::fixed
                      << std::setprecision(3) << score.probability;
            separator = ", ";
        }
        std::cout << "\n";
    }
    return status;
}

}  // namespace bps::cli
