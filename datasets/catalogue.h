#pragma once
// The datasets Backprop Studio knows by name: where each comes from (URL, size, SHA-256),
// where it is found on this computer, and how it is read into train and test splits.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/dataset.h"
#include "datasets/download.h"

namespace bps::datasets {

enum class DatasetFormat { idx, cifar10, cifar100 };

struct CatalogueEntry {
    std::string id;     // "fashion-mnist": the name the CLI and projects use
    std::string title;  // "Fashion-MNIST"
    std::string description;
    DatasetFormat format = DatasetFormat::idx;
    ImageShape shape;
    std::size_t train_count = 0, test_count = 0;
    std::vector<std::string> class_names;  // CIFAR-100's are read from its files
    std::size_t class_count = 0;
    std::vector<RemoteFile> downloads;
    // What the reader needs, relative to the dataset's folder (for CIFAR, the unpacked files).
    std::vector<std::string> data_files;
    // Folders searched before the user's data folder (Debian's dataset-fashion-mnist).
    std::vector<std::filesystem::path> system_dirs;
    std::string install_hint;  // e.g. "sudo apt-get install dataset-fashion-mnist", or empty
    std::uint64_t download_bytes() const;
};

const std::vector<CatalogueEntry>& catalogue();
// The entry named `id` (case-insensitive); std::invalid_argument listing the known ids otherwise.
const CatalogueEntry& catalogue_entry(std::string_view id);
// "fashion-mnist, mnist, cifar10, cifar100"
std::string catalogue_ids();

enum class Availability {
    ready,              // every data file is there
    needs_unpacking,    // the archive is downloaded; loading unpacks it
    partly_downloaded,  // some files or a .part are there
    missing
};

struct LocalState {
    Availability availability = Availability::missing;
    std::filesystem::path folder;      // where it is, or where it would be downloaded to
    std::uint64_t bytes_present = 0;   // downloaded bytes, .part files included
    std::vector<std::string> missing;  // download files not yet complete
};

// The dataset's folder in the user's data root: root/id.
std::filesystem::path user_dataset_dir(const CatalogueEntry& entry, const std::filesystem::path& user_root);

// Looks in entry.system_dirs, then in user_dataset_dir(entry, user_root).
LocalState local_state(const CatalogueEntry& entry, const std::filesystem::path& user_root);

// What to do when the dataset is missing and there is no network: the files, their URLs and
// sizes and the folder to put them in, the download command and any package that has it.
std::string offline_help(const CatalogueEntry& entry, const std::filesystem::path& user_root);

// The second half of offline_help: "Without a network connection, fetch these files elsewhere
// and put them into FOLDER:" and one line per file with its exact size and URL. A failed
// download_dataset ends its message with it.
std::string manual_download_help(const CatalogueEntry& entry, const std::filesystem::path& user_root);

// The URL a file is fetched from: BACKPROP_DATASET_MIRROR + "/" + name when that variable is
// set (a classroom mirror, or a folder as file:///...), otherwise the catalogue's.
std::string download_url(const RemoteFile& file);

// Downloads every missing file of `entry` into user_dataset_dir (resuming .part files), then
// unpacks an archive. Throws DownloadCancelled / DownloadError / DatasetError.
void download_dataset(const CatalogueEntry& entry, const std::filesystem::path& user_root,
                      const ProgressCallback& progress);

// Reads the train and test splits. Files downloaded into the user's folder are checked
// against the catalogue's SHA-256 first, an archive is unpacked if needed. A missing dataset
// is a DatasetError naming the folder, with offline_help as the problem.
// `progress` counts the files checked, then the reading as one more step.
DatasetSplits load_dataset(const CatalogueEntry& entry, const std::filesystem::path& user_root,
                           const ReadProgress& progress = {});

}  // namespace bps::datasets
