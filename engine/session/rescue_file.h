#pragma once
// Where a failed run saves the weights it could keep. Never over the file the run was to save to:
// that may hold a learner's earlier trained weights, and a run that diverged or lost its device
// often has only its starting weights to give. So the rescued weights go beside it, under a name
// that says what they are, and never over any existing file.
#include <cstddef>
#include <filesystem>
#include <string>

namespace bps::session {

// "run/w.h5", "last-finite", 120 -> "run/w.last-finite-after-120-batches.h5"; when that exists,
// "run/w.last-finite-after-120-batches-2.h5" and so on, until a name is free.
std::filesystem::path rescue_file_for(const std::filesystem::path& wanted, const std::string& what,
                                      std::size_t batches);

}  // namespace bps::session
