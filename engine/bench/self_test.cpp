// The device self-test: an SGEMM through CLBlast and one SGD step of a small convolutional
// network, each against the C++ references in double precision, and the launch latency.
#include "engine/bench/self_test.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "engine/base/number_text.h"
#include "engine/bench/device_microbenchmarks.h"
#include "engine/cl/cache_location.h"
#include "engine/device/self_test_record.h"
#include "engine/model/network.h"
#include "engine/ops/gemm.h"
#include "engine/reference/activation.h"
#include "engine/reference/conv2d.h"
#include "engine/reference/dense.h"
#include "engine/reference/loss.h"
#include "engine/reference/optimizer.h"
#include "engine/reference/pool.h"
#include "engine/train/random.h"

namespace bps::device {

namespace {
using Values = std::vector<double>;

Values widened(const std::vector<float>& values) {
    return {values.begin(), values.end()};
}

// The largest |a - b| over the largest |scale|: an error relative to the size of what is compared.
double relative_error(const std::vector<float>& actual, const Values& expected, const Values& scale) {
    double worst = 0, size = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const double difference = std::abs(actual[i] - expected[i]);
        if (!(difference <= worst)) worst = difference;  // NaN stays NaN
        size = std::max(size, std::abs(scale[i]));
    }
    return worst / std::max(size, 1e-30);
}

// C = A B, the GEMM training uses, for odd sizes that no tile divides: its padding and edge code
// runs too. The error of each entry is relative to the sum of the magnitudes of its products.
SelfTestCheck check_sgemm(ops::Runtime& runtime) {
    constexpr std::size_t m = 67, n = 45, k = 129;
    train::Random random(11);
    std::vector<float> a(m * k), b(k * n);
    for (float& v : a) v = random.uniform(-1, 1);
    for (float& v : b) v = random.uniform(-1, 1);
    cl::Buffer a_buffer(runtime.context(), a.size() * sizeof(float)),
        b_buffer(runtime.context(), b.size() * sizeof(float)), c_buffer(runtime.context(), m * n * sizeof(float));
    a_buffer.write(runtime.queue(), a.data(), a.size() * sizeof(float));
    b_buffer.write(runtime.queue(), b.data(), b.size() * sizeof(float));
    // C starts as NaN: a launch that does nothing cannot pass on what the memory held before.
    const std::vector<float> not_written(m * n, std::numeric_limits<float>::quiet_NaN());
    c_buffer.write(runtime.queue(), not_written.data(), not_written.size() * sizeof(float));
    const Tensor ta{a_buffer.get(), 0, Shape{1, 1, int(m), int(k)}}, tb{b_buffer.get(), 0, Shape{1, 1, int(k), int(n)}},
        tc{c_buffer.get(), 0, Shape{1, 1, int(m), int(n)}};
    ops::gemm(runtime, m, n, k, 1.0f, {ta, k}, {tb, n}, 0.0f, tc, n, "the device self-test");
    std::vector<float> c(m * n);
    c_buffer.read(runtime.queue(), c.data(), c.size() * sizeof(float));
    SelfTestCheck check{std::string("SGEMM 67x45x129 (") + ops::gemm_implementation(runtime) +
                            "), error relative to the sum of |products|",
                        0, 1e-4};
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            const double error = bench::sgemm_entry_error(a, b, c, i, j, k, n);
            if (!(error <= check.error)) check.error = error;
        }
    return check;
}

// Input 2x7x7, Conv2D 3 filters 3x3 (valid), ReLU, MaxPool 2, Flatten, Dense 4, softmax
// cross-entropy; batch 3; SGD with momentum. Odd sizes, so no kernel works on whole tiles only.
model::NetworkSpec small_network() {
    model::NetworkSpec spec;
    spec.input = Shape{1, 2, 7, 7};
    spec.layers = {
        model::input_layer(),          model::conv2d("conv", 3, 3), model::activation("relu", model::Activation::relu),
        model::max_pool("pool", 2, 2), model::flatten("flatten"),   model::dense("fc", 4)};
    return spec;
}

std::vector<float> read_parameter(ops::Runtime& runtime, const model::Network& network, const std::string& name) {
    for (const model::ParameterView& view : network.parameters())
        if (view.name == name) return runtime.read(view.value);
    throw std::logic_error("the self-test network has no parameter " + name);
}

// One training step on the device against the same step in double precision, from the same
// initial weights and data: the class probabilities before it, its loss, and the weights after it.
std::vector<SelfTestCheck> check_training_step(ops::Runtime& runtime) {
    constexpr int batch = 3, classes = 4;
    constexpr float learning_rate = 0.1f;
    const train::OptimizerSettings sgd;  // momentum 0.9
    model::Network network(runtime, small_network(), batch, sgd, 5);
    train::Random random(7);
    std::vector<float> images(batch * 2 * 7 * 7);
    for (float& v : images) v = random.uniform(-1, 1);
    const std::vector<int> labels{2, 0, 3};
    const char* names[] = {"conv.weight", "conv.bias", "fc.weight", "fc.bias"};
    std::vector<std::vector<float>> before;
    for (const char* name : names) before.push_back(read_parameter(runtime, network, name));
    const std::vector<float> probabilities = network.predict(images, batch);
    network.clear_totals();
    network.train_step(images, labels, learning_rate);
    const model::Network::Totals totals = network.read_totals();
    std::vector<std::vector<float>> after;
    for (const char* name : names) after.push_back(read_parameter(runtime, network, name));

    // The reference, layer by layer.
    const Shape x_shape{batch, 2, 7, 7}, conv_weight{3, 2, 3, 3}, conv_out{batch, 3, 5, 5}, pooled{batch, 3, 2, 2},
        flat{batch, 12, 1, 1}, fc_weight{classes, 12, 1, 1};
    const model::Conv2dGeometry conv_geometry;
    const model::PoolGeometry pool_geometry;
    const Values x = widened(images);
    std::vector<Values> w;
    for (const std::vector<float>& values : before) w.push_back(widened(values));
    Values z(conv_out.count()), a(conv_out.count()), p(pooled.count()), logits(std::size_t(batch) * classes);
    std::vector<int> argmax(pooled.count());
    ref::conv2d_forward<double>(conv_geometry, x_shape, conv_weight, x, w[0], w[1], z);
    ref::activation_forward<double>(model::Activation::relu, 0.0, z, a);
    ref::max_pool_forward<double>(conv_out, pool_geometry, a, p, argmax);
    ref::dense_forward<double>(flat, fc_weight, p, w[2], w[3], logits);
    Values expected_probabilities(logits.size()), dlogits(logits.size()), sample_loss(batch), correct(batch);
    ref::softmax<double>(classes, logits, expected_probabilities);
    ref::softmax_cross_entropy<double>(classes, logits, labels, dlogits, sample_loss, correct);
    Values dp(p.size()), da(a.size()), dz(z.size()), dx(x.size());
    std::vector<Values> grad{Values(w[0].size()), Values(w[1].size()), Values(w[2].size()), Values(w[3].size())};
    ref::dense_backward<double>(flat, fc_weight, p, w[2], dlogits, dp, grad[2], grad[3]);
    ref::max_pool_backward<double>(conv_out, pool_geometry, dp, argmax, da);
    ref::activation_backward<double>(model::Activation::relu, 0.0, z, a, da, dz);
    ref::conv2d_backward<double>(conv_geometry, x_shape, conv_weight, x, w[0], dz, dx, grad[0], grad[1]);

    std::vector<SelfTestCheck> checks;
    Values ones(expected_probabilities.size(), 1.0);
    checks.push_back({"training step: class probabilities of the forward pass, largest difference",
                      relative_error(probabilities, expected_probabilities, ones), 1e-4});
    double expected_loss = 0;
    for (double loss : sample_loss) expected_loss += loss;
    checks.push_back({"training step: loss, relative difference",
                      std::abs(totals.loss_sum - expected_loss) / std::max(std::abs(expected_loss), 1e-30), 1e-4});
    double worst = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
        Values expected = w[i], velocity(w[i].size(), 0.0), change(w[i].size());
        ref::sgd_step<double>(sgd, learning_rate, expected, grad[i], velocity);
        for (std::size_t j = 0; j < change.size(); ++j) change[j] = expected[j] - w[i][j];
        const double error = relative_error(after[i], expected, change);
        if (!(error <= worst)) worst = error;
    }
    checks.push_back(
        {"training step: weights after one SGD update, error relative to the largest change", worst, 1e-3});
    return checks;
}
}  // namespace

SelfTestResult run_self_test(ops::Runtime& runtime) {
    const auto start = std::chrono::steady_clock::now();
    SelfTestResult result;
    result.date = session::format_utc_now();
    result.checks.push_back(check_sgemm(runtime));
    for (SelfTestCheck& check : check_training_step(runtime)) result.checks.push_back(std::move(check));
    const bench::LaunchLatency launches = bench::measure_launch_latency(runtime);
    result.launch_us = launches.enqueue_us;
    result.launch_finish_us = launches.enqueue_finish_us;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

void test_before_first_use(const cl::DeviceInfo& device, ops::Runtime& runtime,
                           const std::function<void(const std::string&)>& note, const std::function<void()>& testing) {
    if (device.self_test == SelfTestState::wrong_results) {
        if (note) note(wrong_results_warning(device));
        return;
    }
    if (device.self_test == SelfTestState::passed) return;
    if (testing) testing();
    const SelfTestResult test = run_self_test(runtime);
    store_self_test(cl::cache_root(), device, test);
    if (test.correct()) return;
    DeviceDescription tested = device;
    set_self_test_state(tested, test);
    throw std::runtime_error(wrong_results_warning(tested) + " (it is not the default device from now on)");
}

}  // namespace bps::device
