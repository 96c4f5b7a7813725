#include "datasets/machine_memory.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "datasets/dataset.h"

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif

namespace bps::datasets {

namespace {

std::string gibibytes(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / static_cast<double>(1ull << 30));
    return text;
}

}  // namespace

std::optional<std::uint64_t> physical_memory_bytes() {
#ifdef _WIN32
    MEMORYSTATUSEX status{};
    status.dwLength = sizeof status;
    if (!GlobalMemoryStatusEx(&status)) return std::nullopt;
    return static_cast<std::uint64_t>(status.ullTotalPhys);
#else
    // Linux says it in a file ("MemTotal:  24576000 kB"); other systems have no such file.
    std::ifstream meminfo("/proc/meminfo");
    std::string line;
    while (std::getline(meminfo, line)) {
        std::istringstream words(line);
        std::string key, unit;
        std::uint64_t value = 0;
        if (words >> key >> value >> unit && key == "MemTotal:" && unit == "kB") return value * 1024;
    }
    return std::nullopt;
#endif
}

void check_fits_in_memory(const std::filesystem::path& file, std::uint64_t needed_bytes, const std::string& what,
                          std::optional<std::uint64_t> physical_bytes) {
    if (!physical_bytes || needed_bytes <= *physical_bytes) return;
    throw DatasetError(file, "needs " + gibibytes(needed_bytes) + " of memory (" + what + "), but this computer has " +
                                 gibibytes(*physical_bytes) +
                                 " in all; is the file damaged, or the dataset too large for this computer?");
}

}  // namespace bps::datasets
