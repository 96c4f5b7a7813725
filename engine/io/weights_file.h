#pragma once
// Trained weights on disk: one HDF5 file in the layout Keras gives `save_weights` (h5), so that
// h5py and Keras read it, with what Backprop Studio needs besides as attributes:
//   /                       attributes layer_names (every layer, in order), backend, keras_version,
//                           format = "backprop-studio-weights", format_version = 2,
//                           model_card (JSON, session/model_card.h), project (the project file's JSON)
//   /<layer>                attribute weight_names = ["<layer>/kernel:0", "<layer>/bias:0"] (empty
//                           for a layer without weights)
//   /<layer>/<layer>/kernel:0   float32 in Keras's axis order (engine/io/keras_layout.h)
//   /backprop_checkpoint    only in a checkpoint: attribute state (JSON) and the optimiser's arrays
// Format 1 (a group per layer, arrays in the engine's axis order) is still read. A Keras-layout
// file written by another program (h5py, Keras) is read too; it has no model card and no project.
// Saves build the whole file in memory and write it through io/atomic_file.h: a unique temporary
// name beside the target, renamed into place, so a failed, full or concurrent save never damages
// an earlier file.
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace bps::io {

// One parameter array on the host: name as Network::parameters() gives it ("fc1.weight"), or a
// Keras weight's name inside its layer ("kernel").
struct NamedArray {
    std::string name;
    std::vector<int> dims;  // outermost first; the product equals values.size()
    std::vector<float> values;
};

// One layer of a Keras-layout file: its name and its weights ("kernel", "bias", "gamma", "beta",
// "moving_mean", "moving_variance"), in Keras's axis order and in the order Keras lists them.
struct KerasLayer {
    std::string name;
    std::vector<NamedArray> weights;
};

// Any problem with a weights file; what() is "FILE: problem".
class WeightsFileError : public std::runtime_error {
public:
    WeightsFileError(const std::filesystem::path& file, const std::string& problem);
    const std::filesystem::path& file() const { return file_; }
    const std::string& problem() const { return problem_; }  // what() without "FILE: "

private:
    std::filesystem::path file_;
    std::string problem_;
};

// Everything a weights file or a checkpoint holds.
// The most a file's embedded project may take: what a project file may (project::max_project_file_bytes).
inline constexpr std::uint64_t max_embedded_project_bytes = std::uint64_t{16} << 20;

struct WeightsFile {
    enum class Layout { keras, format1 };
    Layout layout = Layout::keras;
    std::vector<KerasLayer> layers;          // Layout::keras
    std::vector<NamedArray> format1_arrays;  // Layout::format1: engine names and axis order
    bool written_by_us = true;               // false: a Keras-layout file from another program
    std::string model_card;                  // JSON; empty when the file has none
    std::string project;                     // the project file's JSON; empty when the file has none
    // The Backprop Studio that wrote it, session::program_version() ("0.1.0 (git a1b2c3d4e5)");
    // empty when not known (older files, other programs). Stored as the attribute backprop_version.
    std::string program_version;
    // A checkpoint's training state (session/checkpoint.h gives it meaning); both empty in a
    // weights file.
    std::string checkpoint_state;               // JSON
    std::vector<NamedArray> checkpoint_arrays;  // engine names ("fc1.weight.state0") and dims
    bool is_checkpoint() const { return !checkpoint_state.empty(); }
};

// "16x64": dims as messages show them.
std::string dims_text(const std::vector<int>& dims);

// Throws WeightsFileError when weights could not be saved as `file`: its folder is missing, not a
// folder or cannot be written (a probe file is created and removed), `file` is a folder or not a
// regular file (/dev/full). save_weights_file's save checks this too; a trainer calls it before training
// so that hours of work do not end in an unsavable file.
void check_weights_destination(const std::filesystem::path& file);

// Layer and weight names must be non-empty with no '/'; throws WeightsFileError (also when the
// file cannot be written: the message says why, e.g. the disk is full).
void save_weights_file(const std::filesystem::path& file, const WeightsFile& contents);

// Throws WeightsFileError for a missing file, a file that is not HDF5, an HDF5 file that is
// neither a Backprop Studio weights file nor a Keras-layout one, a newer format version, or an
// array that cannot be read.
WeightsFile read_weights_file(const std::filesystem::path& file);

// The same file's attributes only, refused as above but for its arrays: its format, model card, project
// and a checkpoint's training state, with no array read (layers, format1_arrays and
// checkpoint_arrays stay empty). For what a file says about itself, e.g. where a checkpoint stopped.
WeightsFile read_weights_file_attributes(const std::filesystem::path& file);

}  // namespace bps::io
