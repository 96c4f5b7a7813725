#pragma once
// Saving a file so that no failure loses work: the bytes go to a temporary file with a unique
// name in the target's folder (created exclusively, so two saves at once never share one), which
// is then renamed over the target. An error removes only its own temporary file; temporaries
// left by a save that was killed are removed by the next save of the same file once they are
// older than any save takes.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace bps::io {

// What went wrong, in a learner's words, without the file's name (the caller's error adds it).
class SaveProblem : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws SaveProblem when `file` cannot be saved: its folder is missing, is not a folder or cannot
// be written (a probe file is created and removed), or `file` is a folder or exists and is not a
// regular file.
void check_can_save(const std::filesystem::path& file);

// How many probe files check_can_save has created in this process: each save probes its
// destination once, which tests count.
unsigned long long destination_probes();

// Writes `bytes` as `file` atomically after check_can_save (callers need not call it first);
// throws SaveProblem (a full disk says so).
void save_atomically(const std::filesystem::path& file, std::string_view bytes);

// Temporary files of `file` ("model.h5.part-<unique>") are recognised by this prefix.
std::string temporary_prefix(const std::filesystem::path& file);

}  // namespace bps::io
