// backprop bench: training figures per device and network, the device's own figures, the cold
// and warm start, failures reported while the rest goes on, usage errors, and the loss curve and
// comparison history it shares with the studio's Compare Devices.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/compare/comparison_history.h"
#include "tests/cli/cli.h"
#include "tests/cli/stripes_project.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {
std::vector<nlohmann::json> json_lines(const std::string& output) {
    std::vector<nlohmann::json> lines;
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
    return lines;
}

std::vector<nlohmann::json> records(const std::vector<nlohmann::json>& lines, const std::string& kind) {
    std::vector<nlohmann::json> found;
    for (const nlohmann::json& line : lines)
        if (line.value("record", "") == kind) found.push_back(line);
    return found;
}
}  // namespace

TEST_CASE(
    "bench on every device: device figures, training figures with torch_reference's names, cold and warm starts") {
    TempDir cache("bench-cache"), temporary("bench-tmp");
    ScopedEnvironment cache_dir("BACKPROP_CACHE_DIR", cache.path().string());
    ScopedEnvironment tmp("TMPDIR", temporary.path().string());
    const ProcessResult result =
        run_command_stdout(backprop("bench --device all --nets mlp --batches 8 --steps 2 --runs 3 --json"));
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    const std::vector<nlohmann::json> lines = json_lines(result.output);
    const std::vector<nlohmann::json> devices = records(lines, "device"), training = records(lines, "training");
    REQUIRE(!devices.empty());
    REQUIRE(training.size() == devices.size());  // one network and one batch on each device

    const nlohmann::json& device = devices.front();
    CHECK(device["copy_gb_per_s"].get<double>() > 0);
    std::vector<int> sizes;
    for (const nlohmann::json& rate : device["sgemm"]) {
        sizes.push_back(rate["size"]);
        CHECK(rate["gflops_per_s"].get<double>() > 0);
        CHECK(rate["correct"] == true);
    }
    const std::vector<int> cpu_sizes{512, 1024, 2048}, gpu_sizes{512, 1024, 2048, 4096};
    CHECK(sizes == (device["device_kind"] == "CPU" ? cpu_sizes : gpu_sizes));
    CHECK(device["enqueue_us"].get<double>() > 0);
    CHECK(device["enqueue_finish_us"].get<double>() > 0);

    const nlohmann::json& mlp = training.front();
    // The fields torch_reference.py prints for the same figure, so the two join on net and batch.
    CHECK(mlp["engine"].get<std::string>().rfind("backprop-studio-", 0) == 0);
    CHECK(mlp["device"] == device["device"]);
    CHECK(mlp["net"] == "mlp");
    CHECK(mlp["batch"] == 8);
    CHECK(mlp["steps"] == 2);
    CHECK(mlp["runs"] == 3);
    REQUIRE(mlp["run_s"].size() == 3);
    std::vector<double> rates;
    for (const nlohmann::json& seconds : mlp["run_s"]) rates.push_back(2 * 8 / seconds.get<double>());
    std::sort(rates.begin(), rates.end());
    CHECK(mlp["images_per_s"].get<double>() == Approx(rates[1]));
    CHECK(mlp["gemms_per_step"] == 5);
    CHECK(mlp["kernels_per_step"].get<int>() > 0);
    CHECK(mlp["device_bytes"].get<double>() >= 3 * 203530 * 4);
    // Both starts ran to their first trained batch; the temporary cache folder they used is gone.
    CHECK(mlp["first_batch_cold_s"].get<double>() > 0);
    CHECK(mlp["first_batch_warm_s"].get<double>() > 0);
    CHECK(!mlp.contains("first_batch_error"));
    CHECK(std::filesystem::is_empty(temporary.path()));
    // The step's rates against the device's: the work per step times steps per second.
    const double steps_per_s = mlp["images_per_s"].get<double>() / 8;
    CHECK(mlp["step_gflops_per_s"].get<double>() == Approx(mlp["flops_per_step"].get<double>() * steps_per_s / 1e9));
    CHECK(mlp["fraction_of_sgemm_peak"].get<double>() ==
          Approx(mlp["step_gflops_per_s"].get<double>() / device["sgemm_best_gflops_per_s"].get<double>()));
    CHECK(mlp["fraction_of_bandwidth"].get<double>() ==
          Approx(mlp["step_gb_per_s"].get<double>() / device["copy_gb_per_s"].get<double>()));

    {  // the JSON lines join with torch_reference.py's on net and batch (docs/performance/join_bench.py)
        const std::filesystem::path ours = cache.path() / "ours.jsonl", torch = cache.path() / "torch.jsonl";
        std::ofstream(ours) << "[device 0] progress lines are skipped\n" << result.output;
        // A line as torch_reference.py prints it, on the same class of device.
        const std::string torch_device = device["device_kind"] == "CPU" ? "cpu" : "NVIDIA H100 80GB HBM3";
        std::ofstream(torch) << nlohmann::json{{"engine", "torch-1.13.0"},
                                               {"device", torch_device},
                                               {"threads", 2},
                                               {"net", "mlp"},
                                               {"batch", 8},
                                               {"steps", 937},
                                               {"images_per_s", 1000.0},
                                               {"epoch_s", 60.0}}
                                    .dump()
                             << "\n";
        const ProcessResult table = run_command_stdout(
            "/usr/bin/python3 " +
            quote(std::filesystem::path(TESTS_SOURCE_DIR).parent_path() / "docs" / "performance" / "join_bench.py") +
            " " + quote(ours) + " " + quote(torch));
        INFO(table.output);
        REQUIRE(table.exit_code == 0);
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, "%.2f", mlp["images_per_s"].get<double>() / 1000.0);
        CHECK_THAT(table.output, Catch::Matchers::Contains("| " + mlp["device"].get<std::string>() + " | mlp | 8 | "));
        CHECK_THAT(table.output, Catch::Matchers::Contains(" | 1,000 | " + std::string(ratio) + " | "));
    }

    {  // a start that fails to build is reported with the driver's error, and the exit status is 1
        // The parent finds every program in the cache that `cache warm` fills (a run on PoCL
        // stores none: ops::CacheWrites); only the child's cold start builds from source, and its
        // first build fails.
        const ProcessResult warmed = run_command_stdout(backprop("cache warm"));
        INFO(warmed.output);
        REQUIRE(warmed.exit_code == 0);
        ScopedEnvironment fault("BACKPROP_INJECT_FAULT", "build:1");
        const ProcessResult failing =
            run_command_stdout(backprop("bench --nets mlp --batches 8 --steps 1 --runs 1 --no-device-figures --json"));
        INFO(failing.output);
        CHECK(failing.exit_code == 1);
        const std::vector<nlohmann::json> runs = records(json_lines(failing.output), "training");
        REQUIRE(runs.size() == 1);
        CHECK(runs[0]["images_per_s"].get<double>() > 0);
        CHECK(runs[0]["first_batch_cold_s"].is_null());
        CHECK(runs[0]["first_batch_warm_s"].is_null());
        CHECK_THAT(runs[0]["first_batch_error"].get<std::string>(), Catch::Matchers::Contains("clBuildProgram"));
        CHECK(std::filesystem::is_empty(temporary.path()));
    }
}

TEST_CASE("bench reports a network that runs out of device memory and goes on with the next, also for a project") {
    TempDir dir("bench-project");
    write_stripes(dir.path() / "images", 4);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images");
    // The first allocation is the first network's memory: mlp at batch 8 fails, the rest runs.
    ScopedEnvironment fault("BACKPROP_INJECT_FAULT", "allocation:1:CL_MEM_OBJECT_ALLOCATION_FAILURE");
    const ProcessResult result =
        run_command_stdout(backprop("bench --nets mlp," + quote(project) +
                                    " --batches 8,16 --steps 1 --runs 3 --no-device-figures --no-first-batch"));
    INFO(result.output);
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.output, Catch::Matchers::Matches("(.|\\n)*\\n  mlp +8 +failed: clCreateBuffer failed with "
                                                       "CL_MEM_OBJECT_ALLOCATION_FAILURE(.|\\n)*"));
    CHECK_THAT(result.output, Catch::Matchers::Contains("for the model's tensors"));
    // The three entries after it have figures: 12 kernels and 5 GEMMs for mlp, the project's own.
    CHECK_THAT(result.output, Catch::Matchers::Matches("(.|\\n)*\\n  mlp +16 +[0-9,]+ +[0-9.]+ ms +- +[0-9.]+ [KM]iB +"
                                                       "[0-9]+ \\+ 5 GEMMs(.|\\n)*"));
    for (const std::string batch : {"8", "16"})
        CHECK_THAT(result.output,
                   Catch::Matchers::Matches("(.|\\n)*\\n  stripes.json +" + batch + " +[0-9,]+ +[0-9.]+ ms(.|\\n)*"));
}

TEST_CASE("bench times the cold and warm start of a project from the project file") {
    TempDir dir("bench-project-start"), cache("bench-project-cache");
    ScopedEnvironment cache_dir("BACKPROP_CACHE_DIR", cache.path().string());
    write_stripes(dir.path() / "images", 4);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images");
    // Started from another folder: the started program must be given the project's path, not its name.
    const ProcessResult result = run_command_stdout(
        backprop("bench --nets " + quote(project) + " --batches 8 --steps 1 --runs 1 --no-device-figures --json"));
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    const std::vector<nlohmann::json> runs = records(json_lines(result.output), "training");
    REQUIRE(runs.size() == 1);
    CHECK(runs[0]["net"] == "stripes.json");
    CHECK(runs[0]["project"] == project.string());
    CHECK(runs[0]["first_batch_cold_s"].get<double>() > 0);
    CHECK(runs[0]["first_batch_warm_s"].get<double>() > 0);
}

TEST_CASE("bench --inspection times looking inside a reference network and a project") {
    TempDir dir("bench-inspection");
    write_stripes(dir.path() / "images", 4);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images");
    const ProcessResult result =
        run_command_stdout(backprop("bench --nets cnn," + quote(project) +
                                    " --batches 8 --steps 1 --runs 1 --no-device-figures --no-first-batch "
                                    "--inspection --json"));
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    const std::vector<nlohmann::json> inspections = records(json_lines(result.output), "inspection");
    REQUIRE(inspections.size() == 2);
    CHECK(inspections[0]["net"] == "cnn");
    // A 4-pixel patch moved by 2 over 28x28 images: 13 x 13 positions; over the project's 8x8: 3 x 3.
    CHECK(inspections[0]["occlusion_positions"] == 169);
    CHECK(inspections[1]["net"] == "stripes.json");
    CHECK(inspections[1]["occlusion_positions"] == 9);
    for (const nlohmann::json& inspection : inspections)
        for (const char* figure : {"predict_ms", "activations_ms", "occlusion_ms", "saliency_ms", "open_ms"})
            CHECK(inspection[figure].get<double>() > 0);
}

TEST_CASE("bench refuses unknown networks, bad batch lists and doubled options") {
    ProcessResult result = run_command(backprop("bench --net resnet"));
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output,
               Catch::Matchers::Contains(
                   "'resnet' is neither a reference network (mlp, cnn, cifar) nor a project file that exists"));
    result = run_command(backprop("bench --batches 64,lots"));
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Matchers::Contains("--batches needs a positive whole number, not 'lots'"));
    result = run_command(backprop("bench --net mlp --nets cnn"));
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Matchers::Contains("give --net or --nets, not both"));
    result = run_command(backprop("bench --device nosuchdevice --nets mlp"));
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.output, Catch::Matchers::Contains("nosuchdevice"));
}

TEST_CASE("bench keeps each run in the comparison history with the figures it printed, and prints the loss curve") {
    TempDir dir("bench-history"), cache("bench-history-cache");
    ScopedEnvironment cache_dir("BACKPROP_CACHE_DIR", cache.path().string());
    const std::filesystem::path history = dir.path() / "device-comparisons.json";
    const std::string tiny =
        " --nets mlp --batches 8 --steps 1 --runs 1 --no-device-figures --no-first-batch "
        "--curve-batches 3 ";
    const ProcessResult result = run_command_stdout(backprop("bench" + tiny + "--json --history " + quote(history)));
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    const std::vector<nlohmann::json> training = records(json_lines(result.output), "training");
    REQUIRE(training.size() == 1);
    const nlohmann::json& mlp = training.front();
    REQUIRE(mlp["losses"].size() == 3);

    // The studio's Compare Devices reads the same record: one network, one batch, one device.
    const std::vector<bps::bench::ComparisonRecord> kept = bps::bench::read_comparison_history(history);
    REQUIRE(kept.size() == 1);
    CHECK(kept[0].network == "mlp");
    CHECK(kept[0].project == "reference network");
    CHECK(kept[0].batch_size == 8);
    CHECK(kept[0].curve_batches == 3);
    REQUIRE(kept[0].devices.size() == 1);
    const bps::bench::DeviceComparison& device = kept[0].devices.front();
    CHECK(device.error.empty());
    CHECK(device.device.name == mlp["device"].get<std::string>());
    CHECK(device.images_per_s == mlp["images_per_s"].get<double>());
    CHECK(device.step_ms == mlp["step_ms"].get<double>());
    CHECK(device.device_bytes == mlp["device_bytes"].get<std::size_t>());
    CHECK(device.kernels_per_step == mlp["kernels_per_step"].get<std::size_t>());
    CHECK(device.gemms_per_step == mlp["gemms_per_step"].get<std::size_t>());
    CHECK(device.step_gflops_per_s == mlp["step_gflops_per_s"].get<double>());
    CHECK(device.losses == mlp["losses"].get<std::vector<double>>());
    CHECK(!device.cold_start_s);

    // The table shows the curve under its row; --no-history keeps a scripted run out of the history.
    const ProcessResult table = run_command_stdout(backprop("bench" + tiny + "--no-history"));
    INFO(table.output);
    REQUIRE(table.exit_code == 0);
    CHECK_THAT(table.output, Catch::Matchers::Matches("(.|\\n)*\\n  mlp +8 +[0-9,]+ +[0-9.]+ ms(.|\\n)*\\n    loss "
                                                      "curve, 3 batches: [0-9]+\\.[0-9]{3} [0-9]+\\.[0-9]{3} "
                                                      "[0-9]+\\.[0-9]{3}\\n(.|\\n)*"));
    CHECK(bps::bench::read_comparison_history(history).size() == 1);
}

TEST_CASE("bench refuses a history that is its own project file or no history, before running, and moves nothing") {
    TempDir dir("bench-history-refusals");
    write_stripes(dir.path() / "images", 4);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images");
    const auto bytes_of = [](const std::filesystem::path& file) {
        std::ifstream in(file, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    const std::string before = bytes_of(project);
    const std::string tiny = " --batches 8 --steps 1 --runs 1 --no-device-figures --no-first-batch --curve-batches 1 ";

    // The run's own project as its history.
    ProcessResult result =
        run_command(backprop("bench --nets " + quote(project) + tiny + "--history " + quote(project)));
    INFO(result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Matchers::Contains("the comparison history " + project.string() +
                                                        " is the project file this run reads"));
    CHECK_THAT(result.output, !Catch::Matchers::Contains("building kernels"));  // refused before any device work
    CHECK(bytes_of(project) == before);
    CHECK_FALSE(std::filesystem::exists(project.string() + ".damaged-1"));

    // Another kind of file given as the history is named, not moved aside as a damaged history.
    result = run_command(backprop("bench --nets mlp" + tiny + "--history " + quote(project)));
    INFO(result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Matchers::Contains(project.string() + ": is not a device comparison history"));
    CHECK_THAT(result.output, !Catch::Matchers::Contains("building kernels"));
    CHECK(bytes_of(project) == before);
    CHECK_FALSE(std::filesystem::exists(project.string() + ".damaged-1"));

    // A history in a folder that does not exist is refused before the run too.
    const std::filesystem::path nowhere = dir.path() / "no-such-folder" / "history.json";
    result = run_command(backprop("bench --nets mlp" + tiny + "--history " + quote(nowhere)));
    INFO(result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Matchers::Contains(nowhere.parent_path().string()));
    CHECK_THAT(result.output, !Catch::Matchers::Contains("building kernels"));
}
