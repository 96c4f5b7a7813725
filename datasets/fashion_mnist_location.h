#pragma once
// Where the default dataset, Fashion-MNIST, lives on this machine.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace bps::datasets {

// The four files of Fashion-MNIST, as Debian's dataset-fashion-mnist ships them.
const std::vector<std::string>& fashion_mnist_files();

// Folders searched in order: /usr/share/datasets/fashion-mnist (Debian's package).
std::vector<std::filesystem::path> fashion_mnist_search_dirs();

// The first folder holding all four files, or nullopt.
std::optional<std::filesystem::path> find_fashion_mnist(
    const std::vector<std::filesystem::path>& dirs = fashion_mnist_search_dirs());

// What to do when it is missing, for the GUI's status line and the CLI.
std::string fashion_mnist_missing_help();

}  // namespace bps::datasets
