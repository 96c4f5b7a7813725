#include "tests/support/process.h"

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/support/temp_dir.h"
#ifndef _WIN32
#include <sys/wait.h>
#endif

namespace bps::test {

namespace {
#ifdef _WIN32
constexpr const char* null_device = "nul";
#else
constexpr const char* null_device = "/dev/null";
#endif

#ifdef __linux__
// The command line runs in its own shell under coreutils' timeout, which kills it (and after 10 s
// more, hard) once `seconds` have passed.
std::string bounded(const std::string& command_line, int seconds) {
    std::string quoted;
    for (char c : command_line) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return "timeout -k 10 " + std::to_string(seconds) + " sh -c '" + quoted + "'";
}
#endif

ProcessResult run(const std::string& command_line, bool with_stderr, int seconds) {
    static std::atomic<int> counter{0};
    TempDir dir("process");
    const std::filesystem::path output = dir.path() / ("output-" + std::to_string(counter++) + ".txt");
    const std::string redirect =
        " > \"" + output.string() + "\" " + (with_stderr ? std::string("2>&1") : "2>" + std::string(null_device));
#ifdef __linux__
    const std::string command = bounded(command_line, seconds);
#else
    // coreutils' timeout is not part of Windows or macOS: there CTest's own limit bounds the child.
    const std::string command = command_line;
    (void)seconds;
#endif
    const int status = std::system((command + redirect).c_str());
#ifdef _WIN32
    const int exit_code = status;
#else
    const int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
#endif
    std::ifstream in(output, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (exit_code == 124)
        text << "\n[tests: the command was stopped after " << seconds << " s: " << command_line << "]\n";
    return {exit_code, text.str()};
}
}  // namespace

ProcessResult run_command(const std::string& command_line, int seconds) {
    return run(command_line, true, seconds);
}
ProcessResult run_command_stdout(const std::string& command_line, int seconds) {
    return run(command_line, false, seconds);
}

void set_environment(const std::string& name, const std::string& value) {
#ifdef _WIN32
    _putenv_s(name.c_str(), value.c_str());
#else
    setenv(name.c_str(), value.c_str(), 1);
#endif
}

void unset_environment(const std::string& name) {
#ifdef _WIN32
    _putenv_s(name.c_str(), "");
#else
    unsetenv(name.c_str());
#endif
}

ScopedEnvironment::ScopedEnvironment(std::string name, const std::optional<std::string>& value)
    : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) {
        had_value_ = true;
        old_value_ = old;
    }
    if (value)
        set_environment(name_, *value);
    else
        unset_environment(name_);
}

ScopedEnvironment::~ScopedEnvironment() {
    if (had_value_)
        set_environment(name_, old_value_);
    else
        unset_environment(name_);
}

}  // namespace bps::test
