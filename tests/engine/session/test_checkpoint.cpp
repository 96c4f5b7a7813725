// Checkpoints: a run trained for one epoch, checkpointed and resumed for one more ends with exactly
// the weights of a run trained for two epochs without stopping, on the same device; also from a
// run stopped in the middle of an epoch, and for SGD with momentum, Adam and a network with dropout
// and augmentation (optimiser state, step count, batch order and random streams all matter).
// The tolerance is zero: one device runs the same kernels on the same inputs in the same order, so
// every float must come out the same; any difference means the resumed run is not the same run.
// Also the refusals: a weights file that is no checkpoint, a finished run, and an optimiser state
// whose shapes do not fit the network (named with both shapes).
#include <algorithm>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <cstring>
#include <future>
#include <limits>
#include <mutex>

#include "engine/io/network_weights.h"
#include "engine/runs/checkpoint.h"
#include "engine/session/training_job.h"
#include "tests/support/temp_dir.h"
#include "tests/support/two_class_images.h"

using namespace bps;
using namespace bps::session;

namespace {

// A network with dropout, trained with flips, so the random streams must resume where they were.
project::Project project_with(train::OptimizerKind kind) {
    project::Project project = test::two_class_project();
    project.network.layers.insert(project.network.layers.begin() + 4, model::dropout("drop", 0.25f));
    project.dataset.augmentation.horizontal_flip = true;
    project.training.epochs = 2;
    project.training.optimizer.kind = kind;
    project.training.optimizer.momentum = 0.9f;
    if (kind != train::OptimizerKind::sgd) project.training.optimizer.learning_rate = 0.01f;
    return project;
}

struct Ended {
    std::optional<JobResult> result;
    std::optional<JobFailure> failure;
    std::size_t batches = 0;  // batches trained (each one reported)
    int first_epoch = -1;     // the epoch of the first batch trained
};

// Runs a job to its end; `stop_after` batches (0: never) asks it to stop, from its own batch report.
Ended run_job(JobSetup setup, std::size_t stop_after = 0) {
    setup.data = test::two_class_data();
    setup.source = "halves.json";
    setup.report_interval = std::chrono::milliseconds(0);  // every batch reported: the stop lands exactly
    std::mutex mutex;
    std::condition_variable changed;
    Ended ended;
    std::size_t batches = 0;
    std::promise<TrainingJob*> job_promise;
    std::shared_future<TrainingJob*> job_future = job_promise.get_future().share();
    JobEvents events;
    events.batch = [&](const BatchReport& report) {
        if (ended.first_epoch < 0) ended.first_epoch = report.epoch;
        ++ended.batches;
        if (stop_after > 0 && ++batches == stop_after) {
            REQUIRE(job_future.wait_for(std::chrono::minutes(1)) == std::future_status::ready);
            job_future.get()->stop();
        }
    };
    events.finished = [&](const JobResult& result) {
        std::lock_guard lock(mutex);
        ended.result = result;
        changed.notify_all();
    };
    events.failed = [&](const JobFailure& failure) {
        std::lock_guard lock(mutex);
        ended.failure = failure;
        changed.notify_all();
    };
    TrainingJob job(std::move(setup), std::move(events));
    job_promise.set_value(&job);
    {
        std::unique_lock lock(mutex);
        REQUIRE(changed.wait_for(lock, std::chrono::minutes(3), [&] { return ended.result || ended.failure; }));
    }
    REQUIRE(job.wait_for(std::chrono::minutes(1)));
    if (ended.failure) FAIL(ended.failure->message);
    return ended;
}

// Resumes from `checkpoint` (for `epochs` in all, if given) expecting the job to fail, and gives the failure.
JobFailure resume_failure(const std::filesystem::path& checkpoint, std::optional<int> epochs = std::nullopt) {
    JobSetup again;
    again.resume_from = checkpoint;
    again.epochs = epochs;
    again.data = test::two_class_data();
    std::promise<JobFailure> failed;
    JobEvents events;
    events.failed = [&](const JobFailure& failure) { failed.set_value(failure); };
    events.finished = [&](const JobResult&) { failed.set_value(JobFailure{}); };
    TrainingJob job(std::move(again), std::move(events));
    auto future = failed.get_future();
    REQUIRE(future.wait_for(std::chrono::minutes(2)) == std::future_status::ready);
    REQUIRE(job.wait_for(std::chrono::minutes(1)));
    return future.get();
}

double largest_difference(const std::vector<io::NamedArray>& a, const std::vector<io::NamedArray>& b) {
    REQUIRE(a.size() == b.size());
    double largest = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        REQUIRE(a[i].name == b[i].name);
        REQUIRE(a[i].values.size() == b[i].values.size());
        for (std::size_t v = 0; v < a[i].values.size(); ++v)
            largest = std::max(largest, static_cast<double>(std::abs(a[i].values[v] - b[i].values[v])));
    }
    return largest;
}

// `on_device`: without augmentation, with the training set kept on the device, whose batches are
// gathered from the epoch's order there (a resumed epoch skips into the middle of it).
void check_resume_gives_the_same_weights(train::OptimizerKind kind, std::size_t stop_after, bool on_device = false) {
    test::TempDir dir("checkpoint");
    const auto project_of = [&] {
        project::Project project = project_with(kind);
        if (on_device) project.dataset.augmentation.horizontal_flip = false;
        return project;
    };
    const DataPlacement placement = on_device ? DataPlacement::device : DataPlacement::automatic;
    JobSetup straight;
    straight.project = project_of();
    straight.data_placement = placement;
    const Ended uninterrupted = run_job(straight);
    REQUIRE(uninterrupted.result->epochs_completed == 2);

    // The first part: one epoch, or stopped part-way through the first (a stop also checkpoints).
    JobSetup first;
    first.project = project_of();
    first.data_placement = placement;
    if (stop_after == 0) first.epochs = 1;
    first.checkpoint = dir.path() / "run.h5";
    const Ended part = run_job(first, stop_after);
    REQUIRE(part.result->checkpoint_saved_to == first.checkpoint);
    const Checkpoint saved = read_checkpoint(first.checkpoint);
    CHECK(saved.position.epoch == (stop_after == 0 ? 1 : 0));
    CHECK(saved.position.batch == (stop_after == 0 ? 0 : stop_after));
    CHECK(saved.position.updates == static_cast<int>(stop_after == 0 ? 12 : stop_after));
    CHECK_FALSE(saved.optimizer_state.empty());

    JobSetup rest;
    rest.project = test::two_class_project();  // ignored: the checkpoint's project is the run's
    rest.resume_from = first.checkpoint;
    rest.epochs = 2;
    rest.data_placement = placement;
    const Ended resumed = run_job(rest);
    CHECK(resumed.result->epochs_completed == 2);
    // It went on: only the batches the first part had not trained (12 an epoch), from where it stopped.
    CHECK(resumed.batches == 24 - (stop_after == 0 ? 12 : stop_after));
    CHECK(resumed.first_epoch == (stop_after == 0 ? 1 : 0));
    const double difference = largest_difference(uninterrupted.result->weights, resumed.result->weights);
    INFO("largest weight difference " << difference);
    CHECK(difference == 0.0);
    CHECK(resumed.result->test->accuracy == uninterrupted.result->test->accuracy);
}

}  // namespace

TEST_CASE("a run resumed from its checkpoint after one epoch ends with the weights of a run that never stopped",
          "[checkpoint]") {
    SECTION("SGD with momentum") {
        check_resume_gives_the_same_weights(train::OptimizerKind::sgd, 0);
    }
    SECTION("Adam") {
        check_resume_gives_the_same_weights(train::OptimizerKind::adam, 0);
    }
}

TEST_CASE("a run stopped part-way through an epoch resumes from that batch and ends the same", "[checkpoint]") {
    SECTION("SGD with momentum") {
        check_resume_gives_the_same_weights(train::OptimizerKind::sgd, 5);
    }
    SECTION("AdamW") {
        check_resume_gives_the_same_weights(train::OptimizerKind::adamw, 5);
    }
    SECTION("SGD with momentum, the training set kept on the device") {
        check_resume_gives_the_same_weights(train::OptimizerKind::sgd, 5, true);
    }
}

TEST_CASE("a weights file is not a checkpoint, and a finished checkpoint has nothing left to train", "[checkpoint]") {
    test::TempDir dir("checkpoint-errors");
    JobSetup first;
    first.project = project_with(train::OptimizerKind::sgd);
    first.save_weights = dir.path() / "weights.h5";
    first.checkpoint = dir.path() / "run.h5";
    run_job(first);
    REQUIRE_THROWS_MATCHES(read_checkpoint(first.save_weights), io::WeightsFileError,
                           Catch::Matchers::Message(first.save_weights.string() +
                                                    ": holds weights but no training state, so training cannot go on "
                                                    "from it; it is a weights file (train with '--checkpoint FILE' to "
                                                    "keep checkpoints)"));
    // The checkpoint is also a weights file: it reads as one, with its project and model card.
    const SavedWeights as_weights = read_saved_weights(first.checkpoint);
    REQUIRE(as_weights.project);
    CHECK(as_weights.project->name == "halves");

    const JobFailure failure = resume_failure(first.checkpoint);
    CHECK(failure.kind == FailureKind::file);
    CHECK(failure.message == first.checkpoint.string() +
                                 ": has already trained 2 of 2 epochs: nothing is left to train; ask for more epochs "
                                 "(backprop resume --epochs N) to train further");
}

TEST_CASE("an optimiser state that does not fit the network names the array and both shapes", "[checkpoint]") {
    test::TempDir dir("checkpoint-damaged");
    JobSetup first;
    first.project = project_with(train::OptimizerKind::sgd);
    first.epochs = 1;
    first.checkpoint = dir.path() / "run.h5";
    run_job(first);

    // The same number of values in a transposed shape: only the shape check can see it.
    io::WeightsFile contents = io::read_weights_file(first.checkpoint);
    REQUIRE(contents.is_checkpoint());
    io::NamedArray& state = contents.checkpoint_arrays.front();
    REQUIRE(state.dims.size() == 2);
    REQUIRE(state.dims[0] != state.dims[1]);
    const std::vector<int> right = state.dims;
    std::swap(state.dims[0], state.dims[1]);
    const std::filesystem::path damaged = dir.path() / "damaged.h5";
    io::save_weights_file(damaged, contents);

    const JobFailure failure = resume_failure(damaged, 2);
    CHECK(failure.kind == FailureKind::file);
    CHECK(failure.message == damaged.string() + ": its optimiser state holds '" + state.name + "' (" +
                                 io::dims_text(state.dims) + ") where the network has '" + state.name + "' (" +
                                 io::dims_text(right) + ")");
}

// Continue training and `backprop resume` need only where a checkpoint stopped and its project
// before the run reads the whole file: the header gives the same facts from the attributes alone.
TEST_CASE("a checkpoint's header gives the position and project of the full read, without reading the arrays",
          "[checkpoint]") {
    test::TempDir dir("checkpoint-header");
    JobSetup first;
    first.project = project_with(train::OptimizerKind::adam);
    first.checkpoint = dir.path() / "run.h5";
    run_job(first, 5);  // stopped part-way: a batch, an update count and a rate to compare

    const Checkpoint full = read_checkpoint(first.checkpoint);
    const CheckpointHeader header = read_checkpoint_header(first.checkpoint);
    CHECK(header.position.epoch == full.position.epoch);
    CHECK(header.position.batch == full.position.batch);
    CHECK(header.position.batch == 5);
    CHECK(header.position.updates == full.position.updates);
    CHECK(header.position.learning_rate == full.position.learning_rate);
    CHECK(project::project_to_json(header.project) == project::project_to_json(*full.weights.project));

    // Arrays the full read refuses (a NaN in the optimiser's state, a layer without its weights)
    // do not touch the header: it never reads them.
    io::WeightsFile contents = io::read_weights_file(first.checkpoint);
    contents.checkpoint_arrays.front().values.front() = std::numeric_limits<float>::quiet_NaN();
    const std::filesystem::path nan_state = dir.path() / "nan-state.h5";
    io::save_weights_file(nan_state, contents);
    CHECK_THROWS_WITH(read_checkpoint(nan_state),
                      Catch::Contains("has a damaged training state: the optimiser's array"));
    CHECK(read_checkpoint_header(nan_state).position.batch == 5);

    contents = io::read_weights_file(first.checkpoint);
    const auto with_weights = std::find_if(contents.layers.begin(), contents.layers.end(),
                                           [](const io::KerasLayer& layer) { return !layer.weights.empty(); });
    REQUIRE(with_weights != contents.layers.end());
    with_weights->weights.clear();
    const std::filesystem::path no_weights = dir.path() / "no-weights.h5";
    io::save_weights_file(no_weights, contents);
    CHECK_THROWS_AS(read_checkpoint(no_weights), io::WeightsFileError);
    const CheckpointHeader still = read_checkpoint_header(no_weights);
    CHECK(still.position.updates == full.position.updates);
    CHECK(still.project.name == full.weights.project->name);

    // What is no checkpoint is refused as the full read refuses it.
    const std::filesystem::path weights = dir.path() / "weights.h5";
    save_trained_weights(weights, *full.weights.project, *full.weights.card,
                         weights_for_network(full.weights, *full.weights.project, full.weights.card->shape));
    std::string full_refusal, header_refusal;
    try {
        read_checkpoint(weights);
    } catch (const io::WeightsFileError& error) {
        full_refusal = error.what();
    }
    try {
        read_checkpoint_header(weights);
    } catch (const io::WeightsFileError& error) {
        header_refusal = error.what();
    }
    CHECK_THAT(full_refusal, Catch::Contains("holds weights but no training state"));
    CHECK(header_refusal == full_refusal);
}

namespace {

// Names, dims and every float's bits.
bool same_bits(const std::vector<io::NamedArray>& a, const std::vector<io::NamedArray>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].name != b[i].name || a[i].dims != b[i].dims || a[i].values.size() != b[i].values.size() ||
            std::memcmp(a[i].values.data(), b[i].values.data(), a[i].values.size() * sizeof(float)) != 0)
            return false;
    return true;
}

}  // namespace

// After the last epoch the checkpoint has just downloaded the parameters: its arrays become the
// result's weights instead of a second download, and they are the same numbers.
TEST_CASE("the last checkpoint's arrays are the run's weights, bit for bit, downloaded once", "[checkpoint]") {
    test::TempDir dir("checkpoint-result");
    JobSetup plain;
    plain.project = project_with(train::OptimizerKind::sgd);
    const Ended without = run_job(plain);

    JobSetup checkpointed = plain;
    checkpointed.checkpoint = dir.path() / "run.h5";
    checkpointed.save_weights = dir.path() / "weights.h5";
    const unsigned long long downloads_before = io::parameter_downloads();
    const Ended with = run_job(checkpointed);
    // One download for each epoch's checkpoint (2), none more for the result.
    CHECK(io::parameter_downloads() - downloads_before == 2);

    const std::vector<io::NamedArray>& weights = with.result->weights;
    REQUIRE_FALSE(weights.empty());
    CHECK(same_bits(weights, without.result->weights));
    const Checkpoint last = read_checkpoint(checkpointed.checkpoint);
    CHECK(last.position.epoch == 2);
    CHECK(same_bits(weights, weights_for_network(last.weights, *last.weights.project, last.weights.card->shape)));
    const SavedWeights saved = read_saved_weights(checkpointed.save_weights);
    CHECK(same_bits(weights, weights_for_network(saved, *saved.project, saved.card->shape)));
}

// A 1x1 Conv2D weight {out, in, 1, 1} is saved with its layer's dims, not taken for a Dense weight:
// a run with 1x1 convolutions checkpoints, saves its weights and resumes with its optimiser state
// (the two-class images are 1x4x4: the first 1x1 convolution reads one channel, the last gives one).
TEST_CASE("a run with 1x1 convolutions saves its weights, checkpoints and resumes", "[checkpoint]") {
    test::TempDir dir("checkpoint-conv1x1");
    JobSetup first;
    first.project = project_with(train::OptimizerKind::adam);
    first.project.network.layers = {model::input_layer(),
                                    model::conv2d("widen", 4, 1),
                                    model::activation("relu", model::Activation::relu),
                                    model::conv2d("mix", 4, 1),
                                    model::conv2d("narrow", 1, 1),
                                    model::flatten("flatten"),
                                    model::dense("out", 2, train::Initializer::glorot_uniform)};
    first.epochs = 1;
    first.checkpoint = dir.path() / "run.h5";
    first.save_weights = dir.path() / "weights.h5";
    const Ended part = run_job(first);
    const SavedWeights saved = read_saved_weights(first.save_weights);
    const std::vector<io::NamedArray> weights = weights_for_network(saved, *saved.project, saved.card->shape);
    CHECK(same_bits(weights, part.result->weights));
    REQUIRE(weights.size() == 8);
    CHECK(weights[0].name == "widen.weight");
    CHECK(weights[0].dims == std::vector<int>{4, 1, 1, 1});
    CHECK(weights[2].dims == std::vector<int>{4, 4, 1, 1});
    CHECK(weights[4].dims == std::vector<int>{1, 4, 1, 1});
    const Checkpoint checkpoint = read_checkpoint(first.checkpoint);
    REQUIRE(checkpoint.optimizer_state.size() == 16);
    CHECK(checkpoint.optimizer_state[4].name == "mix.weight.state0");  // Adam's two moments a parameter
    CHECK(checkpoint.optimizer_state[4].dims == std::vector<int>{4, 4, 1, 1});

    JobSetup rest;
    rest.project = test::two_class_project();  // ignored: the checkpoint's project is the run's
    rest.resume_from = first.checkpoint;
    rest.epochs = 2;
    const Ended resumed = run_job(rest);
    CHECK(resumed.result->epochs_completed == 2);
    CHECK(resumed.first_epoch == 1);
}
