// backprop evaluate: a saved network's accuracy and loss on its project's test images.
#include <iomanip>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/project_argument.h"
#include "app/cli/run_job.h"
#include "engine/session/number_text.h"

namespace bps::cli {

const char* const evaluate_help =
    "usage: backprop evaluate PROJECT --weights FILE [--batch B] [--device INDEX|NAME]\n"
    "       backprop evaluate WEIGHTS.h5 [--batch B] [--device INDEX|NAME]\n"
    "\n"
    "Loads weights saved by 'backprop train --save-weights' into the project's network and prints\n"
    "the accuracy and loss on the dataset's test images (an image folder, which has no test split:\n"
    "on all of its images). PROJECT is a project file or a shipped example: mlp, cnn or cifar. A\n"
    "weights file saved by Backprop Studio carries its project: give it alone.\n";

int run_evaluate(Arguments& arguments) {
    const std::optional<std::string> word = arguments.take_word();
    const std::optional<std::string> weights_file = arguments.take_option("--weights");
    const std::optional<int> batch = arguments.take_whole_number("--batch");
    const std::optional<std::string> device_flag = arguments.take_option("--device");
    arguments.expect_nothing_left();
    OpenedProject opened = open_project(word);
    if (!weights_file && opened.weights_file.empty())
        throw UsageError("--weights FILE is needed: the weights to evaluate");
    const std::filesystem::path weights = weights_file ? std::filesystem::path(*weights_file) : opened.weights_file;

    session::JobSetup setup = job_setup(session::JobTask::evaluate, std::move(opened), device_flag);
    setup.batch_size = batch;
    setup.weights = weights;
    session::JobEvents events;
    events.stage = [](const session::StageReport& stage) {
        if (stage.stage == session::Stage::preparing && stage.total == 0 && stage.activity.rfind("reading ", 0) == 0)
            std::cerr << stage.activity << "...\n";
    };
    const session::JobResult done = run_job(std::move(setup), std::move(events));
    if (!done.test) return exit_interrupted;  // Ctrl-C before the evaluation
    const session::Evaluation& result = *done.test;
    const bool whole_folder = done.whole_folder;
    std::cout << (whole_folder ? "accuracy " : "test accuracy ") << std::fixed << std::setprecision(4)
              << result.accuracy << ", loss " << result.loss << " (" << session::format_thousands(result.samples)
              << (whole_folder ? " images of the folder)\n" : " images)\n");
    return exit_ok;
}

}  // namespace bps::cli
