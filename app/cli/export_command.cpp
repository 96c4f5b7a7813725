// backprop export: a trained network as a PyTorch or Keras script that re-creates it and loads its
// weights, so a learner can go on in the tools they meet next.
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/file_clashes.h"
#include "engine/base/atomic_file.h"
#include "engine/runs/code_export.h"
#include "engine/runs/saved_weights.h"

namespace bps::cli {

const char* const export_help =
    "usage: backprop export WEIGHTS.h5 [--pytorch FILE.py] [--keras FILE.py]\n"
    "\n"
    "Writes a readable Python script that defines the network of the weights file (saved by\n"
    "'backprop train --save-weights', or a run's weights.h5 in the studio), loads those weights and\n"
    "prints the most probable classes of the images given on its command line, like\n"
    "'backprop predict'. --pytorch needs torch, h5py, numpy and pillow; --keras needs tensorflow.\n"
    "The script finds the weights file by its path relative to the script's own folder.\n";

namespace {

// The weights file as the script should name it: relative to the script's folder when possible.
std::string path_from_script(const std::filesystem::path& weights, const std::filesystem::path& script) {
    std::error_code error;
    const std::filesystem::path absolute_weights = std::filesystem::absolute(weights, error);
    const std::filesystem::path script_folder = std::filesystem::absolute(script, error).parent_path();
    const std::filesystem::path relative = absolute_weights.lexically_relative(script_folder);
    return (relative.empty() ? absolute_weights : relative).generic_string();
}

void write_script(const std::filesystem::path& file, const std::string& text) {
    try {
        io::save_atomically(file, text);
    } catch (const io::SaveProblem& problem) {
        throw std::runtime_error(file.string() + ": " + problem.what());
    }
    std::cout << "wrote " << file.string() << "\n";
}

}  // namespace

int run_export(Arguments& arguments) {
    const std::optional<std::string> pytorch = arguments.take_file_option("--pytorch");
    const std::optional<std::string> keras = arguments.take_file_option("--keras");
    const std::optional<std::string> word = arguments.take_word();
    arguments.expect_nothing_left();
    if (!word) throw UsageError("which weights file? Give the .h5 file that training saved");
    if (!pytorch && !keras) throw UsageError("say what to write: --pytorch FILE.py, --keras FILE.py or both");

    const std::filesystem::path weights_file(*word);
    refuse_clashing_files({{pytorch.value_or(""), "--pytorch"}, {keras.value_or(""), "--keras"}},
                          {{weights_file, "the weights file"}}, "script");
    const session::SavedWeights weights = session::read_saved_weights(weights_file);
    const project::Project project = session::project_of(weights);
    const session::ModelCard& card = session::card_of(weights);
    if (pytorch)
        write_script(*pytorch, session::pytorch_script(project, card, path_from_script(weights_file, *pytorch)));
    if (keras) write_script(*keras, session::keras_script(project, card, path_from_script(weights_file, *keras)));
    return exit_ok;
}

}  // namespace bps::cli
