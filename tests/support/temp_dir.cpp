#include "tests/support/temp_dir.h"

#include <random>

namespace bps::test {

TempDir::TempDir(const std::string& purpose) {
    std::random_device random;
    const std::uint64_t suffix = (std::uint64_t{random()} << 32) | random();
    path_ = std::filesystem::temp_directory_path() / ("backprop-test-" + purpose + "-" + std::to_string(suffix));
    std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
    std::error_code ignored;  // a leftover temp folder is not worth failing a test over
    std::filesystem::remove_all(path_, ignored);
}

}  // namespace bps::test
