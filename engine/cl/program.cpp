#include "engine/cl/program.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>
#include <vector>

#include "engine/cl/error.h"
#include "engine/cl/fault_injection.h"
#include "engine/kernel_cache/kernel_cache.h"

namespace bps::cl {

namespace {

std::string build_log(cl_program program, cl_device_id device) {
    std::size_t size = 0;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS) return {};
    std::string log(size, '\0');
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) != CL_SUCCESS)
        return {};
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    return log;
}

std::vector<unsigned char> program_binary(cl_program program, const std::string& name) {
    std::size_t size = 0;
    check(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr), "clGetProgramInfo",
          "binary size of program '" + name + "'");
    std::vector<unsigned char> binary(size);
    if (size == 0) return binary;
    unsigned char* pointer = binary.data();
    check(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(pointer), &pointer, nullptr), "clGetProgramInfo",
          "binary of program '" + name + "'");
    return binary;
}

// A cached binary that the driver refuses (a driver that changed without changing its version
// string) is not an error: the caller builds from source instead.
cl_program try_build_from_binary(const Context& context, const std::vector<unsigned char>& binary,
                                 const std::string& options) {
    const cl_device_id device = context.device().id;
    const unsigned char* data = binary.data();
    const std::size_t size = binary.size();
    cl_int binary_status = CL_SUCCESS;
    cl_int status = CL_SUCCESS;
    cl_program program = clCreateProgramWithBinary(context.get(), 1, &device, &size, &data, &binary_status, &status);
    if (status != CL_SUCCESS || binary_status != CL_SUCCESS) {
        if (program) clReleaseProgram(program);
        return nullptr;
    }
    if (clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
        clReleaseProgram(program);
        return nullptr;
    }
    return program;
}

// The kernel names `source` declares: the word after "void" that follows each "__kernel"
// (attributes such as reqd_work_group_size may stand between them).
std::set<std::string> declared_kernels(std::string_view source) {
    std::set<std::string> names;
    const auto is_name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (std::size_t at = source.find("__kernel"); at != std::string_view::npos; at = source.find("__kernel", at + 1)) {
        std::size_t name = source.find("void", at);
        if (name == std::string_view::npos) break;
        name += 4;
        while (name < source.size() && std::isspace(static_cast<unsigned char>(source[name]))) ++name;
        std::size_t end = name;
        while (end < source.size() && is_name_char(source[end])) ++end;
        if (end > name) names.emplace(source.substr(name, end - name));
    }
    return names;
}

// Whether the built program holds every kernel the source declares (CL_PROGRAM_KERNEL_NAMES,
// OpenCL 1.2): a cached binary of another program builds without complaint but lacks them.
bool holds_kernels(cl_program program, const std::set<std::string>& wanted) {
    std::size_t size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size) != CL_SUCCESS) return false;
    std::string names(size, '\0');
    if (clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, size, names.data(), nullptr) != CL_SUCCESS) return false;
    std::set<std::string> held;
    std::stringstream list(names.c_str());
    for (std::string name; std::getline(list, name, ';');) held.insert(name);
    return std::includes(held.begin(), held.end(), wanted.begin(), wanted.end());
}

}  // namespace

Program::Program(const Context& context, std::string name, std::string_view source, std::string options,
                 KernelCache* cache, CacheWrite write)
    : name_(std::move(name)), device_(context.device().id) {
    const DeviceInfo& device = context.device();
    const CacheKey key{std::string(source),     options,     device.platform_name,
                       device.platform_version, device.name, device.driver_version};
    if (cache) {
        if (auto binary = cache->load(key)) {
            if (cl_program program = try_build_from_binary(context, *binary, options)) {
                program_ = decltype(program_)(program);
                if (holds_kernels(program, declared_kernels(source))) {
                    from_cache_ = true;
                    return;
                }
                program_ = {};
                cache->reject(key);
                cache_note_ = "the kernel cache entry " + cache->entry_path(key).string() +
                              " held another program than '" + name_ + "'; it was removed and '" + name_ +
                              "' built from source";
            }
        }
    }

    const char* text = source.data();
    const std::size_t length = source.size();
    cl_int status = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context.get(), 1, &text, &length, &status);
    check(status, "clCreateProgramWithSource", "program '" + name_ + "'");
    program_ = decltype(program_)(program);
    status = injected_fault(FaultPoint::build);
    if (status == CL_SUCCESS) status = clBuildProgram(program, 1, &device.id, options.c_str(), nullptr, nullptr);
    if (status != CL_SUCCESS)
        throw ClError("clBuildProgram", status, "program '" + name_ + "' on '" + device.name + "'",
                      build_log(program, device.id));
    if (cache && write == CacheWrite::store) cache->store(key, program_binary(program, name_));
}

Kernel::Kernel(const Program& program, const std::string& name) : name_(name) {
    cl_int status = CL_SUCCESS;
    cl_kernel kernel = clCreateKernel(program.get(), name.c_str(), &status);
    check(status, "clCreateKernel", "kernel '" + name + "' of program '" + program.name() + "'");
    kernel_ = decltype(kernel_)(kernel);
    check(clGetKernelWorkGroupInfo(kernel, program.device(), CL_KERNEL_WORK_GROUP_SIZE, sizeof(max_group_size_),
                                   &max_group_size_, nullptr),
          "clGetKernelWorkGroupInfo", "kernel '" + name + "'");
}

void Kernel::set_arg(cl_uint index, std::size_t size, const void* value) {
    check(clSetKernelArg(kernel_.get(), index, size, value), "clSetKernelArg",
          "argument " + std::to_string(index) + " of kernel '" + name_ + "'");
}

void Kernel::run(const Queue& queue, std::size_t items, std::size_t local) const {
    std::size_t global = items;
    if (local != 0) global = (items + local - 1) / local * local;
    cl_int status = injected_fault(FaultPoint::enqueue);
    if (status == skip_status) return;
    const cl_event gate = status == hang_status ? hang_gate(queue.get()) : nullptr;
    if (gate) status = CL_SUCCESS;
    if (status == CL_SUCCESS)
        status = clEnqueueNDRangeKernel(queue.get(), kernel_.get(), 1, nullptr, &global, local ? &local : nullptr,
                                        gate ? 1 : 0, gate ? &gate : nullptr, nullptr);
    check(status, "clEnqueueNDRangeKernel",
          "kernel '" + name_ + "' with " + std::to_string(global) + " work-items" +
              (local ? " in groups of " + std::to_string(local) : std::string()));
}

void Kernel::run_groups(const Queue& queue, const std::array<std::size_t, 3>& groups,
                        const std::array<std::size_t, 3>& local) const {
    if (groups[0] == 0 || groups[1] == 0 || groups[2] == 0) return;
    const std::size_t global[3] = {groups[0] * local[0], groups[1] * local[1], groups[2] * local[2]};
    cl_int status = injected_fault(FaultPoint::enqueue);
    if (status == skip_status) return;
    const cl_event gate = status == hang_status ? hang_gate(queue.get()) : nullptr;
    if (gate) status = CL_SUCCESS;
    if (status == CL_SUCCESS)
        status = clEnqueueNDRangeKernel(queue.get(), kernel_.get(), 3, nullptr, global, local.data(), gate ? 1 : 0,
                                        gate ? &gate : nullptr, nullptr);
    check(status, "clEnqueueNDRangeKernel",
          "kernel '" + name_ + "' with " + std::to_string(groups[0]) + "x" + std::to_string(groups[1]) + "x" +
              std::to_string(groups[2]) + " groups of " + std::to_string(local[0]) + "x" + std::to_string(local[1]) +
              "x" + std::to_string(local[2]));
}

}  // namespace bps::cl
