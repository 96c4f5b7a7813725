#include "app/cli/project_argument.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "app/cli/arguments.h"
#include "engine/base/bounded_text.h"
#include "engine/io/input_file.h"
#include "engine/runs/saved_weights.h"

namespace bps::cli {

namespace {

constexpr std::string_view hdf5_signature("\x89HDF\r\n\x1a\n", 8);

// HDF5's signature opens the file (a user block could move it; our files have none).
bool is_hdf5_file(const std::filesystem::path& file) {
    char signature[8] = {};
    std::ifstream in(file, std::ios::binary);
    return in.read(signature, sizeof signature) && std::string_view(signature, sizeof signature) == hdf5_signature;
}

// A name that says weights: such a file without HDF5's signature is a damaged weights file, not a
// damaged project, and the message says so.
bool has_weights_extension(const std::filesystem::path& file) {
    std::string extension = file.extension().string();
    for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return extension == ".h5" || extension == ".hdf5" || extension == ".keras";
}

// A pipe the shell opened (`<(cat p.json)`) is read once: sniffing for HDF5 first would use up
// the bytes the project needs.
project::Project read_project_from_pipe(const std::filesystem::path& file) {
    const io::BoundedText read = io::read_bounded_text(file, project::max_project_file_bytes);
    if (read.outcome == io::TextRead::unreadable)
        throw project::ProjectError(file.string(), "could not be read; check that you may read it");
    if (read.outcome == io::TextRead::too_large)
        throw project::ProjectError(file.string(), "is larger than " +
                                                       io::size_cap_words(project::max_project_file_bytes) +
                                                       ", far more than any project file; is it the right file?");
    if (std::string_view(read.text).starts_with(hdf5_signature))
        throw io::WeightsFileError(file,
                                   "is a weights file on a pipe, but HDF5 reads a weights file by seeking in "
                                   "it; save it to a file and give that file");
    return project::parse_project(read.text, file.string());
}

}  // namespace

OpenedProject open_project(const std::optional<std::string>& argument) {
    if (!argument) throw UsageError("which project? Give a project file or an example name (mlp, cnn, cifar)");
    const std::filesystem::path file(*argument);
    switch (io::input_kind(file)) {
        case io::InputKind::missing:
            for (const std::string& name : project::example_names())
                if (name == *argument) return {project::example_project(name), "example '" + name + "'", {}, {}};
            throw project::ProjectError(file.string(),
                                        "the file does not exist; the examples that ship with Backprop Studio are "
                                        "mlp, cnn and cifar");
        case io::InputKind::special:
            throw project::ProjectError(file.string(), io::special_file_problem);
        case io::InputKind::open_pipe:
            return {read_project_from_pipe(file), file.string(), {}, {}};
        case io::InputKind::folder:
        case io::InputKind::regular:
            break;
    }
    if (is_hdf5_file(file) || has_weights_extension(file)) {
        // A weights file or checkpoint: the project it was trained from travels inside. One that is
        // not HDF5 at all is refused by the weights reader, as not an HDF5 file.
        const session::SavedWeights saved = session::read_saved_weights(file);
        return {session::project_of(saved), file.string(), file, file, saved.contents.is_checkpoint()};
    }
    return {project::read_project(file), file.string(), {}, file};
}

model::GraphAnalysis check_project(const OpenedProject& opened, const session::DataFacts& facts) {
    try {
        return project::analyse_project(opened.project, facts.shape, static_cast<int>(facts.class_count));
    } catch (const model::ModelError& problem) {
        throw std::runtime_error(opened.source + ": " + problem.what());
    }
}

}  // namespace bps::cli
