#pragma once
// The one in-memory dataset type every reader produces: float32 NCHW images, labels and
// class names. Readers validate everything before they allocate, so a Dataset is always
// consistent: images.size() == size() * shape.per_sample(), every label < class_count().
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace bps::datasets {

struct ImageShape {
    int channels = 1;
    int height = 0;
    int width = 0;
    std::size_t plane() const { return static_cast<std::size_t>(height) * static_cast<std::size_t>(width); }
    std::size_t per_sample() const { return plane() * static_cast<std::size_t>(channels); }
    std::string to_string() const;  // "1x28x28"
    bool operator==(const ImageShape&) const = default;
};

struct Dataset {
    std::string name;  // "Fashion-MNIST train", "my-photos"
    ImageShape shape;
    std::vector<float> images;             // size() * shape.per_sample(), NCHW, [0,1] unless normalised
    std::vector<std::int32_t> labels;      // one per image, in [0, class_count())
    std::vector<std::string> class_names;  // index = label

    std::size_t size() const { return labels.size(); }
    std::size_t class_count() const { return class_names.size(); }
    std::span<const float> image(std::size_t index) const;  // throws std::out_of_range
    std::span<float> image(std::size_t index);
    // Sample `index` as 8-bit pixels, height x width x channels (interleaved), for display;
    // values are mapped back through `normalised` so a normalised dataset still shows right.
    std::vector<std::uint8_t> pixels(std::size_t index) const;
    // Images per class, index = label.
    std::vector<std::size_t> class_histogram() const;

    // Per-channel mean and standard deviation applied to the images, if any (empty = raw [0,1]).
    std::vector<float> mean, stddev;
};

// A dataset's predefined train and test splits (the image-folder reader gives only train).
// Reading a dataset says how far it is: `done` of `total` steps (images of a folder, files of a
// catalogue dataset), from any thread that reads. Empty: nobody listens.
using ReadProgress = std::function<void(std::size_t done, std::size_t total)>;

struct DatasetSplits {
    Dataset train;
    Dataset test;
};

// Damaged or unusable input: the message always names the file first.
class DatasetError : public std::runtime_error {
public:
    DatasetError(const std::filesystem::path& file, const std::string& problem);
    const std::filesystem::path& file() const { return file_; }

private:
    std::filesystem::path file_;
};

}  // namespace bps::datasets
