// Training whole networks on the device: gradients through a graph with every layer type
// against finite differences of the device's own loss, and small problems that must be learnt.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "engine/model/network.h"
#include "engine/ops/dense.h"
#include "engine/ops/metrics.h"
#include "engine/reference/optimizer.h"
#include "engine/train/random.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;
using namespace bps::model;
using model::Activation;
using model::Padding;

namespace {
// A residual, branching network that uses every layer type: the backward pass must route and
// sum gradients through Add (fan-out), Concatenate, Flatten (shared memory) and BatchNorm.
NetworkSpec every_layer_network() {
    NetworkSpec spec;
    spec.input = Shape{1, 2, 6, 6};
    spec.layers = {
        input_layer(),
        conv2d("stem", 3, 3, 1, Padding::same),
        batch_norm("bn"),
        activation("act", Activation::tanh),
        conv2d("branch", 3, 3, 1, Padding::same),
        activation("branch_act", Activation::sigmoid),
        add("residual", {"act", "branch_act"}),
        from(avg_pool("avg", 2, 2), {"residual"}),
        from(max_pool("max", 2, 2), {"residual"}),
        concat("both", {"avg", "max"}),
        dropout("drop", 0.25f),
        flatten("flat"),
        dense("hidden", 5),
        activation("leaky", Activation::leaky_relu, 0.1f),
        from(global_avg_pool("gap"), {"residual"}),
        flatten("gap_flat"),
        concat("features", {"leaky", "gap_flat"}),
        dense("out", 3),
    };
    return spec;
}

double mean_loss(Network& network, int count) {
    network.clear_totals();
    network.forward(count, true);
    network.loss(count);
    return network.read_totals().loss_sum / count;
}
}  // namespace

TEST_CASE("gradients through a graph of every layer type match finite differences of the loss", "[network][train]") {
    ops::Runtime& runtime = test::op_runtime();
    const int count = 3;
    Network network(runtime, every_layer_network(), 4, train::OptimizerSettings{}, 11);
    network.upload_images(test::random_values(count * 72, 21), count);
    const std::vector<int> labels = {2, 0, 1};
    network.upload_labels(labels);

    network.clear_totals();
    network.forward(count, true);
    network.loss(count);
    network.backward(count);
    for (const ParameterView& parameter : network.parameters()) {
        if (!parameter.gradient.buffer) continue;
        INFO(parameter.name);
        const std::vector<float> analytic = runtime.read(parameter.gradient);
        if (parameter.name == "stem.bias") {
            // BatchNorm right after the stem subtracts each channel's batch mean, so a bias
            // before it cannot change the loss: its gradient is zero (finite differences give
            // only rounding noise).
            CHECK(test::max_abs(analytic) < 1e-6);
            continue;
        }
        std::vector<float> values = runtime.read(parameter.value);
        // Float32 central differences on the device: a step of 3e-3 keeps rounding in the loss
        // (about 2e-7 absolute, so 3e-5 in the quotient) small against gradients of order 0.01-0.1,
        // and makes it unlikely that a step moves a max-pool window's maximum to another input.
        const float h = 3e-3f;
        // Up to 8 elements per parameter, spread over it, keep the test to a few seconds.
        std::vector<std::size_t> checked;
        const std::size_t stride = std::max<std::size_t>(1, values.size() / 8);
        for (std::size_t i = values.size() / 2 % stride; i < values.size(); i += stride) checked.push_back(i);
        std::vector<float> expected, numeric;
        for (std::size_t i : checked) {
            const float saved = values[i];
            values[i] = saved + h;
            runtime.write(parameter.value, values);
            const double plus = mean_loss(network, count);
            values[i] = saved - h;
            runtime.write(parameter.value, values);
            const double minus = mean_loss(network, count);
            values[i] = saved;
            numeric.push_back(static_cast<float>((plus - minus) / (2 * h)));
            expected.push_back(analytic[i]);
        }
        runtime.write(parameter.value, values);
        test::require_close(expected, numeric, 5e-3, parameter.name + " gradient");  // measured at most 8e-4
    }
}

TEST_CASE("a small network learns two interleaved spirals", "[network][train]") {
    // Two spirals of 100 points each: not linearly separable, so the hidden layers must work.
    const int points = 200;
    std::vector<float> inputs;
    std::vector<int> labels;
    train::Random random(3);
    for (int i = 0; i < points; ++i) {
        const int label = i % 2;
        const float t = 0.25f + 2.75f * static_cast<float>(i / 2) / (points / 2);  // turns
        const float angle = t * 3.14159265f + (label ? 3.14159265f : 0.0f);
        inputs.push_back(t * std::cos(angle) / 3 + random.normal(0, 0.02f));
        inputs.push_back(t * std::sin(angle) / 3 + random.normal(0, 0.02f));
        labels.push_back(label);
    }
    NetworkSpec spec;
    spec.input = Shape{1, 2, 1, 1};
    spec.layers = {input_layer(),
                   dense("h1", 32),
                   activation("a1", Activation::tanh),
                   dense("h2", 32),
                   activation("a2", Activation::tanh),
                   dense("out", 2, train::Initializer::glorot_uniform)};
    train::OptimizerSettings adam;
    adam.kind = train::OptimizerKind::adam;
    adam.learning_rate = 0.02f;
    Network network(test::op_runtime(), spec, points, adam, 5);

    network.clear_totals();
    network.evaluate_batch(inputs, labels);
    const Network::Totals before = network.read_totals();
    for (int step = 0; step < 400; ++step) network.train_step(inputs, labels, adam.learning_rate);
    network.clear_totals();
    network.evaluate_batch(inputs, labels);
    const Network::Totals after = network.read_totals();
    INFO("loss " << before.loss_sum / points << " -> " << after.loss_sum / points << ", accuracy "
                 << after.correct / points);
    CHECK(before.loss_sum / points > 0.5);
    CHECK(after.loss_sum / points < 0.1);
    CHECK(after.correct / points >= 0.97);
}

TEST_CASE("a convolutional graph learns where a bright square is", "[network][train]") {
    // 8x8 images with a bright 3x3 square in one of four quadrants, on noise: class = quadrant.
    const int count = 64;
    train::Random random(9);
    std::vector<float> images;
    std::vector<int> labels;
    for (int s = 0; s < count; ++s) {
        const int quadrant = s % 4;
        std::vector<float> image(64);
        for (float& v : image) v = random.uniform(0.0f, 0.3f);
        const int top = (quadrant / 2) * 4 + static_cast<int>(random.below(2));
        const int left = (quadrant % 2) * 4 + static_cast<int>(random.below(2));
        for (int y = top; y < top + 3; ++y)
            for (int x = left; x < left + 3; ++x) image[y * 8 + x] = 1.0f;
        images.insert(images.end(), image.begin(), image.end());
        labels.push_back(quadrant);
    }
    NetworkSpec spec;
    spec.input = Shape{1, 1, 8, 8};
    spec.layers = {input_layer(),
                   conv2d("conv1", 6, 3, 1, Padding::same),
                   batch_norm("bn1"),
                   activation("relu1", Activation::relu),
                   conv2d("conv2", 6, 3, 1, Padding::same),
                   activation("relu2", Activation::relu),
                   add("residual", {"relu1", "relu2"}),
                   max_pool("pool", 2, 2),
                   dropout("drop", 0.1f),
                   flatten("flat"),
                   dense("out", 4, train::Initializer::glorot_uniform)};
    train::OptimizerSettings sgd;
    sgd.learning_rate = 0.05f;
    sgd.momentum = 0.9f;
    sgd.nesterov = true;
    Network network(test::op_runtime(), spec, count, sgd, 2);
    for (int step = 0; step < 60; ++step) network.train_step(images, labels, sgd.learning_rate);
    network.clear_totals();
    network.evaluate_batch(images, labels);
    const Network::Totals after = network.read_totals();
    INFO("loss " << after.loss_sum / count << ", accuracy " << after.correct / count);
    CHECK(after.loss_sum / count < 0.2);
    CHECK(after.correct / count >= 0.95);

    // Predictions are probabilities: each row sums to 1 and its maximum is the learnt class.
    const std::vector<float> probabilities = network.predict(std::span(images).first(4 * 64), 4);
    for (int s = 0; s < 4; ++s) {
        float sum = 0;
        int best = 0;
        for (int k = 0; k < 4; ++k) {
            sum += probabilities[s * 4 + k];
            if (probabilities[s * 4 + k] > probabilities[s * 4 + best]) best = k;
        }
        CHECK(sum == Approx(1.0f).epsilon(1e-5));
        CHECK(best == labels[s]);
    }
}

TEST_CASE("a regression network fits a smooth function with mean squared error", "[network][train]") {
    const int count = 64;
    std::vector<float> inputs, targets;
    for (int i = 0; i < count; ++i) {
        const float x = -1.0f + 2.0f * static_cast<float>(i) / (count - 1);
        inputs.push_back(x);
        targets.push_back(std::sin(2.5f * x));
    }
    NetworkSpec spec;
    spec.input = Shape{1, 1, 1, 1};
    spec.loss = LossKind::mean_squared_error;
    spec.layers = {input_layer(), dense("h", 24, train::Initializer::glorot_uniform), activation("a", Activation::tanh),
                   dense("out", 1, train::Initializer::glorot_uniform)};
    train::OptimizerSettings adamw;
    adamw.kind = train::OptimizerKind::adamw;
    adamw.learning_rate = 0.02f;
    adamw.weight_decay = 1e-4f;
    Network network(test::op_runtime(), spec, count, adamw, 4);
    network.clear_totals();
    network.train_step_targets(inputs, targets, adamw.learning_rate);
    const double first = network.read_totals().loss_sum / count;
    for (int step = 0; step < 500; ++step) network.train_step_targets(inputs, targets, adamw.learning_rate);
    network.clear_totals();
    network.train_step_targets(inputs, targets, adamw.learning_rate);
    const double last = network.read_totals().loss_sum / count;
    INFO("mse " << first << " -> " << last);
    CHECK(last < 0.01);
    CHECK(last < first / 10);
}

TEST_CASE("the same seed on the same device gives the same loss curve", "[network][train]") {
    NetworkSpec spec;
    spec.input = Shape{1, 3, 1, 1};
    spec.layers = {input_layer(), dense("h", 8), dropout("d", 0.3f), activation("a", Activation::relu),
                   dense("out", 3)};
    const std::vector<float> inputs = test::random_values(3 * 16, 5);
    std::vector<int> labels(16);
    for (int i = 0; i < 16; ++i) labels[i] = i % 3;
    auto curve = [&](std::uint64_t seed) {
        train::OptimizerSettings settings;
        Network network(test::op_runtime(), spec, 16, settings, seed);
        std::vector<double> losses;
        for (int step = 0; step < 5; ++step) {
            network.clear_totals();
            network.train_step(inputs, labels, settings.learning_rate);
            losses.push_back(network.read_totals().loss_sum);
        }
        return losses;
    };
    const std::vector<double> first = curve(1);
    CHECK(first == curve(1));
    CHECK(first != curve(2));
}

TEST_CASE("per-batch metrics are read back while later steps are already enqueued", "[network][train]") {
    NetworkSpec spec;
    spec.input = Shape{1, 4, 1, 1};
    spec.layers = {input_layer(), dense("h", 8), activation("a", Activation::tanh), dense("out", 3)};
    const std::vector<float> inputs = test::random_values(4 * 12, 8);
    std::vector<int> labels(12);
    for (int i = 0; i < 12; ++i) labels[i] = (i * 7) % 3;
    const train::OptimizerSettings settings;

    // The reference: the first step's loss and correct count with a blocking read.
    Network reference(test::op_runtime(), spec, 12, settings, 3);
    reference.clear_totals();
    reference.train_step(inputs, labels, settings.learning_rate);
    const Network::Totals first = reference.read_totals();

    // The same run, reading the totals asynchronously after the first step while two more
    // steps are enqueued behind the read: the in-order queue delivers the first step's values.
    Network network(test::op_runtime(), spec, 12, settings, 3);
    network.clear_totals();
    network.train_step(inputs, labels, settings.learning_rate);
    ops::AsyncRead read;
    read.start(test::op_runtime(), network.totals_tensor());
    network.train_step(inputs, labels, settings.learning_rate);
    network.train_step(inputs, labels, settings.learning_rate);
    const std::vector<float>& values = read.wait();
    CHECK(values[0] == static_cast<float>(first.loss_sum));
    CHECK(values[1] == static_cast<float>(first.correct));
    CHECK(network.read_totals().samples == 36);
}

TEST_CASE("backward computes no gradient that no parameter needs", "[network][train]") {
    // Input -> MaxPool -> Flatten -> Dense: the pooling and the Dense's input gradient lead only
    // to the images, so the whole backward is the Dense's weight and bias gradients.
    NetworkSpec spec;
    spec.input = Shape{1, 2, 6, 6};
    spec.layers = {input_layer(), max_pool("pool", 2, 2), flatten("flat"), dense("out", 3)};
    ops::Runtime& runtime = test::op_runtime();
    const int count = 4;
    Network network(runtime, spec, count, train::OptimizerSettings{}, 5);
    network.upload_images(test::random_values(count * 72, 31), count);
    network.upload_labels(std::vector<int>{0, 2, 1, 2});
    network.forward(count, true);
    network.loss(count);
    const ops::Runtime::Launches before = runtime.launches();
    network.backward(count);
    const ops::Runtime::Launches after = runtime.launches();

    // The same Dense backward alone, with no input gradient.
    test::TestTensors t;
    const TensorId x = t.add("x", Shape{count, 18, 1, 1}), w = t.add("w", Shape{3, 18, 1, 1}),
                   dy = t.add("dy", Shape{count, 3, 1, 1}), dw = t.add("dw", Shape{3, 18, 1, 1}),
                   db = t.add("db", Shape{1, 3, 1, 1});
    t.allocate();
    const ops::Runtime::Launches alone_before = runtime.launches();
    ops::dense_backward(runtime, t[x], t[w], t[dy], Tensor{}, ops::GradWrite::overwrite, t[dw], t[db]);
    const ops::Runtime::Launches alone = runtime.launches();
    runtime.finish();

    CHECK(after.gemms - before.gemms == alone.gemms - alone_before.gemms);
    CHECK(after.kernels - before.kernels == alone.kernels - alone_before.kernels);
    CHECK(after.gemms - before.gemms == 1);  // the weight gradient; no input gradient
}

TEST_CASE("one update moves every trainable parameter as the reference optimiser does, in one command",
          "[network][train]") {
    train::OptimizerSettings settings;
    const int kind = GENERATE(0, 1, 2);
    if (kind == 0) {
        settings.nesterov = true;
        settings.weight_decay = 0.01f;
    } else {
        settings.kind = kind == 1 ? train::OptimizerKind::adam : train::OptimizerKind::adamw;
        settings.weight_decay = 0.02f;
    }
    INFO((kind == 0 ? "SGD, Nesterov momentum" : kind == 1 ? "Adam" : "AdamW") << ", weight decay");
    ops::Runtime& runtime = test::op_runtime();
    const int count = 3;
    // Conv, Dense and BatchNorm parameters of several sizes, and BatchNorm's running statistics,
    // which have no gradient.
    Network network(runtime, every_layer_network(), count, settings, 11);
    const std::vector<float> images = test::random_values(count * 72, 41);
    const std::vector<int> labels{2, 0, 1};
    constexpr float rate = 0.05f;
    // A first step leaves the optimiser state non-zero; the second is checked.
    network.train_step(images, labels, rate);
    network.upload_images(images, count);
    network.upload_labels(labels);
    network.forward(count, true);
    network.loss(count);
    network.backward(count);

    const std::vector<ParameterView> parameters = network.parameters(), state = network.optimizer_state();
    const int states = train::optimizer_state_count(settings);
    std::vector<std::vector<double>> values, gradients;
    std::vector<std::vector<std::vector<double>>> moments;
    std::size_t state_index = 0;
    for (const ParameterView& parameter : parameters) {
        values.push_back(test::to_double(runtime.read(parameter.value)));
        gradients.push_back(parameter.gradient.buffer ? test::to_double(runtime.read(parameter.gradient))
                                                      : std::vector<double>{});
        moments.emplace_back();
        if (parameter.gradient.buffer)
            for (int s = 0; s < states; ++s)
                moments.back().push_back(test::to_double(runtime.read(state.at(state_index++).value)));
    }
    REQUIRE(state_index == state.size());

    const ops::Runtime::Launches before = runtime.launches();
    network.update(rate);
    const ops::Runtime::Launches after = runtime.launches();
    CHECK(after.kernels - before.kernels == 1);
    CHECK(after.gemms == before.gemms);

    std::size_t trainable = 0;
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        INFO(parameters[i].name);
        const std::vector<float> now = runtime.read(parameters[i].value);
        if (!parameters[i].gradient.buffer) {
            // Running statistics: no gradient, left exactly as they were.
            CHECK(test::to_double(now) == values[i]);
            continue;
        }
        ++trainable;
        std::vector<double> expected = values[i];
        ref::optimizer_step<double>(settings, rate, network.updates(), expected, gradients[i], moments[i]);
        test::require_close(now, test::to_float(expected), 1e-6, "the updated value");
    }
    CHECK(trainable == 10);  // stem, branch, hidden and out: weight and bias; bn: gamma and beta
}
