// backprop export: a trained network as a PyTorch or Keras script that re-creates it and loads its
// weights, so a learner can go on in the tools they meet next; and a project as a PyTorch or Keras
// script that trains it on a GPU, several GPUs or a cluster (engine/runs/training_script.h).
#include <algorithm>
#include <cctype>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/file_clashes.h"
#include "app/cli/project_argument.h"
#include "datasets/catalogue.h"
#include "engine/base/atomic_file.h"
#include "engine/project/project_data.h"
#include "engine/runs/code_export.h"
#include "engine/runs/onnx_export.h"
#include "engine/runs/saved_weights.h"
#include "engine/runs/training_script.h"

namespace bps::cli {

const char* const export_help =
    "usage: backprop export WEIGHTS.h5 [--pytorch FILE.py] [--keras FILE.py] [--onnx FILE.onnx]\n"
    "                       [--pytorch-train FILE.py] [--keras-train FILE.py]\n"
    "       backprop export PROJECT [--pytorch-train FILE.py] [--keras-train FILE.py]\n"
    "\n"
    "--pytorch and --keras write a readable Python script that defines the network of the weights\n"
    "file (saved by 'backprop train --save-weights', or a run's weights.h5 in the studio), loads those\n"
    "weights and prints the most probable classes of the images given on its command line, like\n"
    "'backprop predict'. --pytorch needs torch, h5py, numpy and pillow; --keras needs tensorflow.\n"
    "The script finds the weights file by its path relative to the script's own folder.\n"
    "--onnx writes the network and its weights as one ONNX model (opset 13) for ONNX Runtime,\n"
    "OpenCV or Netron: input 'image' N x C x H x W, normalised as its metadata says; output\n"
    "'probabilities' N x classes.\n"
    "\n"
    "--pytorch-train and --keras-train write a script that trains the project (a project file, an\n"
    "example name such as mlp, cnn or cifar, or the project inside a weights file, whose weights it\n"
    "then starts from) with the same layers, data, validation split, optimiser and schedule, and\n"
    "saves the weights as the studio does, for 'backprop evaluate', 'predict' and the studio.\n"
    "  --pytorch-train  PyTorch: 'python FILE.py' on one GPU or the CPU, 'torchrun --nproc_per_node=N\n"
    "                   FILE.py' on N GPUs, and across machines with torchrun's --nnodes\n"
    "  --keras-train    Keras with tf.distribute.MirroredStrategy: every GPU of one machine\n";

namespace {

// The weights file as the script should name it: relative to the script's folder when possible.
std::string path_from_script(const std::filesystem::path& weights, const std::filesystem::path& script) {
    std::error_code error;
    const std::filesystem::path absolute_weights = std::filesystem::absolute(weights, error);
    const std::filesystem::path script_folder = std::filesystem::absolute(script, error).parent_path();
    const std::filesystem::path relative = absolute_weights.lexically_relative(script_folder);
    return (relative.empty() ? absolute_weights : relative).generic_string();
}

void check_destination(const std::filesystem::path& file) {
    try {
        io::check_can_save(file);
    } catch (const io::SaveProblem& problem) {
        throw std::runtime_error(file.string() + ": " + problem.what());
    }
}

void write_output(const std::filesystem::path& file, const std::string& text) {
    try {
        io::save_atomically(file, text);
    } catch (const io::SaveProblem& problem) {
        throw std::runtime_error(file.string() + ": " + problem.what());
    }
    std::cout << "wrote " << file.string() << "\n";
}

bool named_as_weights(const std::filesystem::path& file) {
    std::string extension = file.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return extension == ".h5" || extension == ".hdf5";
}

// The card of a project that has no weights yet: the dataset's shape and classes, from the
// catalogue without reading its images; an image folder's classes (or CIFAR-100's, kept in its
// files) need the data read. The normalisation is left to the training script, which computes it.
session::ModelCard card_without_weights(const project::Project& project) {
    const session::DataFacts facts = session::project_data_facts(project.dataset);
    if (project.dataset.folder.empty()) {
        const datasets::CatalogueEntry& entry = datasets::catalogue_entry(project.dataset.name);
        if (entry.class_names.size() == entry.class_count)
            return session::ModelCard{project.name, facts.shape, entry.class_names, {}};
    }
    const datasets::DatasetSplits splits = session::load_project_data(project.dataset);
    return session::model_card_for(project.name, splits.train, {});
}

}  // namespace

int run_export(Arguments& arguments) {
    const std::optional<std::string> pytorch = arguments.take_file_option("--pytorch");
    const std::optional<std::string> keras = arguments.take_file_option("--keras");
    const std::optional<std::string> pytorch_train = arguments.take_file_option("--pytorch-train");
    const std::optional<std::string> keras_train = arguments.take_file_option("--keras-train");
    const std::optional<std::string> onnx = arguments.take_file_option("--onnx");
    const std::optional<std::string> word = arguments.take_word();
    arguments.expect_nothing_left();
    if (!word)
        throw UsageError(
            "which weights file? Give the .h5 file that training saved, or a project for --pytorch-train or "
            "--keras-train");
    if (!pytorch && !keras && !onnx && !pytorch_train && !keras_train)
        throw UsageError(
            "say what to write: --pytorch FILE.py, --keras FILE.py, --onnx FILE.onnx, or a training script: "
            "--pytorch-train FILE.py, --keras-train FILE.py");

    // PROJECT|WEIGHTS: a .h5 name is a weights file (a missing one is reported as such); anything
    // else is opened as a project, which may turn out to be a weights file too.
    std::filesystem::path weights_file;
    std::optional<OpenedProject> opened;
    if (named_as_weights(*word)) {
        weights_file = *word;
    } else {
        opened = open_project(*word);
        weights_file = opened->weights_file;
    }
    const std::vector<NamedFile> outputs = {{pytorch.value_or(""), "--pytorch"},
                                            {keras.value_or(""), "--keras"},
                                            {pytorch_train.value_or(""), "--pytorch-train"},
                                            {keras_train.value_or(""), "--keras-train"}};
    std::vector<NamedFile> inputs;
    if (!weights_file.empty()) inputs.push_back({weights_file, "the weights file"});
    if (opened && !opened->project_file.empty()) inputs.push_back({opened->project_file, "the project file"});
    refuse_clashing_files(outputs, inputs, "script");
    std::vector<NamedFile> all_outputs = outputs;
    all_outputs.push_back({onnx.value_or(""), "--onnx"});
    refuse_clashing_files(all_outputs, inputs, "model");
    if (weights_file.empty() && (pytorch || keras || onnx))
        throw UsageError(std::string(pytorch ? "--pytorch writes a script that predicts"
                                     : keras ? "--keras writes a script that predicts"
                                             : "--onnx writes a model") +
                         " with trained weights, and " + *word +
                         " has none: give the .h5 file that training saved, or write a training script with "
                         "--pytorch-train or --keras-train");
    // Every folder is checked before anything is written: no half-done export.
    for (const NamedFile& output : all_outputs)
        if (!output.file.empty()) check_destination(output.file);

    project::Project project;
    session::ModelCard card;
    std::string onnx_bytes;
    if (!weights_file.empty()) {
        const session::SavedWeights weights = session::read_saved_weights(weights_file);
        project = session::project_of(weights);
        card = session::card_of(weights);
        // Made before anything is written: a model that cannot be made leaves no script behind.
        if (onnx) onnx_bytes = session::onnx_model(weights);
    } else {
        project = opened->project;
        card = card_without_weights(project);
    }
    const auto weights_for = [&](const std::string& script) {
        return weights_file.empty() ? std::string() : path_from_script(weights_file, script);
    };
    if (pytorch) write_output(*pytorch, session::pytorch_script(project, card, weights_for(*pytorch)));
    if (keras) write_output(*keras, session::keras_script(project, card, weights_for(*keras)));
    if (pytorch_train)
        write_output(*pytorch_train, session::pytorch_training_script(project, card, weights_for(*pytorch_train)));
    if (keras_train)
        write_output(*keras_train, session::keras_training_script(project, card, weights_for(*keras_train)));
    if (onnx) write_output(*onnx, onnx_bytes);
    return exit_ok;
}

}  // namespace bps::cli
