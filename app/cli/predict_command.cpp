// backprop predict: the three most probable classes for each image file, with probabilities.
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/predictor_argument.h"
#include "app/cli/printable.h"
#include "engine/runs/reports.h"

namespace bps::cli {

const char* const predict_help =
    "usage: backprop predict PROJECT --weights FILE [--device INDEX|NAME] [--json] IMAGE...\n"
    "       backprop predict WEIGHTS.h5 [--device INDEX|NAME] [--json] IMAGE...\n"
    "\n"
    "Prints the three most probable classes for each PNG or JPEG image, with their probabilities.\n"
    "Images are scaled to the size the network was trained on (and made grayscale or RGB to match).\n"
    "An image that cannot be read is reported and the others are still predicted (exit status 1).\n"
    "A weights file saved by Backprop Studio carries its project and classes: give it alone, and no\n"
    "training data is needed. --json prints one JSON line per image with every class's probability.\n"
    "The network is built on the device once for all the images.\n";

namespace {

struct ReadImage {
    std::string file;
    std::vector<float> pixels;
    std::string problem;  // the image could not be read
};

void print_prediction(const std::string& file, const std::vector<float>& probabilities,
                      const std::vector<std::string>& class_names, bool json) {
    const std::vector<session::ClassScore> top = session::top_classes(probabilities, 3);
    if (json) {
        // Every class at full float precision, for comparing with other programs.
        nlohmann::json line = {{"file", file}, {"probabilities", probabilities}};
        for (const session::ClassScore& score : top)
            line["top"].push_back(
                {{"class", class_names[static_cast<std::size_t>(score.label)]}, {"probability", score.probability}});
        std::cout << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return;
    }
    std::cout << printable(file) << ":";
    const char* separator = " ";
    for (const session::ClassScore& score : top) {
        std::cout << separator << printable(class_names[static_cast<std::size_t>(score.label)]) << " " << std::fixed
                  << std::setprecision(3) << score.probability;
        separator = ", ";
    }
    std::cout << "\n";
}

}  // namespace

int run_predict(Arguments& arguments) {
    const std::optional<std::string> weights_file = arguments.take_option("--weights");
    const std::optional<std::string> device_flag = arguments.take_option("--device");
    const bool json = arguments.take_flag("--json");
    std::vector<std::string> words = arguments.take_words();
    arguments.expect_nothing_left();
    if (words.empty()) throw UsageError("which project? Give a project file or an example name (mlp, cnn, cifar)");
    const std::string project_word = words.front();
    words.erase(words.begin());
    const OpenedProject opened = open_project(project_word);
    if (!weights_file && opened.weights_file.empty())
        throw UsageError("--weights FILE is needed: the trained weights to predict with");
    if (words.empty()) throw UsageError("give at least one image file to predict");

    session::Predictor predictor = open_predictor(opened, weights_file, device_flag);
    const session::ModelCard& card = predictor.card();
    // Every image is read first: the readable ones are predicted together.
    std::vector<ReadImage> images;
    std::vector<float> readable;
    for (const std::string& file : words) {
        ReadImage image{file, {}, {}};
        try {
            image.pixels = session::read_image_for(card, file).pixels;
            readable.insert(readable.end(), image.pixels.begin(), image.pixels.end());
        } catch (const std::exception& error) {
            image.problem = error.what();
        }
        images.push_back(std::move(image));
    }
    const std::vector<std::vector<float>> probabilities =
        readable.empty() ? std::vector<std::vector<float>>{} : predictor.predict(readable);

    int status = exit_ok;
    std::size_t next = 0;
    for (const ReadImage& image : images) {
        if (!image.problem.empty()) {
            std::cerr << "backprop predict: error: " << image.problem << "\n";
            status = exit_failure;
            continue;
        }
        print_prediction(image.file, probabilities[next++], card.class_names, json);
    }
    return status;
}

}  // namespace bps::cli
