// Building networks: shape inference, parameter counts (the same as Keras's model.summary()),
// execution order of a graph, and the messages for graphs that cannot be built.
#include <catch2/catch.hpp>

#include "engine/compare/reference_networks.h"
#include "engine/model/network.h"
#include "tests/engine/model/spec_of.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;
using namespace bps::model;
using model::Activation;
using model::Padding;

namespace {
train::OptimizerSettings sgd() {
    return {};
}

using bps::test::spec_of;

void require_network_error(const NetworkSpec& spec, const std::string& message) {
    REQUIRE_THROWS_MATCHES(Network(test::op_runtime(), spec, 4, sgd(), 1), ModelError,
                           Catch::Matchers::Message(message));
}
}  // namespace

TEST_CASE("the reference networks have the shapes and parameter counts Keras reports", "[network]") {
    // Keras: mlp 203,530; cnn 225,034; cifar 2,168,362 trainable parameters.
    const auto [name, parameters, flat_features] =
        GENERATE(std::make_tuple("mlp", 203530, 784), std::make_tuple("cnn", 225034, 1600),
                 std::make_tuple("cifar", 2168362, 4096));
    INFO(name);
    Network network(test::op_runtime(), bench::reference_network(name), 2, sgd(), 1);
    CHECK(network.trainable_parameter_count() == static_cast<std::size_t>(parameters));
    CHECK(network.output_shape() == Shape{1, 10, 1, 1});
    bool found_flatten = false;
    for (const LayerSummary& layer : network.summary())
        if (layer.type == LayerType::flatten) {
            found_flatten = true;
            CHECK(layer.output == Shape{1, flat_features, 1, 1});
        }
    CHECK(found_flatten);
}

TEST_CASE("the cnn's layers have Keras's output shapes", "[network]") {
    Network network(test::op_runtime(), bench::reference_network("cnn"), 2, sgd(), 1);
    std::vector<std::pair<std::string, Shape>> shapes;
    for (const LayerSummary& layer : network.summary()) shapes.emplace_back(layer.name, layer.output);
    const std::vector<std::pair<std::string, Shape>> expected = {
        {"input", {1, 1, 28, 28}},  {"conv1", {1, 32, 26, 26}},   {"relu1", {1, 32, 26, 26}},
        {"pool1", {1, 32, 13, 13}}, {"conv2", {1, 64, 11, 11}},   {"relu2", {1, 64, 11, 11}},
        {"pool2", {1, 64, 5, 5}},   {"flatten", {1, 1600, 1, 1}}, {"fc1", {1, 128, 1, 1}},
        {"relu3", {1, 128, 1, 1}},  {"fc2", {1, 10, 1, 1}}};
    CHECK(shapes == expected);
}

TEST_CASE("a graph listed out of order runs in an order where inputs come first", "[network]") {
    // The residual block is listed with the Add before its second branch.
    const NetworkSpec spec = spec_of({1, 2, 6, 6}, {input_layer(), conv2d("stem", 4, 3, 1, Padding::same),
                                                    from(add("sum", {"stem", "branch"}), {"stem", "branch"}),
                                                    from(conv2d("branch", 4, 3, 1, Padding::same), {"stem"}),
                                                    from(global_avg_pool("gap"), {"sum"}), dense("out", 3)});
    Network network(test::op_runtime(), spec, 2, sgd(), 1);
    std::vector<std::string> order;
    for (const LayerSummary& layer : network.summary()) order.push_back(layer.name);
    CHECK(order == std::vector<std::string>{"input", "stem", "branch", "sum", "gap", "out"});
}

TEST_CASE("impossible networks are refused with a message naming the layer", "[network]") {
    SECTION("a Dense layer on an image") {
        require_network_error(spec_of({1, 1, 8, 8}, {input_layer(), dense("fc1", 10)}),
                              "Dense 'fc1' needs a flat input; add a Flatten before it");
    }
    SECTION("a kernel larger than its input") {
        require_network_error(
            spec_of({1, 1, 3, 3}, {input_layer(), conv2d("conv3", 2, 5), flatten("f"), dense("out", 2)}),
            "Conv2D 'conv3': kernel 5x5 is larger than its 3x3 input; use a smaller kernel or 'same' padding");
    }
    SECTION("a cycle") {
        require_network_error(spec_of({1, 4, 1, 1}, {input_layer(), from(add("add1", {"input", "fc"}), {"input", "fc"}),
                                                     from(dense("fc", 4), {"add1"}), from(dense("out", 2), {"add1"})}),
                              "the graph has a cycle through 'add1'");
    }
    SECTION("an unknown input") {
        require_network_error(spec_of({1, 4, 1, 1}, {input_layer(), from(dense("out", 2), {"fc0"})}),
                              "Dense 'out' reads from 'fc0', which is not a layer of this network");
    }
    SECTION("a loose branch") {
        require_network_error(
            spec_of({1, 4, 1, 1}, {input_layer(), dense("side", 3), from(dense("out", 2), {"input"})}),
            "Dense 'side' is not connected to the output; connect it or remove it");
    }
    SECTION("Add of different shapes") {
        require_network_error(spec_of({1, 4, 1, 1}, {input_layer(), dense("a", 3), from(dense("b", 5), {"input"}),
                                                     add("sum", {"a", "b"}), dense("out", 2)}),
                              "Add 'sum' needs inputs of the same shape: 'a' gives (3), 'b' gives (5)");
    }
    SECTION("a classifier with one output unit") {
        require_network_error(spec_of({1, 4, 1, 1}, {input_layer(), dense("out", 1)}),
                              "the output Dense 'out' has 1 unit; a classifier needs one unit per class (at least 2)");
    }
    SECTION("a classifier ending in an image") {
        require_network_error(spec_of({1, 1, 6, 6}, {input_layer(), conv2d("c", 3, 3)}),
                              "the output Conv2D 'c' gives (3, 4, 4); a classifier must end in flat class scores (add "
                              "Flatten and a Dense layer)");
    }
    SECTION("duplicate names") {
        require_network_error(spec_of({1, 4, 1, 1}, {input_layer(), dense("fc", 3), dense("fc", 2)}),
                              "two layers are named 'fc'; names must be unique");
    }
}

TEST_CASE("the same seed gives the same initial weights and another seed other ones", "[network]") {
    const NetworkSpec spec = bench::reference_network("mlp");
    ops::Runtime& runtime = test::op_runtime();
    Network a(runtime, spec, 2, sgd(), 7), b(runtime, spec, 2, sgd(), 7), c(runtime, spec, 2, sgd(), 8);
    const std::vector<float> wa = runtime.read(a.parameters()[0].value);
    CHECK(wa == runtime.read(b.parameters()[0].value));
    CHECK(wa != runtime.read(c.parameters()[0].value));
    // He uniform for fc1: every value within sqrt(6 / 784).
    for (float v : wa) REQUIRE(std::fabs(v) <= std::sqrt(6.0f / 784.0f));
}

TEST_CASE("a batch larger than the planned batch size is refused", "[network]") {
    Network network(test::op_runtime(), bench::reference_network("mlp"), 2, sgd(), 1);
    const std::vector<float> images(3 * 784, 0.5f);
    REQUIRE_THROWS_WITH(network.upload_images(images, 3),
                        "images: 3 samples do not fit a network built for batches of 2");
    const std::vector<int> labels = {1, 12};
    REQUIRE_THROWS_WITH(network.upload_labels(labels), "label 12 of sample 1 is outside the network's 10 classes");
}

TEST_CASE("a network too large for the device is refused before allocating, naming the limit", "[network]") {
    const cl::DeviceInfo& device = test::op_runtime().device();
    NetworkSpec spec;
    spec.input = Shape{1, 16, 1, 1};
    // 16 inputs x 60,000,000 units: weight, gradient and SGD velocity of 3.6 GiB each, beyond
    // the 8 GiB that int element offsets reach.
    spec.layers = {input_layer(), dense("huge", 60000000)};
    try {
        Network network(test::op_runtime(), spec, 1, sgd(), 1);
        FAIL("a network of more than 10 GiB was built");
    } catch (const DeviceMemoryError& error) {
        const std::string message = error.what();
        INFO(message);
        CHECK_THAT(message, Catch::Matchers::StartsWith("the network needs "));
        CHECK_THAT(message, Catch::Matchers::Contains(
                                " GiB of device memory, more than the 8.0 GiB the engine's kernels can address; use a "
                                "smaller batch or smaller layers (largest tensors: huge.weight (60000000x16x1x1)"));
    }
    // Within the int range of kernel offsets, but over the one-buffer limit of the device.
    const std::uint64_t units = device.max_allocation_bytes / (3 * 16 * sizeof(float)) + 1000;
    if (units * 3 * 16 < 0x7fffffffu && device.max_allocation_bytes < device.global_memory_bytes) {
        spec.layers = {input_layer(), dense("big", static_cast<int>(units))};
        REQUIRE_THROWS_MATCHES(Network(test::op_runtime(), spec, 1, sgd(), 1), DeviceMemoryError,
                               Catch::Matchers::Predicate<std::exception>([&](const std::exception& e) {
                                   return std::string(e.what()).find("in one block, but " + device.name +
                                                                     " allows at most") != std::string::npos;
                               }));
    } else {
        WARN("the device's one-buffer limit cannot be reached below the int offset limit here");
    }
}

namespace {
// Forward and backward launches of one training step's passes, and the network's memory.
struct StepCost {
    ops::Runtime::Launches forward, backward;
    std::size_t bytes;
};

StepCost step_cost(const NetworkSpec& spec) {
    ops::Runtime& runtime = test::op_runtime();
    const int count = 4;
    Network network(runtime, spec, count, sgd(), 3);
    network.upload_images(test::random_values(count * 128, 8), count);
    network.upload_labels(std::vector<int>{0, 2, 1, 2});
    auto launches_of = [&](auto&& pass) {
        const ops::Runtime::Launches before = runtime.launches();
        pass();
        const ops::Runtime::Launches after = runtime.launches();
        return ops::Runtime::Launches{after.kernels - before.kernels, after.gemms - before.gemms};
    };
    StepCost cost{launches_of([&] { network.forward(count, true); }), {}, network.device_bytes()};
    network.loss(count);
    cost.backward = launches_of([&] { network.backward(count); });
    runtime.finish();
    return cost;
}

std::string fused_into(const NetworkSpec& spec, const std::string& layer) {
    Network network(test::op_runtime(), spec, 2, sgd(), 3);
    network.upload_images(test::random_values(2 * 128, 9), 2);
    network.upload_labels(std::vector<int>{1, 0});
    for (const LayerTiming& timing : network.time_layers(2))
        if (timing.name == layer) return timing.fused_into;
    FAIL("no layer " << layer);
    return {};
}
}  // namespace

TEST_CASE("an Activation after a Dense or Conv2D layer that nothing else reads runs inside that layer", "[network]") {
    // conv -> relu and hidden -> tanh fuse; the same network without the two Activations must cost
    // exactly as much: no launch of their own either way, and no memory for the outputs before them.
    const Shape input{1, 2, 8, 8};
    const NetworkSpec fused = spec_of(
        input, {input_layer(), conv2d("conv", 3, 3), activation("relu", Activation::relu), max_pool("pool", 2, 2),
                flatten("flat"), dense("hidden", 5), activation("tanh", Activation::tanh), dense("out", 3)});
    const NetworkSpec without = spec_of(input, {input_layer(), conv2d("conv", 3, 3), max_pool("pool", 2, 2),
                                                flatten("flat"), dense("hidden", 5), dense("out", 3)});
    const StepCost with_activations = step_cost(fused), without_activations = step_cost(without);
    CHECK(with_activations.forward.kernels == without_activations.forward.kernels);
    CHECK(with_activations.forward.gemms == without_activations.forward.gemms);
    // Except that the own convolution kernels (a GPU's) read dy in place, so there the conv's
    // backward first multiplies it by relu' in one kernel, the one the ReLU's backward was.
    const bool own_conv = test::op_runtime().device().kind != device::DeviceKind::Cpu;
    CHECK(with_activations.backward.kernels == without_activations.backward.kernels + (own_conv ? 1 : 0));
    CHECK(with_activations.backward.gemms == without_activations.backward.gemms);
    CHECK(with_activations.bytes == without_activations.bytes);
    CHECK(fused_into(fused, "relu") == "conv");
    CHECK(fused_into(fused, "tanh") == "hidden");

    // Not fused: a layer whose output something else reads too (its output before the activation
    // must be kept), an Activation after a layer without weights, and a LeakyReLU with a negative
    // slope (its output does not determine its derivative). Each runs its own kernels.
    const NetworkSpec read_twice =
        spec_of(input, {input_layer(), conv2d("conv", 3, 3), activation("relu", Activation::relu),
                        add("sum", {"conv", "relu"}), flatten("flat"), dense("out", 3)});
    CHECK(fused_into(read_twice, "relu").empty());
    const NetworkSpec after_pool =
        spec_of(input, {input_layer(), conv2d("conv", 3, 3), max_pool("pool", 2, 2),
                        activation("relu", Activation::relu), flatten("flat"), dense("out", 3)});
    CHECK(fused_into(after_pool, "relu").empty());
    const NetworkSpec negative_slope =
        spec_of(input, {input_layer(), flatten("flat"), dense("hidden", 5),
                        activation("leaky", Activation::leaky_relu, -0.5f), dense("out", 3)});
    CHECK(fused_into(negative_slope, "leaky").empty());
    const StepCost unfused = step_cost(negative_slope);
    const StepCost plain =
        step_cost(spec_of(input, {input_layer(), flatten("flat"), dense("hidden", 5), dense("out", 3)}));
    CHECK(unfused.forward.kernels == plain.forward.kernels + 1);
    CHECK(unfused.backward.kernels == plain.backward.kernels + 1);
}
