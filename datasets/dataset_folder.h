#pragma once
// Reading a catalogued dataset's files from a folder, whatever their count (tests use small ones).
#include <filesystem>

#include "datasets/catalogue.h"

namespace bps::datasets {

// The train and test splits from `folder`, which holds entry.data_files.
DatasetSplits read_dataset_folder(const CatalogueEntry& entry, const std::filesystem::path& folder);

}  // namespace bps::datasets
