#include "engine/io/weights_file.h"

#include <atomic>
#include <fstream>
#include <new>
#include <optional>
#include <set>

#include "engine/base/atomic_file.h"
#include "engine/base/bounded_text.h"
#include "engine/io/hdf5_heap_check.h"
#include "engine/io/hdf5_support.h"
#include "engine/io/input_file.h"

namespace bps::io {

WeightsFileError::WeightsFileError(const std::filesystem::path& file, const std::string& problem)
    : std::runtime_error(file.string() + ": " + problem), file_(file), problem_(problem) {}

namespace {

using hdf5::Handle;

constexpr const char* kFormatName = "backprop-studio-weights";
constexpr long long kFormatVersion = 2;
// Keras decides from keras_version whether a file needs converting from Keras 1: these files
// follow the Keras 2 layout.
constexpr const char* kKerasVersion = "2.15.0";
constexpr const char* kCheckpointGroup = "backprop_checkpoint";
constexpr const char* kWrittenBy = "weights files are written by 'backprop train --save-weights'";

// ---- names -------------------------------------------------------------------------------------

void check_name(const std::filesystem::path& file, const std::string& what, const std::string& name) {
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
        std::string problem = what;
        problem += " '";
        problem += name;
        problem += "' cannot be saved: names must not be empty or contain '/'";
        throw WeightsFileError(file, problem);
    }
}

void check_array(const std::filesystem::path& file, const std::string& which, const NamedArray& array) {
    if (array.dims.empty())
        throw WeightsFileError(
            file, which + " has no dims; give at least one, e.g. {" + std::to_string(array.values.size()) + "}");
    std::size_t needed = 1;
    for (const int dim : array.dims) {
        if (dim < 1)
            throw WeightsFileError(file,
                                   which + " has dims " + dims_text(array.dims) + "; every dim must be at least 1");
        needed *= static_cast<std::size_t>(dim);
    }
    if (needed != array.values.size()) {
        throw WeightsFileError(file, which + " has " + std::to_string(array.values.size()) + " values but its dims " +
                                         dims_text(array.dims) + " need " + std::to_string(needed));
    }
}

void validate(const std::filesystem::path& file, const WeightsFile& contents) {
    std::set<std::string> layers;
    for (const KerasLayer& layer : contents.layers) {
        check_name(file, "layer", layer.name);
        if (layer.name == kCheckpointGroup || !layers.insert(layer.name).second)
            throw WeightsFileError(file, "layer '" + layer.name + "' appears twice; every layer name must be unique");
        std::set<std::string> weights;
        for (const NamedArray& weight : layer.weights) {
            check_name(file, "weight", weight.name);
            const std::string which = "weight '" + layer.name + "/" + weight.name + "'";
            if (!weights.insert(weight.name).second) throw WeightsFileError(file, which + " appears twice");
            check_array(file, which, weight);
        }
    }
    std::set<std::string> arrays;
    for (const NamedArray& array : contents.checkpoint_arrays) {
        check_name(file, "array", array.name);
        if (!arrays.insert(array.name).second)
            throw WeightsFileError(file, "array '" + array.name + "' appears twice; every array name must be unique");
        check_array(file, "array '" + array.name + "'", array);
    }
}

// ---- writing -----------------------------------------------------------------------------------

void write_or_throw(const std::filesystem::path& file, bool written, const std::string& what) {
    if (!written) throw WeightsFileError(file, "could not write " + what);
}

void write_layers(const std::filesystem::path& file, hid_t root, const WeightsFile& contents) {
    std::vector<std::string> layer_names;
    for (const KerasLayer& layer : contents.layers) layer_names.push_back(layer.name);
    write_or_throw(file,
                   hdf5::write_strings(root, "layer_names", layer_names, false) &&
                       hdf5::write_strings(root, "backend", {"tensorflow"}, true) &&
                       hdf5::write_strings(root, "keras_version", {kKerasVersion}, true) &&
                       hdf5::write_strings(root, "format", {kFormatName}, true) &&
                       hdf5::write_int(root, "format_version", kFormatVersion) &&
                       hdf5::write_strings(root, "model_card", {contents.model_card}, true) &&
                       // No project, no attribute: an empty one reads back as damaged.
                       (contents.project.empty() || hdf5::write_strings(root, "project", {contents.project}, true)) &&
                       (contents.program_version.empty() ||
                        hdf5::write_strings(root, "backprop_version", {contents.program_version}, true)),
                   "the file's attributes");
    for (const KerasLayer& layer : contents.layers) {
        Handle group(H5Gcreate2(root, layer.name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        write_or_throw(file, group.valid(), "the group of layer '" + layer.name + "'");
        std::vector<std::string> weight_names;
        for (const NamedArray& weight : layer.weights) weight_names.push_back(layer.name + "/" + weight.name + ":0");
        write_or_throw(file, hdf5::write_strings(group.get(), "weight_names", weight_names, false),
                       "the weight names of layer '" + layer.name + "'");
        if (layer.weights.empty()) continue;
        // Keras keeps a layer's weights one group further down, named like the layer again.
        Handle inner(H5Gcreate2(group.get(), layer.name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        write_or_throw(file, inner.valid(), "the weights group of layer '" + layer.name + "'");
        for (const NamedArray& weight : layer.weights)
            write_or_throw(file, hdf5::write_floats(inner.get(), weight.name + ":0", weight.dims, weight.values),
                           "weight '" + layer.name + "/" + weight.name + "'");
    }
    if (!contents.is_checkpoint()) return;
    Handle group(H5Gcreate2(root, kCheckpointGroup, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    std::vector<std::string> names;
    for (const NamedArray& array : contents.checkpoint_arrays) names.push_back(array.name);
    write_or_throw(file,
                   group.valid() && hdf5::write_strings(group.get(), "state", {contents.checkpoint_state}, true) &&
                       hdf5::write_strings(group.get(), "array_names", names, false),
                   "the training state");
    for (const NamedArray& array : contents.checkpoint_arrays)
        write_or_throw(file, hdf5::write_floats(group.get(), array.name, array.dims, array.values),
                       "array '" + array.name + "' of the training state");
}

// The whole file as bytes: HDF5 writes into memory (its "core" driver with no backing store), so
// it never touches the disk and a full disk can only fail our own plain write afterwards, with
// every HDF5 handle already closed.
std::string file_image(const std::filesystem::path& file, const WeightsFile& contents) {
    const std::lock_guard lock(hdf5::lock());
    const hdf5::QuietErrors quiet;
    Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    write_or_throw(file, access.valid() && H5Pset_fapl_core(access.get(), 1 << 20, false) >= 0,
                   "the file (HDF5 could not start an in-memory file)");
    static std::atomic<unsigned> serial = 0;
    const std::string memory_name = "backprop-weights-in-memory-" + std::to_string(++serial);
    Handle hdf5_file(H5Fcreate(memory_name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose);
    write_or_throw(file, hdf5_file.valid(), "the file (HDF5 could not create it in memory)");
    write_layers(file, hdf5_file.get(), contents);
    write_or_throw(file, H5Fflush(hdf5_file.get(), H5F_SCOPE_GLOBAL) >= 0, "the file (HDF5 could not finish it)");
    const auto size = H5Fget_file_image(hdf5_file.get(), nullptr, 0);  // ssize_t, which MSVC lacks by name
    write_or_throw(file, size > 0, "the file (HDF5 gave no image of it)");
    std::string bytes(static_cast<std::size_t>(size), '\0');
    write_or_throw(file, H5Fget_file_image(hdf5_file.get(), bytes.data(), bytes.size()) == size,
                   "the file (HDF5 gave an incomplete image of it)");
    write_or_throw(file, hdf5_file.close(), "the file (HDF5 could not close it)");
    return bytes;
}

// ---- reading -----------------------------------------------------------------------------------

Handle open_file(const std::filesystem::path& file) {
    const InputKind kind = input_kind(file);
    if (kind == InputKind::missing) throw WeightsFileError(file, "the file does not exist");
    if (kind == InputKind::folder)
        throw WeightsFileError(file, "is a folder, not a weights file; choose the .h5 file inside it");
    if (kind == InputKind::special) throw WeightsFileError(file, special_file_problem);
    if (kind == InputKind::open_pipe)
        throw WeightsFileError(file,
                               "is a pipe, but HDF5 reads a weights file by seeking in it; save it to a "
                               "file and give that file");
    if (!std::ifstream(file, std::ios::binary)) {
        throw WeightsFileError(file, "the file cannot be opened for reading; check its permissions");
    }
#if H5_VERSION_GE(1, 12, 0)
    const htri_t is_hdf5 = H5Fis_accessible(file.string().c_str(), H5P_DEFAULT);
#else
    const htri_t is_hdf5 = H5Fis_hdf5(file.string().c_str());
#endif
    if (is_hdf5 <= 0) throw WeightsFileError(file, std::string("not an HDF5 file; ") + kWrittenBy);
    if (const std::optional<std::string> damage = hdf5::global_heap_damage(file)) {
        throw WeightsFileError(file, "cannot be read: " + *damage + "; " + hdf5::damaged);
    }
    Handle hdf5_file(H5Fopen(file.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!hdf5_file.valid()) throw WeightsFileError(file, std::string("cannot be read: ") + hdf5::damaged);
    return hdf5_file;
}

// Format 1: a group per layer, arrays in the engine's axis order, listed by `array_names`.
std::vector<NamedArray> read_format1(const std::filesystem::path& file, hid_t root) {
    const std::optional<std::vector<std::string>> names = hdf5::read_strings(root, "array_names");
    if (!names) throw WeightsFileError(file, std::string("has no list of its arrays: ") + hdf5::damaged);
    std::vector<NamedArray> arrays;
    for (const std::string& name : *names) {
        const std::size_t dot = name.find('.');
        const bool valid = dot != std::string::npos && dot > 0 && dot + 1 < name.size() &&
                           name.find('.', dot + 1) == std::string::npos && name.find('/') == std::string::npos;
        if (!valid) throw WeightsFileError(file, "lists an invalid array name '" + name + "'; " + hdf5::damaged);
        const std::string path = name.substr(0, dot) + "/" + name.substr(dot + 1);
        arrays.push_back(hdf5::read_floats(file, root, path, name, "array '" + name + "'", true));
    }
    return arrays;
}

// Keras's layout, ours or another program's: `layer_names`, and per layer `weight_names` that
// name datasets inside the layer's group ("fc1/kernel:0" is /fc1/fc1/kernel:0).
std::vector<KerasLayer> read_keras_layers(const std::filesystem::path& file, hid_t root) {
    const std::optional<std::vector<std::string>> layer_names = hdf5::read_strings(root, "layer_names");
    if (!layer_names) throw WeightsFileError(file, std::string("has no list of its layers: ") + hdf5::damaged);
    std::vector<KerasLayer> layers;
    for (const std::string& layer_name : *layer_names) {
        if (layer_name.empty() || !hdf5::exists(root, layer_name))
            throw WeightsFileError(file, "layer '" + layer_name + "' is listed but missing: " + hdf5::damaged);
        Handle group(H5Gopen2(root, layer_name.c_str(), H5P_DEFAULT), H5Gclose);
        if (!group.valid())
            throw WeightsFileError(file, "layer '" + layer_name + "' cannot be opened: " + hdf5::damaged);
        const std::optional<std::vector<std::string>> weight_names = hdf5::read_strings(group.get(), "weight_names");
        if (!weight_names)
            throw WeightsFileError(file, "layer '" + layer_name + "' has no list of its weights: " + hdf5::damaged);
        KerasLayer layer{layer_name, {}};
        for (const std::string& weight_name : *weight_names) {
            // "fc1/kernel:0" -> "kernel": the role after the last '/', without the ":0" index.
            std::string role =
                weight_name.substr(weight_name.rfind('/') == std::string::npos ? 0 : weight_name.rfind('/') + 1);
            role = role.substr(0, role.find(':'));
            layer.weights.push_back(hdf5::read_floats(file, group.get(), weight_name, role,
                                                      "weight '" + layer_name + "/" + role + "'", false));
        }
        layers.push_back(std::move(layer));
    }
    return layers;
}

// The project a file carries, capped like a project file (an 80 MB attribute once took 5.8 GB
// and 25 s to refuse as JSON); "" for a file that holds none (an earlier version wrote none). A
// fixed-length text is measured before it is read; a variable-length one (ours) before it is
// parsed, having cost no more memory than the file's size.
std::string read_embedded_project(const std::filesystem::path& file, hid_t root) {
    const std::optional<hdf5::AttributeFacts> facts = hdf5::attribute_facts(root, "project");
    if (!facts) return {};
    const auto too_large = [&](std::uint64_t bytes) {
        return WeightsFileError(file, "holds a project of " + std::to_string(bytes) + " bytes, larger than " +
                                          size_cap_words(max_embedded_project_bytes) +
                                          ", far more than any project; the file is damaged");
    };
    if (facts->stored_bytes > max_embedded_project_bytes) throw too_large(facts->stored_bytes);
    const std::optional<std::string> project =
        facts->kind == "text" ? hdf5::read_string(root, "project") : std::nullopt;
    // Text that HDF5 would not give back is damaged, or met a computer out of memory.
    if (!project && facts->kind == "text")
        throw WeightsFileError(file,
                               "has a project that HDF5 could not read: the file is damaged, or this computer "
                               "is out of memory");
    if (!project || project->empty())
        throw WeightsFileError(file, "has a damaged project: its 'project' attribute holds " +
                                         (project ? std::string("empty text") : facts->kind) +
                                         " where the project's JSON text belongs; " + hdf5::damaged);
    if (project->size() > max_embedded_project_bytes) throw too_large(project->size());
    return *project;
}

void read_checkpoint_group(const std::filesystem::path& file, hid_t root, WeightsFile& contents, bool with_arrays) {
    if (H5Lexists(root, kCheckpointGroup, H5P_DEFAULT) <= 0) return;
    Handle group(H5Gopen2(root, kCheckpointGroup, H5P_DEFAULT), H5Gclose);
    const std::optional<std::string> state = group.valid() ? hdf5::read_string(group.get(), "state") : std::nullopt;
    const std::optional<std::vector<std::string>> names =
        group.valid() ? hdf5::read_strings(group.get(), "array_names") : std::nullopt;
    if (!state || state->empty() || !names)
        throw WeightsFileError(file, std::string("has a damaged training state: ") + hdf5::damaged);
    contents.checkpoint_state = *state;
    if (!with_arrays) return;
    for (const std::string& name : *names)
        contents.checkpoint_arrays.push_back(
            hdf5::read_floats(file, group.get(), name, name, "training-state array '" + name + "'", true));
}

}  // namespace

std::string dims_text(const std::vector<int>& dims) {
    std::string text;
    for (int dim : dims) {
        if (!text.empty()) text += 'x';
        text += std::to_string(dim);
    }
    return text;
}

void check_weights_destination(const std::filesystem::path& file) {
    try {
        check_can_save(file);
    } catch (const SaveProblem& problem) {
        throw WeightsFileError(file, problem.what());
    }
}

void save_weights_file(const std::filesystem::path& file, const WeightsFile& contents) {
    validate(file, contents);
    const std::string bytes = file_image(file, contents);
    try {
        save_atomically(file, bytes);  // checks the destination first, with the same words
    } catch (const SaveProblem& problem) {
        throw WeightsFileError(file, problem.what());
    }
}

namespace {

// Without the arrays: the attributes only (format, model card, project, training state).
WeightsFile read_contents(const std::filesystem::path& file, bool with_arrays) {
    const std::lock_guard lock(hdf5::lock());
    const hdf5::QuietErrors quiet;
    Handle hdf5_file = open_file(file);
    hid_t root = hdf5_file.get();
    WeightsFile contents;
    const std::optional<std::string> format = hdf5::read_string(root, "format");
    if (format && *format == kFormatName) {
        const std::optional<long long> version = hdf5::read_int(root, "format_version");
        if (!version || *version < 1) {
            throw WeightsFileError(file, std::string("has no valid weights format version: ") + hdf5::damaged);
        }
        if (*version > kFormatVersion) {
            const std::optional<std::string> writer = hdf5::read_string(root, "backprop_version");
            std::string problem = writer ? "was written by Backprop Studio " + *writer + ", a newer version"
                                         : std::string("was written by a newer Backprop Studio");
            problem += " (weights format " + std::to_string(*version) + "); this version reads formats 1 to ";
            throw WeightsFileError(file, problem + std::to_string(kFormatVersion));
        }
        if (*version == 1) {
            contents.layout = WeightsFile::Layout::format1;
            if (with_arrays) contents.format1_arrays = read_format1(file, root);
            contents.model_card = hdf5::read_string(root, "description").value_or("");
            return contents;
        }
        if (with_arrays) contents.layers = read_keras_layers(file, root);
        contents.model_card = hdf5::read_string(root, "model_card").value_or("");
        contents.project = read_embedded_project(file, root);
        contents.program_version = hdf5::read_string(root, "backprop_version").value_or("");
        read_checkpoint_group(file, root, contents, with_arrays);
        return contents;
    }
    // Another program's Keras-layout file: weights only (save_weights), or a whole model
    // (model.save) whose weights are in the group model_weights.
    std::optional<Handle> model_weights;
    if (!hdf5::read_strings(root, "layer_names") && hdf5::exists(root, "model_weights")) {
        model_weights.emplace(H5Gopen2(root, "model_weights", H5P_DEFAULT), H5Gclose);
        if (model_weights->valid()) root = model_weights->get();
    }
    if (!hdf5::read_strings(root, "layer_names")) {
        throw WeightsFileError(file,
                               "is an HDF5 file but neither a Backprop Studio weights file nor a Keras weights file "
                               "(it has no 'layer_names' attribute)");
    }
    contents.written_by_us = false;
    if (with_arrays) contents.layers = read_keras_layers(file, root);
    return contents;
}

WeightsFile read_named_file(const std::filesystem::path& file, bool with_arrays) {
    try {
        return read_contents(file, with_arrays);
    } catch (const std::bad_alloc&) {
        // A huge array or attribute in a damaged file: the file, not a bare std::bad_alloc.
        std::error_code error;
        const std::uintmax_t size = std::filesystem::file_size(file, error);
        throw WeightsFileError(file,
                               "could not be read: it needs more memory than this computer can give" +
                                   (error ? std::string() : " (the file has " + std::to_string(size) + " bytes)"));
    }
}

}  // namespace

WeightsFile read_weights_file(const std::filesystem::path& file) {
    return read_named_file(file, true);
}

WeightsFile read_weights_file_attributes(const std::filesystem::path& file) {
    return read_named_file(file, false);
}

}  // namespace bps::io
