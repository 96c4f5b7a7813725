#pragma once
// Running a command as a child process and setting the environment it inherits.
#include <optional>
#include <string>

namespace bps::test {

struct ProcessResult {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};

// No child may hang a test: past this bound it is killed, its exit code is 124 and the output
// ends with a line saying so. Under CTest's own 600 s limit, so the test fails with that message.
constexpr int default_command_seconds = 540;

// Runs a shell command line, capturing its output through a temporary file.
ProcessResult run_command(const std::string& command_line, int seconds = default_command_seconds);

// stdout only (stderr discarded), for output that is parsed, e.g. JSON.
ProcessResult run_command_stdout(const std::string& command_line, int seconds = default_command_seconds);

void set_environment(const std::string& name, const std::string& value);
void unset_environment(const std::string& name);

// Sets (or, with nullopt, removes) a variable for the lifetime of the object, then restores
// what was there.
class ScopedEnvironment {
public:
    ScopedEnvironment(std::string name, const std::optional<std::string>& value);
    ~ScopedEnvironment();
    ScopedEnvironment(const ScopedEnvironment&) = delete;
    ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

private:
    std::string name_;
    bool had_value_ = false;
    std::string old_value_;
};

}  // namespace bps::test
