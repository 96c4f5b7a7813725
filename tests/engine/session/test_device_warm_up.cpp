// The studio's warm-up at start: the engine's programs built into an empty kernel cache, reported
// one by one, and the self-test run and stored; a second warm-up finds everything ready and does
// nothing.
#include <catch2/catch.hpp>
#include <vector>

#include "engine/cl/cache_location.h"
#include "engine/device/self_test_record.h"
#include "engine/device/tuning_record.h"
#include "engine/kernel_cache/kernel_cache.h"
#include "engine/session/device_warm_up.h"
#include "kernels/embedded_kernels.h"
#include "tests/engine/test_device.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps;

TEST_CASE("a warm-up fills an empty kernel cache and stores the self-test, and a second one does nothing",
          "[warm-up]") {
    test::TempDir root("warm-up");
    test::ScopedEnvironment cache("BACKPROP_CACHE_DIR", root.path().string());
    const std::size_t programs = kernels::embedded_sources().size();
    REQUIRE_FALSE(session::device_is_warm(test::test_device()));

    std::vector<session::WarmUpProgress> heard;
    const session::DeviceWarmUp first =
        session::warm_up_device(test::test_device(), [&](const session::WarmUpProgress& p) { heard.push_back(p); });
    CHECK_FALSE(first.was_warm);
    CHECK(first.programs == programs);
    // Opening (0 of 0), each tile variant the tuning timed (ops/kernel_tuner.h), then 0 of N before
    // the first build, each program, and the self-test.
    REQUIRE(first.tuning.has_value());
    const std::size_t tuned = first.tuning->timed.size();
    CHECK(tuned + first.tuning->untimed == device::tuning_candidates(test::test_device().kind).size());
    REQUIRE(heard.size() == 1 + tuned + programs + 2);
    CHECK(heard.front().total == 0);
    for (std::size_t i = 1; i <= tuned; ++i) {
        CHECK(heard[i].tuning);
        CHECK(heard[i].done == i);
    }
    for (std::size_t i = 1; i <= programs + 1; ++i) {
        CHECK(heard[tuned + i].done == i - 1);
        CHECK(heard[tuned + i].total == programs);
        CHECK_FALSE(heard[tuned + i].testing);
        CHECK_FALSE(heard[tuned + i].tuning);
    }
    CHECK(heard.back().testing);
    // The tuning is stored, and discovery gives the device the winner from now on.
    const std::optional<device::TuningRecord> stored = device::read_tuning(cl::cache_root(), test::test_device());
    REQUIRE(stored);
    CHECK(stored->chosen == first.tuning->chosen);
    REQUIRE(first.self_test.has_value());
    INFO(first.self_test->summary());
    CHECK(first.self_test->correct());
    CHECK(cl::KernelCache(cl::kernel_cache_dir()).info().entries == programs);
    CHECK(device::read_self_test(cl::cache_root(), test::test_device()).has_value());

    CHECK(session::device_is_warm(test::test_device()));
    heard.clear();
    const session::DeviceWarmUp second =
        session::warm_up_device(test::test_device(), [&](const session::WarmUpProgress& p) { heard.push_back(p); });
    CHECK(second.was_warm);
    CHECK_FALSE(second.tuning.has_value());
    CHECK_FALSE(second.self_test.has_value());
    CHECK(heard.empty());
}

TEST_CASE("a warm-up of a device that is gone says so", "[warm-up]") {
    test::TempDir root("warm-up-gone");
    test::ScopedEnvironment cache("BACKPROP_CACHE_DIR", root.path().string());
    device::DeviceDescription gone = test::test_device();
    gone.name = "a device unplugged";
    CHECK_THROWS_AS(session::warm_up_device(gone), device::NoDeviceError);
    CHECK_THROWS_AS(session::device_is_warm(gone), device::NoDeviceError);
}
