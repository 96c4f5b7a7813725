#include "engine/project/project_data.h"

#include <filesystem>
#include <utility>

#include "datasets/catalogue.h"
#include "datasets/data_location.h"

namespace bps::session {

namespace {
datasets::ImageFolderOptions folder_options(const project::DatasetSettings& settings) {
    return datasets::ImageFolderOptions{settings.height, settings.width, settings.channels};
}
}  // namespace

DataFacts project_data_facts(const project::DatasetSettings& settings) {
    DataFacts facts;
    if (settings.folder.empty()) {
        const datasets::CatalogueEntry& entry = datasets::catalogue_entry(settings.name);
        facts.title = entry.title;
        facts.shape = entry.shape;
        facts.class_count = entry.class_count;
        return facts;
    }
    // One class per visible subfolder, as the image-folder reader counts them.
    const std::filesystem::path folder(settings.folder);
    std::error_code error;
    if (!std::filesystem::is_directory(folder, error))
        throw datasets::DatasetError(folder, "the image folder does not exist");
    facts.title = folder.string();
    facts.shape = datasets::ImageShape{settings.channels, settings.height, settings.width};
    for (const auto& item : std::filesystem::directory_iterator(folder))
        if (item.is_directory() && item.path().filename().string().rfind('.', 0) != 0) ++facts.class_count;
    return facts;
}

datasets::DatasetSplits load_project_data(const project::DatasetSettings& settings,
                                          std::vector<datasets::SkippedImage>* skipped,
                                          const datasets::ReadProgress& progress) {
    if (settings.folder.empty())
        return datasets::load_dataset(datasets::catalogue_entry(settings.name), datasets::user_data_root(), progress);
    datasets::ImageFolderResult result =
        datasets::read_image_folder(settings.folder, folder_options(settings), progress);
    if (skipped) *skipped = std::move(result.skipped);
    datasets::DatasetSplits splits;
    splits.train = std::move(result.dataset);
    return splits;
}

datasets::Dataset load_evaluated_images(const project::DatasetSettings& settings,
                                        const datasets::ReadProgress& progress) {
    // As TrainingJob's evaluate chooses: the whole folder when there is no test split.
    datasets::DatasetSplits splits = load_project_data(settings, nullptr, progress);
    return splits.test.size() > 0 ? std::move(splits.test) : std::move(splits.train);
}

}  // namespace bps::session
