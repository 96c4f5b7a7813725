// Where a training set lives: the placement policy, and the checks on a batch's sample numbers.
#include <catch2/catch.hpp>

#include "engine/model/network.h"
#include "engine/session/device_training_set.h"
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
    const datasets::Dataset set = set_of(100);  // 100 x 16 floats and 100 labels: 6,800 bytes
    cl::DeviceInfo gpu;
    gpu.kind = cl::DeviceKind::DiscreteGpu;
    gpu.max_allocation_bytes = 1 << 20;
    gpu.global_memory_bytes = 4 * 6800;
    CHECK(DeviceTrainingSet::wanted(gpu, set, DataPlacement::automatic));
    gpu.global_memory_bytes = 4 * 6800 - 4;
    CHECK_FALSE(DeviceTrainingSet::wanted(gpu, set, DataPlacement::automatic));
    CHECK(DeviceTrainingSet::wanted(gpu, set, DataPlacement::device));
    CHECK_FALSE(DeviceTrainingSet::wanted(gpu, set, DataPlacement::host));
    gpu.max_allocation_bytes = 100 * 16 * 4 - 1;  // the images would not fit one buffer
    CHECK_FALSE(DeviceTrainingSet::wanted(gpu, set, DataPlacement::device));

    cl::DeviceInfo cpu = gpu;
    cpu.kind = cl::DeviceKind::Cpu;
    cpu.max_allocation_bytes = cpu.global_memory_bytes = 1ull << 30;
    CHECK_FALSE(DeviceTrainingSet::wanted(cpu, set, DataPlacement::automatic));  // a copy saves nothing there
    CHECK(DeviceTrainingSet::wanted(cpu, set, DataPlacement::device));
}

TEST_CASE("a batch naming a sample past the set or too many samples is refused", "[device_data]") {
    ops::Runtime& runtime = test::op_runtime();
    const datasets::Dataset set = set_of(10);
    model::NetworkSpec spec;
    spec.input = Shape{1, 1, 4, 4};
    spec.layers = {model::input_layer(), model::flatten("flat"), model::dense("out", 3)};
    model::Network network(runtime, spec, 4, train::OptimizerSettings{}, 3);
    const std::unique_ptr<DeviceTrainingSet> kept = DeviceTrainingSet::upload(runtime, set, 4, DataPlacement::device);
    REQUIRE(kept);
    const std::vector<std::size_t> past{1, 10}, too_many{0, 1, 2, 3, 4};
    CHECK_THROWS_WITH(kept->load_batch(past, network), "sample 10 of a training set of 10");
    CHECK_THROWS_WITH(kept->load_batch(too_many, network),
                      "a batch of 5 samples for a training set kept for batches of 4");
    const std::vector<std::size_t> fine{5, 0, 7};
    kept->load_batch(fine, network);
    CHECK(runtime.read_ints(network.labels_batch(3)) == std::vector<int>{2, 0, 1});
    const std::vector<float> images = runtime.read(network.input_batch(3));
    CHECK(std::vector<float>(images.begin(), images.begin() + 16) ==
          std::vector<float>(set.images.begin() + 5 * 16, set.images.begin() + 6 * 16));
}
