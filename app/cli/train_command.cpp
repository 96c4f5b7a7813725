// backprop train: the whole job of a learner in one command. The project is checked before any
// image is read, the training runs on the engine's session thread, and the main thread shows
// progress and turns Ctrl-C into a clean stop that still saves the weights.
#include <iostream>
#include <mutex>

#include "engine/cl/cache_location.h"
#include "engine/cl/device.h"
#include "app/cli/commands.h"
#include "app/cli/format.h"
#include "app/cli/project_argument.h"
#include "app/cli/terminal.h"
#include "app/cli/training_progress.h"
#include "engine/io/weights_file.h"
#include "engine/session/model_card.h"
#include "engine/session/training_session.h"

namespace bps::cli {

const char* const train_help =
    "usage: backprop train PROJECT [--epochs N] [--batch B] [--lr X] [--seed S] [--device INDEX|NAME]\n"
    "                      [--save-weights FILE]\n"
    "\n"
    "Trains the project's network on its dataset and prints one line per epoch (with the validation\n"
    "figures) and the test accuracy at the end. PROJECT is a project file or a shipped example: mlp,\n"
    "cnn or cifar. The options override the project's settings for this run:\n"
    "  --epochs N            passes over the training images\n"
    "  --batch B             images per training step\n"
    "  --lr X                the optimiser's (base) learning rate\n"
    "  --seed S              initial weights, validation split, shuffling and augmentation\n"
    "  --device INDEX|NAME   an OpenCL device as 'backprop devices' lists them (default: the best)\n"
    "  --save-weights FILE   write the trained weights to FILE (HDF5) when training ends\n"
    "Ctrl-C stops after the current batch; the weights trained so far are still saved.\n"
    "The same project, seed and device give the same run.\n";

namespace {
std::string optimizer_text(const train::OptimizerSettings& optimizer) {
    std::ostringstream text;
    switch (optimizer.kind) {
        case train::OptimizerKind::sgd:
            text << "SGD, learning rate " << optimizer.learning_rate;
            if (optimizer.momentum > 0) text << ", momentum " << optimizer.momentum;
            break;
        case train::OptimizerKind::adam:
            text << "Adam, learning rate " << optimizer.learning_rate;
            break;
        case train::OptimizerKind::adamw:
            text << "AdamW, learning rate " << optimizer.learning_rate;
            break;
    }
    return text.str();
}

}  // namespace

int run_train(Arguments& arguments) {
    const std::optional<std::string> word = arguments.take_word();
    const std::optional<int> epochs = arguments.take_whole_number("--epochs");
    const std::optional<int> batch = arguments.take_whole_number("--batch");
    const std::optional<double> rate = arguments.take_positive_number("--lr");
    const std::optional<std::uint64_t> seed = arguments.take_unsigned("--seed");
    const std::optional<std::string> device_flag = arguments.take_option("--device");
    const std::optional<std::string> weights_file = arguments.take_option("--save-weights");
    arguments.expect_nothing_left();

    OpenedProject opened = open_project(word);
    project::Project& project = opened.project;
    if (epochs) project.training.epochs = *epochs;
    if (batch) project.training.batch_size = *batch;
    if (rate) project.training.optimizer.learning_rate = static_cast<float>(*rate);
    if (seed) project.training.seed = *seed;
    const std::string request = cl::device_request(device_flag ? device_flag : std::optional(project.device));
    if (weights_file) io::check_weights_destination(*weights_file);  // before training, not after

    // Everything that can be checked without the images, first.
    const session::DataFacts facts = session::project_data_facts(project.dataset);
    check_project(opened, facts);
    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    const cl::DeviceInfo& device = devices.at(cl::select_device(devices, request));

    // From here on Ctrl-C asks for a clean stop instead of ending the process.
    catch_interrupts();
    std::cerr << "reading " << facts.title << "...\n";
    std::vector<datasets::SkippedImage> skipped;
    datasets::DatasetSplits splits = session::load_project_data(project.dataset, &skipped);
    if (!skipped.empty()) std::cerr << "skipped " << format_count(skipped.size(), "unreadable image") << "\n";
    auto data = std::make_shared<session::TrainingData>(
        session::prepare_training_data(std::move(splits), project.dataset, project.training.seed));
    if (interrupt_requested()) {
        std::cerr << "stopped before training began\n";
        return exit_interrupted;
    }
    const std::string name = project.name.empty() ? opened.source : project.name;
    std::cout << "training '" << name << "' on " << facts.title << ": " << format_thousands(data->split.train.size())
              << " training, " << format_thousands(data->split.validation.size()) << " validation, "
              << format_thousands(data->test.size()) << " test images\n"
              << "device " << device.name << "; "
              << format_count(static_cast<std::size_t>(project.training.epochs), "epoch") << ", batch "
              << project.training.batch_size << ", " << optimizer_text(project.training.optimizer) << ", seed "
              << project.training.seed << "\n"
              << std::flush;

    session::SessionSetup setup;
    setup.project = project;
    setup.device = device;
    setup.kernel_cache_dir = cl::kernel_cache_dir();
    setup.data = data;
    // Each report waits for the device, so not every batch: often enough for a live bar on a
    // terminal (redrawn at most 10 times a second), less often for logs.
    const bool terminal = stderr_is_terminal();
    setup.report_every = terminal ? 4 : 10;

    std::mutex output;
    TrainingProgress progress(std::cerr, terminal);
    std::optional<session::FinishReport> finish;
    std::string failure;
    session::SessionEvents events;
    events.batch_done = [&](const session::BatchReport& report) {
        std::lock_guard lock(output);
        progress.batch(report);
    };
    events.epoch_done = [&](const session::EpochReport& report) {
        std::lock_guard lock(output);
        progress.finish();
        std::cout << epoch_line(report) << "\n" << std::flush;
    };
    events.finished = [&](const session::FinishReport& report) { finish = report; };
    events.failed = [&](const std::string& message) { failure = message; };

    bool interrupted = false;
    {
        session::TrainingSession session(std::move(setup), std::move(events));
        while (!session.wait_for(std::chrono::milliseconds(100))) {
            if (interrupt_requested() && !interrupted) {
                interrupted = true;
                session.stop();
                std::lock_guard lock(output);
                progress.finish();
                std::cerr << "stopping after this batch...\n";
            }
        }
    }
    progress.finish();
    if (!finish) throw std::runtime_error(failure.empty() ? "training failed" : failure);

    if (finish->stopped)
        std::cout << "stopped after " << format_count(static_cast<std::size_t>(finish->epochs_completed), "whole epoch")
                  << "\n";
    if (finish->test)
        std::cout << "test accuracy " << std::fixed << std::setprecision(4) << finish->test->accuracy << ", loss "
                  << finish->test->loss << " (" << format_thousands(finish->test->samples) << " images)\n";
    std::cout << "trained for " << format_duration(finish->seconds) << "\n";
    if (weights_file) {
        session::ModelCard card;
        card.project = name;
        card.shape = data->train.shape;
        card.class_names = data->train.class_names;
        card.normalization = data->normalization;
        io::save_weights(*weights_file, finish->weights, session::model_card_json(card));
        std::cout << "weights saved to " << *weights_file << "\n";
    }
    return finish->stopped && interrupted ? exit_interrupted : exit_ok;
}

}  // namespace bps::cli
