#include "engine/device/device_json.h"

#include <string>

namespace bps::device {

using nlohmann::json;

namespace {

SelfTestState self_test_state(const std::string& word) {
    for (const SelfTestState state : {SelfTestState::passed, SelfTestState::wrong_results})
        if (self_test_state_name(state) == word) return state;
    return SelfTestState::not_run;
}

DeviceKind kind_from_name(const std::string& name) {
    for (const DeviceKind kind :
         {DeviceKind::DiscreteGpu, DeviceKind::IntegratedGpu, DeviceKind::Accelerator, DeviceKind::Cpu})
        if (kind_name(kind) == name) return kind;
    return DeviceKind::Cpu;
}

}  // namespace

json device_json(const DeviceDescription& device) {
    return {{"index", device.index},
            {"name", device.name},
            {"vendor", device.vendor},
            {"platform", device.platform_name},
            {"platform_version", device.platform_version},
            {"kind", std::string(kind_name(device.kind))},
            {"compute_units", device.compute_units},
            {"clock_mhz", device.clock_mhz},
            {"global_memory_bytes", device.global_memory_bytes},
            {"max_allocation_bytes", device.max_allocation_bytes},
            {"local_memory_bytes", device.local_memory_bytes},
            {"max_work_group_size", device.max_work_group_size},
            {"opencl_c_version", device.opencl_c_version},
            {"driver_version", device.driver_version},
            {"fp16", device.fp16},
            {"fp64", device.fp64},
            {"skipped", device.skipped.empty() ? json(nullptr) : json(device.skipped)},
            {"self_test", std::string(self_test_state_name(device.self_test))},
            {"self_test_summary", device.self_test_summary},
            {"tuning_summary", device.tuning_summary}};
}

DeviceDescription device_from_json(const json& object) {
    DeviceDescription device;
    device.index = object.at("index").get<std::size_t>();
    device.name = object.at("name").get<std::string>();
    device.platform_name = object.at("platform").get<std::string>();
    device.platform_version = object.at("platform_version").get<std::string>();
    device.driver_version = object.at("driver_version").get<std::string>();
    device.kind = kind_from_name(object.at("kind").get<std::string>());
    device.compute_units = object.at("compute_units").get<std::uint32_t>();
    device.global_memory_bytes = object.at("global_memory_bytes").get<std::uint64_t>();
    device.self_test = self_test_state(object.at("self_test").get<std::string>());
    device.self_test_summary = object.at("self_test_summary").get<std::string>();
    device.vendor = object.value("vendor", std::string());
    device.clock_mhz = object.value("clock_mhz", std::uint32_t{0});
    device.max_allocation_bytes = object.value("max_allocation_bytes", std::uint64_t{0});
    device.local_memory_bytes = object.value("local_memory_bytes", std::uint64_t{0});
    device.max_work_group_size = object.value("max_work_group_size", std::size_t{0});
    device.opencl_c_version = object.value("opencl_c_version", std::string());
    device.fp16 = object.value("fp16", false);
    device.fp64 = object.value("fp64", false);
    device.tuning_summary = object.value("tuning_summary", std::string());
    if (const auto skipped = object.find("skipped"); skipped != object.end() && skipped->is_string())
        device.skipped = skipped->get<std::string>();
    return device;
}

}  // namespace bps::device
