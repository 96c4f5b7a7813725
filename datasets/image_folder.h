#pragma once
// A learner's own images: one subfolder per class (its name is the class name), PNG or JPEG
// files in each, decoded with stb_image and resized with stb_image_resize to the network's
// input size, as grayscale or RGB.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "datasets/dataset.h"

namespace bps::datasets {

struct ImageFolderOptions {
    int height = 28;
    int width = 28;
    int channels = 1;  // 1 = grayscale (luma of RGB), 3 = RGB (gray images are replicated)
};

struct SkippedImage {
    std::filesystem::path file;
    std::string reason;  // stb's reason, e.g. "unknown image type", "corrupt JPEG"
};

struct ImageFolderResult {
    Dataset dataset;
    std::vector<SkippedImage> skipped;  // unreadable files: skipped, counted, listed
};

// Classes are the subfolders in name order; files in each in name order (reproducible).
// Files whose extension is not .png/.jpg/.jpeg (any case) are ignored, not "skipped".
// DatasetError naming the folder: missing, not a folder, no class subfolders, fewer than 2
// classes, no readable image at all, or options out of range (size 1..4096, channels 1 or 3).
// `progress` hears of every image, read or skipped.
ImageFolderResult read_image_folder(const std::filesystem::path& folder, const ImageFolderOptions& options,
                                    const ReadProgress& progress = {});

// What an image file holds before it is made to fit: its size and channels (1 gray, 2 gray with
// alpha, 3 RGB, 4 RGBA).
struct StoredImage {
    int width = 0, height = 0, channels = 0;
};

// One image file decoded and resized: shape.per_sample() floats, CHW, [0,1]. `stored` (optional)
// gets what the file held. DatasetError naming the file when it cannot be decoded.
std::vector<float> read_image_file(const std::filesystem::path& file, const ImageFolderOptions& options,
                                   StoredImage* stored = nullptr);

}  // namespace bps::datasets
