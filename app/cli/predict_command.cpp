// backprop predict: the three most probable classes for each image file, with probabilities.
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/project_argument.h"
#include "app/cli/run_job.h"

namespace bps::cli {

const char* const predict_help =
    "usage: backprop predict PROJECT --weights FILE [--device INDEX|NAME] [--json] IMAGE...\n"
    "       backprop predict WEIGHTS.h5 [--device INDEX|NAME] [--json] IMAGE...\n"
    "\n"
    "Prints the three most probable classes for each PNG or JPEG image, with their probabilities.\n"
    "Images are scaled to the size the network was trained on (and made grayscale or RGB to match).\n"
    "An image that cannot be read is reported and the others are still predicted (exit status 1).\n"
    "A weights file saved by Backprop Studio carries its project and classes: give it alone, and no\n"
    "training data is needed. --json prints one JSON line per image with every class's probability.\n";

int run_predict(Arguments& arguments) {
    const std::optional<std::string> weights_file = arguments.take_option("--weights");
    const std::optional<std::string> device_flag = arguments.take_option("--device");
    const bool json = arguments.take_flag("--json");
    std::vector<std::string> words = arguments.take_words();
    arguments.expect_nothing_left();
    if (words.empty()) throw UsageError("which project? Give a project file or an example name (mlp, cnn, cifar)");
    const std::string project_word = words.front();
    words.erase(words.begin());
    OpenedProject opened = open_project(project_word);
    if (!weights_file && opened.weights_file.empty())
        throw UsageError("--weights FILE is needed: the trained weights to predict with");
    if (words.empty()) throw UsageError("give at least one image file to predict");
    const std::filesystem::path weights = weights_file ? std::filesystem::path(*weights_file) : opened.weights_file;

    session::JobSetup setup = job_setup(session::JobTask::predict, std::move(opened), device_flag);
    setup.weights = weights;
    setup.images.assign(words.begin(), words.end());
    const session::JobResult result = run_job(std::move(setup), {});

    int status = exit_ok;
    for (const session::Prediction& prediction : result.predictions) {
        if (!prediction.problem.empty()) {
            std::cerr << "backprop predict: error: " << prediction.problem << "\n";
            status = exit_failure;
            continue;
        }
        if (json) {
            // Every class at full float precision, for comparing with other programs.
            nlohmann::json line = {{"file", prediction.file}, {"probabilities", prediction.probabilities}};
            for (const session::ClassScore& score : prediction.top)
                line["top"].push_back({{"class", result.class_names[static_cast<std::size_t>(score.label)]},
                                       {"probability", score.probability}});
            std::cout << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
            continue;
        }
        std::cout << prediction.file << ":";
        const char* separator = " ";
        for (const session::ClassScore& score : prediction.top) {
            std::cout << separator << result.class_names[static_cast<std::size_t>(score.label)] << " " << std::fixed
                      << std::setprecision(3) << score.probability;
            separator = ", ";
        }
        std::cout << "\n";
    }
    return status;
}

}  // namespace bps::cli
