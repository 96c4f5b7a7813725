#pragma once
// Running a command as a child process and setting the environment it inherits.
#include <optional>
#include <string>

namespace bps::test {

struct ProcessResult {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};

// Runs a shell command line, capturing its output through a temporary file.
ProcessResult run_command(const std::string& command_line);

// stdout only (stderr discarded), for output that is parsed, e.g. JSON.
ProcessResult run_command_stdout(const std::string& command_line);

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
