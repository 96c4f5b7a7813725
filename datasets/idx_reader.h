#pragma once
// IDX files, the format of MNIST and Fashion-MNIST (plain or gzip):
//   bytes 0-1: 0, byte 2: type code (0x08 = unsigned byte, the only one datasets use),
//   byte 3: number of dimensions, then one big-endian u32 per dimension, then the data.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "datasets/dataset.h"

namespace bps::datasets {

struct IdxImages {
    std::size_t count = 0;
    int height = 0, width = 0;
    std::vector<std::uint8_t> pixels;  // count * height * width
};

// Images: 3 dimensions (N, H, W). Labels: 1 dimension (N).
// Every check happens before the data is used, each a DatasetError naming the file:
//   "not an IDX file (magic bytes 12 34, expected 00 00)"
//   "IDX type code 0x0D is not supported (only 0x08, unsigned bytes)"
//   "has 1 dimension; images need 3 (count, height, width)"
//   "header dimensions 4294967295 x 28 x 28 overflow"   (product past 2^63)
//   "header promises 47040000 bytes of data but the file holds 1000"   (truncated)
//   "has 16 bytes after the data the header describes"    (trailing garbage)
IdxImages read_idx_images(const std::filesystem::path& file);
std::vector<std::uint8_t> read_idx_labels(const std::filesystem::path& file);

// Both files as a Dataset (1 channel, pixels / 255). Also checked, naming the labels file:
//   "has 59999 labels but 'train-images-idx3-ubyte.gz' has 60000 images"
//   "label 12 at index 7 is outside the 10 classes"
Dataset read_idx_dataset(const std::filesystem::path& images_file, const std::filesystem::path& labels_file,
                         std::vector<std::string> class_names, std::string name);

}  // namespace bps::datasets
