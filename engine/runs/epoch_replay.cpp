#include "engine/runs/epoch_replay.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <string_view>

#include "engine/base/atomic_file.h"
#include "engine/io/hdf5_heap_check.h"
#include "engine/io/hdf5_support.h"
#include "engine/io/input_file.h"
#include "engine/model/graph_analysis.h"

namespace bps::session {

ReplayError::ReplayError(const std::filesystem::path& file, const std::string& problem)
    : std::runtime_error(file.string() + ": " + problem), file_(file) {}

namespace {

using io::hdf5::Handle;

// The file's layout:
//   /            attributes format = "backprop-studio-replay", format_version = 1, epoch,
//                kept_names (the kept arrays, in order), parameter_names (every parameter)
//   /kept/<name>            float32, the engine's dims ("conv1.weight" out x in x kh x kw)
//   /figures/<name>.weights     float64: count, mean, deviation, min, max, low, high, counts...
//   /figures/<name>.gradients   the same for its gradient, when known
constexpr const char* kFormatName = "backprop-studio-replay";
constexpr long long kFormatVersion = 1;
constexpr std::size_t kFigureHead = 7;

void write_or_throw(const std::filesystem::path& file, bool written, const std::string& what) {
    if (!written) throw ReplayError(file, "could not write " + what);
}

bool write_doubles(hid_t group, const std::string& name, const std::vector<double>& values) {
    const hsize_t extent = values.size();
    Handle space(H5Screate_simple(1, &extent, nullptr), H5Sclose);
    if (!space.valid()) return false;
    Handle dataset(H5Dcreate2(group, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   H5Dclose);
    return dataset.valid() &&
           H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0;
}

std::vector<double> figures_row(const ValueFigures& figures) {
    std::vector<double> row{static_cast<double>(figures.count),
                            figures.mean,
                            figures.deviation,
                            figures.min,
                            figures.max,
                            figures.histogram.low,
                            figures.histogram.high};
    for (const std::uint32_t count : figures.histogram.counts) row.push_back(count);
    return row;
}

std::optional<ValueFigures> figures_of_row(const std::vector<double>& row) {
    if (row.size() < kFigureHead + 1) return std::nullopt;
    ValueFigures figures;
    figures.count = static_cast<std::size_t>(row[0]);
    figures.mean = row[1];
    figures.deviation = row[2];
    figures.min = static_cast<float>(row[3]);
    figures.max = static_cast<float>(row[4]);
    figures.histogram.low = static_cast<float>(row[5]);
    figures.histogram.high = static_cast<float>(row[6]);
    for (std::size_t i = kFigureHead; i < row.size(); ++i)
        figures.histogram.counts.push_back(static_cast<std::uint32_t>(row[i]));
    return figures;
}

void check_name(const std::filesystem::path& file, const std::string& name) {
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
        throw ReplayError(file, "array '" + name + "' cannot be kept: names must not be empty or contain '/'");
}

std::string file_image(const std::filesystem::path& file, const EpochReplay& replay) {
    const std::lock_guard lock(io::hdf5::lock());
    const io::hdf5::QuietErrors quiet;
    Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    write_or_throw(file, access.valid() && H5Pset_fapl_core(access.get(), 1 << 20, false) >= 0,
                   "the file (HDF5 could not start an in-memory file)");
    static std::atomic<unsigned> serial = 0;
    const std::string memory_name = "backprop-replay-in-memory-" + std::to_string(++serial);
    Handle hdf5_file(H5Fcreate(memory_name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose);
    write_or_throw(file, hdf5_file.valid(), "the file (HDF5 could not create it in memory)");
    const hid_t root = hdf5_file.get();
    std::vector<std::string> kept_names, parameter_names;
    for (const io::NamedArray& array : replay.kept) kept_names.push_back(array.name);
    for (const ParameterFigures& figures : replay.figures) parameter_names.push_back(figures.name);
    write_or_throw(file,
                   io::hdf5::write_strings(root, "format", {kFormatName}, true) &&
                       io::hdf5::write_int(root, "format_version", kFormatVersion) &&
                       io::hdf5::write_int(root, "epoch", replay.epoch) &&
                       io::hdf5::write_strings(root, "kept_names", kept_names, false) &&
                       io::hdf5::write_strings(root, "parameter_names", parameter_names, false),
                   "the replay's attributes");
    Handle kept(H5Gcreate2(root, "kept", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    write_or_throw(file, kept.valid(), "the group of the kept arrays");
    for (const io::NamedArray& array : replay.kept)
        write_or_throw(file, io::hdf5::write_floats(kept.get(), array.name, array.dims, array.values),
                       "array '" + array.name + "'");
    Handle figures(H5Gcreate2(root, "figures", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    write_or_throw(file, figures.valid(), "the group of the figures");
    for (const ParameterFigures& parameter : replay.figures) {
        write_or_throw(file, write_doubles(figures.get(), parameter.name + ".weights", figures_row(parameter.weights)),
                       "the figures of '" + parameter.name + "'");
        if (parameter.gradients)
            write_or_throw(
                file, write_doubles(figures.get(), parameter.name + ".gradients", figures_row(*parameter.gradients)),
                "the gradient figures of '" + parameter.name + "'");
    }
    write_or_throw(file, H5Fflush(root, H5F_SCOPE_GLOBAL) >= 0, "the file (HDF5 could not finish it)");
    const auto size = H5Fget_file_image(root, nullptr, 0);
    write_or_throw(file, size > 0, "the file (HDF5 gave no image of it)");
    std::string bytes(static_cast<std::size_t>(size), '\0');
    write_or_throw(file, H5Fget_file_image(root, bytes.data(), bytes.size()) == size,
                   "the file (HDF5 gave an incomplete image of it)");
    write_or_throw(file, hdf5_file.close(), "the file (HDF5 could not close it)");
    return bytes;
}

Handle open_replay(const std::filesystem::path& file) {
    const io::InputKind kind = io::input_kind(file);
    if (kind == io::InputKind::missing) throw ReplayError(file, "the replay file does not exist");
    if (kind != io::InputKind::regular) throw ReplayError(file, "is not a regular file, so not a replay");
    if (!std::ifstream(file, std::ios::binary))
        throw ReplayError(file, "the file cannot be opened for reading; check its permissions");
#if H5_VERSION_GE(1, 12, 0)
    const htri_t is_hdf5 = H5Fis_accessible(file.string().c_str(), H5P_DEFAULT);
#else
    const htri_t is_hdf5 = H5Fis_hdf5(file.string().c_str());
#endif
    if (is_hdf5 <= 0) throw ReplayError(file, "not an HDF5 file, so not an epoch replay; it is damaged");
    if (const std::optional<std::string> damage = io::hdf5::global_heap_damage(file))
        throw ReplayError(file, "cannot be read: " + *damage + "; " + io::hdf5::damaged);
    Handle hdf5_file(H5Fopen(file.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!hdf5_file.valid()) throw ReplayError(file, std::string("cannot be read: ") + io::hdf5::damaged);
    return hdf5_file;
}

std::vector<double> read_doubles(const std::filesystem::path& file, hid_t group, const std::string& name) {
    Handle dataset(H5Dopen2(group, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset.valid()) throw ReplayError(file, "figures '" + name + "' cannot be read: " + io::hdf5::damaged);
    Handle space(H5Dget_space(dataset.get()), H5Sclose);
    hsize_t extent = 0;
    if (!space.valid() || H5Sget_simple_extent_ndims(space.get()) != 1 ||
        H5Sget_simple_extent_dims(space.get(), &extent, nullptr) != 1 || extent > (1u << 20))
        throw ReplayError(file, "figures '" + name + "' have the wrong shape: " + io::hdf5::damaged);
    std::vector<double> values(static_cast<std::size_t>(extent));
    if (H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
        throw ReplayError(file, "figures '" + name + "' cannot be read: " + io::hdf5::damaged);
    return values;
}

EpochReplay read_contents(const std::filesystem::path& file) {
    const std::lock_guard lock(io::hdf5::lock());
    const io::hdf5::QuietErrors quiet;
    Handle hdf5_file = open_replay(file);
    const hid_t root = hdf5_file.get();
    const std::optional<std::string> format = io::hdf5::read_string(root, "format");
    if (!format || *format != kFormatName)
        throw ReplayError(file, "is an HDF5 file but not an epoch replay of Backprop Studio (its format is " +
                                    (format ? "'" + *format + "'" : std::string("not said")) + ")");
    const std::optional<long long> version = io::hdf5::read_int(root, "format_version");
    if (!version || *version < 1)
        throw ReplayError(file, std::string("has no valid format version: ") + io::hdf5::damaged);
    if (*version > kFormatVersion)
        throw ReplayError(file, "was written by a newer Backprop Studio (replay format " + std::to_string(*version) +
                                    "); this version reads format " + std::to_string(kFormatVersion));
    const std::optional<long long> epoch = io::hdf5::read_int(root, "epoch");
    const auto kept_names = io::hdf5::read_strings(root, "kept_names");
    const auto parameter_names = io::hdf5::read_strings(root, "parameter_names");
    if (!epoch || !kept_names || !parameter_names)
        throw ReplayError(file, std::string("has no list of what it keeps: ") + io::hdf5::damaged);
    EpochReplay replay;
    replay.epoch = static_cast<int>(*epoch);
    try {
        for (const std::string& name : *kept_names)
            replay.kept.push_back(
                io::hdf5::read_floats(file, root, "kept/" + name, name, "array '" + name + "'", true));
    } catch (const io::WeightsFileError& error) {
        throw ReplayError(file, error.problem());
    }
    if (!parameter_names->empty() && !io::hdf5::exists(root, "figures"))
        throw ReplayError(file, std::string("has no figures: ") + io::hdf5::damaged);
    if (!parameter_names->empty()) {
        Handle figures(H5Gopen2(root, "figures", H5P_DEFAULT), H5Gclose);
        if (!figures.valid()) throw ReplayError(file, std::string("has no figures: ") + io::hdf5::damaged);
        for (const std::string& name : *parameter_names) {
            ParameterFigures parameter;
            parameter.name = name;
            const std::optional<ValueFigures> weights =
                figures_of_row(read_doubles(file, figures.get(), name + ".weights"));
            if (!weights) throw ReplayError(file, "the figures of '" + name + "' are incomplete: " + io::hdf5::damaged);
            parameter.weights = *weights;
            if (io::hdf5::exists(figures.get(), name + ".gradients")) {
                parameter.gradients = figures_of_row(read_doubles(file, figures.get(), name + ".gradients"));
                if (!parameter.gradients)
                    throw ReplayError(file,
                                      "the gradient figures of '" + name + "' are incomplete: " + io::hdf5::damaged);
            }
            replay.figures.push_back(std::move(parameter));
        }
    }
    return replay;
}

// "epoch-012.h5" -> 12; nullopt for any other name.
std::optional<int> epoch_of_name(const std::string& name) {
    constexpr std::string_view prefix = "epoch-", suffix = ".h5";
    if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        return std::nullopt;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    return std::stoi(digits);
}

model::GraphAnalysis analysis_of(const project::Project& project, const ModelCard& card) {
    return model::analyse_graph(project::project_network(project, card.shape));
}

// Whether the layer at `index` reads the image through Flatten layers only.
bool reads_image(const model::GraphAnalysis& analysis, int index) {
    const model::LayerAnalysis& layer = analysis.layers[static_cast<std::size_t>(index)];
    if (layer.inputs.size() != 1) return false;
    const model::LayerAnalysis& input = analysis.layers[static_cast<std::size_t>(layer.inputs.front())];
    if (input.spec.type == model::LayerType::input) return true;
    return input.spec.type == model::LayerType::flatten && reads_image(analysis, layer.inputs.front());
}

bool keeps(const model::GraphAnalysis& analysis, int index) {
    const model::LayerAnalysis& layer = analysis.layers[static_cast<std::size_t>(index)];
    switch (layer.spec.type) {
        case model::LayerType::conv2d:
        case model::LayerType::batch_norm:
            return true;
        case model::LayerType::dense:
            return reads_image(analysis, index);
        default:
            return false;
    }
}

}  // namespace

bool replay_keeps(const project::Project& project, const ModelCard& card, const std::string& layer) {
    const model::GraphAnalysis analysis = analysis_of(project, card);
    for (std::size_t i = 0; i < analysis.layers.size(); ++i)
        if (analysis.layers[i].spec.name == layer) return keeps(analysis, static_cast<int>(i));
    return false;
}

EpochReplay make_epoch_replay(const project::Project& project, const ModelCard& card, int epoch,
                              std::span<const io::NamedArray> weights, std::span<const io::NamedArray> gradients) {
    const model::GraphAnalysis analysis = analysis_of(project, card);
    std::set<std::string> kept_layers;
    for (std::size_t i = 0; i < analysis.layers.size(); ++i)
        if (keeps(analysis, static_cast<int>(i))) kept_layers.insert(analysis.layers[i].spec.name);
    std::map<std::string, const io::NamedArray*> gradient_of;
    for (const io::NamedArray& gradient : gradients) gradient_of[gradient.name] = &gradient;

    EpochReplay replay;
    replay.epoch = epoch;
    for (const io::NamedArray& array : weights) {
        const std::string layer = array.name.substr(0, array.name.find('.'));
        if (kept_layers.count(layer) > 0) replay.kept.push_back(array);
        ParameterFigures figures;
        figures.name = array.name;
        figures.weights = value_figures(array.values);
        if (const auto found = gradient_of.find(array.name); found != gradient_of.end())
            figures.gradients = value_figures(found->second->values);
        replay.figures.push_back(std::move(figures));
    }
    return replay;
}

std::filesystem::path epoch_replay_file(const std::filesystem::path& run_folder, int epoch) {
    char name[32];
    std::snprintf(name, sizeof name, "epoch-%03d.h5", epoch);
    return run_folder / "replay" / name;
}

void write_epoch_replay(const std::filesystem::path& run_folder, const EpochReplay& replay) {
    const std::filesystem::path file = epoch_replay_file(run_folder, replay.epoch);
    for (const io::NamedArray& array : replay.kept) {
        check_name(file, array.name);
        std::size_t needed = array.dims.empty() ? 0 : 1;
        for (const int dim : array.dims) needed *= static_cast<std::size_t>(std::max(dim, 0));
        if (needed == 0 || needed != array.values.size())
            throw ReplayError(file, "array '" + array.name + "' has " + std::to_string(array.values.size()) +
                                        " values but its dims " + io::dims_text(array.dims) + " need " +
                                        std::to_string(needed));
    }
    for (const ParameterFigures& figures : replay.figures) check_name(file, figures.name);
    std::error_code error;
    std::filesystem::create_directories(file.parent_path(), error);
    if (error) throw ReplayError(file, "its folder could not be made: " + error.message());
    const std::string bytes = file_image(file, replay);
    try {
        io::save_atomically(file, bytes);
    } catch (const io::SaveProblem& problem) {
        throw ReplayError(file, problem.what());
    }
}

std::vector<int> replay_epochs(const std::filesystem::path& run_folder) {
    std::vector<int> epochs;
    std::error_code error;
    const std::filesystem::path folder = run_folder / "replay";
    if (!std::filesystem::is_directory(folder, error)) return epochs;
    for (std::filesystem::directory_iterator entry(folder, error), end; !error && entry != end;
         entry.increment(error)) {
        std::error_code kind_error;
        if (!entry->is_regular_file(kind_error)) continue;
        if (const std::optional<int> epoch = epoch_of_name(entry->path().filename().string())) epochs.push_back(*epoch);
    }
    std::sort(epochs.begin(), epochs.end());
    epochs.erase(std::unique(epochs.begin(), epochs.end()), epochs.end());
    return epochs;
}

EpochReplay read_epoch_replay(const std::filesystem::path& run_folder, int epoch) {
    const std::filesystem::path file = epoch_replay_file(run_folder, epoch);
    try {
        return read_contents(file);
    } catch (const std::bad_alloc&) {
        throw ReplayError(file, "could not be read: it needs more memory than this computer can give");
    }
}

std::vector<io::NamedArray> replay_weights(std::span<const io::NamedArray> final_weights, const EpochReplay& replay) {
    std::vector<io::NamedArray> weights(final_weights.begin(), final_weights.end());
    for (io::NamedArray& array : weights)
        for (const io::NamedArray& kept : replay.kept)
            if (kept.name == array.name && kept.dims == array.dims) array.values = kept.values;
    return weights;
}

std::vector<std::string> replayed_layers(const project::Project& project, const ModelCard& card,
                                         const EpochReplay& replay) {
    const model::GraphAnalysis analysis = analysis_of(project, card);
    std::vector<bool> exact(analysis.layers.size(), false);
    std::vector<std::string> layers;
    for (std::size_t i = 0; i < analysis.layers.size(); ++i) {
        const model::LayerAnalysis& layer = analysis.layers[i];
        bool inputs_exact = true;
        for (const int input : layer.inputs) inputs_exact = inputs_exact && exact[static_cast<std::size_t>(input)];
        const bool own_kept = layer.parameters == 0 || !arrays_of_layer(replay.kept, layer.spec.name).empty();
        exact[i] = inputs_exact && own_kept;
        if (exact[i]) layers.push_back(layer.spec.name);
    }
    return layers;
}

}  // namespace bps::session
