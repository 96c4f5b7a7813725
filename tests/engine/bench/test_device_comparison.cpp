// The studio's device comparison on the test device: the figures are measured, the loss curve is
// the one the C++ reference trains, a stop request is honoured, and a device that cannot be
// compared is reported while the others go on; a plan of networks and batch sizes (what
// `backprop bench` asks for) runs on every device in order.
#include <catch2/catch.hpp>
#include <cmath>

#include "engine/bench/comparison_details.h"
#include "engine/compare/comparison_history.h"
#include "engine/compare/device_comparison.h"
#include "engine/compare/reference_networks.h"
#include "engine/model/network.h"
#include "engine/reference/dense.h"
#include "engine/reference/loss.h"
#include "engine/reference/optimizer.h"
#include "tests/engine/ops/op_checks.h"
#include "tests/engine/test_device.h"

using namespace bps;

namespace {

// Input 6 features, one Dense layer of 4 classes: small enough to train by hand below.
model::NetworkSpec one_dense_layer() {
    model::NetworkSpec spec;
    spec.input = {1, 6, 1, 1};
    spec.layers = {model::input_layer(), model::dense("out", 4)};
    spec.layers[1].inputs = {"input"};
    return spec;
}

bench::ComparisonSetup small_setup(const model::NetworkSpec& spec) {
    bench::ComparisonSetup setup;
    setup.network_name = "one dense layer";
    setup.network = spec;
    setup.devices = {test::test_device().index};
    setup.batch_size = 5;
    setup.curve_batches = 4;
    setup.device_figures = false;
    setup.seed = 3;
    return setup;
}

// The loss curve trained by the C++ reference (float, as the device): forward, softmax cross
// entropy, backward and SGD with momentum, from the weights a Network starts with for this seed.
std::vector<double> reference_losses(const bench::ComparisonSetup& setup) {
    ops::Runtime& runtime = test::op_runtime();
    model::Network start(runtime, setup.network, setup.batch_size, setup.optimizer, setup.seed);
    std::vector<float> weight = runtime.read(start.parameters()[0].value);
    std::vector<float> bias = runtime.read(start.parameters()[1].value);
    REQUIRE(weight.size() == 4 * 6);
    REQUIRE(bias.size() == 4);
    std::vector<float> weight_velocity(weight.size()), bias_velocity(bias.size());
    const int n = setup.batch_size;
    const Shape x_shape{n, 6, 1, 1}, weight_shape{4, 6, 1, 1};
    std::vector<double> losses;
    for (int step = 0; step < setup.curve_batches; ++step) {
        const bench::SyntheticBatch data = bench::comparison_batch(setup.network, 4, n, setup.seed, step);
        std::vector<float> logits(static_cast<std::size_t>(n) * 4), dlogits(logits.size()), sample_loss(n), correct(n),
            dx(data.images.size()), dweight(weight.size()), dbias(bias.size());
        ref::dense_forward<float>(x_shape, weight_shape, data.images, weight, bias, logits);
        ref::softmax_cross_entropy<float>(4, logits, data.labels, dlogits, sample_loss, correct);
        double sum = 0;
        for (const float loss : sample_loss) sum += loss;
        losses.push_back(sum / n);
        ref::dense_backward<float>(x_shape, weight_shape, data.images, weight, dlogits, dx, dweight, dbias);
        ref::sgd_step<float>(setup.optimizer, setup.optimizer.learning_rate, weight, dweight, weight_velocity);
        ref::sgd_step<float>(setup.optimizer, setup.optimizer.learning_rate, bias, dbias, bias_velocity);
    }
    return losses;
}

}  // namespace

TEST_CASE("a device comparison measures the step and trains the reference's loss curve", "[bench][comparison]") {
    bench::ComparisonSetup setup = small_setup(one_dense_layer());
    setup.optimizer.learning_rate = 0.5f;  // a curve that visibly falls in four steps
    std::vector<bench::ComparisonProgress> progress;
    std::vector<bench::DeviceComparison> done;
    const std::vector<bench::DeviceComparison> results =
        bench::compare_devices(setup,
                               {[&](const bench::ComparisonProgress& p) { progress.push_back(p); },
                                [&](const bench::DeviceComparison& d) { done.push_back(d); }},
                               {});
    REQUIRE(results.size() == 1);
    const bench::DeviceComparison& result = results.front();
    INFO(result.error);
    REQUIRE(result.error.empty());
    CHECK_FALSE(result.cancelled);
    CHECK(result.device.name == test::test_device().name);
    CHECK(result.device.self_test != device::SelfTestState::not_run);  // tested before its first training
    CHECK(result.images_per_s > 0);
    CHECK(result.step_ms > 0);
    CHECK(result.kernels_per_step > 0);
    CHECK(result.device_bytes > 0);
    CHECK(result.step_gflops_per_s > 0);
    CHECK_FALSE(result.of_sgemm_peak);  // no device figures asked for: no share of them
    CHECK_FALSE(result.cold_start_s);   // no program to start
    CHECK(result.start_error.empty());

    const std::vector<double> expected = reference_losses(setup);
    REQUIRE(result.losses.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) CHECK(result.losses[i] == Approx(expected[i]).epsilon(1e-4));
    CHECK(expected.back() < expected.front());

    REQUIRE(done.size() == 1);
    CHECK(done.front().losses == result.losses);
    REQUIRE_FALSE(progress.empty());
    CHECK(progress.front().activity == "building kernels");
    CHECK(progress.front().device_count == 1);
    for (std::size_t i = 1; i < progress.size(); ++i) CHECK(progress[i].fraction >= progress[i - 1].fraction);
    CHECK(progress.back().fraction <= 1.0);
}

TEST_CASE("a device comparison measures the device's own figures and the step's share of them", "[bench][comparison]") {
    bench::ComparisonSetup setup = small_setup(bench::reference_network("mlp"));
    setup.network_name = "mlp";
    setup.device_figures = true;
    setup.curve_batches = 2;
    const bench::DeviceComparison result = bench::compare_devices(setup, {}).front();
    INFO(result.error);
    REQUIRE(result.error.empty());
    CHECK(result.copy_gb_per_s > 0);
    CHECK(result.sgemm_gflops_per_s > 0);
    REQUIRE(result.of_sgemm_peak);
    CHECK(*result.of_sgemm_peak == Approx(result.step_gflops_per_s / result.sgemm_gflops_per_s));
    REQUIRE(result.of_bandwidth);
    CHECK(*result.of_bandwidth == Approx(result.step_gb_per_s / result.copy_gb_per_s));
}

TEST_CASE("a stop request ends the device in progress and leaves out the rest", "[bench][comparison]") {
    bench::ComparisonSetup setup = small_setup(one_dense_layer());
    setup.devices = {test::test_device().index, test::test_device().index};
    std::atomic<bool> cancel{false};
    std::size_t reported_done = 0;
    const std::vector<bench::DeviceComparison> results =
        bench::compare_devices(setup,
                               {[&](const bench::ComparisonProgress& p) {
                                    if (p.activity == "training steps") cancel = true;
                                },
                                [&](const bench::DeviceComparison&) { ++reported_done; }},
                               &cancel);
    REQUIRE(results.size() == 1);
    CHECK(reported_done == 1);
    CHECK(results.front().cancelled);
    CHECK(results.front().error.empty());
    CHECK(results.front().images_per_s == 0);
    CHECK(results.front().losses.empty());
}

TEST_CASE("a device that cannot be compared is reported and the others go on", "[bench][comparison]") {
    bench::ComparisonSetup setup = small_setup(one_dense_layer());
    setup.devices = {99, test::test_device().index};
    const std::vector<bench::DeviceComparison> results = bench::compare_devices(setup, {});
    REQUIRE(results.size() == 2);
    CHECK_THAT(results[0].error, Catch::Contains("there is no OpenCL device 99"));
    CHECK(results[1].error.empty());
    CHECK(results[1].losses.size() == 4);
}

TEST_CASE("cold and warm starts need the command line and a saved project", "[bench][comparison]") {
    bench::ComparisonSetup setup = small_setup(one_dense_layer());
    setup.curve_batches = 1;
    setup.first_batch_program = "backprop";
    const bench::DeviceComparison unsaved = bench::compare_devices(setup, {}).front();
    CHECK(unsaved.error.empty());
    CHECK(unsaved.start_error == "the project has no saved file for the command line to start with");
    CHECK_FALSE(unsaved.cold_start_s);

    setup.network = bench::reference_network("mlp");
    setup.network_name = "mlp";
    setup.first_batch_program = "no-such-folder/backprop-missing";
    const bench::DeviceComparison missing = bench::compare_devices(setup, {}).front();
    CHECK(missing.error.empty());
    CHECK_FALSE(missing.cold_start_s);
    CHECK_FALSE(missing.start_error.empty());  // the shell's own words for a missing program
    CHECK(missing.images_per_s > 0);           // the rest was measured
}

TEST_CASE("a comparison setup that cannot run is refused with the reason", "[bench][comparison]") {
    bench::ComparisonSetup setup = small_setup(one_dense_layer());
    setup.devices.clear();
    CHECK_THROWS_WITH(bench::compare_devices(setup, {}), "no device is chosen to compare");
    setup = small_setup(one_dense_layer());
    setup.batch_size = 0;
    CHECK_THROWS_WITH(bench::compare_devices(setup, {}), "the batch size must be 1 to 65536, not 0");
    setup = small_setup(one_dense_layer());
    setup.curve_batches = 0;
    CHECK_THROWS_WITH(bench::compare_devices(setup, {}), "the loss curve's batches must be 1 to 100000, not 0");
    setup = small_setup(one_dense_layer());
    setup.network.layers[1].inputs = {"nowhere"};
    CHECK_THROWS_WITH(bench::compare_devices(setup, {}),
                      Catch::StartsWith("the network 'one dense layer' cannot be built: "));
}

TEST_CASE("the loss curve's synthetic batches are fixed by the seed and cycle", "[bench][comparison]") {
    const model::NetworkSpec spec = one_dense_layer();
    const bench::SyntheticBatch first = bench::comparison_batch(spec, 4, 7, 5, 0);
    REQUIRE(first.images.size() == 7 * 6);
    REQUIRE(first.labels.size() == 7);
    for (const int label : first.labels) CHECK((label >= 0 && label < 4));
    for (const float v : first.images) CHECK((v >= 0 && v < 1));
    CHECK(bench::comparison_batch(spec, 4, 7, 5, 0).images == first.images);
    CHECK(bench::comparison_batch(spec, 4, 7, 5, 8).images == first.images);  // the eighth batch comes round again
    CHECK(bench::comparison_batch(spec, 4, 7, 5, 1).images != first.images);
    CHECK(bench::comparison_batch(spec, 4, 7, 6, 0).images != first.images);
    // Images of one class share their pattern: half of each pixel, so same-class images are
    // closer than images of different classes on average.
    double same = 0, other = 0;
    int same_pairs = 0, other_pairs = 0;
    const bench::SyntheticBatch many = bench::comparison_batch(spec, 4, 200, 5, 2);
    for (std::size_t a = 0; a < 200; ++a)
        for (std::size_t b = a + 1; b < 200; ++b) {
            double distance = 0;
            for (std::size_t j = 0; j < 6; ++j) distance += std::abs(many.images[a * 6 + j] - many.images[b * 6 + j]);
            (many.labels[a] == many.labels[b] ? same : other) += distance;
            ++(many.labels[a] == many.labels[b] ? same_pairs : other_pairs);
        }
    CHECK(same / same_pairs < 0.8 * (other / other_pairs));
}

TEST_CASE("a plan runs every network at every batch size on each device, in order, and each becomes a record",
          "[bench][comparison]") {
    bench::ComparisonSetup setup = small_setup(one_dense_layer());
    setup.devices = {99, test::test_device().index};
    setup.plan.networks = {{"a", one_dense_layer(), ""}, {"b", one_dense_layer(), ""}};
    setup.plan.batch_sizes = {2, 5};
    setup.plan.steps = 2;
    setup.plan.runs = 1;
    setup.plan.warm_up_steps = 1;
    setup.curve_batches = 2;
    setup.self_test = false;
    REQUIRE(bench::planned_runs(setup).size() == 4);
    std::size_t done = 0;
    std::vector<std::size_t> ended;  // each device's count of results, as it ends
    const std::vector<bench::DeviceComparison> results = bench::compare_devices(
        setup, {{}, [&](const bench::DeviceComparison&) { ++done; }}, nullptr,
        {[&](const std::vector<bench::DeviceComparison>& of_device) { ended.push_back(of_device.size()); }, {}});
    REQUIRE(results.size() == 8);
    CHECK(done == 8);
    CHECK(ended == std::vector<std::size_t>{4, 4});
    const std::vector<std::pair<std::string, int>> order{{"a", 2}, {"a", 5}, {"b", 2}, {"b", 5}};
    for (std::size_t i = 0; i < 4; ++i) {
        INFO(i);
        const bench::DeviceComparison& missing = results[i];
        CHECK(std::pair(missing.network_name, missing.batch_size) == order[i]);
        CHECK_THAT(missing.error, Catch::Contains("there is no OpenCL device 99"));
        REQUIRE(missing.details);
        CHECK(missing.details->device_failed);
        const bench::DeviceComparison& ran = results[4 + i];
        CHECK(std::pair(ran.network_name, ran.batch_size) == order[i]);
        CHECK(ran.error.empty());
        REQUIRE(ran.details);
        REQUIRE(ran.details->timing);
        CHECK(ran.details->timing->steps == 2);
        CHECK(ran.details->timing->run_seconds.size() == 1);
        CHECK(ran.images_per_s == ran.details->timing->images_per_s);
        CHECK(ran.details->work.flops > 0);
        CHECK(ran.losses.size() == 2);
    }
    // The same network from the same seed at the same batch size: the same curve.
    CHECK(results[5].losses == results[7].losses);

    const std::vector<bench::ComparisonRecord> records = bench::make_comparison_records(setup, results);
    REQUIRE(records.size() == 4);
    for (std::size_t i = 0; i < 4; ++i) {
        CHECK(std::pair(records[i].network, records[i].batch_size) == order[i]);
        CHECK(records[i].project == "reference network");
        CHECK(records[i].curve_batches == 2);
        REQUIRE(records[i].devices.size() == 2);
        CHECK(records[i].devices[1].images_per_s == results[4 + i].images_per_s);
    }
}
