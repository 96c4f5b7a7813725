#include "datasets/fashion_mnist_location.h"

#include <system_error>

namespace bps::datasets {

const std::vector<std::string>& fashion_mnist_files() {
    static const std::vector<std::string> files = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                                                   "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};
    return files;
}

std::vector<std::filesystem::path> fashion_mnist_search_dirs() {
    return {"/usr/share/datasets/fashion-mnist"};
}

std::optional<std::filesystem::path> find_fashion_mnist(const std::vector<std::filesystem::path>& dirs) {
    for (const std::filesystem::path& dir : dirs) {
        bool complete = true;
        for (const std::string& file : fashion_mnist_files()) {
            std::error_code error;  // an unreadable folder is "not here", not a failure
            if (!std::filesystem::is_regular_file(dir / file, error)) complete = false;
        }
        if (complete) return dir;
    }
    return std::nullopt;
}

std::string fashion_mnist_missing_help() {
    return "Fashion-MNIST is not installed. On Debian or Ubuntu: sudo apt-get install dataset-fashion-mnist";
}

}  // namespace bps::datasets
