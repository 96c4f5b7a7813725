// Optimiser kernels against the C++ reference, closed forms of the first steps, and minimisation of a
// quadratic.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "engine/reference/optimizer.h"
#include "engine/train/optimizer.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;
using train::OptimizerKind;
using train::OptimizerSettings;

namespace {

struct Variant {
    const char* name;
    OptimizerSettings settings;
};

OptimizerSettings sgd(float momentum, bool nesterov, float weight_decay) {
    OptimizerSettings s;
    s.kind = OptimizerKind::sgd;
    s.momentum = momentum;
    s.nesterov = nesterov;
    s.weight_decay = weight_decay;
    return s;
}

OptimizerSettings adam(OptimizerKind kind, float weight_decay) {
    OptimizerSettings s;
    s.kind = kind;
    s.weight_decay = weight_decay;
    return s;
}

// A parameter and its gradient and state on the device, with host copies for the reference.
struct Slot {
    test::TestTensors tensors;
    TensorId param = 0, grad = 0;
    std::vector<TensorId> state;

    Slot(const Shape& shape, int state_count) {
        param = tensors.add("param", shape);
        grad = tensors.add("grad", shape);
        for (int i = 0; i < state_count; ++i) state.push_back(tensors.add("state" + std::to_string(i), shape));
        tensors.allocate();
        for (const TensorId id : state) tensors.write(id, std::vector<float>(shape.count(), 0.0f));
    }
    void step(const OptimizerSettings& settings, float lr, int t) {
        std::vector<Tensor> views;
        for (const TensorId id : state) views.push_back(tensors[id]);
        train::optimizer_step(test::op_runtime(), settings, lr, t, tensors[param], tensors[grad], views);
    }
};

}  // namespace

TEST_CASE("optimizer state counts follow the kind and momentum", "[optimizer]") {
    CHECK(train::optimizer_state_count(sgd(0.0f, false, 0.0f)) == 0);
    CHECK(train::optimizer_state_count(sgd(0.9f, false, 0.0f)) == 1);
    CHECK(train::optimizer_state_count(adam(OptimizerKind::adam, 0.0f)) == 2);
    CHECK(train::optimizer_state_count(adam(OptimizerKind::adamw, 0.0f)) == 2);
}

TEST_CASE("every optimizer matches the reference over five steps with new gradients", "[optimizer]") {
    const Variant variant =
        GENERATE(Variant{"SGD", sgd(0.0f, false, 0.0f)}, Variant{"SGD with weight decay", sgd(0.0f, false, 0.05f)},
                 Variant{"SGD momentum", sgd(0.9f, false, 0.0f)}, Variant{"SGD Nesterov", sgd(0.9f, true, 0.0f)},
                 Variant{"SGD Nesterov with weight decay", sgd(0.8f, true, 0.05f)},
                 Variant{"Adam", adam(OptimizerKind::adam, 0.0f)},
                 Variant{"Adam with L2 weight decay", adam(OptimizerKind::adam, 0.05f)},
                 Variant{"AdamW", adam(OptimizerKind::adamw, 0.05f)});
    const Shape shape = GENERATE(Shape{1, 1, 1, 1}, Shape{1, 7, 1, 1}, Shape{8, 5, 5, 5});
    INFO(variant.name << " on " << shape.to_string());
    const OptimizerSettings& settings = variant.settings;
    const int state_count = train::optimizer_state_count(settings);

    Slot slot(shape, state_count);
    std::vector<float> param = test::random_values(shape.count(), 11);
    std::vector<std::vector<float>> state(static_cast<std::size_t>(state_count),
                                          std::vector<float>(shape.count(), 0.0f));
    slot.tensors.write(slot.param, param);
    // A rate large enough that a wrong term in the update shows far above float rounding.
    const float lr = 0.1f;
    for (int t = 1; t <= 5; ++t) {
        INFO("step " << t);
        const std::vector<float> grad = test::random_values(shape.count(), static_cast<std::uint32_t>(20 + t));
        slot.tensors.write(slot.grad, grad);
        slot.step(settings, lr, t);
        ref::optimizer_step<float>(settings, lr, t, param, grad, state);
        test::require_close(slot.tensors.read(slot.param), param, 1e-6, "parameter");
        for (int s = 0; s < state_count; ++s)
            test::require_close(slot.tensors.read(slot.state[static_cast<std::size_t>(s)]),
                                state[static_cast<std::size_t>(s)], 1e-6, "state " + std::to_string(s));
    }
}

TEST_CASE("Adam's first step moves every parameter by the rate against the gradient's sign", "[optimizer]") {
    // Step 1: m / (1 - b1) = g and sqrt(v / (1 - b2)) = |g|, so the step is lr * g / (|g| + eps). Adam's L2
    // decay enters g; AdamW's shrinks the parameter by lr * wd first.
    const OptimizerKind kind = GENERATE(OptimizerKind::adam, OptimizerKind::adamw);
    const float weight_decay = 0.05f;
    const OptimizerSettings settings = adam(kind, weight_decay);
    const std::size_t n = 37;
    const float lr = 0.01f;
    const std::vector<float> param = test::random_values(n, 31);
    const std::vector<float> grad = test::random_values(n, 32, -2.0f, 2.0f);  // |g| >= 0.1 and |wd p| <= 0.05
    std::vector<double> expected(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double p = param[i], wd = weight_decay;
        if (kind == OptimizerKind::adamw)
            expected[i] = p * (1 - lr * wd) - lr * (grad[i] > 0 ? 1 : -1);
        else
            expected[i] = p - lr * (grad[i] + wd * p > 0 ? 1 : -1);
    }
    INFO((kind == OptimizerKind::adam ? "Adam" : "AdamW"));

    SECTION("on the reference in double") {
        std::vector<double> p = test::to_double(param);
        const std::vector<double> g = test::to_double(grad);
        std::vector<std::vector<double>> state(2, std::vector<double>(n, 0.0));
        ref::optimizer_step<double>(settings, lr, 1, p, g, state);
        // The step falls short of the rate by eps / |g| <= 1e-7 / 0.05 of it.
        for (std::size_t i = 0; i < n; ++i) REQUIRE(p[i] == Approx(expected[i]).epsilon(0).margin(1e-5 * lr));
    }
    SECTION("on the device") {
        Slot slot({1, static_cast<int>(n), 1, 1}, 2);
        slot.tensors.write(slot.param, param);
        slot.tensors.write(slot.grad, grad);
        slot.step(settings, lr, 1);
        const std::vector<float> p = slot.tensors.read(slot.param);
        // Rounding the result near |param| ~ 1 costs ~6e-8, well inside 1e-4 of the rate.
        for (std::size_t i = 0; i < n; ++i) REQUIRE(p[i] == Approx(expected[i]).epsilon(0).margin(1e-4 * lr));
    }
}

TEST_CASE("SGD momentum after two steps of a constant gradient moves by lr g plus lr (1 + m) g", "[optimizer]") {
    // Plain momentum: v1 = g, v2 = (1 + m) g. Nesterov steps by g + m v: (1 + m) g, then (1 + m + m^2) g.
    const bool nesterov = GENERATE(false, true);
    INFO((nesterov ? "Nesterov" : "heavy ball"));
    const float momentum = 0.9f, lr = 0.05f;
    const double m = momentum;
    const std::size_t n = 7;
    const std::vector<float> param = test::random_values(n, 41);
    const std::vector<float> grad = test::random_values(n, 42);
    const double total = nesterov ? (1 + m) + (1 + m + m * m) : 1 + (1 + m);
    std::vector<float> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = static_cast<float>(param[i] - lr * total * grad[i]);

    Slot slot({1, static_cast<int>(n), 1, 1}, 1);
    slot.tensors.write(slot.param, param);
    slot.tensors.write(slot.grad, grad);
    const OptimizerSettings settings = sgd(momentum, nesterov, 0.0f);
    slot.step(settings, lr, 1);
    slot.step(settings, lr, 2);
    test::require_close(slot.tensors.read(slot.param), expected, 1e-6, "parameter after two steps");
}

TEST_CASE("every optimizer minimises a quadratic in two hundred steps", "[optimizer]") {
    OptimizerSettings adamw = adam(OptimizerKind::adamw, 1e-3f);
    const Variant variant =
        GENERATE_COPY(Variant{"SGD", sgd(0.0f, false, 0.0f)}, Variant{"SGD momentum", sgd(0.9f, false, 0.0f)},
                      Variant{"SGD Nesterov", sgd(0.9f, true, 0.0f)}, Variant{"Adam", adam(OptimizerKind::adam, 0.0f)},
                      Variant{"AdamW", adamw});
    const float lr =
        variant.settings.kind == OptimizerKind::sgd ? (variant.settings.momentum == 0.0f ? 0.1f : 0.02f) : 0.05f;
    INFO(variant.name << " at rate " << lr);
    const std::size_t n = 50;
    const std::vector<float> start = test::random_values(n, 51);
    const std::vector<float> target = test::random_values(n, 52);
    const auto loss = [&](const std::vector<float>& w) {
        double sum = 0;
        for (std::size_t i = 0; i < n; ++i) sum += (static_cast<double>(w[i]) - target[i]) * (w[i] - target[i]);
        return sum;
    };

    Slot slot({1, static_cast<int>(n), 1, 1}, train::optimizer_state_count(variant.settings));
    slot.tensors.write(slot.param, start);
    std::vector<float> w = start, grad(n);
    for (int t = 1; t <= 200; ++t) {
        for (std::size_t i = 0; i < n; ++i) grad[i] = 2.0f * (w[i] - target[i]);
        slot.tensors.write(slot.grad, grad);
        slot.step(variant.settings, lr, t);
        w = slot.tensors.read(slot.param);
    }
    INFO("loss " << loss(start) << " -> " << loss(w));
    REQUIRE(loss(w) < 1e-3 * loss(start));
}

TEST_CASE("an optimizer step with mismatched tensors is refused with the shapes", "[optimizer]") {
    test::TestTensors t;
    const TensorId p = t.add("p", {2, 3, 1, 1}), g = t.add("g", {2, 4, 1, 1}), s = t.add("s", {2, 3, 1, 1});
    t.allocate();
    ops::Runtime& runtime = test::op_runtime();
    const std::vector<Tensor> state{t[s]};
    REQUIRE_THROWS_WITH(train::optimizer_step(runtime, sgd(0.9f, false, 0.0f), 0.1f, 1, t[p], t[g], state),
                        "SGD step: parameter 2x3x1x1 and gradient 2x4x1x1 differ");
    REQUIRE_THROWS_WITH(train::optimizer_step(runtime, adam(OptimizerKind::adam, 0.0f), 0.1f, 1, t[p], t[p], state),
                        "Adam step: 1 state tensors given for 2 needed");
    REQUIRE_THROWS_WITH(train::optimizer_step(runtime, sgd(0.9f, false, 0.0f), 0.1f, 0, t[p], t[p], state),
                        "SGD step: step 0 below 1");
}
