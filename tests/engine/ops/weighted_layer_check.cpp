#include "tests/engine/ops/weighted_layer_check.h"

#include "engine/reference/activation.h"

namespace bps::test {

WeightedLayerTensors::WeightedLayerTensors(const Shape& x_shape_, const Shape& w_shape_, const Shape& b_shape_,
                                           const Shape& y_shape, std::uint32_t first_seed,
                                           std::size_t workspace_elements)
    : x_shape(x_shape_), w_shape(w_shape_), b_shape(b_shape_) {
    x = t.add("x", x_shape);
    w = t.add("w", w_shape);
    b = t.add("b", b_shape);
    y = t.add("y", y_shape);
    dy = t.add("dy", y_shape);
    dx = t.add("dx", x_shape);
    dw = t.add("dw", w_shape);
    db = t.add("db", b_shape);
    if (workspace_elements > 0) workspace = t.add("workspace", {1, static_cast<int>(workspace_elements), 1, 1});
    t.allocate();
    x_host = random_values(x_shape.count(), first_seed);
    w_host = random_values(w_shape.count(), first_seed + 1);
    b_host = random_values(b_shape.count(), first_seed + 2);
    dy_host = random_values(y_shape.count(), first_seed + 3);
    dx_before = random_values(x_shape.count(), first_seed + 4);
    t.write(x, x_host);
    t.write(w, w_host);
    t.write(b, b_host);
    t.write(dy, dy_host);
    t.write(dx, dx_before);
    // Stale values in the outputs (and the workspace), as another layer would leave them: they must
    // be overwritten, not added to.
    t.write(y, random_values(y_shape.count(), first_seed + 5));
    t.write(dw, random_values(w_shape.count(), first_seed + 6));
    t.write(db, random_values(b_shape.count(), first_seed + 7));
    if (workspace_elements > 0) t.write(workspace, random_values(workspace_elements, first_seed + 8));
}

void check_weighted_backward(WeightedLayerTensors& layer, const std::vector<float>& dx_ref,
                             const std::vector<float>& dw_ref, const std::vector<float>& db_ref, double tolerance,
                             const std::function<void(const Tensor& dx, ops::GradWrite write)>& backward) {
    TestTensors& t = layer.t;
    SECTION("overwriting the input gradient") {
        backward(t[layer.dx], ops::GradWrite::overwrite);
        require_close(t.read(layer.dx), dx_ref, tolerance, "dx");
    }
    SECTION("adding to the input gradient") {
        backward(t[layer.dx], ops::GradWrite::accumulate);
        std::vector<float> expected(dx_ref.size());
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = layer.dx_before[i] + dx_ref[i];
        require_close(t.read(layer.dx), expected, tolerance, "dx accumulated", max_abs(layer.dx_before));
    }
    SECTION("without an input gradient") {
        backward(Tensor{nullptr, 0, layer.x_shape}, ops::GradWrite::overwrite);
        require_close(t.read(layer.dx), layer.dx_before, 0, "dx left alone");
    }
    require_close(t.read(layer.dw), dw_ref, tolerance, "dweight");
    require_close(t.read(layer.db), db_ref, tolerance, "dbias");
}

FusedActivationReference fused_activation_reference(const ops::FusedActivation& activation, const std::vector<float>& z,
                                                    const std::vector<float>& dy) {
    FusedActivationReference reference{std::vector<float>(z.size()), std::vector<float>(z.size())};
    ref::activation_forward<float>(activation.kind, activation.slope, z, reference.y);
    ref::activation_backward<float>(activation.kind, activation.slope, z, reference.y, dy, reference.dz);
    return reference;
}

std::vector<ops::FusedActivation> fusable_activations() {
    return {{model::Activation::relu, 0.0f},
            {model::Activation::leaky_relu, 0.2f},
            {model::Activation::sigmoid, 0.0f},
            {model::Activation::tanh, 0.0f}};
}

std::string describe(const ops::FusedActivation& activation) {
    switch (activation.kind) {
        case model::Activation::relu:
            return "ReLU";
        case model::Activation::leaky_relu:
            return "LeakyReLU " + std::to_string(activation.slope);
        case model::Activation::sigmoid:
            return "Sigmoid";
        case model::Activation::tanh:
            return "Tanh";
    }
    return "?";
}

}  // namespace bps::test
