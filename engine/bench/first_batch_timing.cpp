#include "engine/bench/first_batch_timing.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

#include "engine/bench/step_timing.h"
#include "engine/cl/cache_location.h"
#include "engine/kernel_cache/kernel_cache.h"

namespace bps::bench {

namespace fs = std::filesystem;

namespace {
std::string last_line_of(const fs::path& file) {
    std::ifstream in(file);
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty()) last = line;
    return last;
}

// One start of the child; its run time in seconds, or nullopt with `error` set.
std::optional<double> time_start(const std::string& command, const fs::path& errors, std::string& error) {
#ifdef _WIN32
    const std::string null_device = "nul";
#else
    const std::string null_device = "/dev/null";
#endif
    std::string full = command + " > " + null_device + " 2> " + shell_quoted(errors.string());
#ifdef _WIN32
    full = "\"" + full + "\"";  // cmd.exe /c strips one pair of quotes around the whole line
#endif
    const auto start = std::chrono::steady_clock::now();
    const int status = std::system(full.c_str());  // NOLINT(cert-env33-c): our own program, quoted
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (status == 0) return seconds;
    error = last_line_of(errors);
    if (error.empty()) error = "the process ended with status " + std::to_string(status);
    return std::nullopt;
}
}  // namespace

std::string shell_quoted(const std::string& word) {
    if (!word.empty() && word.find_first_of(" \t\"'\\$`&|;<>()*?[]{}!#~%^") == std::string::npos) return word;
#ifdef _WIN32
    return "\"" + word + "\"";  // Windows paths cannot hold a double quote
#else
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
#endif
}

FirstBatchTimes time_first_batches(const fs::path& program, const std::string& arguments) {
    std::random_device entropy;
    const fs::path root = fs::temp_directory_path() / ("backprop-first-batch-" + std::to_string(entropy()));
    FirstBatchTimes times;
    {
        cl::ChildCacheEnvironment empty_caches(root);
        const std::string command = shell_quoted(program.string()) + " bench --first-batch-child " + arguments;
        times.cold_seconds = time_start(command, root / "cold-errors.txt", times.error);
        if (times.cold_seconds) times.warm_seconds = time_start(command, root / "warm-errors.txt", times.error);
    }
    std::error_code ignored;
    fs::remove_all(root, ignored);
    return times;
}

void train_first_batch(const cl::DeviceInfo& device, const model::NetworkSpec& spec, int batch_size) {
    if (!device.skipped.empty()) throw std::runtime_error(device.skipped);
    cl::KernelCache cache(cl::kernel_cache_dir());
    ops::Runtime runtime(device, &cache);
    StepTimingOptions options;
    options.batch_size = batch_size;
    options.first_step_only = true;
    time_training_step(runtime, spec, options);
}

}  // namespace bps::bench
