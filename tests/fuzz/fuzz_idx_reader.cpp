// libFuzzer target: IDX files (plain or gzip) read as images and as labels. A DatasetError is
// the expected answer to a bad file; only a crash, a sanitizer report, a leak or an allocation
// past -malloc_limit_mb is a finding.
#include <exception>

#include "datasets/idx_reader.h"
#include "tests/fuzz/scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto file = bps::fuzz::scratch_file("train-images-idx3-ubyte", data, size);
    try {
        (void)bps::datasets::read_idx_images(file);
    } catch (const std::exception&) {
    }
    try {
        (void)bps::datasets::read_idx_labels(file);
    } catch (const std::exception&) {
    }
    return 0;
}
