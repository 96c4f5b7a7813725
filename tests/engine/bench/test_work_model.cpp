// The least work of a training step, counted by hand for the reference mlp and compared.
#include <catch2/catch.hpp>

#include "engine/bench/work_model.h"
#include "engine/compare/reference_networks.h"
#include "engine/model/graph_analysis.h"

using namespace bps;

TEST_CASE("the mlp's training step work matches a count by hand", "[bench]") {
    // Flatten (a view), Dense 784->256 with 200,960 parameters, ReLU on 256 values, Dense 256->10
    // with 2,570 parameters. A Dense's forward is (2 x 784 + 1) x 256 = 401,664 FLOPs per sample
    // (fc2: 5,130), ReLU's 256. fc1 computes no input gradient (nothing learns before it):
    //   per sample: fc1 2 x 401,664 + relu 2 x 256 + fc2 3 x 5,130 = 819,230
    //   per step: 4 x (200,960 + 2,570) = 814,120 for the momentum update
    const int batch = 64;
    const bench::StepWork work = bench::training_step_work(bench::reference_network("mlp"), batch);
    CHECK(work.flops == Approx(819230.0 * batch + 814120.0).epsilon(1e-12));
    // Values moved per sample: fc1 forward 784 + 256, backward 256 + 784 (no dx); relu 2 x 512
    // forward and backward plus its dx of 256; fc2 266 forward, 266 backward, 256 dx. Per step:
    // fc1's parameters 7 times (forward read, dW, update 5), fc2's 8 (its dx reads W too).
    CHECK(work.bytes == Approx(4.0 * ((2080.0 + 1280.0 + 788.0) * batch + 7 * 200960.0 + 8 * 2570.0)).epsilon(1e-12));
}

TEST_CASE("a step's work grows with the batch, and the first layer's input gradient is not counted", "[bench]") {
    const model::NetworkSpec cnn = bench::reference_network("cnn");
    const model::GraphAnalysis graph = model::analyse_graph(cnn);
    const bench::StepWork one = bench::training_step_work(cnn, 1), two = bench::training_step_work(cnn, 2);
    // The per-sample part doubles; the update's part does not.
    const double per_sample = two.flops - one.flops, update = one.flops - per_sample;
    CHECK(update == Approx(4.0 * static_cast<double>(graph.trainable_parameters())).epsilon(1e-12));
    // conv1 (the first layer after the input) counts forward and weight gradient only; every other
    // layer after a learning layer counts its input gradient too; pooling, ReLU and the rest are
    // cheap. So the per-sample FLOPs lie strictly between 3 x forward minus conv1's and 3 x forward.
    double conv1 = 0;
    for (const model::LayerAnalysis& layer : graph.layers)
        if (layer.spec.name == "conv1") conv1 = layer.flops;
    REQUIRE(conv1 > 0);
    double heavy_backward = 0;  // FLOPs of layers with parameters (each counts a gradient)
    double light = 0;           // FLOPs of layers without parameters after conv1 (each counts dx)
    for (const model::LayerAnalysis& layer : graph.layers) {
        if (layer.inputs.empty()) continue;
        if (layer.trainable_parameters > 0)
            heavy_backward += layer.flops * (layer.spec.name == "conv1" ? 2 : 3);
        else
            light += layer.flops * 2;
    }
    CHECK(per_sample == Approx(heavy_backward + light).epsilon(1e-12));
}
