// libFuzzer target: CIFAR binary batches, the variant picked by the input's size so that every
// seed is a plain batch file; the same bytes are read as a class-names text file too.
#include <exception>
#include <string>
#include <vector>

#include "datasets/cifar_reader.h"
#include "tests/fuzz/scratch_file.h"

namespace {

std::vector<std::string> names(std::size_t count) {
    std::vector<std::string> result;
    for (std::size_t i = 0; i < count; ++i) result.push_back("class " + std::to_string(i));
    return result;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using bps::datasets::CifarVariant;
    const auto file = bps::fuzz::scratch_file("data_batch_1.bin", data, size);
    // Whole 3074-byte records are CIFAR-100 (an odd count of them read as fine labels, an even
    // count as coarse), anything else CIFAR-10.
    const std::size_t records100 = size / bps::datasets::cifar_record_bytes(CifarVariant::cifar100_fine);
    const bool hundred = size > 0 && size % bps::datasets::cifar_record_bytes(CifarVariant::cifar100_fine) == 0;
    const CifarVariant variant = !hundred              ? CifarVariant::cifar10
                                 : records100 % 2 == 1 ? CifarVariant::cifar100_fine
                                                       : CifarVariant::cifar100_coarse;
    const std::size_t classes = variant == CifarVariant::cifar10         ? 10
                                : variant == CifarVariant::cifar100_fine ? 100
                                                                         : 20;
    try {
        (void)bps::datasets::read_cifar_batches({file}, variant, names(classes), "fuzz");
    } catch (const std::exception&) {
    }
    try {
        (void)bps::datasets::read_class_names_file(file, 10);
    } catch (const std::exception&) {
    }
    return 0;
}
