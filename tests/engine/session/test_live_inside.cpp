// Live snapshots for the Inside view: the gradients read after a training step are that batch's
// (as a forward, loss and backward on the same batch give them, the update leaving them alone),
// read without blocking; a job sends none unless asked, and when asked sends every parameter and
// every trainable gradient, the last one at the final epoch's end equal to the final weights.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <condition_variable>
#include <mutex>

#include "engine/io/network_weights.h"
#include "engine/model/network.h"
#include "engine/ops/runtime.h"
#include "engine/session/training_job.h"
#include "engine/session/worker/live_inside.h"
#include "tests/engine/test_device.h"
#include "tests/support/two_class_images.h"

using namespace bps;
using namespace bps::session;

namespace {

// The two-class MLP with a BatchNorm, whose running statistics have no gradient.
project::Project project_with_batch_norm() {
    project::Project project = test::two_class_project();
    project.network.layers = {model::input_layer(),
                              model::flatten("flatten"),
                              model::dense("fc1", 8),
                              model::batch_norm("bn"),
                              model::activation("relu", model::Activation::relu),
                              model::dense("out", 2, train::Initializer::glorot_uniform)};
    return project;
}

void check_close(const std::vector<io::NamedArray>& read, const std::vector<io::NamedArray>& expected) {
    REQUIRE(read.size() == expected.size());
    for (std::size_t i = 0; i < read.size(); ++i) {
        INFO(expected[i].name);
        CHECK(read[i].name == expected[i].name);
        CHECK(read[i].dims == expected[i].dims);
        REQUIRE(read[i].values.size() == expected[i].values.size());
        for (std::size_t j = 0; j < read[i].values.size(); ++j)
            CHECK(read[i].values[j] == Approx(expected[i].values[j]).margin(1e-6));
    }
}

struct LiveRun {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::shared_ptr<const InsideSnapshot>> snapshots;
    std::optional<JobResult> result;
    std::optional<JobFailure> failure;

    JobEvents events() {
        JobEvents events;
        events.inside = [this](std::shared_ptr<const InsideSnapshot> snapshot) {
            std::lock_guard lock(mutex);
            snapshots.push_back(std::move(snapshot));
        };
        events.finished = [this](const JobResult& done) {
            {
                std::lock_guard lock(mutex);
                result = done;
            }
            changed.notify_all();
        };
        events.failed = [this](const JobFailure& problem) {
            {
                std::lock_guard lock(mutex);
                failure = problem;
            }
            changed.notify_all();
        };
        return events;
    }
    bool wait_for_end() {
        std::unique_lock lock(mutex);
        return changed.wait_for(lock, std::chrono::minutes(2), [&] { return result || failure; });
    }
};

JobSetup live_setup(std::chrono::milliseconds inside_interval) {
    JobSetup setup;
    setup.project = project_with_batch_norm();
    setup.source = "halves.json";
    setup.data = test::two_class_data();
    setup.report_interval = std::chrono::milliseconds(0);
    setup.inside_interval = inside_interval;
    return setup;
}

}  // namespace

TEST_CASE("the gradients read after a training step are that batch's, read without blocking", "[inside]") {
    ops::Runtime runtime(test::test_device());
    const project::Project project = project_with_batch_norm();
    const datasets::Dataset images = test::two_class_images(16, 4);
    const model::NetworkSpec spec = project::project_network(project, images.shape);
    model::Network trained(runtime, spec, 16, project.training.optimizer, 7);
    model::Network reference(runtime, spec, 16, project.training.optimizer, 7);

    trained.train_step(images.images, images.labels, 0.05f);
    // The same batch, the same starting weights: forward, loss and backward, and no update.
    reference.upload_images(images.images, 16);
    reference.upload_labels(images.labels);
    reference.forward(16, true);
    reference.loss(16);
    reference.backward(16);
    const std::vector<io::NamedArray> expected = download_gradients(runtime, reference);
    REQUIRE(expected.size() == 6);  // fc1, bn's gamma and beta, out; no running statistics
    CHECK(expected[2].name == "bn.gamma");
    float largest = 0;
    for (const io::NamedArray& gradient : expected)
        for (const float value : gradient.values) largest = std::max(largest, std::abs(value));
    CHECK(largest > 1e-4f);
    check_close(download_gradients(runtime, trained), expected);

    // Through the live reads: started after the step, handed over at a later boundary once complete.
    std::atomic<long long> interval{1};
    LiveInside live(interval);
    const auto start = LiveInside::Clock::now();
    CHECK_FALSE(live.between_batches(runtime, trained, 1, 0, 0.25, start));  // reads started
    runtime.finish();
    const std::shared_ptr<const InsideSnapshot> snapshot =
        live.between_batches(runtime, trained, 2, 0, 0.5, start + std::chrono::microseconds(10));
    REQUIRE(snapshot);
    CHECK(snapshot->batches == 1);
    CHECK(snapshot->position == 0.25);
    check_close(snapshot->gradients, expected);
    check_close(snapshot->weights, io::download_parameters(runtime, trained));
    CHECK(snapshot->weights.size() == 8);  // with bn's running mean and variance

    // Zero: nothing more is read.
    interval = 0;
    runtime.finish();
    CHECK_FALSE(live.between_batches(runtime, trained, 3, 0, 0.75, start + std::chrono::seconds(5)));
    CHECK_FALSE(live.between_batches(runtime, trained, 4, 0, 1.0, start + std::chrono::seconds(10)));
}

TEST_CASE("a job sends no live snapshot unless asked", "[inside]") {
    LiveRun run;
    TrainingJob job(live_setup(std::chrono::milliseconds(0)), run.events());
    REQUIRE(run.wait_for_end());
    REQUIRE_FALSE(run.failure);
    CHECK(run.result->batches_trained > 0);
    CHECK(run.snapshots.empty());
}

TEST_CASE("a job asked for live snapshots sends the weights and trainable gradients, the last its final weights",
          "[inside]") {
    LiveRun run;
    TrainingJob job(live_setup(std::chrono::milliseconds(0)), run.events());
    job.set_inside_interval(std::chrono::milliseconds(1));  // from this thread, while it prepares or trains
    REQUIRE(run.wait_for_end());
    REQUIRE_FALSE(run.failure);
    const JobResult& result = *run.result;
    REQUIRE(run.snapshots.size() >= 3);  // at least one per epoch's end
    std::size_t previous = 0;
    for (const auto& snapshot : run.snapshots) {
        REQUIRE(snapshot->weights.size() == result.weights.size());
        for (std::size_t i = 0; i < result.weights.size(); ++i) {
            CHECK(snapshot->weights[i].name == result.weights[i].name);
            CHECK(snapshot->weights[i].dims == result.weights[i].dims);
        }
        std::vector<std::string> gradient_names;
        for (const io::NamedArray& gradient : snapshot->gradients) gradient_names.push_back(gradient.name);
        CHECK(gradient_names ==
              std::vector<std::string>{"fc1.weight", "fc1.bias", "bn.gamma", "bn.beta", "out.weight", "out.bias"});
        CHECK(snapshot->batches >= previous);
        previous = snapshot->batches;
    }
    const InsideSnapshot& last = *run.snapshots.back();
    CHECK(last.batches == result.batches_trained);
    CHECK(last.epoch == 2);
    CHECK(last.position == 3.0);
    for (std::size_t i = 0; i < result.weights.size(); ++i) CHECK(last.weights[i].values == result.weights[i].values);
}
