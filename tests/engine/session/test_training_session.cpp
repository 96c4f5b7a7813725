// The training session on its worker thread: it learns, replays exactly with the same seed,
// honours pause, stop and a new learning rate at batch boundaries, keeps the weights on a stop,
// and reports a network that does not fit the data as a failure naming the layer.
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <future>
#include <random>

#include "engine/io/network_weights.h"
#include "engine/session/training_session.h"
#include "tests/engine/test_device.h"

using namespace bps;
using namespace bps::session;

namespace {
// Two classes of 1x4x4 images: class 1 is brighter on the left half, class 0 on the right,
// with noise, so a small MLP separates them well but not after one step.
datasets::Dataset two_class_images(std::size_t count, std::uint32_t seed) {
    datasets::Dataset data;
    data.name = "halves";
    data.shape = datasets::ImageShape{1, 4, 4};
    data.class_names = {"right", "left"};
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> noise(0.0f, 0.6f);
    for (std::size_t i = 0; i < count; ++i) {
        const int label = static_cast<int>(i % 2);
        data.labels.push_back(label);
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 4; ++x) {
                const bool bright = (x < 2) == (label == 1);
                data.images.push_back(noise(generator) + (bright ? 0.4f : 0.0f));
            }
    }
    return data;
}

project::Project small_project(int output_units = 2) {
    project::Project project;
    project.name = "halves";
    project.network.layers = {model::input_layer(), model::flatten("flatten"), model::dense("fc1", 8),
                              model::activation("relu", ops::Activation::relu),
                              model::dense("out", output_units, train::Initializer::glorot_uniform)};
    project.training.epochs = 3;
    project.training.batch_size = 16;
    project.training.optimizer.learning_rate = 0.05f;
    project.training.seed = 7;
    project.dataset.validation_fraction = 0.25;
    return project;
}

std::shared_ptr<const TrainingData> small_data() {
    datasets::DatasetSplits splits{two_class_images(256, 1), two_class_images(128, 2)};
    project::DatasetSettings settings;
    settings.validation_fraction = 0.25;
    return std::make_shared<TrainingData>(prepare_training_data(std::move(splits), settings, 7));
}

struct Recorded {
    std::vector<BatchReport> batches;
    std::vector<EpochReport> epochs;
    std::optional<FinishReport> finish;
    std::string failure;
};

SessionSetup setup_of(project::Project project, std::size_t report_every = 1) {
    SessionSetup setup;
    setup.project = std::move(project);
    setup.device = test::test_device();
    setup.data = small_data();
    setup.report_every = report_every;
    return setup;
}

SessionEvents recorder(Recorded& recorded, std::function<void(const BatchReport&)> also = {}) {
    SessionEvents events;
    events.batch_done = [&recorded, also](const BatchReport& report) {
        recorded.batches.push_back(report);
        if (also) also(report);
    };
    events.epoch_done = [&recorded](const EpochReport& report) { recorded.epochs.push_back(report); };
    events.finished = [&recorded](const FinishReport& report) { recorded.finish = report; };
    events.failed = [&recorded](const std::string& message) { recorded.failure = message; };
    return events;
}

Recorded run_to_end(SessionSetup setup) {
    Recorded recorded;
    TrainingSession session(std::move(setup), recorder(recorded));
    session.wait();
    return recorded;
}
}  // namespace

TEST_CASE("a session trains, validates each epoch and evaluates the test split", "[session]") {
    const Recorded run = run_to_end(setup_of(small_project(), 4));
    REQUIRE(run.failure.empty());
    REQUIRE(run.finish);
    CHECK_FALSE(run.finish->stopped);
    CHECK(run.finish->epochs_completed == 3);
    // 192 training images in batches of 16: reports after batches 4, 8 and 12 of every epoch.
    REQUIRE(run.batches.size() == 9);
    CHECK(run.batches[0].batch == 4);
    CHECK(run.batches[2].batch == 12);
    CHECK(run.batches[2].batches == 12);
    REQUIRE(run.epochs.size() == 3);
    for (const EpochReport& epoch : run.epochs) {
        REQUIRE(epoch.validation);
        CHECK(epoch.validation->samples == 64);
        CHECK(epoch.images_per_second > 0);
    }
    // The epoch's figures are the last batch report's running means.
    CHECK(run.epochs[2].train_loss == Approx(run.batches[8].loss));
    CHECK(run.epochs[2].train_loss < run.epochs[0].train_loss);
    REQUIRE(run.finish->test);
    CHECK(run.finish->test->samples == 128);
    CHECK(run.finish->test->accuracy > 0.9);
    CHECK(run.finish->weights.size() == 4);
}

TEST_CASE("the same seed replays the same loss curve and another seed does not", "[session]") {
    const Recorded first = run_to_end(setup_of(small_project()));
    const Recorded second = run_to_end(setup_of(small_project()));
    project::Project other = small_project();
    other.training.seed = 8;
    const Recorded third = run_to_end(setup_of(other));
    REQUIRE(first.batches.size() == 36);
    REQUIRE(second.batches.size() == 36);
    REQUIRE(third.batches.size() == 36);
    bool differs = false;
    for (std::size_t i = 0; i < first.batches.size(); ++i) {
        CHECK(first.batches[i].loss == second.batches[i].loss);
        differs = differs || first.batches[i].loss != third.batches[i].loss;
    }
    CHECK(differs);
    REQUIRE(first.finish);
    REQUIRE(second.finish);
    CHECK(first.finish->weights[0].values == second.finish->weights[0].values);
}

TEST_CASE("stop ends at a batch boundary and keeps the weights trained so far", "[session]") {
    // Run A stops itself after batch 3; run B pauses after batch 3, shows that nothing runs while
    // paused, then stops. Both trained exactly three batches, so their weights are identical.
    Recorded stopped;
    {
        std::promise<TrainingSession*> ready;
        auto handle = ready.get_future().share();
        TrainingSession session(setup_of(small_project()), recorder(stopped, [handle](const BatchReport& report) {
                                    if (report.batch == 3) handle.get()->stop();
                                }));
        ready.set_value(&session);
        session.wait();
    }
    REQUIRE(stopped.finish);
    CHECK(stopped.finish->stopped);
    CHECK(stopped.finish->epochs_completed == 0);
    CHECK(stopped.batches.size() == 3);
    CHECK(stopped.epochs.empty());
    CHECK_FALSE(stopped.finish->test);

    Recorded paused;
    std::promise<void> reached;
    std::atomic<bool> signalled = false;
    std::promise<TrainingSession*> ready;
    auto handle = ready.get_future().share();
    TrainingSession session(setup_of(small_project()), recorder(paused, [&, handle](const BatchReport& report) {
                                if (report.batch == 3 && !signalled.exchange(true)) {
                                    handle.get()->pause();
                                    reached.set_value();
                                }
                            }));
    ready.set_value(&session);
    reached.get_future().wait();
    CHECK_FALSE(session.wait_for(std::chrono::milliseconds(300)));
    CHECK(paused.batches.size() == 3);
    session.stop();
    session.wait();
    REQUIRE(paused.finish);
    CHECK(paused.finish->stopped);
    REQUIRE(paused.finish->weights.size() == stopped.finish->weights.size());
    for (std::size_t i = 0; i < paused.finish->weights.size(); ++i)
        CHECK(paused.finish->weights[i].values == stopped.finish->weights[i].values);
}

TEST_CASE("resume after a pause goes on to the end", "[session]") {
    Recorded run;
    std::promise<TrainingSession*> ready;
    auto handle = ready.get_future().share();
    std::atomic<bool> paused_once = false;
    TrainingSession session(setup_of(small_project()), recorder(run, [&, handle](const BatchReport& report) {
                                if (report.batch == 2 && !paused_once.exchange(true)) handle.get()->pause();
                            }));
    ready.set_value(&session);
    CHECK_FALSE(session.wait_for(std::chrono::milliseconds(300)));
    session.resume();
    session.wait();
    REQUIRE(run.finish);
    CHECK_FALSE(run.finish->stopped);
    CHECK(run.batches.size() == 36);
}

TEST_CASE("a new learning rate applies from the next batch", "[session]") {
    Recorded run;
    std::promise<TrainingSession*> ready;
    auto handle = ready.get_future().share();
    TrainingSession session(setup_of(small_project()), recorder(run, [handle](const BatchReport& report) {
                                if (report.epoch == 0 && report.batch == 2) handle.get()->set_learning_rate(0.125f);
                            }));
    ready.set_value(&session);
    session.wait();
    REQUIRE(run.batches.size() == 36);
    CHECK(run.batches[0].learning_rate == 0.05f);
    CHECK(run.batches[1].learning_rate == 0.05f);
    CHECK(run.batches[2].learning_rate == 0.125f);
    CHECK(run.batches[35].learning_rate == 0.125f);
}

TEST_CASE("a network that does not fit the data fails with the layer's message", "[session]") {
    const Recorded run = run_to_end(setup_of(small_project(5)));
    CHECK(run.failure == "the output 'out' has 5 units but the dataset has 2 classes");
    CHECK_FALSE(run.finish);
    CHECK(run.batches.empty());
}

TEST_CASE("evaluation agrees with predicted probabilities computed image by image", "[session]") {
    const Recorded run = run_to_end(setup_of(small_project()));
    REQUIRE(run.finish);
    const std::shared_ptr<const TrainingData> data = small_data();
    ops::Runtime runtime(test::test_device());
    model::NetworkSpec spec = small_project().network;
    spec.input = Shape{1, 1, 4, 4};
    model::Network network(runtime, spec, 16, {}, 99);
    io::upload_parameters(runtime, network, run.finish->weights, "trained");
    const Evaluation evaluation = evaluate(network, data->test);
    REQUIRE(run.finish->test);
    CHECK(evaluation.accuracy == run.finish->test->accuracy);
    CHECK(evaluation.loss == Approx(run.finish->test->loss).epsilon(1e-6));

    // An independent path: probabilities for every image, argmax and -log p(label) on the host.
    const auto probabilities = predict_probabilities(network, data->test.images, data->test.size());
    REQUIRE(probabilities.size() == 128);
    double loss = 0;
    std::size_t correct = 0;
    for (std::size_t i = 0; i < probabilities.size(); ++i) {
        const std::vector<ClassScore> top = top_classes(probabilities[i], 2);
        REQUIRE(top.size() == 2);
        CHECK(top[0].probability >= top[1].probability);
        CHECK(top[0].probability + top[1].probability == Approx(1.0).epsilon(1e-5));
        correct += top[0].label == data->test.labels[i];
        loss -= std::log(static_cast<double>(probabilities[i][static_cast<std::size_t>(data->test.labels[i])]));
    }
    CHECK(evaluation.accuracy == static_cast<double>(correct) / 128.0);
    CHECK(evaluation.loss == Approx(loss / 128.0).epsilon(1e-4));
}

TEST_CASE("weights from another network are refused with what differs", "[session][weights]") {
    ops::Runtime runtime(test::test_device());
    model::NetworkSpec spec = small_project().network;
    spec.input = Shape{1, 1, 4, 4};
    model::Network network(runtime, spec, 4, {}, 1);
    std::vector<io::NamedArray> arrays = io::download_parameters(runtime, network);
    REQUIRE(arrays.size() == 4);
    CHECK(arrays[0].name == "fc1.weight");
    CHECK(arrays[0].dims == std::vector<int>{8, 16});
    CHECK(arrays[1].dims == std::vector<int>{8});

    SECTION("a round trip restores every value") {
        model::Network other(runtime, spec, 4, {}, 2);
        CHECK(io::download_parameters(runtime, other)[0].values != arrays[0].values);
        io::upload_parameters(runtime, other, arrays, "w.h5");
        for (std::size_t i = 0; i < arrays.size(); ++i)
            CHECK(io::download_parameters(runtime, other)[i].values == arrays[i].values);
    }
    SECTION("a missing array") {
        arrays.erase(arrays.begin() + 1);
        REQUIRE_THROWS_MATCHES(
            io::upload_parameters(runtime, network, arrays, "w.h5"), io::WeightsFileError,
            Catch::Matchers::Message("w.h5: has no array 'fc1.bias'; it was saved from a different network"));
    }
    SECTION("another shape") {
        arrays[2].dims = {2, 4};
        REQUIRE_THROWS_MATCHES(
            io::upload_parameters(runtime, network, arrays, "w.h5"), io::WeightsFileError,
            Catch::Matchers::Message(
                "w.h5: array 'out.weight' is 2x4 but the network needs 2x8; it was saved from a different network"));
    }
    SECTION("an extra array") {
        arrays.push_back({"fc9.weight", {1}, {1.0f}});
        REQUIRE_THROWS_MATCHES(io::upload_parameters(runtime, network, arrays, "w.h5"), io::WeightsFileError,
                               Catch::Matchers::Message("w.h5: holds 'fc9.weight', which this network does not have; "
                                                        "it was saved from a different network"));
    }
}
