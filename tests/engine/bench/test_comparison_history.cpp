// The kept device comparisons: saved and read back whole, damaged files named and moved aside
// (never overwritten), and the CSV export read back by Python's csv module.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/compare/comparison_history.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps;
namespace fs = std::filesystem;

namespace {

bench::DeviceComparison measured_device() {
    bench::DeviceComparison result;
    result.device.index = 1;
    result.device.name = "Radeon, \"Phoenix\"";  // a comma and quotes, for the CSV
    result.device.platform_name = "AMD Accelerated Parallel Processing";
    result.device.driver_version = "3614.0 (PAL,LC)";
    result.device.kind = device::DeviceKind::IntegratedGpu;
    result.device.compute_units = 12;
    result.device.global_memory_bytes = 8ull << 30;
    result.device.self_test = device::SelfTestState::passed;
    result.device.self_test_summary = "passed 4 checks in 0.8 s";
    result.images_per_s = 12345.5;
    result.step_ms = 5.25;
    result.cold_start_s = 3.5;
    result.warm_start_s = 0.25;
    result.device_bytes = 4096;
    result.kernels_per_step = 17;
    result.gemms_per_step = 6;
    result.copy_gb_per_s = 80.5;
    result.sgemm_gflops_per_s = 1500;
    result.step_gflops_per_s = 150;
    result.step_gb_per_s = 8.05;
    result.of_sgemm_peak = 0.1;
    result.of_bandwidth = 0.1;
    result.losses = {2.30, 1.5, std::numeric_limits<double>::quiet_NaN(), 0.75};
    return result;
}

bench::ComparisonRecord two_device_record() {
    bench::ComparisonSetup setup;
    setup.network_name = "cnn";
    setup.batch_size = 64;
    setup.curve_batches = 50;
    bench::DeviceComparison failed;
    failed.device.name = "pthread-cpu";
    failed.error = "out of device memory (on pthread-cpu)";
    return bench::make_comparison_record(setup, "My project", {measured_device(), failed});
}

void write(const fs::path& file, const std::string& text) {
    std::ofstream(file, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("a comparison history is read back as it was saved", "[bench][comparison]") {
    test::TempDir dir("comparison-history");
    const fs::path file = dir.path() / "sub" / "comparisons.json";
    CHECK(bench::read_comparison_history(file).empty());  // none yet
    const bench::ComparisonRecord record = two_device_record();
    CHECK(record.date.size() == std::string("2026-11-25 21:50 UTC").size());
    CHECK(record.title() == record.date + " · cnn · batch 64 · 2 devices");
    bench::save_comparison_history(file, {record, record});

    const std::vector<bench::ComparisonRecord> read = bench::read_comparison_history(file);
    REQUIRE(read.size() == 2);
    const bench::ComparisonRecord& back = read[1];
    CHECK(back.date == record.date);
    CHECK(back.project == "My project");
    CHECK(back.network == "cnn");
    CHECK(back.batch_size == 64);
    CHECK(back.curve_batches == 50);
    REQUIRE(back.devices.size() == 2);
    const bench::DeviceComparison& device = back.devices[0];
    const bench::DeviceComparison expected = measured_device();
    CHECK(device.device.name == expected.device.name);
    CHECK(device.device.driver_version == expected.device.driver_version);
    CHECK(device.device.kind == device::DeviceKind::IntegratedGpu);
    CHECK(device.device.self_test == device::SelfTestState::passed);
    CHECK(device.images_per_s == expected.images_per_s);
    CHECK(device.cold_start_s == expected.cold_start_s);
    CHECK(device.of_bandwidth == expected.of_bandwidth);
    CHECK(device.kernels_per_step == 17);
    REQUIRE(device.losses.size() == 4);
    CHECK(device.losses[1] == 1.5);
    CHECK(std::isnan(device.losses[2]));  // JSON has no NaN: kept as null
    CHECK(back.devices[1].error == "out of device memory (on pthread-cpu)");
    CHECK_FALSE(back.devices[1].cold_start_s);
}

TEST_CASE("a comparison history keeps the newest hundred runs", "[bench][comparison]") {
    test::TempDir dir("comparison-history");
    const fs::path file = dir.path() / "comparisons.json";
    std::vector<bench::ComparisonRecord> records(bench::max_kept_comparisons + 3, two_device_record());
    for (std::size_t i = 0; i < records.size(); ++i) records[i].batch_size = static_cast<int>(i);
    bench::save_comparison_history(file, records);
    const std::vector<bench::ComparisonRecord> read = bench::read_comparison_history(file);
    REQUIRE(read.size() == bench::max_kept_comparisons);
    CHECK(read.front().batch_size == 3);
    CHECK(read.back().batch_size == static_cast<int>(bench::max_kept_comparisons) + 2);
}

TEST_CASE("a damaged or newer comparison history is named, and moved aside whole", "[bench][comparison]") {
    test::TempDir dir("comparison-history");
    const fs::path file = dir.path() / "comparisons.json";
    write(file, "{\"format\": \"backprop-device-comparisons\", \"version\": 1, \"comparisons\": [{\"date\": 3");
    CHECK_THROWS_WITH(bench::read_comparison_history(file),
                      Catch::StartsWith(file.string() + ": is damaged (") && Catch::Contains("parse error"));
    write(file, "{\"format\": \"backprop-device-comparisons\", \"version\": 7, \"comparisons\": []}");
    CHECK_THROWS_WITH(bench::read_comparison_history(file),
                      file.string() + ": was written by a newer Backprop Studio (format 7; this one reads 1)");
    write(file, "{\"name\": \"a project\"}");
    CHECK_THROWS_WITH(bench::read_comparison_history(file), file.string() + ": is not a device comparison history");

    const fs::path aside = bench::keep_damaged_history(file);
    CHECK(aside == fs::path(file.string() + ".damaged-1"));
    CHECK_FALSE(fs::exists(file));
    std::ifstream kept(aside);
    CHECK(std::string(std::istreambuf_iterator<char>(kept), {}) == "{\"name\": \"a project\"}");
    write(file, "again damaged");
    CHECK(bench::keep_damaged_history(file) == fs::path(file.string() + ".damaged-2"));
}

TEST_CASE("adding to a comparison history keeps what another program added since it was read",
          "[bench][comparison]") {
    test::TempDir dir("comparison-history");
    const fs::path file = dir.path() / "comparisons.json";
    bench::ComparisonRecord studio = two_device_record();
    studio.project = "the studio's";
    bench::save_comparison_history(file, {studio});
    // The studio read one record; `backprop bench` adds one; then the studio adds its next.
    const std::vector<bench::ComparisonRecord> read_by_studio = bench::read_comparison_history(file);
    bench::ComparisonRecord bench_run = two_device_record();
    bench_run.project = "reference network";
    bench::add_to_comparison_history(file, {bench_run});
    bench::ComparisonRecord next = two_device_record();
    next.project = "the studio's next";
    fs::path aside;
    const std::vector<bench::ComparisonRecord> history = bench::add_to_comparison_history(file, {next}, &aside);
    CHECK(read_by_studio.size() == 1);
    CHECK(aside.empty());
    const std::vector<bench::ComparisonRecord> on_disk = bench::read_comparison_history(file);
    REQUIRE(on_disk.size() == 3);
    CHECK(on_disk[0].project == "the studio's");
    CHECK(on_disk[1].project == "reference network");
    CHECK(on_disk[2].project == "the studio's next");
    REQUIRE(history.size() == 3);
    CHECK(history[1].project == "reference network");

    // A damaged file is kept aside whole, and the new record starts a new history.
    write(file, "{\"format\": \"backprop-device-comparisons\", \"version\": 1, \"compar");
    const std::vector<bench::ComparisonRecord> fresh = bench::add_to_comparison_history(file, {next}, &aside);
    CHECK(aside == fs::path(file.string() + ".damaged-1"));
    REQUIRE(fresh.size() == 1);
    CHECK(bench::read_comparison_history(file).size() == 1);
    std::ifstream kept(aside);
    CHECK(std::string(std::istreambuf_iterator<char>(kept), {}) ==
          "{\"format\": \"backprop-device-comparisons\", \"version\": 1, \"compar");
}

TEST_CASE("comparisons export as CSV that Python's csv module reads", "[bench][comparison]") {
    test::TempDir dir("comparison-csv");
    const fs::path csv = dir.path() / "comparisons.csv";
    const bench::ComparisonRecord record = two_device_record();
    write(csv, bench::comparison_csv({record}));
    const std::string script =
        "import csv, json, sys\n"
        "rows = list(csv.DictReader(open(sys.argv[1], newline='')))\n"
        "print(json.dumps(rows))\n";
    write(dir.path() / "read.py", script);
    const test::ProcessResult read = test::run_command_stdout(
        "/usr/bin/python3 \"" + (dir.path() / "read.py").string() + "\" \"" + csv.string() + "\"");
    INFO(read.output);
    REQUIRE(read.exit_code == 0);
    const nlohmann::json rows = nlohmann::json::parse(read.output);
    REQUIRE(rows.size() == 2);
    const nlohmann::json& first = rows[0];
    CHECK(first["date"] == record.date);
    CHECK(first["project"] == "My project");
    CHECK(first["device"] == "Radeon, \"Phoenix\"");
    CHECK(first["driver_version"] == "3614.0 (PAL,LC)");
    CHECK(first["kind"] == "integrated GPU");
    CHECK(first["self_test"] == "passed");
    CHECK(std::stod(first["images_per_s"].get<std::string>()) == 12345.5);
    CHECK(std::stod(first["cold_start_s"].get<std::string>()) == 3.5);
    CHECK(std::stod(first["of_sgemm_peak"].get<std::string>()) == 0.1);
    CHECK(std::stod(first["first_loss"].get<std::string>()) == 2.3);
    CHECK(std::stod(first["last_loss"].get<std::string>()) == 0.75);
    CHECK(first["error"] == "");
    const nlohmann::json& second = rows[1];
    CHECK(second["device"] == "pthread-cpu");
    CHECK(second["images_per_s"] == "0");
    CHECK(second["cold_start_s"] == "");
    CHECK(second["error"] == "out of device memory (on pthread-cpu)");
}
