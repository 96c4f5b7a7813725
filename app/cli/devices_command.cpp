// backprop devices: the table of OpenCL devices with the one training would use marked.
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/commands.h"
#include "engine/cl/device.h"
#include "engine/cl/error.h"
#include "engine/session/number_text.h"

namespace bps::cli {

const char* const devices_help =
    "usage: backprop devices [--json] [--device INDEX|NAME]\n"
    "\n"
    "Lists every OpenCL device of every platform. '*' marks the device training uses: the\n"
    "best by default (discrete GPU, integrated GPU, accelerator, then CPU; most compute units\n"
    "first), or the one chosen by --device or the BACKPROP_DEVICE environment variable.\n"
    "\n"
    "  --json            print the same facts as JSON\n"
    "  --device D        mark device D (an index or part of its name) as chosen\n";

namespace {

nlohmann::json to_json(const cl::DeviceInfo& device) {
    return {{"index", device.index},
            {"name", device.name},
            {"vendor", device.vendor},
            {"platform", device.platform_name},
            {"platform_version", device.platform_version},
            {"kind", std::string(cl::kind_name(device.kind))},
            {"compute_units", device.compute_units},
            {"clock_mhz", device.clock_mhz},
            {"global_memory_bytes", device.global_memory_bytes},
            {"max_allocation_bytes", device.max_allocation_bytes},
            {"local_memory_bytes", device.local_memory_bytes},
            {"max_work_group_size", device.max_work_group_size},
            {"opencl_c_version", device.opencl_c_version},
            {"driver_version", device.driver_version},
            {"fp16", device.fp16},
            {"fp64", device.fp64}};
}

void print_table(const std::vector<cl::DeviceInfo>& devices, std::size_t chosen) {
    std::ostringstream out;
    out << std::left << "   " << std::setw(3) << "#" << std::setw(44) << "device" << std::setw(16) << "kind"
        << std::right << std::setw(4) << "CUs" << std::setw(10) << "clock" << std::setw(11) << "memory" << std::setw(11)
        << "max alloc" << std::setw(10) << "local" << std::setw(6) << "WG"
        << "  " << std::left << std::setw(22) << "OpenCL C" << std::setw(12) << "driver"
        << "fp16 fp64  platform\n";
    for (const cl::DeviceInfo& device : devices) {
        std::string name = device.name.size() > 42 ? device.name.substr(0, 41) + "~" : device.name;
        out << (device.index == chosen ? " * " : "   ") << std::left << std::setw(3) << device.index << std::setw(44)
            << name << std::setw(16) << cl::kind_name(device.kind) << std::right << std::setw(4) << device.compute_units
            << std::setw(6) << device.clock_mhz << " MHz" << std::setw(11)
            << session::format_bytes(device.global_memory_bytes) << std::setw(11)
            << session::format_bytes(device.max_allocation_bytes) << std::setw(10)
            << session::format_bytes(device.local_memory_bytes) << std::setw(6) << device.max_work_group_size << "  "
            << std::left << std::setw(22) << device.opencl_c_version << std::setw(12) << device.driver_version
            << std::setw(5) << (device.fp16 ? "yes" : "no") << std::setw(6) << (device.fp64 ? "yes" : "no")
            << device.platform_name << "\n";
    }
    std::cout << out.str();
}

}  // namespace

int run_devices(Arguments& arguments) {
    const bool as_json = arguments.take_flag("--json");
    const std::string request = cl::device_request(arguments.take_option("--device"));
    arguments.expect_nothing_left();

    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    if (devices.empty()) {
        if (as_json)
            std::cout << nlohmann::json{{"devices", nlohmann::json::array()}, {"chosen", nullptr}, {"default", nullptr}}
                             .dump(2)
                      << "\n";
        throw cl::NoOpenClError();
    }
    const std::size_t best = cl::default_device_index(devices);
    const std::size_t chosen = cl::select_device(devices, request);

    if (as_json) {
        nlohmann::json list = nlohmann::json::array();
        for (const cl::DeviceInfo& device : devices) list.push_back(to_json(device));
        std::cout << nlohmann::json{{"devices", list}, {"default", best}, {"chosen", chosen}}.dump(2) << "\n";
        return exit_ok;
    }
    print_table(devices, chosen);
    if (request.empty())
        std::cout << "\n* default device: " << devices[chosen].name << "\n";
    else
        std::cout << "\n* chosen by request '" << request << "': " << devices[chosen].name << " (the default would be "
                  << best << ")\n";
    return exit_ok;
}

}  // namespace bps::cli
