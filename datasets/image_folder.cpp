#include "datasets/image_folder.h"

#include <stb_image.h>
#include <stb_image_resize.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <system_error>

#include "datasets/image_check.h"

namespace bps::datasets {

namespace {

constexpr int kLargestDecodedSide = 16384;  // bounds the decoded buffer before stb allocates it
constexpr int kLargestInputSide = 4096;
constexpr std::uintmax_t kLargestFileBytes = std::uintmax_t{512} << 20;  // stb takes an int length

// Why one image could not be used: `reason` is the short form listed for a skipped file,
// `problem` the sentence a DatasetError carries.
struct ImageFailure {
    std::string reason;
    std::string problem;
};

// Class and dataset names are shown in the UI as UTF-8, whatever the platform's path encoding.
std::string utf8_text(const std::filesystem::path& path) {
    const std::u8string text = path.u8string();
    return std::string(text.begin(), text.end());
}

void check_options(const std::filesystem::path& where, const ImageFolderOptions& options) {
    const auto in_range = [](int side) { return side >= 1 && side <= kLargestInputSide; };
    if (!in_range(options.height) || !in_range(options.width)) {
        std::string problem = "image size ";
        problem += std::to_string(options.height);
        problem += "x";
        problem += std::to_string(options.width);
        problem += " is out of range (1 to ";
        problem += std::to_string(kLargestInputSide);
        problem += ")";
        throw DatasetError(where, problem);
    }
    if (options.channels != 1 && options.channels != 3) {
        std::string problem = "channels must be 1 (grayscale) or 3 (RGB), not ";
        problem += std::to_string(options.channels);
        throw DatasetError(where, problem);
    }
}

ImageFailure failure(const std::string& reason) {
    return {reason, reason};
}

std::string with_detail(const char* what, const std::error_code& error) {
    std::string text = what;
    text += " (";
    text += error.message();
    text += ")";
    return text;
}

// Reads through std::ifstream so that non-ASCII paths open on Windows too.
std::optional<ImageFailure> read_bytes(const std::filesystem::path& file, std::vector<stbi_uc>& bytes) {
    std::error_code error;
    const std::uintmax_t size = std::filesystem::file_size(file, error);
    if (error) return failure(with_detail("cannot be read", error));
    if (size > kLargestFileBytes) {
        std::string reason = "is ";
        reason += std::to_string(size >> 20);
        reason += " MB; the largest accepted image file is ";
        reason += std::to_string(kLargestFileBytes >> 20);
        reason += " MB";
        return failure(reason);
    }
    std::ifstream stream(file, std::ios::binary);
    if (!stream) return failure("cannot be opened");
    bytes.assign(std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>());
    if (stream.bad()) return failure("cannot be read");
    return std::nullopt;
}

struct StbFree {
    void operator()(stbi_uc* pixels) const { stbi_image_free(pixels); }
};

std::optional<ImageFailure> decode_image(const std::filesystem::path& file, const ImageFolderOptions& options,
                                         std::vector<float>& out, StoredImage* stored = nullptr) {
    std::vector<stbi_uc> bytes;
    if (auto failed = read_bytes(file, bytes)) return failed;
    // Only PNG and JPEG reach stb, and only what its 2.27 decodes safely (image_check.h).
    if (auto refusal = prepare_image_bytes(bytes)) return ImageFailure{*refusal, "cannot be decoded: " + *refusal};
    const auto length = static_cast<int>(bytes.size());

    const auto stb_failure = []() {
        const char* stb_reason = stbi_failure_reason();
        const std::string reason = stb_reason ? stb_reason : "unknown reason";
        std::string problem = "cannot be decoded: ";
        problem += reason;
        return ImageFailure{reason, problem};
    };

    int width = 0, height = 0, stored_channels = 0;
    if (!stbi_info_from_memory(bytes.data(), length, &width, &height, &stored_channels)) {
        // stbi_info only says "unknown image type" once every format has failed; decoding stops at
        // the same broken header and names what is wrong with it ("bad IHDR len", "corrupt JPEG").
        std::unique_ptr<stbi_uc, StbFree> unexpected(
            stbi_load_from_memory(bytes.data(), length, &width, &height, &stored_channels, options.channels));
        if (unexpected) return failure("unknown image type");  // decodable but of unknown size: not trusted
        return stb_failure();
    }
    if (width > kLargestDecodedSide || height > kLargestDecodedSide) {
        std::string reason = "is ";
        reason += std::to_string(width);
        reason += "x";
        reason += std::to_string(height);
        reason += " pixels; the largest accepted is ";
        reason += std::to_string(kLargestDecodedSide);
        return failure(reason);
    }

    if (stored) *stored = StoredImage{width, height, stored_channels};
    const int channels = options.channels;  // stb converts RGB to luma and replicates gray itself
    std::unique_ptr<stbi_uc, StbFree> decoded(
        stbi_load_from_memory(bytes.data(), length, &width, &height, &stored_channels, channels));
    if (!decoded) return stb_failure();
    bytes = {};

    const stbi_uc* pixels = decoded.get();
    std::vector<stbi_uc> resized;
    if (width != options.width || height != options.height) {
        resized.resize(static_cast<std::size_t>(options.width) * static_cast<std::size_t>(options.height) *
                       static_cast<std::size_t>(channels));
        if (!stbir_resize_uint8(pixels, width, height, 0, resized.data(), options.width, options.height, 0, channels)) {
            return failure("cannot be resized (out of memory)");
        }
        pixels = resized.data();
    }

    // stb gives interleaved rows (HWC); the network takes channel planes (CHW).
    const std::size_t plane = static_cast<std::size_t>(options.width) * static_cast<std::size_t>(options.height);
    const auto channel_count = static_cast<std::size_t>(channels);
    out.resize(plane * channel_count);
    for (std::size_t c = 0; c < channel_count; ++c) {
        for (std::size_t p = 0; p < plane; ++p) {
            out[c * plane + p] = static_cast<float>(pixels[p * channel_count + c]) / 255.0f;
        }
    }
    return std::nullopt;
}

bool has_image_extension(const std::filesystem::path& file) {
    std::string extension = utf8_text(file.extension());
    std::transform(extension.begin(), extension.end(), extension.begin(), [](char letter) {
        return (letter >= 'A' && letter <= 'Z') ? static_cast<char>(letter - 'A' + 'a') : letter;
    });
    return extension == ".png" || extension == ".jpg" || extension == ".jpeg";
}

// The entries of `folder` that pass `keep`, sorted by name so every run sees the same order.
template <typename Keep>
std::vector<std::filesystem::path> sorted_entries(const std::filesystem::path& folder, Keep keep) {
    std::vector<std::filesystem::path> entries;
    std::error_code error;
    std::filesystem::directory_iterator it(folder, error);
    if (error) throw DatasetError(folder, with_detail("cannot be listed", error));
    for (const std::filesystem::directory_iterator end; it != end; it.increment(error)) {
        if (keep(*it)) entries.push_back(it->path());
    }
    if (error) throw DatasetError(folder, with_detail("cannot be listed", error));
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.filename() < b.filename(); });
    return entries;
}

std::string dataset_name(const std::filesystem::path& folder) {
    std::filesystem::path clean = std::filesystem::absolute(folder).lexically_normal();
    if (!clean.has_filename()) clean = clean.parent_path();  // "photos/" names "photos"
    return utf8_text(clean.filename());
}

void append_could_not_read(std::string& problem, std::size_t count) {
    if (count == 0) return;
    problem += " (";
    problem += std::to_string(count);
    problem += count == 1 ? " file could not be read)" : " files could not be read)";
}

}  // namespace

std::vector<float> read_image_file(const std::filesystem::path& file, const ImageFolderOptions& options,
                                   StoredImage* stored) {
    check_options(file, options);
    std::vector<float> image;
    if (auto failed = decode_image(file, options, image, stored)) throw DatasetError(file, failed->problem);
    return image;
}

ImageFolderResult read_image_folder(const std::filesystem::path& folder, const ImageFolderOptions& options,
                                    const ReadProgress& progress) {
    check_options(folder, options);
    std::error_code error;
    if (!std::filesystem::exists(folder, error)) throw DatasetError(folder, "does not exist");
    if (!std::filesystem::is_directory(folder, error)) throw DatasetError(folder, "is not a folder");

    // Hidden folders (".git", ".thumbnails") are tools' leftovers, not classes.
    const std::vector<std::filesystem::path> class_folders =
        sorted_entries(folder, [](const std::filesystem::directory_entry& entry) {
            std::error_code ignored;
            return entry.is_directory(ignored) && !utf8_text(entry.path().filename()).starts_with(".");
        });
    if (class_folders.empty()) {
        throw DatasetError(folder,
                           "has no class subfolders; put each class's images in a subfolder named after the class");
    }
    if (class_folders.size() == 1) {
        std::string problem = "has only 1 class subfolder ('";
        problem += utf8_text(class_folders.front().filename());
        problem += "'); a classifier needs at least 2";
        throw DatasetError(folder, problem);
    }

    ImageFolderResult result;
    Dataset& dataset = result.dataset;
    dataset.name = dataset_name(folder);
    dataset.shape = ImageShape{options.channels, options.height, options.width};
    std::vector<std::size_t> loaded_per_class, skipped_per_class;
    // Every class's files first, so that progress can count against the whole.
    std::vector<std::vector<std::filesystem::path>> files_per_class;
    std::size_t total = 0, done = 0;
    for (const std::filesystem::path& class_folder : class_folders) {
        files_per_class.push_back(sorted_entries(class_folder, [](const std::filesystem::directory_entry& entry) {
            std::error_code ignored;
            return entry.is_regular_file(ignored) && has_image_extension(entry.path());
        }));
        total += files_per_class.back().size();
    }
    std::vector<float> image;
    for (std::size_t class_index = 0; class_index < class_folders.size(); ++class_index) {
        const std::filesystem::path& class_folder = class_folders[class_index];
        const auto label = static_cast<std::int32_t>(dataset.class_names.size());
        dataset.class_names.push_back(utf8_text(class_folder.filename()));
        std::size_t loaded = 0;
        const std::size_t skipped_before = result.skipped.size();
        for (const std::filesystem::path& file : files_per_class[class_index]) {
            if (progress) progress(done++, total);
            if (auto failed = decode_image(file, options, image)) {
                result.skipped.push_back({file, failed->reason});
                continue;
            }
            dataset.images.insert(dataset.images.end(), image.begin(), image.end());
            dataset.labels.push_back(label);
            ++loaded;
        }
        loaded_per_class.push_back(loaded);
        skipped_per_class.push_back(result.skipped.size() - skipped_before);
    }

    if (progress) progress(total, total);
    if (dataset.size() == 0) {
        std::string problem = "holds no readable PNG or JPEG image";
        append_could_not_read(problem, result.skipped.size());
        throw DatasetError(folder, problem);
    }
    for (std::size_t label = 0; label < loaded_per_class.size(); ++label) {
        if (loaded_per_class[label] != 0) continue;
        std::string problem = "class folder '";
        problem += dataset.class_names[label];
        problem += "' holds no readable image";
        append_could_not_read(problem, skipped_per_class[label]);
        throw DatasetError(folder, problem);
    }
    return result;
}

}  // namespace bps::datasets
