#pragma once
// Where this program is, so that `backprop bench` can start itself for the time to the first
// trained batch (engine/bench/first_batch_timing.h).
#include <string>

namespace bps::cli {

// argv[0] as the program was started; main() records it before any command runs.
void remember_program_path(const char* argv0);
const std::string& program_path();

}  // namespace bps::cli
