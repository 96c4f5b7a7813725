// backprop resume: a training run continued from its checkpoint, exactly where it stopped.
#include "app/cli/commands.h"
#include "app/cli/file_clashes.h"
#include "app/cli/run_job.h"
#include "engine/runs/checkpoint.h"

namespace bps::cli {

const char* const resume_help =
    "usage: backprop resume CHECKPOINT [--epochs N] [--lr RATE] [--device INDEX|NAME]\n"
    "                       [--save-weights FILE] [--checkpoint FILE]\n"
    "\n"
    "Goes on training from a checkpoint written by 'backprop train --checkpoint FILE' (or by the\n"
    "studio): the same project, weights, optimiser state, learning rate and position in the epoch, so\n"
    "the run continues as if it had never stopped. The checkpoint is updated as training goes on,\n"
    "unless --checkpoint names another file.\n"
    "  --epochs N            the run's total number of epochs (more than the checkpoint reached, to\n"
    "                        train further than the run was set to)\n"
    "  --lr RATE             go on at this learning rate instead of the checkpoint's (above 0 and at\n"
    "                        most 10)\n"
    "  --device INDEX|NAME   an OpenCL device as 'backprop devices' lists them (the same device gives\n"
    "                        the same weights as an uninterrupted run)\n"
    "  --save-weights FILE   write the trained weights to FILE when training ends\n";

int run_resume(Arguments& arguments) {
    const std::optional<std::string> word = arguments.take_word();
    const std::optional<int> epochs = arguments.take_whole_number("--epochs");
    const std::optional<double> rate = arguments.take_positive_number("--lr");
    const std::optional<std::string> device_flag = arguments.take_option("--device");
    const std::optional<std::string> weights_file = arguments.take_file_option("--save-weights");
    const std::optional<std::string> checkpoint_file = arguments.take_file_option("--checkpoint");
    arguments.expect_nothing_left();
    check_learning_rate(rate);
    if (!word) throw UsageError("which checkpoint? Give the file 'backprop train --checkpoint FILE' wrote");

    const std::filesystem::path checkpoint(*word);
    // The checkpoint read goes on being updated (unless --checkpoint names another file), so neither
    // it nor --checkpoint's file may receive the trained weights.
    refuse_clashing_files(
        {{checkpoint_file.value_or(""), "--checkpoint"}, {weights_file.value_or(""), "--save-weights"}}, {}, "file");
    refuse_clashing_files({{weights_file.value_or(""), "--save-weights"}}, {{checkpoint, "the checkpoint"}}, "file");
    // Its position and project only (the run reads the arrays), so that a file that is no
    // checkpoint is refused before any device is touched.
    const session::CheckpointHeader state = session::read_checkpoint_header(checkpoint);
    OpenedProject opened{state.project, checkpoint.string(), checkpoint, {}};
    session::JobSetup setup = job_setup(session::JobTask::train, std::move(opened), device_flag);
    setup.resume_from = checkpoint;
    setup.epochs = epochs;
    if (rate) setup.learning_rate = static_cast<float>(*rate);
    setup.checkpoint = checkpoint_file ? std::filesystem::path(*checkpoint_file) : checkpoint;
    if (weights_file) setup.save_weights = *weights_file;
    return run_training(std::move(setup), false);
}

}  // namespace bps::cli
