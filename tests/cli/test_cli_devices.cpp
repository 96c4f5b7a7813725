#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/cli/cli.h"
#include "tests/cli/stripes_project.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {
nlohmann::json devices_json(const std::string& extra = {}) {
    const ProcessResult result = run_command_stdout(backprop("devices --json " + extra));
    REQUIRE(result.exit_code == 0);
    return nlohmann::json::parse(result.output);
}
}  // namespace

TEST_CASE("backprop devices --json lists every device with its properties and the default") {
    const nlohmann::json listing = devices_json();
    REQUIRE(listing["devices"].is_array());
    REQUIRE_FALSE(listing["devices"].empty());
    const auto count = listing["devices"].size();
    CHECK(listing["default"].get<std::size_t>() < count);
    CHECK(listing["chosen"] == listing["default"]);
    for (const auto& device : listing["devices"]) {
        for (const char* key : {"name", "vendor", "platform", "kind", "opencl_c_version", "driver_version"})
            CHECK_FALSE(device[key].get<std::string>().empty());
        CHECK(device["compute_units"].get<unsigned>() >= 1);
        CHECK(device["global_memory_bytes"].get<std::uint64_t>() > 0);
        CHECK(device["max_allocation_bytes"].get<std::uint64_t>() > 0);
        CHECK(device["local_memory_bytes"].get<std::uint64_t>() > 0);
        CHECK(device["max_work_group_size"].get<std::size_t>() >= 1);
        CHECK(device["clock_mhz"].is_number());
        CHECK(device["fp16"].is_boolean());
        CHECK(device["fp64"].is_boolean());
        const std::string kind = device["kind"];
        CHECK((kind == "CPU" || kind == "integrated GPU" || kind == "discrete GPU" || kind == "accelerator"));
    }
}

TEST_CASE("backprop devices prints a table with one row per device and the default marked") {
    const nlohmann::json listing = devices_json();
    const ProcessResult table = run_command(backprop("devices"));
    REQUIRE(table.exit_code == 0);
    std::istringstream lines(table.output);
    std::string line;
    int marked = 0;
    while (std::getline(lines, line))
        if (line.rfind(" * ", 0) == 0) ++marked;
    CHECK(marked == 1);
    const std::string default_name = listing["devices"][listing["default"].get<std::size_t>()]["name"];
    CHECK_THAT(table.output, Catch::Contains(" * " + std::to_string(listing["default"].get<int>())));
    CHECK_THAT(table.output, Catch::Contains("* default device: " + default_name));
    for (const auto& device : listing["devices"])
        CHECK_THAT(table.output, Catch::Contains(device["name"].get<std::string>().substr(0, 41)));
}

TEST_CASE("the --device flag and BACKPROP_DEVICE choose the device, and an unknown one is an error that lists them") {
    const nlohmann::json listing = devices_json();
    const std::string first_name = listing["devices"][0]["name"];
    CHECK(devices_json("--device 0")["chosen"] == 0);
    {
        ScopedEnvironment env("BACKPROP_DEVICE", first_name.substr(0, 6));
        CHECK(devices_json()["chosen"] == 0);
    }
    ScopedEnvironment env("BACKPROP_DEVICE", "no-such-device-xyz");
    const ProcessResult result = run_command(backprop("devices"));
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.output, Catch::Contains("no OpenCL device matches 'no-such-device-xyz'"));
    CHECK_THAT(result.output, Catch::Contains("0: " + first_name));
}

TEST_CASE("with no OpenCL platform backprop explains how to install a driver and fails") {
    ScopedEnvironment env("OCL_ICD_VENDORS", std::string(EMPTY_ICD_DIR));
    const ProcessResult result = run_command(backprop("devices"));
    CHECK(result.exit_code == 3);
    CHECK_THAT(result.output, Catch::Contains("No OpenCL platform was found"));
    CHECK_THAT(result.output, Catch::Contains("sudo apt-get install pocl-opencl-icd"));
    const ProcessResult json = run_command_stdout(backprop("devices --json"));
    CHECK(json.exit_code == 3);
    CHECK(nlohmann::json::parse(json.output)["devices"].empty());
}

TEST_CASE("usage mistakes exit with status 2 and say what was wrong") {
    const ProcessResult unknown = run_command(backprop("frobnicate"));
    CHECK(unknown.exit_code == 2);
    CHECK_THAT(unknown.output, Catch::Contains("unknown command 'frobnicate'"));
    const ProcessResult extra = run_command(backprop("devices --bogus"));
    CHECK(extra.exit_code == 2);
    CHECK_THAT(extra.output, Catch::Contains("unexpected argument '--bogus'"));
    const ProcessResult missing = run_command(backprop("devices --device"));
    CHECK(missing.exit_code == 2);
    CHECK_THAT(missing.output, Catch::Contains("--device needs a value"));
}

TEST_CASE("every command answers --help") {
    for (const char* command : {"devices", "cache"}) {
        const ProcessResult result = run_command(backprop(std::string(command) + " --help"));
        INFO(command);
        CHECK(result.exit_code == 0);
        CHECK_THAT(result.output, Catch::StartsWith(std::string("usage: backprop ") + command));
    }
    const ProcessResult main_help = run_command(backprop("--help"));
    CHECK(main_help.exit_code == 0);
    CHECK_THAT(main_help.output, Catch::Contains("devices") && Catch::Contains("cache"));
}

TEST_CASE("the main help states every exit status, 130 for SIGINT, SIGTERM and SIGHUP") {
    const ProcessResult main_help = run_command(backprop("--help"));
    CHECK(main_help.exit_code == 0);
    CHECK_THAT(main_help.output, Catch::Contains("\nexit status:\n  0    done\n"));
    CHECK_THAT(main_help.output, Catch::Contains("\n  2    a usage mistake"));
    CHECK_THAT(main_help.output, Catch::Contains("\n  3    no OpenCL device"));
    CHECK_THAT(main_help.output, Catch::Contains("\n  130  stopped by Ctrl-C (SIGINT), SIGTERM or SIGHUP"));
}

TEST_CASE("a device whose first self-test finds wrong results stops training, is marked, and is not the default") {
    // Its own cache folder: the wrong result is stored there, and no other test may see it.
    TempDir cache("self-test-cli"), dir("self-test-project");
    ScopedEnvironment cache_dir("BACKPROP_CACHE_DIR", cache.path().string());
    write_stripes(dir.path() / "images", 4);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images");
    const nlohmann::json before = devices_json();
    const std::size_t index = before["default"];
    const std::string name = before["devices"][index]["name"];
    CHECK(before["devices"][index]["self_test"] == "not run");
    const std::string warning = "device " + std::to_string(index) + " (" + name + ", driver " +
                                before["devices"][index]["driver_version"].get<std::string>() +
                                ") computed wrong results in its self-test: ";
    {
        // A driver that drops a kernel and says nothing: the job's self-test finds it before training.
        // The dropped launch is the network's first forward kernel: it comes after the SGEMM's,
        // which is one own kernel on a CPU and CLBlast's (not the engine's to drop) elsewhere.
        const bool own_sgemm = before["devices"][index]["kind"] == "CPU";
        ScopedEnvironment fault("BACKPROP_INJECT_FAULT", own_sgemm ? "skip:2" : "skip:1");
        const ProcessResult failed = run_command(backprop("train " + quote(project) + " --epochs 1"));
        INFO(failed.output);
        CHECK(failed.exit_code == 1);
        CHECK_THAT(failed.output, Catch::Contains(warning + "training step: class probabilities of the forward pass"));
        CHECK_THAT(failed.output, Catch::Contains("(it is not the default device from now on)"));
        CHECK_FALSE(std::filesystem::exists(dir.path() / "stripes.h5"));
    }
    const nlohmann::json after = devices_json();
    CHECK(after["devices"][index]["self_test"] == "wrong results");
    CHECK_THAT(after["devices"][index]["self_test_summary"].get<std::string>(),
               Catch::StartsWith("training step: class probabilities of the forward pass, largest difference: "));
    CHECK(after["default"] != before["default"]);
    const ProcessResult table = run_command(backprop("devices"));
    CHECK_THAT(table.output, Catch::Contains("WRONG"));
    CHECK_THAT(table.output, Catch::Contains("! " + warning));

    // Asked for by index it still trains, with the warning.
    const ProcessResult chosen =
        run_command(backprop("train " + quote(project) + " --epochs 1 --device " + std::to_string(index)));
    INFO(chosen.output);
    CHECK(chosen.exit_code == 0);
    CHECK_THAT(chosen.output, Catch::Contains("note: " + warning));

    // Checked again with the driver working: it passes and is the default again.
    const ProcessResult check = run_command(backprop("devices --check --device " + std::to_string(index)));
    INFO(check.output);
    CHECK(check.exit_code == 0);
    CHECK_THAT(check.output,
               Catch::Contains("device " + std::to_string(index) + " (" + name + "): passed 4 checks in "));
    const nlohmann::json fixed = devices_json();
    CHECK(fixed["devices"][index]["self_test"] == "passed");
    CHECK(fixed["default"] == before["default"]);
}
