// The table of `backprop devices` as a pure function: each column as wide as its widest text, at
// least one space between columns, even with Oclgrind's long OpenCL C version and driver texts.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/device_table.h"

namespace {

bps::device::DeviceDescription pocl_cpu() {
    bps::device::DeviceDescription device;
    device.index = 0;
    device.platform_name = "Portable Computing Language";
    device.name = "pthread-skylake-avx512-AMD EPYC";
    device.kind = bps::device::DeviceKind::Cpu;
    device.compute_units = 2;
    device.clock_mhz = 2596;
    device.global_memory_bytes = 12ull << 30;
    device.max_allocation_bytes = 4ull << 30;
    device.local_memory_bytes = 1ull << 20;
    device.max_work_group_size = 4096;
    device.opencl_c_version = "OpenCL C 1.2 PoCL";
    device.driver_version = "3.1+debian";
    device.fp64 = true;
    device.self_test = bps::device::SelfTestState::passed;
    return device;
}

// What Oclgrind reports: texts longer than the columns used to allow.
bps::device::DeviceDescription oclgrind() {
    bps::device::DeviceDescription device;
    device.index = 1;
    device.platform_name = "Oclgrind";
    device.name = "Oclgrind Simulator";
    device.kind = bps::device::DeviceKind::Cpu;
    device.compute_units = 1;
    device.clock_mhz = 1;
    device.global_memory_bytes = 128ull << 20;
    device.max_allocation_bytes = 128ull << 20;
    device.local_memory_bytes = 32ull << 10;
    device.max_work_group_size = 1024;
    device.opencl_c_version = "OpenCL C 1.2 (Oclgrind 21.10)";
    device.driver_version = "Oclgrind 21.10 with a driver text longer than any column";
    return device;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

}  // namespace

TEST_CASE("the devices table sizes each column to its longest text, so long driver texts do not collide") {
    const std::vector<bps::device::DeviceDescription> devices = {pocl_cpu(), oclgrind()};
    const std::string table = bps::cli::device_table(devices, std::size_t{0});
    INFO(table);
    const std::vector<std::string> lines = lines_of(table);
    REQUIRE(lines.size() == 3);
    CHECK(lines[1].rfind(" * 0  pthread-skylake-avx512-AMD EPYC  ", 0) == 0);
    CHECK(lines[2].rfind("   1  Oclgrind Simulator  ", 0) == 0);
    // The texts that used to run together ("OpenCL C 1.2 (Oclgrind 21.10)Oclgrind 21.10no").
    CHECK_THAT(lines[2], Catch::Contains("  OpenCL C 1.2 (Oclgrind 21.10)  Oclgrind 21.10 with a driver text longer "
                                         "than any column  no    no    -          Oclgrind"));
    // Every column starts at the same place on every line: the header's and both rows' driver
    // columns line up, and so do the columns after it.
    for (const char* header : {"OpenCL C", "driver", "fp16", "fp64", "self-test", "platform"}) {
        INFO(header);
        const std::size_t at = lines[0].find(header);
        REQUIRE(at != std::string::npos);
        CHECK(lines[1][at - 1] == ' ');
        CHECK(lines[2][at - 1] == ' ');
        CHECK(lines[1][at] != ' ');
        CHECK(lines[2][at] != ' ');
    }
    CHECK(lines[1].substr(lines[0].find("driver"), 12) == "3.1+debian  ");
    CHECK(lines[1].substr(lines[0].find("platform")) == "Portable Computing Language");
    // Numbers are right-aligned under their headers.
    const std::size_t memory_end = lines[0].find("memory") + std::string("memory").size();
    CHECK(lines[1].substr(0, memory_end).substr(memory_end - 8) == "12.0 GiB");
    CHECK(lines[2].substr(0, memory_end).substr(memory_end - 7) == "128 MiB");
    // No line ends in spaces.
    for (const std::string& line : lines) CHECK(line.back() != ' ');
}

TEST_CASE("the devices table marks a skipped device and cuts a very long name") {
    bps::device::DeviceDescription skipped = oclgrind();
    skipped.name = std::string(60, 'n');
    skipped.skipped = "its compiler crashed twice";
    const std::string table = bps::cli::device_table({pocl_cpu(), skipped}, std::nullopt);
    const std::vector<std::string> lines = lines_of(table);
    REQUIRE(lines.size() == 3);
    CHECK(lines[1].rfind("   0  ", 0) == 0);
    CHECK(lines[2].rfind(" - 1  " + std::string(41, 'n') + "~  ", 0) == 0);
}
