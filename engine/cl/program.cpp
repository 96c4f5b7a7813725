#include "engine/cl/program.h"

#include <vector>

#include "engine/cl/error.h"
#include "engine/cl/kernel_cache.h"

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

}  // namespace

Program::Program(const Context& context, std::string name, std::string_view source, std::string options,
                 KernelCache* cache)
    : name_(std::move(name)), device_(context.device().id) {
    const DeviceInfo& device = context.device();
    const CacheKey key{std::string(source),     options,     device.platform_name,
                       device.platform_version, device.name, device.driver_version};
    if (cache) {
        if (auto binary = cache->load(key)) {
            if (cl_program program = try_build_from_binary(context, *binary, options)) {
                program_ = decltype(program_)(program);
                from_cache_ = true;
                return;
            }
        }
    }

    const char* text = source.data();
    const std::size_t length = source.size();
    cl_int status = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context.get(), 1, &text, &length, &status);
    check(status, "clCreateProgramWithSource", "program '" + name_ + "'");
    program_ = decltype(program_)(program);
    status = clBuildProgram(program, 1, &device.id, options.c_str(), nullptr, nullptr);
    if (status != CL_SUCCESS)
        throw ClError("clBuildProgram", status, "program '" + name_ + "' on '" + device.name + "'",
                      build_log(program, device.id));
    if (cache) cache->store(key, program_binary(program, name_));
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
    check(clEnqueueNDRangeKernel(queue.get(), kernel_.get(), 1, nullptr, &global, local ? &local : nullptr, 0, nullptr,
                                 nullptr),
          "clEnqueueNDRangeKernel",
          "kernel '" + name_ + "' with " + std::to_string(global) + " work-items" +
              (local ? " in groups of " + std::to_string(local) : std::string()));
}

void Kernel::run_groups(const Queue& queue, const std::array<std::size_t, 3>& groups,
                        const std::array<std::size_t, 3>& local) const {
    if (groups[0] == 0 || groups[1] == 0 || groups[2] == 0) return;
    const std::size_t global[3] = {groups[0] * local[0], groups[1] * local[1], groups[2] * local[2]};
    check(clEnqueueNDRangeKernel(queue.get(), kernel_.get(), 3, nullptr, global, local.data(), 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel",
          "kernel '" + name_ + "' with " + std::to_string(groups[0]) + "x" + std::to_string(groups[1]) + "x" +
              std::to_string(groups[2]) + " groups of " + std::to_string(local[0]) + "x" + std::to_string(local[1]) +
              "x" + std::to_string(local[2]));
}

}  // namespace bps::cl
