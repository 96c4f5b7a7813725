#include <catch2/catch.hpp>
#include <fstream>
#include <random>

#include "engine/cl/context.h"
#include "engine/cl/kernel_library.h"
#include "engine/cl/program.h"
#include "engine/kernel_cache/kernel_cache.h"
#include "kernels/embedded_kernels.h"
#include "tests/engine/test_device.h"
#include "tests/support/temp_dir.h"

using namespace bps;

namespace {

std::vector<float> random_floats(std::size_t n, unsigned seed) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> distribution(-2.0f, 2.0f);
    std::vector<float> values(n);
    for (float& value : values) value = distribution(generator);
    return values;
}

// Runs elementwise.cl's axpy on the device and returns y.
std::vector<float> device_axpy(const cl::Context& context, const cl::Program& program, float alpha,
                               const std::vector<float>& x, std::vector<float> y) {
    const cl::Queue queue(context);
    const std::size_t bytes = x.size() * sizeof(float);
    const cl::Buffer x_buffer(context, bytes), y_buffer(context, bytes);
    x_buffer.write(queue, x.data(), bytes);
    y_buffer.write(queue, y.data(), bytes);
    cl::Kernel axpy(program, "axpy");
    axpy.arg(0, static_cast<cl_int>(x.size())).arg(1, alpha).arg(2, x_buffer).arg(3, y_buffer);
    axpy.run(queue, x.size(), 64);
    y_buffer.read(queue, y.data(), bytes);
    return y;
}

// Checks axpy on random inputs against the plain C++ reference.
void check_axpy(const cl::Context& context, const cl::Program& program, std::size_t n) {
    const float alpha = -1.75f;
    const std::vector<float> x = random_floats(n, 11), y = random_floats(n, 12);
    const std::vector<float> result = device_axpy(context, program, alpha, x, y);
    for (std::size_t i = 0; i < n; ++i) {
        const float expected = alpha * x[i] + y[i];
        INFO("n " << n << ", element " << i);
        // One rounding of difference at most (a fused multiply-add rounds once, not twice).
        REQUIRE(result[i] == Approx(expected).epsilon(1e-6).margin(1e-6));
    }
}

std::vector<std::filesystem::path> cache_entries(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> entries;
    for (const auto& item : std::filesystem::recursive_directory_iterator(dir))
        if (item.is_regular_file() && item.path().extension() == ".bin") entries.push_back(item.path());
    return entries;
}

}  // namespace

TEST_CASE("axpy on the device matches the C++ reference on random inputs of odd sizes") {
    const cl::Context context(test::test_device());
    const cl::Program program(context, "elementwise", kernels::embedded_source("elementwise"));
    for (std::size_t n : {std::size_t{1}, std::size_t{63}, std::size_t{1000}, std::size_t{4097}})
        check_axpy(context, program, n);
}

TEST_CASE("fill sets every element and nothing beyond n") {
    const cl::Context context(test::test_device());
    const cl::Queue queue(context);
    const cl::Program program(context, "elementwise", kernels::embedded_source("elementwise"));
    std::vector<float> values = random_floats(130, 5);
    const cl::Buffer buffer(context, values.size() * sizeof(float));
    buffer.write(queue, values.data(), values.size() * sizeof(float));
    cl::Kernel fill(program, "fill");
    fill.arg(0, cl_int{129}).arg(1, 3.5f).arg(2, buffer);
    fill.run(queue, 129, 32);
    const float last = values.back();
    buffer.read(queue, values.data(), values.size() * sizeof(float));
    for (std::size_t i = 0; i < 129; ++i) REQUIRE(values[i] == 3.5f);
    CHECK(values[129] == last);
}

TEST_CASE("every embedded kernel file compiles for the device") {
    const cl::Context context(test::test_device());
    const std::vector<cl::ProgramBuild> builds = cl::build_engine_programs(context, nullptr);
    REQUIRE(builds.size() == kernels::embedded_sources().size());
    bool has_elementwise = false;
    for (const cl::ProgramBuild& build : builds) {
        CHECK_FALSE(build.from_cache);
        has_elementwise = has_elementwise || build.name == "elementwise";
    }
    CHECK(has_elementwise);
    CHECK_THROWS_WITH(kernels::embedded_source("no_such_file"), Catch::Contains("kernels/no_such_file.cl"));
}

TEST_CASE("the second build of the same program is a cache hit and runs correctly") {
    test::TempDir dir("program-cache");
    const cl::Context context(test::test_device());
    cl::KernelCache cache(dir.path());
    const cl::Program first(context, "elementwise", kernels::embedded_source("elementwise"), {}, &cache);
    CHECK_FALSE(first.from_cache());
    CHECK(cache.stats().misses == 1);
    CHECK(cache.stats().stored == 1);
    const cl::Program second(context, "elementwise", kernels::embedded_source("elementwise"), {}, &cache);
    CHECK(second.from_cache());
    CHECK(cache.stats().hits == 1);
    check_axpy(context, second, 777);

    SECTION("other build options are another entry") {
        const cl::Program third(context, "elementwise", kernels::embedded_source("elementwise"),
                                "-cl-fast-relaxed-math", &cache);
        CHECK_FALSE(third.from_cache());
        CHECK(cache_entries(dir.path()).size() == 2);
    }
}

TEST_CASE("a damaged cache entry is rebuilt from source and the program still runs") {
    test::TempDir dir("program-cache-damage");
    const cl::Context context(test::test_device());
    const auto source = kernels::embedded_source("elementwise");
    {
        cl::KernelCache cache(dir.path());
        const cl::Program warm(context, "elementwise", source, {}, &cache);
    }
    const std::vector<std::filesystem::path> entries = cache_entries(dir.path());
    REQUIRE(entries.size() == 1);
    const auto size = std::filesystem::file_size(entries[0]);

    SECTION("one flipped byte") {
        std::fstream file(entries[0], std::ios::in | std::ios::out | std::ios::binary);
        file.seekg(static_cast<std::streamoff>(size - 10));
        char byte = 0;
        file.read(&byte, 1);
        file.seekp(static_cast<std::streamoff>(size - 10));
        byte = static_cast<char>(byte ^ 0x5a);
        file.write(&byte, 1);
    }
    SECTION("truncated to half") {
        std::filesystem::resize_file(entries[0], size / 2);
    }

    cl::KernelCache cache(dir.path());
    const cl::Program rebuilt(context, "elementwise", source, {}, &cache);
    CHECK_FALSE(rebuilt.from_cache());
    CHECK(cache.stats().rejected == 1);
    check_axpy(context, rebuilt, 333);
    // The rebuilt binary replaced the damaged entry: the next build is a hit again.
    cl::KernelCache again(dir.path());
    CHECK(cl::Program(context, "elementwise", source, {}, &again).from_cache());
}

TEST_CASE("a different driver version does not load the other driver's binary") {
    test::TempDir dir("program-cache-driver");
    const cl::Context context(test::test_device());
    const auto source = kernels::embedded_source("elementwise");
    cl::KernelCache cache(dir.path());
    const cl::Program original(context, "elementwise", source, {}, &cache);

    cl::DeviceInfo updated = test::test_device();
    updated.driver_version += "-updated";
    const cl::Context updated_context(updated);
    const cl::Program rebuilt(updated_context, "elementwise", source, {}, &cache);
    CHECK_FALSE(rebuilt.from_cache());
    check_axpy(updated_context, rebuilt, 100);
    CHECK(cl::Program(context, "elementwise", source, {}, &cache).from_cache());
}

TEST_CASE("a cache entry holding another program's binary is removed, rebuilt from source and named in a note") {
    test::TempDir dir("program-cache-other");
    const cl::Context context(test::test_device());
    const auto elementwise = kernels::embedded_source("elementwise");
    const auto activation = kernels::embedded_source("activation");
    std::vector<unsigned char> other_binary;
    {
        // The binary of 'activation', stored under the key of 'elementwise' with a valid header:
        // the checksum holds, the driver loads it, and only the kernels inside are wrong.
        cl::KernelCache scratch((dir.path() / "scratch"));
        const cl::Program built(context, "activation", activation, {}, &scratch);
        std::size_t size = 0;
        REQUIRE(clGetProgramInfo(built.get(), CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) == CL_SUCCESS);
        other_binary.resize(size);
        unsigned char* pointer = other_binary.data();
        REQUIRE(clGetProgramInfo(built.get(), CL_PROGRAM_BINARIES, sizeof pointer, &pointer, nullptr) == CL_SUCCESS);
    }
    const cl::DeviceInfo& device = test::test_device();
    const cl::CacheKey key{std::string(elementwise), {},          device.platform_name,
                           device.platform_version,  device.name, device.driver_version};
    cl::KernelCache cache(dir.path() / "kernels");
    REQUIRE(cache.store(key, other_binary));

    const cl::Program rebuilt(context, "elementwise", elementwise, {}, &cache);
    CHECK_FALSE(rebuilt.from_cache());
    CHECK(cache.stats().rejected == 1);
    CHECK_THAT(rebuilt.cache_note(), Catch::Contains(cache.entry_path(key).string()) &&
                                         Catch::Contains("held another program than 'elementwise'"));
    check_axpy(context, rebuilt, 129);  // axpy exists: CL_INVALID_KERNEL_NAME is gone
    // The rebuilt binary took the entry's place: the next build loads it, with nothing to say.
    cl::KernelCache again(dir.path() / "kernels");
    const cl::Program reloaded(context, "elementwise", elementwise, {}, &again);
    CHECK(reloaded.from_cache());
    CHECK(reloaded.cache_note().empty());
}
