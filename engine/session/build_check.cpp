#include "engine/session/build_check.h"

#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "engine/bench/first_batch_timing.h"
#include "engine/cl/device_use_mark.h"
#include "engine/device/device_description.h"

namespace bps::device {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> lines_of(const fs::path& file) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) lines.push_back(line);
    return lines;
}

bool has_line(const std::vector<std::string>& lines, const std::string& wanted) {
    for (const std::string& line : lines)
        if (line == wanted) return true;
    return false;
}

// Starts `PROGRAM cache check-build --device INDEX` and reads its output: "building" then
// "built" when every program was built; an error of its own on stderr when it failed; building
// and nothing after when it died there.
cl::BuildCheck check_build_in_child(const fs::path& program, const DeviceDescription& device) {
    std::random_device entropy;
    std::error_code error;
    const fs::path folder = fs::temp_directory_path(error) / ("backprop-build-check-" + std::to_string(entropy()));
    fs::create_directories(folder, error);
    if (error) return {cl::BuildCheck::Outcome::not_run, "no folder for its output: " + error.message()};
    const fs::path out = folder / "out.txt";
    const fs::path err = folder / "err.txt";
    std::string command = bench::shell_quoted(program.string()) + " cache check-build --device " +
                          std::to_string(device.index) + " > " + bench::shell_quoted(out.string()) + " 2> " +
                          bench::shell_quoted(err.string());
#ifdef _WIN32
    command = "\"" + command + "\"";  // cmd.exe /c strips one pair of quotes around the whole line
#endif
    // How it ended is read from what it printed, which every platform reports alike, rather than
    // from std::system's status, which each platform encodes in its own way.
    (void)std::system(command.c_str());  // NOLINT(cert-env33-c): our own program, quoted
    const std::vector<std::string> said = lines_of(out);
    const std::vector<std::string> complained = lines_of(err);
    fs::remove_all(folder, error);
    const std::string last_error = complained.empty() ? std::string() : complained.back();
    using Outcome = cl::BuildCheck::Outcome;
    if (has_line(said, check_build_finished)) return {Outcome::built, {}};
    const bool reported = last_error.find(": error: ") != std::string::npos;
    if (!has_line(said, check_build_started))
        return {reported ? Outcome::failed : Outcome::not_run,
                last_error.empty() ? program.string() + " did not start" : last_error};
    if (reported) return {Outcome::failed, last_error};
    return {Outcome::died, "it ended while building"};
}

}  // namespace

void check_builds_with(const fs::path& program) {
    cl::set_build_checker([program](const DeviceDescription& device) { return check_build_in_child(program, device); });
}

}  // namespace bps::device
