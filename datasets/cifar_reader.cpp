#include "datasets/cifar_reader.h"

#include <stdexcept>

#include "datasets/file_bytes.h"

namespace bps::datasets {
namespace {

constexpr int kSide = 32;
constexpr int kChannels = 3;
constexpr std::size_t kImageBytes = std::size_t{kChannels} * kSide * kSide;
constexpr std::uint64_t kLargestClassNamesFile = std::uint64_t{1} << 20;

std::size_t label_bytes(CifarVariant variant) {
    return variant == CifarVariant::cifar10 ? 1 : 2;
}

// Which byte of a record holds the label this variant asks for.
std::size_t label_offset(CifarVariant variant) {
    return variant == CifarVariant::cifar100_fine ? 1 : 0;
}

std::size_t class_count(CifarVariant variant) {
    switch (variant) {
        case CifarVariant::cifar10:
            return 10;
        case CifarVariant::cifar100_fine:
            return 100;
        case CifarVariant::cifar100_coarse:
            return 20;
    }
    return 0;
}

const char* variant_name(CifarVariant variant) {
    return variant == CifarVariant::cifar10 ? "CIFAR-10" : "CIFAR-100";
}

void check_records(const std::filesystem::path& file, const std::vector<std::uint8_t>& bytes, CifarVariant variant,
                   std::size_t classes) {
    const std::size_t record = cifar_record_bytes(variant);
    if (bytes.empty()) throw DatasetError(file, "is empty");
    if (bytes.size() % record != 0) {
        std::string problem = "size ";
        problem += std::to_string(bytes.size());
        problem += " bytes is not a multiple of the ";
        problem += std::to_string(record);
        problem += "-byte ";
        problem += variant_name(variant);
        problem += " record";
        throw DatasetError(file, problem);
    }
    for (std::size_t index = 0; index < bytes.size() / record; ++index) {
        const std::uint8_t label = bytes[index * record + label_offset(variant)];
        if (label >= classes) {
            std::string problem = "label ";
            problem += std::to_string(label);
            problem += " in record ";
            problem += std::to_string(index);
            problem += " is outside the ";
            problem += std::to_string(classes);
            problem += " classes";
            throw DatasetError(file, problem);
        }
    }
}

}  // namespace

std::size_t cifar_record_bytes(CifarVariant variant) {
    return label_bytes(variant) + kImageBytes;
}

Dataset read_cifar_batches(const std::vector<std::filesystem::path>& files, CifarVariant variant,
                           std::vector<std::string> class_names, std::string name) {
    const std::size_t classes = class_count(variant);
    if (class_names.size() != classes) {
        std::string message = "read_cifar_batches: ";
        message += variant_name(variant);
        message += " needs ";
        message += std::to_string(classes);
        message += " class names, got ";
        message += std::to_string(class_names.size());
        throw std::invalid_argument(message);
    }
    Dataset dataset;
    dataset.name = std::move(name);
    dataset.shape = ImageShape{kChannels, kSide, kSide};
    dataset.class_names = std::move(class_names);
    const std::size_t record = cifar_record_bytes(variant);
    for (const std::filesystem::path& file : files) {
        const std::vector<std::uint8_t> bytes = read_file_bytes(file);
        check_records(file, bytes, variant, classes);
        const std::size_t records = bytes.size() / record;
        dataset.labels.reserve(dataset.labels.size() + records);
        dataset.images.reserve(dataset.images.size() + records * kImageBytes);
        for (std::size_t index = 0; index < records; ++index) {
            const std::uint8_t* at = bytes.data() + index * record;
            dataset.labels.push_back(at[label_offset(variant)]);
            // The record's red, green and blue planes are already in NCHW order.
            for (const std::uint8_t* pixel = at + label_bytes(variant); pixel != at + record; ++pixel)
                dataset.images.push_back(*pixel / 255.0f);
        }
    }
    return dataset;
}

std::vector<std::string> read_class_names_file(const std::filesystem::path& file, std::size_t expected) {
    const std::vector<std::uint8_t> bytes = read_file_bytes(file, kLargestClassNamesFile);
    std::vector<std::string> names;
    std::string line;
    auto finish_line = [&] {
        // Trailing spaces and the \r of Windows line ends are not part of a name.
        while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
        if (!line.empty()) names.push_back(line);
        line.clear();
    };
    for (std::uint8_t byte : bytes) {
        if (byte == '\n')
            finish_line();
        else
            line.push_back(static_cast<char>(byte));
    }
    finish_line();
    if (names.size() != expected) {
        std::string problem = "holds ";
        problem += std::to_string(names.size());
        problem += names.size() == 1 ? " class name" : " class names";
        problem += "; expected ";
        problem += std::to_string(expected);
        throw DatasetError(file, problem);
    }
    return names;
}

}  // namespace bps::datasets
