// backprop evaluate: a saved network's accuracy and loss on its project's test images.
#include <iomanip>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/format.h"
#include "app/cli/project_argument.h"
#include "app/cli/trained_network.h"
#include "engine/session/evaluation.h"
#include "engine/session/training_data.h"

namespace bps::cli {

const char* const evaluate_help =
    "usage: backprop evaluate PROJECT --weights FILE [--batch B] [--device INDEX|NAME]\n"
    "\n"
    "Loads weights saved by 'backprop train --save-weights' into the project's network and prints\n"
    "the accuracy and loss on the dataset's test images (an image folder, which has no test split:\n"
    "on all of its images). PROJECT is a project file or a shipped example: mlp, cnn or cifar.\n";

int run_evaluate(Arguments& arguments) {
    const std::optional<std::string> word = arguments.take_word();
    const std::optional<std::string> weights_file = arguments.take_option("--weights");
    const std::optional<int> batch = arguments.take_whole_number("--batch");
    const std::optional<std::string> device_flag = arguments.take_option("--device");
    arguments.expect_nothing_left();
    if (!weights_file) throw UsageError("--weights FILE is needed: the weights to evaluate");

    const OpenedProject opened = open_project(word);
    const project::Project& project = opened.project;
    const session::DataFacts facts = session::project_data_facts(project.dataset);
    check_project(opened, facts);
    const WeightsOnDisk weights = read_weights(*weights_file);
    check_weights_fit(weights, facts);
    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    const cl::DeviceInfo& device = devices.at(
        cl::select_device(devices, cl::device_request(device_flag ? device_flag : std::optional(project.device))));

    // The weights go into the network first: a file from another network fails before the images are read.
    LoadedNetwork loaded = load_network(device, session::project_network(project, facts.shape),
                                        batch.value_or(project.training.batch_size), weights);
    std::cerr << "reading " << facts.title << "...\n";
    datasets::DatasetSplits splits = session::load_project_data(project.dataset);
    const bool whole_folder = splits.test.size() == 0;
    datasets::Dataset images = whole_folder ? std::move(splits.train) : std::move(splits.test);
    session::normalize_like(images, weights.card.normalization);

    const session::Evaluation result = session::evaluate(*loaded.network, images);
    std::cout << (whole_folder ? "accuracy " : "test accuracy ") << std::fixed << std::setprecision(4)
              << result.accuracy << ", loss " << result.loss << " (" << format_thousands(result.samples)
              << (whole_folder ? " images of the folder)\n" : " images)\n");
    return exit_ok;
}

}  // namespace bps::cli
