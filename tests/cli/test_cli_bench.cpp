// backprop bench: times the training step of a reference network; bad options are usage errors.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/cli/cli.h"
#include "tests/support/process.h"

using namespace bps::test;

TEST_CASE("bench times the mlp step and reports consistent figures as JSON") {
    const ProcessResult result = run_command_stdout(backprop("bench --net mlp --batch 8 --steps 3 --layers --json"));
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    const nlohmann::json figures = nlohmann::json::parse(result.output);
    CHECK(figures["net"] == "mlp");
    CHECK(figures["batch"] == 8);
    const double forward = figures["forward_ms"], forward_backward = figures["forward_backward_ms"],
                 step = figures["step_ms"];
    CHECK(forward > 0);
    CHECK(forward_backward > 0);
    CHECK(step > 0);
    CHECK(figures["images_per_s"].get<double>() == Approx(8000.0 / step).epsilon(1e-6));
    // Flatten, Dense 784->256, Dense 256->10 at batch 8: the plan holds at least the parameters,
    // their gradients and SGD velocities (3 x 203,530 floats).
    CHECK(figures["device_bytes"].get<double>() >= 3 * 203530 * 4);
    // Each Dense: one GEMM forward and one for its weight gradient; only fc2 computes an input
    // gradient (fc1's would flow to the images, which learn nothing).
    CHECK(figures["gemms_per_step"] == 5);
    CHECK(figures["kernels_per_step"].get<int>() > 0);
    // --layers: every layer after the input in execution order, then the loss.
    std::vector<std::string> names;
    for (const nlohmann::json& layer : figures["layers"]) {
        names.push_back(layer["name"]);
        CHECK(layer["forward_ms"].get<double>() >= 0);
        CHECK(layer["backward_ms"].get<double>() >= 0);
    }
    CHECK(names == std::vector<std::string>{"flatten", "fc1", "relu1", "fc2", "loss"});
}

TEST_CASE("bench refuses an unknown network and a batch that is not a number") {
    ProcessResult result = run_command(backprop("bench --net resnet"));
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output,
               Catch::Matchers::Contains("unknown reference network 'resnet'; the choices are mlp, cnn and cifar"));
    result = run_command(backprop("bench --batch lots"));
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Matchers::Contains("--batch needs a positive whole number, not 'lots'"));
}
