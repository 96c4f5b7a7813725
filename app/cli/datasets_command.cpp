// backprop datasets: what is on this computer, downloading, and a look inside a dataset.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/printable.h"
#include "app/cli/terminal.h"
#include "datasets/catalogue.h"
#include "datasets/data_location.h"
#include "datasets/image_folder.h"
#include "engine/base/number_text.h"

namespace bps::cli {

const char* const datasets_help =
    "usage: backprop datasets [list] [--json]\n"
    "       backprop datasets download NAME\n"
    "       backprop datasets show NAME|FOLDER [--sample I] [--test] [--size HxW] [--channels 1|3]\n"
    "\n"
    "  list       the known datasets, whether each is on this computer and what a download takes\n"
    "  download   fetch a dataset into your data folder, checking every file's SHA-256; Ctrl-C\n"
    "             stops it and running it again resumes where it stopped\n"
    "  show       counts, image size and classes of a dataset; --sample I draws training image I\n"
    "             (--test: from the test split). A FOLDER holds one subfolder of PNG/JPEG images\n"
    "             per class, read at --size (default 28x28) in --channels (default 1, grayscale)\n"
    "\n"
    "Names: fashion-mnist (the default, also from Debian's dataset-fashion-mnist package), mnist,\n"
    "cifar10, cifar100. Downloads go to the platform's data folder (on Linux\n"
    "~/.local/share/backprop-studio/datasets), or BACKPROP_DATA_DIR when set.\n"
    "BACKPROP_DATASET_MIRROR=URL fetches every file from URL/FILENAME instead (a local mirror).\n";

namespace {

namespace ds = bps::datasets;

const char* state_name(ds::Availability availability) {
    switch (availability) {
        case ds::Availability::ready:
            return "ready";
        case ds::Availability::needs_unpacking:
            return "needs_unpacking";
        case ds::Availability::partly_downloaded:
            return "partly_downloaded";
        case ds::Availability::missing:
            return "missing";
    }
    return "missing";
}

std::string state_text(const ds::CatalogueEntry& entry, const ds::LocalState& state) {
    switch (state.availability) {
        case ds::Availability::ready:
            return "ready in " + state.folder.string();
        case ds::Availability::needs_unpacking:
            return "downloaded; unpacked on first use";
        case ds::Availability::partly_downloaded:
            return "partly downloaded (" + session::format_bytes(state.bytes_present) + " of " +
                   session::format_bytes(entry.download_bytes()) + "); 'download' resumes";
        case ds::Availability::missing:
            break;
    }
    return "not here; download " + session::format_bytes(entry.download_bytes());
}

int list_datasets(Arguments& arguments, bool as_json) {
    arguments.expect_nothing_left();
    const std::filesystem::path root = ds::user_data_root();
    if (as_json) {
        nlohmann::json list = nlohmann::json::array();
        for (const ds::CatalogueEntry& entry : ds::catalogue()) {
            const ds::LocalState state = ds::local_state(entry, root);
            list.push_back({{"id", entry.id},
                            {"title", entry.title},
                            {"description", entry.description},
                            {"classes", entry.class_count},
                            {"train_images", entry.train_count},
                            {"test_images", entry.test_count},
                            {"shape", {entry.shape.channels, entry.shape.height, entry.shape.width}},
                            {"download_bytes", entry.download_bytes()},
                            {"state", state_name(state.availability)},
                            {"folder", state.folder.string()},
                            {"bytes_present", state.bytes_present}});
        }
        std::cout << nlohmann::json{{"data_folder", root.string()}, {"datasets", list}}.dump(2) << "\n";
        return exit_ok;
    }
    std::cout << "downloads go to " << root.string() << "\n\n";
    for (const ds::CatalogueEntry& entry : ds::catalogue()) {
        const ds::LocalState state = ds::local_state(entry, root);
        std::string name = entry.id;
        name.resize(std::max<std::size_t>(name.size(), 15), ' ');
        std::cout << "  " << name << entry.title << ": " << entry.description << "\n"
                  << "  " << std::string(15, ' ') << entry.train_count << " training + " << entry.test_count
                  << " test images of " << entry.shape.to_string() << ", " << entry.class_count << " classes; "
                  << state_text(entry, state) << "\n";
    }
    return exit_ok;
}

int download(Arguments& arguments) {
    const std::optional<std::string> name = arguments.take_word();
    if (!name) throw UsageError("download needs a dataset name: " + ds::catalogue_ids());
    arguments.expect_nothing_left();
    const ds::CatalogueEntry* entry = nullptr;
    try {
        entry = &ds::catalogue_entry(*name);
    } catch (const std::invalid_argument& error) {
        throw UsageError(error.what());
    }
    const std::filesystem::path root = ds::user_data_root();
    if (const ds::LocalState state = ds::local_state(*entry, root); state.availability == ds::Availability::ready) {
        std::cout << entry->title << " is already here: " << state.folder.string() << "\n";
        return exit_ok;
    }
    catch_interrupts();
    ProgressDisplay display(std::cerr, stderr_is_terminal());
    try {
        ds::download_dataset(*entry, root, [&](const ds::DownloadProgress& progress) {
            display.bytes(progress.file, progress.received, progress.total);
            return !interrupt_requested();
        });
    } catch (const ds::DownloadCancelled& stopped) {
        display.finish();
        std::cerr << "backprop datasets: " << stopped.what() << "\n";
        return exit_interrupted;
    } catch (...) {
        display.finish();
        throw;
    }
    display.finish();
    std::cout << entry->title << " is ready in " << ds::user_dataset_dir(*entry, root).string() << "\n";
    return exit_ok;
}

// Two characters a pixel so the image keeps its proportions in a terminal.
void draw_sample(const ds::Dataset& dataset, std::size_t index) {
    static const std::string shades = " .:-=+*#%@";
    const std::vector<std::uint8_t> pixels = dataset.pixels(index);
    const auto channels = static_cast<std::size_t>(dataset.shape.channels);
    for (int y = 0; y < dataset.shape.height; ++y) {
        std::string row;
        for (int x = 0; x < dataset.shape.width; ++x) {
            const std::size_t at = (static_cast<std::size_t>(y) * static_cast<std::size_t>(dataset.shape.width) +
                                    static_cast<std::size_t>(x)) *
                                   channels;
            unsigned sum = 0;
            for (std::size_t c = 0; c < channels; ++c) sum += pixels[at + c];
            const unsigned level = sum / static_cast<unsigned>(channels) * static_cast<unsigned>(shades.size()) / 256;
            row += std::string(2, shades[level]);
        }
        std::cout << row << "\n";
    }
}

void describe(const ds::Dataset& dataset) {
    std::cout << printable(dataset.name) << ": " << dataset.size() << " images of " << dataset.shape.to_string()
              << "\n";
    const std::vector<std::size_t> counts = dataset.class_histogram();
    for (std::size_t label = 0; label < dataset.class_count(); ++label)
        std::cout << "  " << label << "  " << printable(dataset.class_names[label]) << ": " << counts[label] << "\n";
}

std::pair<int, int> parse_size(const std::string& text) {
    const std::size_t x = text.find('x');
    if (x == std::string::npos) throw UsageError("--size takes HEIGHTxWIDTH, like 28x28, not '" + text + "'");
    return {parse_whole_number(text.substr(0, x), "--size", 1), parse_whole_number(text.substr(x + 1), "--size", 1)};
}

int show(Arguments& arguments) {
    const std::optional<std::string> name = arguments.take_word();
    if (!name) throw UsageError("show needs a dataset name or an image folder");
    const std::optional<std::string> sample = arguments.take_option("--sample");
    const bool from_test = arguments.take_flag("--test");
    const std::optional<std::string> size = arguments.take_option("--size");
    const std::optional<std::string> channels = arguments.take_option("--channels");
    arguments.expect_nothing_left();

    ds::DatasetSplits splits;
    const bool is_folder = std::filesystem::is_directory(*name);
    if (is_folder) {
        ds::ImageFolderOptions options;
        if (size) std::tie(options.height, options.width) = parse_size(*size);
        if (channels) options.channels = parse_whole_number(*channels, "--channels");
        ds::ImageFolderResult result = ds::read_image_folder(*name, options);
        splits.train = std::move(result.dataset);
        if (!result.skipped.empty()) {
            std::cout << "skipped " << session::format_count(result.skipped.size(), "file")
                      << " that could not be read:\n";
            for (const ds::SkippedImage& skipped : result.skipped)
                std::cout << "  " << skipped.file.string() << ": " << skipped.reason << "\n";
        }
    } else {
        if (size || channels) throw UsageError("--size and --channels apply to image folders only");
        const ds::CatalogueEntry* entry = nullptr;
        try {
            entry = &ds::catalogue_entry(*name);
        } catch (const std::invalid_argument& error) {
            throw UsageError(std::string(error.what()) + "; or give an image folder");
        }
        splits = ds::load_dataset(*entry, ds::user_data_root());
    }
    if (from_test && is_folder) throw UsageError("an image folder has no test split");
    const ds::Dataset& dataset = from_test ? splits.test : splits.train;
    if (sample) {
        const std::size_t index = static_cast<std::size_t>(parse_whole_number(*sample, "--sample", 0));
        if (index >= dataset.size())
            throw UsageError("--sample " + *sample + " is past the last image (" + std::to_string(dataset.size() - 1) +
                             ") of " + dataset.name);
        const auto label = static_cast<std::size_t>(dataset.labels[index]);
        std::cout << printable(dataset.name) << " image " << index << ": label " << label << " ("
                  << printable(dataset.class_names[label]) << ")\n";
        draw_sample(dataset, index);
        return exit_ok;
    }
    describe(splits.train);
    if (!is_folder) describe(splits.test);
    return exit_ok;
}

}  // namespace

int run_datasets(Arguments& arguments) {
    // Taken first so that "backprop datasets --json" lists too.
    const bool as_json = arguments.take_flag("--json");
    const std::string action = arguments.take_word().value_or("list");
    if (action == "list") return list_datasets(arguments, as_json);
    if (as_json) throw UsageError("--json applies to list only");
    if (action == "download") return download(arguments);
    if (action == "show") return show(arguments);
    throw UsageError("unknown action '" + action + "'; use list, download or show");
}

}  // namespace bps::cli
