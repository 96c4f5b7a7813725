#include "engine/session/rescue_file.h"

namespace bps::session {

std::filesystem::path rescue_file_for(const std::filesystem::path& wanted, const std::string& what,
                                      std::size_t batches) {
    const std::string extension = wanted.has_extension() ? wanted.extension().string() : std::string(".h5");
    const std::string base = wanted.stem().string() + "." + what + "-after-" + std::to_string(batches) +
                             (batches == 1 ? "-batch" : "-batches");
    std::error_code error;
    std::filesystem::path candidate = wanted.parent_path() / (base + extension);
    // A bound keeps a folder of a million earlier rescues from stalling the failure (the last name is used then).
    for (int copy = 2; copy < 10000 && std::filesystem::exists(std::filesystem::symlink_status(candidate, error));
         ++copy)
        candidate = wanted.parent_path() / (base + "-" + std::to_string(copy) + extension);
    return candidate;
}

}  // namespace bps::session
