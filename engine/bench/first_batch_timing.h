#pragma once
// Time to the first trained batch, as shared/bench/REFERENCE.md defines it: from the start of a
// process to the end of its first training step, once with empty kernel caches (cold) and once
// with the caches that start filled (warm). Only a new process shows that truthfully: drivers and
// CLBlast keep compiled kernels in memory, and the drivers read their cache folders once, at
// start. So the `backprop` command line is started for it (bench --first-batch-child), by
// `backprop bench` itself and by the studio's device comparison.
#include <filesystem>
#include <optional>
#include <string>

#include "engine/cl/device.h"
#include "engine/model/network_spec.h"

namespace bps::bench {

struct FirstBatchTimes {
    std::optional<double> cold_seconds;
    std::optional<double> warm_seconds;
    std::string error;  // why a start failed: the last line it wrote to stderr
};

// Starts `PROGRAM bench --first-batch-child ARGUMENTS` twice under a new, empty cache folder
// (removed afterwards), and times each start to its exit. ARGUMENTS must name one device, network
// and batch size (quoted where needed). PROGRAM is a path, or a bare name the shell finds on PATH.
FirstBatchTimes time_first_batches(const std::filesystem::path& program, const std::string& arguments);

// The started side (bench --first-batch-child): one first training step of `spec` on `device`,
// with the kernel caches of cache_location.h, nothing printed. Throws the device's errors, and
// std::runtime_error for a skipped device.
void train_first_batch(const cl::DeviceInfo& device, const model::NetworkSpec& spec, int batch_size);

// "word" quoted for the shell that std::system runs (sh or cmd.exe) when it needs it.
std::string shell_quoted(const std::string& word);

}  // namespace bps::bench
