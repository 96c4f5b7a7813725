// backprop train: the whole job of a learner in one command, parsed here and run by the engine's
// training job (which checks the project before any image is read, trains and saves). This file
// prints what the job reports and turns Ctrl-C into a clean stop that still saves the weights.
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/file_clashes.h"
#include "app/cli/program_path.h"
#include "app/cli/project_argument.h"
#include "app/cli/run_job.h"
#include "app/cli/terminal.h"
#include "app/cli/training_progress.h"
#include "engine/base/build_info.h"
#include "engine/base/number_text.h"
#include "engine/session/run_recorder.h"
#include "engine/session/training_job.h"
#include "engine/train/optimizer_settings.h"

namespace bps::cli {

const char* const train_help =
    "usage: backprop train PROJECT [--epochs N] [--batch B] [--lr X] [--seed S] [--device INDEX|NAME]\n"
    "                      [--batches N] [--save-weights FILE] [--checkpoint FILE] [--no-run-folder]\n"
    "\n"
    "Trains the project's network on its dataset and prints one line per epoch (with the validation\n"
    "figures) and the test accuracy at the end. PROJECT is a project file or a shipped example: mlp,\n"
    "cnn or cifar. The options override the project's settings for this run:\n"
    "  --epochs N            passes over the training images\n"
    "  --batch B             images per training step\n"
    "  --lr X                the optimiser's (base) learning rate\n"
    "  --seed S              initial weights, validation split, shuffling and augmentation\n"
    "  --device INDEX|NAME   an OpenCL device as 'backprop devices' lists them (default: the best)\n"
    "  --batches N           stop after N training steps, then test as at the end (a quick check)\n"
    "  --save-weights FILE   write the trained weights to FILE (HDF5) when training ends\n"
    "  --checkpoint FILE     write a checkpoint after every epoch and when stopped; 'backprop resume FILE'\n"
    "                        goes on from it\n"
    "  --no-run-folder       keep no record of the run beside the project file\n"
    "A project file's run is kept in a new folder beside it (PROJECT.runs/DATE_TIME/), as the studio\n"
    "keeps its runs: the receipt, the curves, the weights, a checkpoint and what the network got wrong\n"
    "(the test split's confusion matrix and every image's result). 'backprop runs PROJECT' lists them.\n"
    "Ctrl-C (or SIGTERM, SIGHUP) stops after the current batch; the weights trained so far are still saved.\n"
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
    const std::optional<int> batch_limit = arguments.take_whole_number("--batches");
    const std::optional<std::string> weights_file = arguments.take_file_option("--save-weights");
    const std::optional<std::string> checkpoint_file = arguments.take_file_option("--checkpoint");
    const bool run_folder = !arguments.take_flag("--no-run-folder");
    arguments.expect_nothing_left();
    check_learning_rate(rate);

    OpenedProject opened = open_project(word);
    // (A project file named as an output is refused by the job, which suggests a name for the weights.)
    refuse_clashing_files(
        {{weights_file.value_or(""), "--save-weights"}, {checkpoint_file.value_or(""), "--checkpoint"}},
        {{opened.weights_file, "the file"}}, "file");
    // A weights file or checkpoint names the project it was trained from: training it starts over.
    if (opened.checkpoint)
        print_note(opened.source +
                   " is a checkpoint: 'backprop train' trains its project from new weights; "
                   "'backprop resume " +
                   opened.source + "' goes on where it stopped");
    else if (!opened.weights_file.empty())
        print_note(opened.source + " is a weights file: 'backprop train' trains its project from new weights");
    session::JobSetup setup = job_setup(session::JobTask::train, std::move(opened), device_flag);
    setup.epochs = epochs;
    setup.batch_size = batch;
    if (rate) setup.learning_rate = static_cast<float>(*rate);
    setup.seed = seed;
    if (batch_limit) setup.batch_limit = static_cast<std::size_t>(*batch_limit);
    if (weights_file) setup.save_weights = *weights_file;
    if (checkpoint_file) setup.checkpoint = *checkpoint_file;
    return run_training(std::move(setup), run_folder);
}

namespace {

// This program's file: argv[0], found on PATH when it names no folder.
std::filesystem::path program_file() {
    const std::filesystem::path program = program_path();
    if (program.has_parent_path()) return program;
    const char* path = std::getenv("PATH");
#ifdef _WIN32
    const char separator = ';';
#else
    const char separator = ':';
#endif
    std::stringstream folders(path ? path : "");
    std::error_code error;
    for (std::string folder; std::getline(folders, folder, separator);)
        if (!folder.empty() && std::filesystem::exists(std::filesystem::path(folder) / program, error))
            return std::filesystem::path(folder) / program;
    return program;
}

// The examples installed with the program (PREFIX/share/backprop-studio/examples beside
// PREFIX/bin/backprop) belong to it: a run of one is not kept beside it, in a system folder that
// removing the program must leave empty.
bool installed_example(const std::filesystem::path& project_file) {
    const std::filesystem::path examples =
        program_file().parent_path().parent_path() / "share" / "backprop-studio" / "examples";
    std::error_code error;
    return std::filesystem::equivalent(std::filesystem::absolute(project_file, error).parent_path(), examples, error);
}

// The run's folder beside the project file, made before the job starts so that it is listed even
// if the process dies; nothing for an example or a weights file, which have no folder of their own.
std::optional<session::RunRecorder> record_run(session::JobSetup& setup) {
    const std::filesystem::path runs = session::runs_folder_for(setup.project_file);
    std::vector<std::string> names;
    for (const session::RunRecord& run : session::list_runs(runs)) names.push_back(run.receipt.name);
    session::RunReceipt receipt;
    receipt.name = session::next_run_name(names);
    receipt.started_at = session::format_local_iso_now();
    receipt.app_version = session::program_version();
    receipt.project_name = setup.project.name.empty() ? setup.project_file.stem().string() : setup.project.name;
    receipt.training = setup.project.training;
    receipt.dataset = setup.project.dataset;
    std::optional<session::RunRecorder> recorder;
    recorder.emplace(runs, std::move(receipt));
    // The weights and checkpoint go into the run's folder unless the learner named files of their own.
    if (setup.save_weights.empty()) setup.save_weights = recorder->weights_file();
    if (setup.checkpoint.empty()) setup.checkpoint = recorder->checkpoint_file();
    // What the Inside view replays, epoch by epoch, is kept in the run's folder.
    setup.replay_folder = recorder->folder();
    return recorder;
}

}  // namespace

int run_training(session::JobSetup setup, bool run_folder) {
    // A live bar on a terminal is redrawn at most 10 times a second; a log gets a line per quarter epoch.
    setup.report_interval = std::chrono::milliseconds(100);

    std::optional<session::RunRecorder> recorder;
    if (run_folder && !setup.project_file.empty() && setup.task == session::JobTask::train &&
        installed_example(setup.project_file)) {
        print_note(setup.project_file.string() +
                   " is an example installed with Backprop Studio: its runs are not kept beside it; copy it to a "
                   "folder of your own to keep them");
    } else if (run_folder && !setup.project_file.empty() && setup.task == session::JobTask::train) {
        try {
            recorder = record_run(setup);
        } catch (const session::RunRecordError& problem) {
            print_note(std::string("the run is not recorded: ") + problem.what());
        }
    }
    const std::filesystem::path own_weights =
        recorder && setup.save_weights != recorder->weights_file() ? setup.save_weights : std::filesystem::path();
    const std::chrono::steady_clock::time_point started_at = std::chrono::steady_clock::now();
    // The job's events come one at a time; a record that cannot be written is said once, and the
    // run goes on (its weights matter more than its receipt).
    bool record_problem_said = false;
    const auto write_record = [&] {
        try {
            recorder->write();
        } catch (const std::exception& problem) {
            if (!record_problem_said) print_note(std::string("the run's record was not written: ") + problem.what());
            record_problem_said = true;
        }
    };

    // From here on Ctrl-C asks for a clean stop instead of ending the process.
    catch_interrupts();
    std::mutex output;
    TrainingProgress progress(std::cerr, stderr_is_terminal());
    std::atomic<bool> training = false;
    session::JobEvents events;
    events.stage = [&](const session::StageReport& stage) {
        if (stage.stage == session::Stage::running) training = true;
        if (stage.stage == session::Stage::preparing && stage.total == 0 && stage.activity.rfind("reading ", 0) == 0) {
            std::lock_guard lock(output);
            std::cerr << stage.activity << "...\n";
        }
    };
    events.started = [&](const session::RunFacts& facts) {
        std::lock_guard lock(output);
        if (recorder) {
            recorder->started(facts);
            write_record();
        }
        if (!facts.skipped_images.empty())
            std::cerr << "skipped " << session::format_count(facts.skipped_images.size(), "unreadable image") << "\n";
        std::cout << "training '" << facts.name << "' on " << facts.data_title << ": "
                  << session::format_thousands(facts.train_images) << " training, "
                  << session::format_thousands(facts.validation_images) << " validation, "
                  << session::format_thousands(facts.test_images) << " test images\n"
                  << "device " << facts.device.name << "; "
                  << session::format_count(static_cast<std::size_t>(facts.training.epochs), "epoch") << ", batch "
                  << facts.training.batch_size << ", " << optimizer_text(facts.training.optimizer) << ", seed "
                  << facts.training.seed << "\n"
                  << std::flush;
    };
    events.batch = [&](const session::BatchReport& report) {
        std::lock_guard lock(output);
        if (recorder) recorder->batch(report);
        progress.batch(report);
    };
    events.epoch = [&](const session::EpochReport& report) {
        std::lock_guard lock(output);
        if (recorder) {
            recorder->epoch(report);
            write_record();  // a crash later still leaves the curves so far
        }
        progress.finish();
        std::cout << epoch_line(report) << "\n" << std::flush;
    };
    events.failed = [&](const session::JobFailure& failure) {
        std::lock_guard lock(output);
        if (!recorder) return;
        recorder->failed(failure);
        recorder->set_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - started_at).count());
        write_record();
    };
    const session::JobResult result = run_job(std::move(setup), std::move(events), [&] {
        std::lock_guard lock(output);
        progress.finish();
        if (training) std::cerr << "stopping after this batch...\n";
    });
    progress.finish();
    if (recorder) {
        recorder->finished(result);
        // Weights saved under the learner's own name are kept in the run's folder too.
        std::error_code copied;
        if (!own_weights.empty() && !result.saved_to.empty() &&
            std::filesystem::copy_file(own_weights, recorder->weights_file(), copied))
            recorder->record().receipt.weights_file = recorder->weights_file().filename().string();
        write_record();
    }

    if (!result.training_began) {
        std::cerr << "stopped before training began\n";
        return exit_interrupted;
    }
    if (result.stopped)
        std::cout << "stopped after "
                  << session::format_count(static_cast<std::size_t>(result.epochs_completed), "whole epoch") << "\n";
    if (result.batch_limit_reached)
        std::cout << "stopped after " << result.batches_trained << (result.batches_trained == 1 ? " batch" : " batches")
                  << " (--batches)\n";
    if (result.test)
        std::cout << "test accuracy " << std::fixed << std::setprecision(4) << result.test->accuracy << ", loss "
                  << result.test->loss << " (" << session::format_thousands(result.test->samples) << " images)\n";
    std::cout << "trained for " << session::format_duration(result.seconds) << "\n";
    if (!result.saved_to.empty()) std::cout << "weights saved to " << result.saved_to.string() << "\n";
    if (!result.checkpoint_saved_to.empty())
        std::cout << "checkpoint saved to " << result.checkpoint_saved_to.string() << " (go on with 'backprop resume "
                  << result.checkpoint_saved_to.string() << "')\n";
    if (recorder && !record_problem_said)
        std::cout << "run recorded in " << recorder->record().folder.string() << " ('backprop runs' lists it)\n";
    return result.stopped && interrupt_requested() ? exit_interrupted : exit_ok;
}

}  // namespace bps::cli
