// libFuzzer target: weights and checkpoint files (HDF5). Only our reader is instrumented; the
// HDF5 library is the system's, so a crash inside it shows up with HDF5's frames on top.
#include <exception>

#include "engine/io/weights_file.h"
#include "tests/fuzz/scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto file = bps::fuzz::scratch_file("weights.h5", data, size);
    try {
        (void)bps::io::read_weights_file(file);
    } catch (const std::exception&) {
    }
    return 0;
}
