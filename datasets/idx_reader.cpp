#include "datasets/idx_reader.h"

#include <array>
#include <cstdio>
#include <new>
#include <stdexcept>

#include "datasets/file_bytes.h"
#include "datasets/machine_memory.h"

namespace bps::datasets {
namespace {

constexpr std::uint8_t kUnsignedByteType = 0x08;
constexpr std::uint64_t kLargestDataBytes = std::uint64_t{1} << 63;
// IdxImages keeps height and width as int; no real image comes close to this.
constexpr std::uint32_t kLargestSide = 65535;

std::string hex_byte(std::uint8_t value) {
    std::array<char, 3> text{};
    std::snprintf(text.data(), text.size(), "%02X", static_cast<unsigned>(value));
    return text.data();
}

std::string counted(std::uint64_t count, const std::string& singular, const std::string& plural) {
    std::string text = std::to_string(count);
    text += " ";
    text += count == 1 ? singular : plural;
    return text;
}

struct IdxContents {
    std::vector<std::uint32_t> dimensions;
    std::size_t data_offset = 0;
};

// Checks magic, type and dimension count; `need` says what the file is for, as in
// "images need 3 (count, height, width)".
IdxContents read_header(const std::filesystem::path& file, const std::vector<std::uint8_t>& bytes,
                        std::size_t expected_dimensions, const std::string& need) {
    auto too_short = [&](std::size_t header_bytes) {
        std::string problem = "is too short for an IDX header (it holds ";
        problem += counted(bytes.size(), "byte", "bytes");
        problem += "; the header needs ";
        problem += std::to_string(header_bytes);
        problem += ")";
        return DatasetError(file, problem);
    };
    if (bytes.size() < 4) throw too_short(4);
    if (bytes[0] != 0 || bytes[1] != 0) {
        std::string problem = "not an IDX file (magic bytes ";
        problem += hex_byte(bytes[0]);
        problem += " ";
        problem += hex_byte(bytes[1]);
        problem += ", expected 00 00)";
        throw DatasetError(file, problem);
    }
    if (bytes[2] != kUnsignedByteType) {
        std::string problem = "IDX type code 0x";
        problem += hex_byte(bytes[2]);
        problem += " is not supported (only 0x08, unsigned bytes)";
        throw DatasetError(file, problem);
    }
    const std::size_t dimension_count = bytes[3];
    if (dimension_count != expected_dimensions) {
        std::string problem = "has ";
        problem += counted(dimension_count, "dimension", "dimensions");
        problem += "; ";
        problem += need;
        throw DatasetError(file, problem);
    }
    IdxContents contents;
    contents.data_offset = 4 + 4 * dimension_count;
    if (bytes.size() < contents.data_offset) throw too_short(contents.data_offset);
    for (std::size_t d = 0; d < dimension_count; ++d) {
        const std::uint8_t* at = bytes.data() + 4 + 4 * d;  // big-endian
        contents.dimensions.push_back(static_cast<std::uint32_t>(at[0]) << 24 |
                                      static_cast<std::uint32_t>(at[1]) << 16 | static_cast<std::uint32_t>(at[2]) << 8 |
                                      static_cast<std::uint32_t>(at[3]));
    }
    return contents;
}

// The data must be exactly what the header describes: fewer bytes is a truncated file,
// more is a sign the header (or the file) is not what we think.
void check_data_size(const std::filesystem::path& file, const std::vector<std::uint8_t>& bytes,
                     const IdxContents& contents, std::uint64_t promised) {
    const std::uint64_t held = bytes.size() - contents.data_offset;
    if (held < promised) {
        std::string problem = "header promises ";
        problem += std::to_string(promised);
        problem += " bytes of data but the file holds ";
        problem += std::to_string(held);
        throw DatasetError(file, problem);
    }
    if (held > promised) {
        std::string problem = "has ";
        problem += counted(held - promised, "byte", "bytes");
        problem += " after the data the header describes";
        throw DatasetError(file, problem);
    }
}

// The bytes of pixels an images header describes, after checking its sizes.
std::uint64_t image_data_bytes(const std::filesystem::path& file, const IdxContents& contents) {
    const std::uint64_t count = contents.dimensions[0];
    const std::uint64_t height = contents.dimensions[1];
    const std::uint64_t width = contents.dimensions[2];
    // Checked before multiplying so a damaged header reports an overflow instead of
    // wrapping around to a small size.
    const bool plane_overflows = width != 0 && height > kLargestDataBytes / width;
    const std::uint64_t plane = plane_overflows ? 0 : height * width;
    if (plane_overflows || (plane != 0 && count > kLargestDataBytes / plane)) {
        std::string problem = "header dimensions ";
        problem += std::to_string(count);
        problem += " x ";
        problem += std::to_string(height);
        problem += " x ";
        problem += std::to_string(width);
        problem += " overflow";
        throw DatasetError(file, problem);
    }
    if (height == 0 || width == 0 || height > kLargestSide || width > kLargestSide) {
        std::string problem = "has images of ";
        problem += std::to_string(height);
        problem += " x ";
        problem += std::to_string(width);
        problem += " pixels; each side must be between 1 and ";
        problem += std::to_string(kLargestSide);
        throw DatasetError(file, problem);
    }
    return count * plane;
}

// The most a file with this header may hold, so that reading stops there: the header and its
// data, and some bytes more, so that trailing bytes are still counted in the message. A header
// that promises more than any dataset file holds is refused before anything is read.
std::uint64_t most_file_bytes(const std::filesystem::path& file, const IdxContents& contents, std::uint64_t data) {
    constexpr std::uint64_t kTrailingSlack = std::uint64_t{1} << 20;
    if (data > max_file_bytes - contents.data_offset) {
        std::string problem = "header promises ";
        problem += std::to_string(data);
        problem += " bytes of data, more than a dataset file may hold (";
        problem += std::to_string(max_file_bytes >> 30);
        problem += " GiB); the file is damaged or not a dataset";
        throw DatasetError(file, problem);
    }
    return contents.data_offset + data + kTrailingSlack;
}

// Drops the header in place instead of copying the data.
std::vector<std::uint8_t> data_only(std::vector<std::uint8_t> bytes, const IdxContents& contents) {
    bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(contents.data_offset));
    return bytes;
}

}  // namespace

IdxImages read_idx_images(const std::filesystem::path& file) {
    const std::string need = "images need 3 (count, height, width)";
    std::vector<std::uint8_t> bytes = read_file_bytes(file, 4 + 3 * 4, [&](std::span<const std::uint8_t> first) {
        const IdxContents header = read_header(file, {first.begin(), first.end()}, 3, need);
        const std::uint64_t data = image_data_bytes(file, header);
        const std::uint64_t limit = most_file_bytes(file, header, data);
        // The pixels are read as bytes, then become the dataset's float numbers.
        check_fits_in_memory(file, data * (1 + sizeof(float)),
                             std::to_string(data) + " pixels its header promises, as bytes and as numbers");
        return limit;
    });
    const IdxContents contents = read_header(file, bytes, 3, need);
    check_data_size(file, bytes, contents, image_data_bytes(file, contents));

    IdxImages images;
    images.count = static_cast<std::size_t>(contents.dimensions[0]);
    images.height = static_cast<int>(contents.dimensions[1]);
    images.width = static_cast<int>(contents.dimensions[2]);
    images.pixels = data_only(std::move(bytes), contents);
    return images;
}

std::vector<std::uint8_t> read_idx_labels(const std::filesystem::path& file) {
    const std::string need = "labels need 1 (count)";
    std::vector<std::uint8_t> bytes = read_file_bytes(file, 4 + 4, [&](std::span<const std::uint8_t> first) {
        const IdxContents header = read_header(file, {first.begin(), first.end()}, 1, need);
        return most_file_bytes(file, header, header.dimensions[0]);
    });
    const IdxContents contents = read_header(file, bytes, 1, need);
    check_data_size(file, bytes, contents, contents.dimensions[0]);
    return data_only(std::move(bytes), contents);
}

Dataset read_idx_dataset(const std::filesystem::path& images_file, const std::filesystem::path& labels_file,
                         std::vector<std::string> class_names, std::string name) {
    if (class_names.empty()) throw std::invalid_argument("read_idx_dataset needs the class names");
    IdxImages images = read_idx_images(images_file);
    const std::vector<std::uint8_t> labels = read_idx_labels(labels_file);
    if (labels.size() != images.count) {
        std::string problem = "has ";
        problem += counted(labels.size(), "label", "labels");
        problem += " but '";
        problem += images_file.filename().string();
        problem += "' has ";
        problem += counted(images.count, "image", "images");
        throw DatasetError(labels_file, problem);
    }
    for (std::size_t index = 0; index < labels.size(); ++index) {
        if (labels[index] >= class_names.size()) {
            std::string problem = "label ";
            problem += std::to_string(labels[index]);
            problem += " at index ";
            problem += std::to_string(index);
            problem += " is outside the ";
            problem += std::to_string(class_names.size());
            problem += " classes";
            throw DatasetError(labels_file, problem);
        }
    }

    Dataset dataset;
    dataset.name = std::move(name);
    dataset.shape = ImageShape{1, images.height, images.width};
    dataset.class_names = std::move(class_names);
    try {
        dataset.images.resize(images.pixels.size());
    } catch (const std::bad_alloc&) {
        throw DatasetError(images_file, "needs " + std::to_string(images.pixels.size() * sizeof(float)) +
                                            " bytes of memory for its pixels as numbers, more than this computer "
                                            "can give now");
    }
    for (std::size_t i = 0; i < images.pixels.size(); ++i) dataset.images[i] = images.pixels[i] / 255.0f;
    dataset.labels.assign(labels.begin(), labels.end());
    return dataset;
}

}  // namespace bps::datasets
