// What a run keeps for the Inside view's replay: one small HDF5 file per epoch with the Conv2D
// (and BatchNorm) arrays, the first Dense layer's on image input, and every parameter's figures.
// A real training job writes them, equal to its checkpoint after each epoch; other files are
// refused naming the file; the cifar template stays far under 20 MB over 30 epochs.
#include <catch2/catch.hpp>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <random>
#include <stdexcept>

#include "engine/io/network_weights.h"
#include "engine/model/graph_analysis.h"
#include "engine/model/network.h"
#include "engine/ops/runtime.h"
#include "engine/runs/checkpoint.h"
#include "engine/runs/epoch_replay.h"
#include "engine/runs/saved_weights.h"
#include "engine/session/training_job.h"
#include "tests/engine/test_device.h"
#include "tests/support/temp_dir.h"
#include "tests/support/two_class_images.h"

using namespace bps;
using namespace bps::session;
using bps::test::TempDir;

namespace {

ModelCard card_of_shape(const std::string& name, datasets::ImageShape shape) {
    ModelCard card;
    card.project = name;
    card.shape = shape;
    for (int i = 0; i < 10; ++i) card.class_names.push_back("class " + std::to_string(i));
    return card;
}

// One small array per parameterised layer of `project` on `card`'s images: enough for which
// arrays a replay keeps, with no device.
std::vector<io::NamedArray> one_array_per_layer(const project::Project& project, const ModelCard& card) {
    std::vector<io::NamedArray> arrays;
    for (const model::LayerAnalysis& layer : model::analyse_graph(project::project_network(project, card.shape)).layers)
        if (layer.parameters > 0) arrays.push_back({layer.spec.name + ".weight", {2}, {0.25f, -0.5f}});
    return arrays;
}

void check_same_figures(const ValueFigures& read, const ValueFigures& expected) {
    CHECK(read.count == expected.count);
    CHECK(read.mean == expected.mean);
    CHECK(read.deviation == expected.deviation);
    CHECK(read.min == expected.min);
    CHECK(read.max == expected.max);
    CHECK(read.histogram.low == expected.histogram.low);
    CHECK(read.histogram.high == expected.histogram.high);
    CHECK(read.histogram.counts == expected.histogram.counts);
}

const io::NamedArray& named(const std::vector<io::NamedArray>& arrays, const std::string& name) {
    for (const io::NamedArray& array : arrays)
        if (array.name == name) return array;
    FAIL("no array " << name);
    throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("a replay keeps every Conv2D layer and a Dense layer only when it reads the image", "[inside]") {
    const ModelCard cifar_card = card_of_shape("cifar", {3, 32, 32});
    const project::Project cifar = project::example_project("cifar");
    for (const std::string layer : {"conv1", "conv2", "conv3", "conv4"}) CHECK(replay_keeps(cifar, cifar_card, layer));
    CHECK_FALSE(replay_keeps(cifar, cifar_card, "fc1"));
    CHECK_FALSE(replay_keeps(cifar, cifar_card, "fc2"));
    CHECK_FALSE(replay_keeps(cifar, cifar_card, "pool1"));

    const EpochReplay replay = make_epoch_replay(cifar, cifar_card, 3, one_array_per_layer(cifar, cifar_card), {});
    CHECK(replayed_layers(cifar, cifar_card, replay) == std::vector<std::string>{"input", "conv1", "relu1", "conv2",
                                                                                 "relu2", "pool1", "conv3", "relu3",
                                                                                 "conv4", "relu4", "pool2", "flatten"});

    const ModelCard mlp_card = card_of_shape("mlp", {1, 28, 28});
    const project::Project mlp = project::example_project("mlp");
    CHECK(replay_keeps(mlp, mlp_card, "fc1"));
    CHECK_FALSE(replay_keeps(mlp, mlp_card, "fc2"));
    const EpochReplay mlp_replay = make_epoch_replay(mlp, mlp_card, 1, one_array_per_layer(mlp, mlp_card), {});
    REQUIRE(mlp_replay.kept.size() == 1);
    CHECK(mlp_replay.kept[0].name == "fc1.weight");
    CHECK(replayed_layers(mlp, mlp_card, mlp_replay) == std::vector<std::string>{"input", "flatten", "fc1", "relu1"});
    CHECK(mlp_replay.figures.size() == 2);  // every parameter has its figures, kept or not
}

TEST_CASE("an epoch replay reads back as written, and replay_weights puts its arrays in place", "[inside]") {
    const TempDir run("replay-round-trip");
    CHECK(replay_epochs(run.path()).empty());  // a run from before replays existed
    std::mt19937 generator(3);
    std::normal_distribution<float> normal(0.0f, 0.2f);
    const auto random_array = [&](std::string name, std::vector<int> dims) {
        io::NamedArray array{std::move(name), std::move(dims), {}};
        std::size_t size = 1;
        for (const int dim : array.dims) size *= static_cast<std::size_t>(dim);
        for (std::size_t i = 0; i < size; ++i) array.values.push_back(normal(generator));
        return array;
    };
    const std::vector<io::NamedArray> weights{random_array("conv1.weight", {4, 1, 3, 3}),
                                              random_array("conv1.bias", {4}), random_array("fc1.weight", {3, 100}),
                                              random_array("fc1.bias", {3})};
    const std::vector<io::NamedArray> gradients{random_array("conv1.weight", {4, 1, 3, 3}),
                                                random_array("conv1.bias", {4})};
    project::Project project;
    project.network.layers = {model::input_layer(), model::conv2d("conv1", 4, 3), model::flatten("flatten"),
                              model::dense("fc1", 3)};
    const ModelCard card = card_of_shape("small", {1, 12, 12});
    for (const int epoch : {0, 2, 1})
        write_epoch_replay(run.path(), make_epoch_replay(project, card, epoch, weights, gradients));
    std::ofstream(run.path() / "replay" / "notes.txt") << "not a replay";
    std::ofstream(run.path() / "replay" / "epoch-x.h5") << "not a replay";
    CHECK(replay_epochs(run.path()) == std::vector<int>{0, 1, 2});
    CHECK(epoch_replay_file(run.path(), 7) == run.path() / "replay" / "epoch-007.h5");

    const EpochReplay read = read_epoch_replay(run.path(), 2);
    CHECK(read.epoch == 2);
    REQUIRE(read.kept.size() == 2);
    CHECK(read.kept[0].name == "conv1.weight");
    CHECK(read.kept[0].dims == std::vector<int>{4, 1, 3, 3});
    CHECK(read.kept[0].values == weights[0].values);
    CHECK(read.kept[1].values == weights[1].values);
    REQUIRE(read.figures.size() == 4);
    for (std::size_t i = 0; i < 4; ++i) {
        INFO(weights[i].name);
        CHECK(read.figures[i].name == weights[i].name);
        check_same_figures(read.figures[i].weights, value_figures(weights[i].values));
        CHECK(read.figures[i].gradients.has_value() == (i < 2));
        if (i < 2) check_same_figures(*read.figures[i].gradients, value_figures(gradients[i].values));
    }

    std::vector<io::NamedArray> final_weights = weights;
    for (io::NamedArray& array : final_weights)
        for (float& value : array.values) value += 1.0f;
    const std::vector<io::NamedArray> replayed = replay_weights(final_weights, read);
    REQUIRE(replayed.size() == 4);
    CHECK(replayed[0].values == weights[0].values);
    CHECK(replayed[1].values == weights[1].values);
    CHECK(replayed[2].values == final_weights[2].values);  // not kept: the final ones
    CHECK(replayed[3].values == final_weights[3].values);
}

TEST_CASE("a file that is not an epoch replay is refused with its name", "[inside]") {
    const TempDir run("replay-refused");
    const std::filesystem::path folder = run.path() / "replay";
    std::filesystem::create_directories(folder);
    const auto message_of = [&](int epoch) {
        try {
            read_epoch_replay(run.path(), epoch);
        } catch (const ReplayError& error) {
            CHECK(error.file() == epoch_replay_file(run.path(), epoch));
            return std::string(error.what());
        }
        FAIL("epoch " << epoch << " was read");
        return std::string();
    };
    const std::string file1 = epoch_replay_file(run.path(), 1).string();
    CHECK(message_of(1) == file1 + ": the replay file does not exist");

    // A weights file is HDF5, but not a replay.
    io::WeightsFile weights;
    weights.layers = {{"fc1", {{"kernel", {2, 2}, {0.5f, 1.0f, 1.5f, 2.0f}}}}};
    io::save_weights_file(epoch_replay_file(run.path(), 1), weights);
    CHECK(message_of(1) == file1 +
                               ": is an HDF5 file but not an epoch replay of Backprop Studio (its format is "
                               "'backprop-studio-weights')");

    std::ofstream(epoch_replay_file(run.path(), 2)) << "plain text";
    CHECK(message_of(2) ==
          epoch_replay_file(run.path(), 2).string() + ": not an HDF5 file, so not an epoch replay; it is damaged");

    // A real replay cut short.
    project::Project project;
    project.network.layers = {model::input_layer(), model::conv2d("conv1", 8, 3), model::flatten("flatten"),
                              model::dense("fc1", 2)};
    const ModelCard card = card_of_shape("small", {1, 8, 8});
    std::vector<io::NamedArray> arrays{{"conv1.weight", {8, 1, 3, 3}, std::vector<float>(72, 0.75f)}};
    write_epoch_replay(run.path(), make_epoch_replay(project, card, 3, arrays, {}));
    const std::filesystem::path file3 = epoch_replay_file(run.path(), 3);
    std::filesystem::resize_file(file3, std::filesystem::file_size(file3) / 2);
    CHECK_THROWS_AS(read_epoch_replay(run.path(), 3), ReplayError);
    CHECK_THROWS_WITH(read_epoch_replay(run.path(), 3), Catch::StartsWith(file3.string() + ": "));
}

TEST_CASE("the cifar template's replays of 30 epochs take at most 20 MB", "[inside]") {
    ops::Runtime runtime(test::test_device());
    const project::Project cifar = project::example_project("cifar");
    const ModelCard card = card_of_shape("cifar", {3, 32, 32});
    model::Network network(runtime, project::project_network(cifar, card.shape), 1, train::OptimizerSettings{}, 42);
    const std::vector<io::NamedArray> weights = io::download_parameters(runtime, network);
    CHECK(parameter_formula(arrays_of_layer(weights, "conv1")) == "32x3x3x3 + 32 = 896");
    CHECK(parameter_formula(arrays_of_layer(weights, "conv4")) == "64x3x3x64 + 64 = 36928");
    std::vector<io::NamedArray> gradients = weights;
    std::mt19937 generator(1);
    std::normal_distribution<float> normal(0.0f, 0.01f);
    for (io::NamedArray& gradient : gradients)
        for (float& value : gradient.values) value = normal(generator);

    const TempDir run("replay-cifar");
    for (int epoch = 0; epoch <= 30; ++epoch)
        write_epoch_replay(run.path(), make_epoch_replay(cifar, card, epoch, weights,
                                                         epoch == 0 ? std::vector<io::NamedArray>{} : gradients));
    std::uintmax_t bytes = 0;
    for (const auto& entry : std::filesystem::directory_iterator(run.path() / "replay")) bytes += entry.file_size();
    WARN("the cifar template's replay folder after 30 epochs: " << bytes << " bytes");
    CHECK(replay_epochs(run.path()).size() == 31);
    CHECK(bytes <= 20u * 1000u * 1000u);
}

namespace {

// A job's epochs and end, with the checkpoint's weights read after every epoch.
struct ReplayRun {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::vector<io::NamedArray>> checkpoints;  // after epoch 1, 2, ...
    std::vector<std::string> notes;
    std::optional<JobResult> result;
    std::optional<JobFailure> failure;

    // Runs the job with `events` (the notes and its end heard here) and waits for its end, at most
    // two minutes; false when it did not end.
    bool run(const JobSetup& setup, JobEvents events) {
        events.note = [this](const std::string& note) {
            std::lock_guard lock(mutex);
            notes.push_back(note);
        };
        events.finished = [this](const JobResult& ended) {
            {
                std::lock_guard lock(mutex);
                result = ended;
            }
            changed.notify_all();
        };
        events.failed = [this](const JobFailure& ended) {
            {
                std::lock_guard lock(mutex);
                failure = ended;
            }
            changed.notify_all();
        };
        TrainingJob job(setup, events);
        std::unique_lock lock(mutex);
        return changed.wait_for(lock, std::chrono::minutes(2), [this] { return result || failure; });
    }
};

}  // namespace

TEST_CASE("a training job keeps a replay of every epoch, equal to its checkpoint after that epoch", "[inside]") {
    const TempDir run("replay-job");
    project::Project project = test::two_class_project();
    JobSetup setup;
    setup.project = project;
    setup.source = "halves.json";
    setup.data = test::two_class_data();
    setup.checkpoint = run.path() / "checkpoint.h5";
    setup.replay_folder = run.path();
    const datasets::ImageShape shape = setup.data->train.shape;

    ReplayRun seen;
    JobEvents events;
    events.epoch = [&](const EpochReport&) {
        // On the worker, after the epoch's checkpoint was written and before the next batch.
        std::vector<io::NamedArray> arrays =
            weights_for_network(read_checkpoint(setup.checkpoint).weights, project, shape);
        std::lock_guard lock(seen.mutex);
        seen.checkpoints.push_back(std::move(arrays));
    };
    REQUIRE(seen.run(setup, events));
    REQUIRE_FALSE(seen.failure);
    // Every replay was kept (a note about the kernel cache, which a cold cache on a busy machine
    // may bring, is another matter).
    for (const std::string& note : seen.notes) CHECK_THAT(note, !Catch::Contains("replay"));
    REQUIRE(seen.checkpoints.size() == 3);
    REQUIRE(replay_epochs(run.path()) == std::vector<int>{0, 1, 2, 3});

    // Epoch 0: the weights the project's seed gives, before any batch.
    ops::Runtime runtime(test::test_device());
    const model::Network initial(runtime, project::project_network(project, shape), project.training.batch_size,
                                 project.training.optimizer, project.training.seed);
    const std::vector<io::NamedArray> before = io::download_parameters(runtime, initial);
    const EpochReplay zero = read_epoch_replay(run.path(), 0);
    CHECK(zero.epoch == 0);
    REQUIRE(zero.kept.size() == 2);
    CHECK(zero.kept[0].values == named(before, "fc1.weight").values);
    for (const ParameterFigures& figures : zero.figures) CHECK_FALSE(figures.gradients);

    for (int epoch = 1; epoch <= 3; ++epoch) {
        INFO("epoch " << epoch);
        const EpochReplay replay = read_epoch_replay(run.path(), epoch);
        const std::vector<io::NamedArray>& checkpoint = seen.checkpoints[static_cast<std::size_t>(epoch - 1)];
        CHECK(replay.epoch == epoch);
        // The MLP reads the image through Flatten: its first Dense layer is kept, the output layer not.
        REQUIRE(replay.kept.size() == 2);
        CHECK(replay.kept[0].name == "fc1.weight");
        CHECK(replay.kept[1].name == "fc1.bias");
        for (const io::NamedArray& kept : replay.kept) CHECK(kept.values == named(checkpoint, kept.name).values);
        REQUIRE(replay.figures.size() == checkpoint.size());
        for (std::size_t i = 0; i < checkpoint.size(); ++i) {
            INFO(checkpoint[i].name);
            CHECK(replay.figures[i].name == checkpoint[i].name);
            check_same_figures(replay.figures[i].weights, value_figures(checkpoint[i].values));
            REQUIRE(replay.figures[i].gradients);
            CHECK(replay.figures[i].gradients->count == checkpoint[i].values.size());
            CHECK(replay.figures[i].gradients->deviation > 0);
        }
    }
    // The last epoch's replay holds the run's final weights.
    for (const io::NamedArray& kept : read_epoch_replay(run.path(), 3).kept)
        CHECK(kept.values == named(seen.result->weights, kept.name).values);
}

TEST_CASE("a replay that cannot be written is said in a note and the training goes on", "[inside]") {
    const TempDir run("replay-unwritable");
    std::ofstream(run.path() / "replay") << "a file where the replay folder would be";
    JobSetup setup;
    setup.project = test::two_class_project();
    setup.project.training.epochs = 1;
    setup.source = "halves.json";
    setup.data = test::two_class_data();
    setup.replay_folder = run.path();
    ReplayRun seen;
    JobEvents events;
    REQUIRE(seen.run(setup, events));
    REQUIRE_FALSE(seen.failure);
    CHECK(seen.result->epochs_completed == 1);
    // The replays' notes, epochs 0 and 1 (a note about a cold kernel cache may come besides).
    std::vector<std::string> replay_notes;
    for (const std::string& note : seen.notes)
        if (note.find("replay") != std::string::npos) replay_notes.push_back(note);
    REQUIRE(replay_notes.size() == 2);
    CHECK_THAT(replay_notes[0], Catch::StartsWith("the replay of epoch 0 could not be kept, so the Inside view cannot "
                                                  "show it (training goes on): " +
                                                  epoch_replay_file(run.path(), 0).string() + ": "));
    CHECK_THAT(replay_notes[1], Catch::StartsWith("the replay of epoch 1 could not be kept"));
}
