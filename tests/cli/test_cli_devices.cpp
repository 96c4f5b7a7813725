#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/cli/cli.h"
#include "tests/support/process.h"

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
