// A dataset larger than the computer's memory is refused with the figures before anything is
// allocated, instead of ending in std::bad_alloc or the out-of-memory killer.
#include <catch2/catch.hpp>

#include "datasets/dataset.h"
#include "datasets/machine_memory.h"

using namespace bps;

TEST_CASE("a dataset needing more memory than the computer has is refused with both figures", "[memory]") {
    const std::uint64_t gib = std::uint64_t{1} << 30;
    REQUIRE_THROWS_MATCHES(
        datasets::check_fits_in_memory("train-images-idx3-ubyte.gz", 20 * gib, "4294836225 pixels its header promises",
                                       16 * gib),
        datasets::DatasetError,
        Catch::Message("train-images-idx3-ubyte.gz: needs 20.0 GiB of memory (4294836225 pixels its header promises), "
                       "but this computer has 16.0 GiB in all; is the file damaged, or the dataset too large for this "
                       "computer?"));
    CHECK_NOTHROW(datasets::check_fits_in_memory("a", 16 * gib, "x", 16 * gib));
    // Where the memory cannot be found, nothing is refused ahead.
    CHECK_NOTHROW(datasets::check_fits_in_memory("a", 1000 * gib, "x", std::nullopt));
}

#ifdef __linux__
TEST_CASE("the computer's memory is found on Linux", "[memory]") {
    const std::optional<std::uint64_t> bytes = datasets::physical_memory_bytes();
    REQUIRE(bytes.has_value());
    CHECK(*bytes > (std::uint64_t{256} << 20));
}
#endif
