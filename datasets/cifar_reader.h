#pragma once
// CIFAR-10 and CIFAR-100 binary batches (https://www.cs.toronto.edu/~kriz/cifar.html):
// fixed records of label byte(s) then 3072 bytes, 1024 red, 1024 green, 1024 blue (32x32
// planes, row-major), which is already NCHW.
#include <filesystem>
#include <string>
#include <vector>

#include "datasets/dataset.h"

namespace bps::datasets {

enum class CifarVariant {
    cifar10,         // 1 label byte + 3072 = 3073 bytes a record
    cifar100_fine,   // coarse byte, fine byte + 3072 = 3074; label = fine (100 classes)
    cifar100_coarse  // same records; label = coarse (20 superclasses)
};

std::size_t cifar_record_bytes(CifarVariant variant);

// Reads and concatenates `files` in order. DatasetError naming the file:
//   "size 30730001 bytes is not a multiple of the 3073-byte CIFAR-10 record"
//   "is empty"
//   "label 10 in record 5 is outside the 10 classes"
Dataset read_cifar_batches(const std::vector<std::filesystem::path>& files, CifarVariant variant,
                           std::vector<std::string> class_names, std::string name);

// Class names from a CIFAR meta text file (batches.meta.txt, fine_label_names.txt): one per
// line, blank lines ignored. DatasetError if it holds a different number than `expected`.
std::vector<std::string> read_class_names_file(const std::filesystem::path& file, std::size_t expected);

}  // namespace bps::datasets
