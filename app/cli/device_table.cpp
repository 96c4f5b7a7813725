// backprop devices: the table, columns sized to their content.
#include "app/cli/device_table.h"

#include <algorithm>

#include "app/cli/padded.h"
#include "engine/base/number_text.h"

namespace bps::cli {

namespace {

struct Column {
    std::string header;
    bool right_aligned = false;
    std::vector<std::string> cells;  // one per device
};

std::string self_test_cell(device::SelfTestState state) {
    switch (state) {
        case device::SelfTestState::passed:
            return "passed";
        case device::SelfTestState::wrong_results:
            return "WRONG";
        case device::SelfTestState::not_run:
            break;
    }
    return "-";
}

}  // namespace

std::string device_table(const std::vector<device::DeviceDescription>& devices, std::optional<std::size_t> chosen) {
    std::vector<Column> columns = {{"#", false, {}},        {"device", false, {}},    {"kind", false, {}},
                                   {"CUs", true, {}},       {"clock", true, {}},      {"memory", true, {}},
                                   {"max alloc", true, {}}, {"local", true, {}},      {"WG", true, {}},
                                   {"OpenCL C", false, {}}, {"driver", false, {}},    {"fp16", false, {}},
                                   {"fp64", false, {}},     {"self-test", false, {}}, {"platform", false, {}}};
    for (const device::DeviceDescription& device : devices) {
        // A name past 42 characters is cut with '~': names are long enough to say which device.
        const std::string name = device.name.size() > 42 ? device.name.substr(0, 41) + "~" : device.name;
        const std::vector<std::string> cells = {std::to_string(device.index),
                                                name,
                                                std::string(device::kind_name(device.kind)),
                                                std::to_string(device.compute_units),
                                                std::to_string(device.clock_mhz) + " MHz",
                                                session::format_bytes(device.global_memory_bytes),
                                                session::format_bytes(device.max_allocation_bytes),
                                                session::format_bytes(device.local_memory_bytes),
                                                std::to_string(device.max_work_group_size),
                                                device.opencl_c_version,
                                                device.driver_version,
                                                device.fp16 ? "yes" : "no",
                                                device.fp64 ? "yes" : "no",
                                                self_test_cell(device.self_test),
                                                device.platform_name};
        for (std::size_t c = 0; c < columns.size(); ++c) columns[c].cells.push_back(cells[c]);
    }
    std::vector<std::size_t> widths;
    for (const Column& column : columns) {
        std::size_t width = column.header.size();
        for (const std::string& cell : column.cells) width = std::max(width, cell.size());
        widths.push_back(width);
    }
    // The last column is not padded: no trailing spaces.
    const auto line = [&](const std::string& start, auto&& text_of) {
        std::string text = start;
        for (std::size_t c = 0; c < columns.size(); ++c) {
            if (c > 0) text += "  ";
            const bool last = c + 1 == columns.size();
            text += last ? text_of(c) : padded(text_of(c), widths[c], columns[c].right_aligned);
        }
        text += '\n';
        return text;
    };
    std::string table = line("   ", [&](std::size_t c) { return columns[c].header; });
    for (std::size_t row = 0; row < devices.size(); ++row) {
        const device::DeviceDescription& device = devices[row];
        const std::string start = device.index == chosen ? " * " : device.skipped.empty() ? "   " : " - ";
        table += line(start, [&](std::size_t c) { return columns[c].cells[row]; });
    }
    return table;
}

}  // namespace bps::cli
