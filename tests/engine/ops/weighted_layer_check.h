#pragma once
// The device side of testing a layer with a weight and a bias (Dense, Conv2D): its tensors filled
// with seeded random inputs and stale outputs, the host copies the reference reads, and the three
// ways a backward pass may treat the input gradient, each checked against the reference.
#include <catch2/catch.hpp>
#include <functional>

#include "engine/ops/activation.h"
#include "tests/engine/ops/op_checks.h"

namespace bps::test {

struct WeightedLayerTensors {
    // Inputs take seeds first_seed .. first_seed + 4 (x, w, b, dy, dx before), stale outputs the
    // next ones (y, dw, db, then the workspace when it has elements).
    WeightedLayerTensors(const Shape& x_shape, const Shape& w_shape, const Shape& b_shape, const Shape& y_shape,
                         std::uint32_t first_seed, std::size_t workspace_elements = 0);

    TestTensors t;
    Shape x_shape, w_shape, b_shape;
    TensorId x, w, b, y, dy, dx, dw, db, workspace = 0;
    std::vector<float> x_host, w_host, b_host, dy_host, dx_before;
};

// Runs `backward(dx, write)` three ways (overwriting dx, adding to it, and with no dx at all), each
// in its own SECTION, and compares dx, dweight and dbias with the reference's.
void check_weighted_backward(WeightedLayerTensors& layer, const std::vector<float>& dx_ref,
                             const std::vector<float>& dw_ref, const std::vector<float>& db_ref, double tolerance,
                             const std::function<void(const Tensor& dx, ops::GradWrite write)>& backward);

// The reference of a layer with a fused activation f, from its reference output z before the
// activation: y = f(z), and the gradient the layer's backward then works with, dz = dy * f'(z).
struct FusedActivationReference {
    std::vector<float> y, dz;
};
FusedActivationReference fused_activation_reference(const ops::FusedActivation& activation, const std::vector<float>& z,
                                                    const std::vector<float>& dy);

// The activations a layer is fused with in the op tests: every kind, LeakyReLU with a positive slope.
std::vector<ops::FusedActivation> fusable_activations();
std::string describe(const ops::FusedActivation& activation);

}  // namespace bps::test
