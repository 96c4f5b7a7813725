#include "engine/base/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>

namespace bps::io {

namespace {

std::atomic<unsigned long long> probes_created = 0;

// A save writes its temporary in seconds; one this old belongs to a save that was killed.
constexpr auto kStaleAfter = std::chrono::minutes(10);

std::string unique_suffix() {
    // Unique across processes (random_device) and within one (the counter), so two saves of one
    // file never pick the same name; exclusive creation catches the impossible case anyway.
    static std::atomic<unsigned long long> counter = 0;
    static const unsigned long long process = [] {
        std::random_device device;
        return (static_cast<unsigned long long>(device()) << 32) ^ device();
    }();
    const auto now = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
    const unsigned long long value = process ^ (now * 0x9E3779B97F4A7C15ull) ^ (++counter * 0xBF58476D1CE4E5B9ull);
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", value);
    return text;
}

std::string error_text(int error) {
    if (error == ENOSPC) return "the disk is full";
    if (error == EFBIG) return "the file is larger than this disk or account allows";
    return std::strerror(error);
}

// A file created exclusively: fails when the name exists.
std::FILE* create_new(const std::filesystem::path& file) {
#ifdef _WIN32
    return _wfopen(file.c_str(), L"wbx");
#else
    return std::fopen(file.c_str(), "wbx");
#endif
}

void remove_stale_temporaries(const std::filesystem::path& file) {
    const std::filesystem::path folder = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
    const std::string prefix = temporary_prefix(file);
    const std::string old_name = file.filename().string() + ".part";  // what earlier versions used
    const auto now = std::filesystem::file_time_type::clock::now();
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
        const std::string name = entry.path().filename().string();
        if (name != old_name && name.rfind(prefix, 0) != 0) continue;
        std::error_code ignored;
        const auto written = entry.last_write_time(ignored);
        if (!ignored && now - written > kStaleAfter) std::filesystem::remove(entry.path(), ignored);
    }
}

}  // namespace

std::string temporary_prefix(const std::filesystem::path& file) {
    return file.filename().string() + ".part-";
}

void check_can_save(const std::filesystem::path& file) {
    const std::filesystem::path folder = file.parent_path();
    std::error_code error;
    if (!folder.empty()) {
        const auto folder_status = std::filesystem::status(folder, error);
        if (!std::filesystem::exists(folder_status))
            throw SaveProblem("the folder '" + folder.string() + "' does not exist");
        if (!std::filesystem::is_directory(folder_status))
            throw SaveProblem("'" + folder.string() + "' is not a folder");
    }
    const auto status = std::filesystem::status(file, error);
    if (std::filesystem::is_directory(status)) throw SaveProblem("is a folder; give a file name, e.g. weights.h5");
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
        throw SaveProblem(
            "is not a regular file (a device or another special file); give a file name, e.g. weights.h5");
    // Only writing tells whether writing works (permissions, a read-only disk, ACLs).
    const std::filesystem::path probe = file.parent_path() / (temporary_prefix(file) + unique_suffix() + "-probe");
    std::FILE* created = create_new(probe);
    if (!created) {
        const int reason = errno;
        throw SaveProblem("the folder '" + (folder.empty() ? std::string(".") : folder.string()) +
                          "' cannot be written to (" + error_text(reason) + ")");
    }
    ++probes_created;
    std::fclose(created);
    std::filesystem::remove(probe, error);
}

unsigned long long destination_probes() {
    return probes_created.load();
}

void save_atomically(const std::filesystem::path& file, std::string_view bytes) {
    check_can_save(file);
    remove_stale_temporaries(file);
    const std::filesystem::path temporary = file.parent_path() / (temporary_prefix(file) + unique_suffix());
    std::FILE* out = create_new(temporary);
    if (!out) {
        const int reason = errno;
        throw SaveProblem("could not create a temporary file beside it (" + error_text(reason) + ")");
    }
    errno = 0;
    const bool written = std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size() && std::fflush(out) == 0;
    int reason = errno;
    const bool closed = std::fclose(out) == 0;
    if (written && !closed) reason = errno;
    std::error_code error;
    if (!written || !closed) {
        std::filesystem::remove(temporary, error);  // only our own temporary file
        throw SaveProblem("could not be written (" + error_text(reason) +
                          "); nothing was replaced, so an earlier file of this name is unchanged");
    }
    std::filesystem::rename(temporary, file, error);
    if (error) {
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
        throw SaveProblem("could not replace the file: " + error.message());
    }
}

}  // namespace bps::io
