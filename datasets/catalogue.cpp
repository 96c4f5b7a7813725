#include "datasets/catalogue.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <system_error>

#include "datasets/archive.h"
#include "datasets/ascii_case.h"
#include "datasets/cifar_reader.h"
#include "datasets/dataset_folder.h"
#include "datasets/idx_reader.h"

namespace bps::datasets {

namespace fs = std::filesystem;

namespace {

// The MNIST family: four IDX files, 60,000 + 10,000 gray 28x28 images. URLs, sizes and
// SHA-256 are the ones TensorFlow Datasets pins in its url_checksums files.
CatalogueEntry idx_entry(std::string id, std::string title, std::string description,
                         std::vector<std::string> class_names, const std::string& base_url,
                         const std::uint64_t (&sizes)[4], const char* const (&hashes)[4]) {
    const char* const names[4] = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                                  "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};
    CatalogueEntry entry;
    entry.id = std::move(id);
    entry.title = std::move(title);
    entry.description = std::move(description);
    entry.shape = {1, 28, 28};
    entry.train_count = 60000;
    entry.test_count = 10000;
    entry.class_names = std::move(class_names);
    for (int i = 0; i < 4; ++i) {
        entry.downloads.push_back({names[i], base_url + names[i], sizes[i], hashes[i]});
        entry.data_files.push_back(names[i]);
    }
    return entry;
}

std::vector<CatalogueEntry> build_catalogue() {
    std::vector<CatalogueEntry> entries;

    CatalogueEntry fashion = idx_entry(
        "fashion-mnist", "Fashion-MNIST", "Zalando's 28x28 grayscale photos of clothing, 10 classes",
        {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"},
        "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/", {26421880, 29515, 4422102, 5148},
        {"3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84",
         "a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845",
         "346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073",
         "67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5"});
    // Debian's package holds the same images, gzipped again (other checksums); dpkg verifies it.
    fashion.system_dirs = {"/usr/share/datasets/fashion-mnist"};
    fashion.install_hint = "sudo apt-get install dataset-fashion-mnist";
    entries.push_back(fashion);

    entries.push_back(idx_entry("mnist", "MNIST", "handwritten digits 0-9, 28x28 grayscale",
                                {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
                                "https://storage.googleapis.com/cvdf-datasets/mnist/", {9912422, 28881, 1648877, 4542},
                                {"440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
                                 "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
                                 "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
                                 "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6"}));

    CatalogueEntry cifar10;
    cifar10.id = "cifar10";
    cifar10.title = "CIFAR-10";
    cifar10.description = "32x32 colour photos of 10 kinds of vehicles and animals";
    cifar10.format = DatasetFormat::cifar10;
    cifar10.shape = {3, 32, 32};
    cifar10.train_count = 50000;
    cifar10.test_count = 10000;
    cifar10.class_names = {"airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"};
    cifar10.downloads = {{"cifar-10-binary.tar.gz", "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz",
                          170052171, "c4a38c50a1bc5f3a1c5537f2155ab9d68f9f25eb1ed8d9ddda3db29a59bca1dd"}};
    for (int batch = 1; batch <= 5; ++batch)
        cifar10.data_files.push_back("cifar-10-batches-bin/data_batch_" + std::to_string(batch) + ".bin");
    cifar10.data_files.push_back("cifar-10-batches-bin/test_batch.bin");
    entries.push_back(cifar10);

    CatalogueEntry cifar100;
    cifar100.id = "cifar100";
    cifar100.title = "CIFAR-100";
    cifar100.description = "32x32 colour photos of 100 kinds of objects";
    cifar100.format = DatasetFormat::cifar100;
    cifar100.shape = {3, 32, 32};
    cifar100.train_count = 50000;
    cifar100.test_count = 10000;
    cifar100.downloads = {{"cifar-100-binary.tar.gz", "https://www.cs.toronto.edu/~kriz/cifar-100-binary.tar.gz",
                           168513733, "58a81ae192c23a4be8b1804d68e518ed807d710a4eb253b1f2a199162a40d8ec"}};
    cifar100.data_files = {"cifar-100-binary/train.bin", "cifar-100-binary/test.bin",
                           "cifar-100-binary/fine_label_names.txt"};
    entries.push_back(cifar100);

    for (CatalogueEntry& entry : entries)
        entry.class_count = entry.format == DatasetFormat::cifar100 ? 100 : entry.class_names.size();
    return entries;
}

bool is_file(const fs::path& path) {
    std::error_code ignored;  // an unreadable folder is "not here", not a failure
    return fs::is_regular_file(path, ignored);
}

std::uint64_t size_or_zero(const fs::path& path) {
    std::error_code error;
    const std::uintmax_t size = fs::file_size(path, error);
    return error ? 0 : static_cast<std::uint64_t>(size);
}

bool has_all(const fs::path& folder, const std::vector<std::string>& files) {
    return std::all_of(files.begin(), files.end(), [&](const std::string& file) { return is_file(folder / file); });
}

void expect_count(const Dataset& dataset, std::size_t expected, const fs::path& file, const std::string& what) {
    if (dataset.size() == expected) return;
    std::string problem = "holds ";
    problem += std::to_string(dataset.size());
    problem += " images; ";
    problem += what;
    problem += " has ";
    problem += std::to_string(expected);
    throw DatasetError(file, problem);
}

}  // namespace

std::uint64_t CatalogueEntry::download_bytes() const {
    std::uint64_t total = 0;
    for (const RemoteFile& file : downloads) total += file.size;
    return total;
}

const std::vector<CatalogueEntry>& catalogue() {
    static const std::vector<CatalogueEntry> entries = build_catalogue();
    return entries;
}

std::string catalogue_ids() {
    std::string ids;
    for (const CatalogueEntry& entry : catalogue()) {
        if (!ids.empty()) ids += ", ";
        ids += entry.id;
    }
    return ids;
}

const CatalogueEntry& catalogue_entry(std::string_view id) {
    const std::string wanted = ascii_lowercase(id);
    for (const CatalogueEntry& entry : catalogue())
        if (entry.id == wanted) return entry;
    std::string message = "unknown dataset '";
    message += id;
    message += "'; known datasets: ";
    message += catalogue_ids();
    throw std::invalid_argument(message);
}

fs::path user_dataset_dir(const CatalogueEntry& entry, const fs::path& user_root) {
    return user_root / entry.id;
}

LocalState local_state(const CatalogueEntry& entry, const fs::path& user_root) {
    LocalState state;
    for (const fs::path& dir : entry.system_dirs) {
        if (has_all(dir, entry.data_files)) {
            state.availability = Availability::ready;
            state.folder = dir;
            return state;
        }
    }
    state.folder = user_dataset_dir(entry, user_root);
    for (const RemoteFile& file : entry.downloads) {
        const fs::path final_file = state.folder / file.name;
        if (is_file(final_file)) {
            state.bytes_present += size_or_zero(final_file);
        } else {
            state.bytes_present += size_or_zero(state.folder / (file.name + ".part"));
            state.missing.push_back(file.name);
        }
    }
    if (has_all(state.folder, entry.data_files))
        state.availability = Availability::ready;
    else if (state.missing.empty())
        state.availability = Availability::needs_unpacking;
    else if (state.bytes_present > 0)
        state.availability = Availability::partly_downloaded;
    return state;
}

std::string offline_help(const CatalogueEntry& entry, const fs::path& user_root) {
    std::string text = entry.title;
    text += " is not on this computer. Download it with 'backprop datasets download ";
    text += entry.id;
    text += "'";
    if (!entry.install_hint.empty()) {
        text += ", or install it with '";
        text += entry.install_hint;
        text += "'";
    }
    text += ". ";
    text += manual_download_help(entry, user_root);
    return text;
}

std::string manual_download_help(const CatalogueEntry& entry, const fs::path& user_root) {
    std::string text = "Without a network connection, fetch these files elsewhere and put them into ";
    text += user_dataset_dir(entry, user_root).string();
    text += ":";
    for (const RemoteFile& file : entry.downloads) {
        text += "\n  ";
        text += file.name;
        text += " (";
        text += std::to_string(file.size);  // exact, so a hand-copied file can be checked
        text += " bytes) from ";
        text += file.url;
    }
    return text;
}

std::string download_url(const RemoteFile& file) {
    const char* mirror = std::getenv("BACKPROP_DATASET_MIRROR");
    if (mirror == nullptr || *mirror == '\0') return file.url;
    std::string url = mirror;
    if (url.back() != '/') url += '/';
    url += file.name;
    return url;
}

void download_dataset(const CatalogueEntry& entry, const fs::path& user_root, const ProgressCallback& progress) {
    const fs::path folder = user_dataset_dir(entry, user_root);
    for (RemoteFile file : entry.downloads) {
        file.url = download_url(file);
        try {
            download_file(file, folder, progress);
        } catch (const DownloadError& error) {
            // Offline or blocked: the learner can still fetch the files some other way.
            std::string message = error.what();
            message += "\n";
            message += manual_download_help(entry, user_root);
            throw DownloadError(message);
        }
    }
    if (entry.format != DatasetFormat::idx && !has_all(folder, entry.data_files))
        for (const RemoteFile& file : entry.downloads) extract_archive(folder / file.name, folder);
}

DatasetSplits load_dataset(const CatalogueEntry& entry, const fs::path& user_root, const ReadProgress& progress) {
    const LocalState state = local_state(entry, user_root);
    if (state.availability == Availability::missing || state.availability == Availability::partly_downloaded)
        throw DatasetError(state.folder, offline_help(entry, user_root));
    const bool downloaded = state.folder == user_dataset_dir(entry, user_root);
    const std::size_t steps = entry.downloads.size() + 1;
    std::size_t done = 0;
    if (progress) progress(done, steps);
    // Files a learner copied in by hand are checked like downloads; the archive only before unpacking.
    if (downloaded && (entry.format == DatasetFormat::idx || state.availability == Availability::needs_unpacking)) {
        for (const RemoteFile& file : entry.downloads) {
            const bool verified = is_verified(file, state.folder);
            if (progress) progress(++done, steps);
            if (verified) continue;
            std::string problem = "does not match the catalogue's size and SHA-256 for ";
            problem += entry.title;
            problem += "; delete it and run 'backprop datasets download ";
            problem += entry.id;
            problem += "'";
            throw DatasetError(state.folder / file.name, problem);
        }
    }
    if (state.availability == Availability::needs_unpacking)
        for (const RemoteFile& file : entry.downloads) extract_archive(state.folder / file.name, state.folder);

    if (progress) progress(steps - 1, steps);
    DatasetSplits splits = read_dataset_folder(entry, state.folder);
    if (progress) progress(steps, steps);
    expect_count(splits.train, entry.train_count, state.folder / entry.data_files.front(),
                 entry.title + "'s training set");
    expect_count(splits.test, entry.test_count,
                 state.folder / entry.data_files[entry.format == DatasetFormat::idx ? 2 : 1],
                 entry.title + "'s test set");
    return splits;
}

}  // namespace bps::datasets
