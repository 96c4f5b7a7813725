#include "datasets/dataset_folder.h"

#include "datasets/cifar_reader.h"
#include "datasets/idx_reader.h"

namespace bps::datasets {

namespace fs = std::filesystem;

DatasetSplits read_dataset_folder(const CatalogueEntry& entry, const fs::path& folder) {
    const auto path = [&](std::size_t index) { return folder / entry.data_files.at(index); };
    DatasetSplits splits;
    switch (entry.format) {
        case DatasetFormat::idx:
            splits.train = read_idx_dataset(path(0), path(1), entry.class_names, entry.title + " train");
            splits.test = read_idx_dataset(path(2), path(3), entry.class_names, entry.title + " test");
            break;
        case DatasetFormat::cifar10: {
            std::vector<fs::path> train_files;
            for (std::size_t i = 0; i + 1 < entry.data_files.size(); ++i) train_files.push_back(path(i));
            splits.train =
                read_cifar_batches(train_files, CifarVariant::cifar10, entry.class_names, entry.title + " train");
            splits.test = read_cifar_batches({path(entry.data_files.size() - 1)}, CifarVariant::cifar10,
                                             entry.class_names, entry.title + " test");
            break;
        }
        case DatasetFormat::cifar100: {
            const std::vector<std::string> names = read_class_names_file(path(2), entry.class_count);
            splits.train = read_cifar_batches({path(0)}, CifarVariant::cifar100_fine, names, entry.title + " train");
            splits.test = read_cifar_batches({path(1)}, CifarVariant::cifar100_fine, names, entry.title + " test");
            break;
        }
    }
    return splits;
}

}  // namespace bps::datasets
