// The sanity checks trained for real through session::TrainingJob, each on a few images of the
// project's training split: the first batch's loss, and whether a small subset can be learnt by
// heart. Waits are bounded by the runner's limit and synchronised by the job's own events.
#include "engine/course/sanity_runner.h"

#include <algorithm>
#include <future>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>

#include "engine/project/project_data.h"
#include "engine/session/training_job.h"

namespace bps::course {

namespace {

// The first `count` images of the training split (validation images never join), as a training
// set of their own with no validation; `as_test` makes the same images its test split, so the
// job evaluates exactly what it trained on.
std::shared_ptr<const session::TrainingData> subset(const session::TrainingData& data, std::size_t count,
                                                    bool as_test) {
    auto small = std::make_shared<session::TrainingData>();
    const datasets::Dataset& all = data.train;
    datasets::Dataset& train = small->train;
    train.name = all.name;
    train.shape = all.shape;
    train.class_names = all.class_names;
    train.mean = all.mean;
    train.stddev = all.stddev;
    count = std::min(count, data.split.train.size());
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t index = data.split.train[i];
        const std::span<const float> image = all.image(index);
        train.images.insert(train.images.end(), image.begin(), image.end());
        train.labels.push_back(all.labels[index]);
        small->split.train.push_back(i);
    }
    if (as_test) small->test = train;
    small->normalization = data.normalization;
    return small;
}

// What one job sent, for the thread that waits on it.
struct Outcome {
    std::optional<session::JobResult> result;
    std::optional<session::JobFailure> failure;
};

struct Listener {
    std::mutex mutex;
    std::optional<double> first_loss;
    std::vector<std::string> class_names;
    std::promise<Outcome> done;

    session::JobEvents events() {
        session::JobEvents events;
        events.started = [this](const session::RunFacts& facts) {
            std::lock_guard lock(mutex);
            class_names = facts.class_names;
        };
        events.batch = [this](const session::BatchReport& report) {
            std::lock_guard lock(mutex);
            if (!first_loss) first_loss = report.loss;
        };
        events.finished = [this](const session::JobResult& result) { done.set_value(Outcome{result, std::nullopt}); };
        events.failed = [this](const session::JobFailure& failure) { done.set_value(Outcome{std::nullopt, failure}); };
        return events;
    }
};

std::string name_of(const project::Project& project) {
    return project.name.empty() ? std::string("the project") : "project '" + project.name + "'";
}

// Runs the job to its end, at most `limit`; a failure throws its message.
session::JobResult run_job(session::JobSetup setup, Listener& listener, std::chrono::seconds limit,
                           const std::string& what) {
    const std::string name = name_of(setup.project);
    std::future<Outcome> ended = listener.done.get_future();
    session::TrainingJob job(std::move(setup), listener.events());
    if (ended.wait_for(limit) != std::future_status::ready) {
        job.stop();
        throw std::runtime_error("The sanity check's " + what + " of " + name + " took longer than " +
                                 std::to_string(limit.count()) + " s; try a smaller network or a faster device.");
    }
    Outcome outcome = ended.get();
    if (outcome.failure) throw std::runtime_error(outcome.failure->message);
    return std::move(*outcome.result);
}

session::JobSetup setup_for(const project::Project& project, const std::string& device_request,
                            std::shared_ptr<const session::TrainingData> data) {
    session::JobSetup setup;
    setup.project = project;
    // Augmentation would change the images the check means to learn by heart.
    setup.project.dataset.augmentation = datasets::Augmentation{};
    setup.source = name_of(project);
    setup.device_request = device_request;
    setup.data = std::move(data);
    setup.report_interval = std::chrono::milliseconds(0);
    return setup;
}

}  // namespace

DeviceSanityRunner::DeviceSanityRunner(std::string device_request, std::shared_ptr<const session::TrainingData> data,
                                       std::chrono::seconds limit)
    : device_request_(std::move(device_request)), data_(std::move(data)), limit_(limit) {}

namespace {

// The settings that decide which images a project reads and how they are prepared.
bool same_images(const project::DatasetSettings& a, const project::DatasetSettings& b) {
    return a.name == b.name && a.folder == b.folder && a.height == b.height && a.width == b.width &&
           a.channels == b.channels && a.validation_fraction == b.validation_fraction && a.normalize == b.normalize;
}

}  // namespace

std::shared_ptr<const session::TrainingData> DeviceSanityRunner::data_for(const project::Project& project) {
    if (data_) return data_;
    if (loaded_ && loaded_seed_ == project.training.seed && same_images(loaded_settings_, project.dataset))
        return loaded_;
    loaded_ = std::make_shared<session::TrainingData>(session::prepare_training_data(
        session::load_project_data(project.dataset), project.dataset, project.training.seed));
    loaded_settings_ = project.dataset;
    loaded_seed_ = project.training.seed;
    return loaded_;
}

SanityRunner::FirstLoss DeviceSanityRunner::first_batch_loss(const project::Project& project) {
    const std::shared_ptr<const session::TrainingData> data = data_for(project);
    const auto batch = static_cast<std::size_t>(std::max(project.training.batch_size, 1));
    session::JobSetup setup = setup_for(project, device_request_, subset(*data, batch, false));
    setup.epochs = 1;
    setup.batch_limit = 1;
    Listener listener;
    run_job(std::move(setup), listener, limit_, "first batch");
    std::lock_guard lock(listener.mutex);
    if (!listener.first_loss) throw std::runtime_error(name_of(project) + " trained no batch: there were no images");
    return FirstLoss{*listener.first_loss, static_cast<int>(listener.class_names.size())};
}

SanityRunner::Overfit DeviceSanityRunner::overfit_subset(const project::Project& project, int images, int epochs,
                                                         int batch_size) {
    const std::shared_ptr<const session::TrainingData> data = data_for(project);
    session::JobSetup setup =
        setup_for(project, device_request_, subset(*data, static_cast<std::size_t>(std::max(images, 1)), true));
    setup.epochs = epochs;
    setup.batch_size = batch_size;
    // The check asks whether the network can learn the subset by heart, at the project's own
    // rate: a schedule planned for the project's epochs (cosine over 10) would reach zero long
    // before the subset's epochs end and stall the check for a reason that is not the network's.
    setup.project.training.schedule = train::Schedule{};
    Listener listener;
    const session::JobResult result = run_job(std::move(setup), listener, limit_, "training on a subset");
    if (!result.test) throw std::runtime_error(name_of(project) + ": the subset was not evaluated");
    return Overfit{result.test->accuracy, result.epochs_completed};
}

}  // namespace bps::course
