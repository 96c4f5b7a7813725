#pragma once
// Where this program is, so that `backprop bench` can start itself for the time to the first
// trained batch (engine/bench/first_batch_timing.h), and `backprop course` finds the course
// installed beside it.
#include <filesystem>
#include <string>

namespace bps::cli {

// argv[0] as the program was started; main() records it before any command runs.
void remember_program_path(const char* argv0);
const std::string& program_path();
// The folder holding this program: a bare name started from PATH is looked up there. Empty when
// it cannot be told.
std::filesystem::path program_folder();

}  // namespace bps::cli
