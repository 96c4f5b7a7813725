// Where a training set lives: the placement policy, and the checks on a batch's sample numbers.
#include <catch2/catch.hpp>

#include "engine/model/network.h"
#include "engine/session/worker/device_training_set.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;
using session::DataPlacement;
using session::DeviceTrainingSet;

namespace {
datasets::Dataset set_of(std::size_t count) {
    datasets::Dataset set;
    set.name = "placement test";
    set.shape = {1, 4, 4};
    set.images = test::random_values(count * 16, 71);
    for (std::size_t i = 0; i < count; ++i) set.labels.push_back(static_cast<std::int32_t>(i % 3));
    set.class_names = {"a", "b", "c"};
    return set;
}
}  // namespace

TEST_CASE("an unaugmented set stays on a GPU when it takes at most a quarter of its memory", "[device_data]") {
    // 100 x 16 floats, 100 labels and room for an epoch's 100 sample numbers: 7,200 bytes
    const datasets::Dataset set = set_of(100);
    cl::DeviceInfo gpu;
    gpu.kind = device::DeviceKind::DiscreteGpu;
    gpu.max_allocation_bytes = 1 << 20;
    gpu.global_memory_bytes = 4 * 7200;
    CHECK(DeviceTrainingSet::wanted(gpu, set, DataPlacement::automatic));
    gpu.global_memory_bytes = 4 * 7200 - 4;
    CHECK_FALSE(DeviceTrainingSet::wanted(gpu, set, DataPlacement::automatic));
    CHECK(DeviceTrainingSet::wanted(gpu, set, DataPlacement::device));
    CHECK_FALSE(DeviceTrainingSet::wanted(gpu, set, DataPlacement::host));
    gpu.max_allocation_bytes = 100 * 16 * 4 - 1;  // the images would not fit one buffer
    CHECK_FALSE(DeviceTrainingSet::wanted(gpu, set, DataPlacement::device));

    cl::DeviceInfo cpu = gpu;
    cpu.kind = device::DeviceKind::Cpu;
    cpu.max_allocation_bytes = cpu.global_memory_bytes = 1ull << 30;
    CHECK_FALSE(DeviceTrainingSet::wanted(cpu, set, DataPlacement::automatic));  // a copy saves nothing there
    CHECK(DeviceTrainingSet::wanted(cpu, set, DataPlacement::device));
}

namespace {
model::Network small_network(ops::Runtime& runtime) {
    model::NetworkSpec spec;
    spec.input = Shape{1, 1, 4, 4};
    spec.layers = {model::input_layer(), model::flatten("flat"), model::dense("out", 3)};
    return model::Network(runtime, spec, 4, train::OptimizerSettings{}, 3);
}

std::vector<float> images_of(const datasets::Dataset& set, const std::vector<std::size_t>& samples) {
    std::vector<float> images;
    for (std::size_t sample : samples)
        images.insert(images.end(), set.images.begin() + static_cast<std::ptrdiff_t>(sample * 16),
                      set.images.begin() + static_cast<std::ptrdiff_t>(sample * 16 + 16));
    return images;
}

std::vector<int> labels_of(const datasets::Dataset& set, const std::vector<std::size_t>& samples) {
    std::vector<int> labels;
    for (std::size_t sample : samples) labels.push_back(set.labels[sample]);
    return labels;
}
}  // namespace

TEST_CASE("an order naming a sample past the set, or a batch past the order or too large, is refused",
          "[device_data]") {
    ops::Runtime& runtime = test::op_runtime();
    const datasets::Dataset set = set_of(10);
    model::Network network = small_network(runtime);
    const std::unique_ptr<DeviceTrainingSet> kept = DeviceTrainingSet::upload(runtime, set, 4, DataPlacement::device);
    REQUIRE(kept);
    const std::vector<std::size_t> past{1, 10}, longer(11, 0), empty;
    CHECK_THROWS_WITH(kept->load_order(past), "sample 10 of a training set of 10");
    CHECK_THROWS_WITH(kept->load_order(longer), "an epoch of 11 samples for a training set of 10");
    CHECK_THROWS_WITH(kept->load_order(empty), "an epoch of 0 samples for a training set of 10");

    const std::vector<std::size_t> order{5, 0, 7, 2, 9, 1};
    kept->load_order(order);
    CHECK_THROWS_WITH(kept->load_batch(0, 5, network), "a batch of 5 samples for a training set kept for batches of 4");
    CHECK_THROWS_WITH(kept->load_batch(0, 0, network), "a batch of 0 samples for a training set kept for batches of 4");
    CHECK_THROWS_WITH(kept->load_batch(4, 3, network), "samples 4 to 6 of an epoch of 6");
    CHECK_THROWS_WITH(kept->load_batch(7, 1, network), "samples 7 to 7 of an epoch of 6");
}

TEST_CASE("batches are gathered from the epoch's order on the device, and a new epoch replaces it", "[device_data]") {
    ops::Runtime& runtime = test::op_runtime();
    const datasets::Dataset set = set_of(10);
    model::Network network = small_network(runtime);
    const std::unique_ptr<DeviceTrainingSet> kept = DeviceTrainingSet::upload(runtime, set, 4, DataPlacement::device);
    REQUIRE(kept);
    const std::vector<std::size_t> first_epoch{5, 0, 7, 2, 9, 1, 3};
    kept->load_order(first_epoch);
    // The last, partial batch of the epoch: positions 4 to 6.
    kept->load_batch(4, 3, network);
    CHECK(runtime.read_ints(network.labels_batch(3)) == labels_of(set, {9, 1, 3}));
    CHECK(runtime.read(network.input_batch(3)) == images_of(set, {9, 1, 3}));
    kept->load_batch(0, 4, network);
    CHECK(runtime.read_ints(network.labels_batch(4)) == labels_of(set, {5, 0, 7, 2}));
    CHECK(runtime.read(network.input_batch(4)) == images_of(set, {5, 0, 7, 2}));

    // The whole set in another order. A batch enqueued before it is gathered from the first epoch's.
    const std::vector<std::size_t> second_epoch{8, 6, 4, 3, 2, 1, 0, 9, 7, 5};
    kept->load_batch(1, 2, network);
    kept->load_order(second_epoch);
    CHECK(runtime.read(network.input_batch(2)) == images_of(set, {0, 7}));
    kept->load_batch(8, 2, network);
    CHECK(runtime.read_ints(network.labels_batch(2)) == labels_of(set, {7, 5}));
    CHECK(runtime.read(network.input_batch(2)) == images_of(set, {7, 5}));
}
