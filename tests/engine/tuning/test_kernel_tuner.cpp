// The tuner's choice and time budget (with a made-up clock and timings), its record on disk, and
// the real tuning of the test device through the warm-up's way of opening it.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/cl/cache_location.h"
#include "engine/device/tuning_record.h"
#include "engine/ops/device_for_work.h"
#include "engine/ops/kernel_tuner.h"
#include "tests/engine/test_device.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps;
using device::KernelTuning;

namespace {

KernelTuning conv(int tm, int tn) {
    KernelTuning tuning;
    tuning.conv = {tm, tn, 16};
    return tuning;
}

// A clock the fake timings move: each variant "takes" its build-and-time cost in seconds.
struct FakeDevice {
    std::map<KernelTuning, double> milliseconds;  // NaN: fails to build
    std::map<KernelTuning, double> cost_seconds;  // build included
    std::map<KernelTuning, double> build_seconds;
    double now = 0;
    std::vector<KernelTuning> timed;
    double time(const KernelTuning& tuning, double& build) {
        timed.push_back(tuning);
        now += cost_seconds.at(tuning);
        build = build_seconds.count(tuning) ? build_seconds.at(tuning) : 0.0;
        const double ms = milliseconds.at(tuning);
        if (std::isnan(ms)) throw std::runtime_error("CL_OUT_OF_RESOURCES building conv2d");
        return ms;
    }
};

device::TuningRecord choose(FakeDevice& fake, const std::vector<KernelTuning>& candidates, double budget) {
    return ops::choose_tuning(
        candidates, [&fake](const KernelTuning& tuning, double& build) { return fake.time(tuning, build); }, budget,
        [&fake] { return fake.now; });
}

}  // namespace

TEST_CASE("the tuner keeps the fastest variant it timed, and a variant that fails with its message", "[tuning]") {
    const std::vector<KernelTuning> candidates{conv(4, 4), conv(4, 8), conv(8, 4), conv(8, 8)};
    FakeDevice fake;
    fake.milliseconds = {{conv(4, 4), 2.0}, {conv(4, 8), 1.5}, {conv(8, 4), NAN}, {conv(8, 8), 1.8}};
    fake.cost_seconds = {{conv(4, 4), 0.1}, {conv(4, 8), 0.1}, {conv(8, 4), 0.1}, {conv(8, 8), 0.1}};
    std::vector<std::pair<std::size_t, std::size_t>> heard;
    const device::TuningRecord record = ops::choose_tuning(
        candidates, [&fake](const KernelTuning& tuning, double& build) { return fake.time(tuning, build); }, 2.0,
        [&fake] { return fake.now; },
        [&heard](std::size_t done, std::size_t total) { heard.emplace_back(done, total); });
    CHECK(record.chosen == conv(4, 8));
    REQUIRE(record.timed.size() == 4);
    CHECK(record.untimed == 0);
    CHECK(record.timed[1].milliseconds == 1.5);
    CHECK(std::isnan(record.timed[2].milliseconds));
    CHECK(record.timed[2].error == "CL_OUT_OF_RESOURCES building conv2d");
    // Today's tiles timed again once the challenger won (the fifth timing), and the win stands.
    CHECK(fake.timed.size() == 5);
    CHECK(fake.timed.back() == conv(4, 4));
    CHECK(record.today_timed_twice);
    CHECK(record.seconds == Approx(0.5));
    CHECK(record.speedup() == Approx(2.0 / 1.5));
    CHECK(heard == std::vector<std::pair<std::size_t, std::size_t>>{{1, 4}, {2, 4}, {3, 4}, {4, 4}});
    CHECK(record.summary(device::DeviceKind::DiscreteGpu) ==
          "convolution tiles 4x8, step 16: 1.33x the default (4 of 4 variants timed in 0.5 s)");
}

TEST_CASE("the tuner starts no variant that would overrun its budget, but always times today's choice", "[tuning]") {
    const std::vector<KernelTuning> candidates{conv(4, 4), conv(4, 8), conv(8, 4), conv(8, 8)};
    FakeDevice fake;
    fake.milliseconds = {{conv(4, 4), 2.0}, {conv(4, 8), 3.0}, {conv(8, 4), 0.5}, {conv(8, 8), 0.1}};
    fake.cost_seconds = {{conv(4, 4), 0.6}, {conv(4, 8), 0.9}, {conv(8, 4), 0.2}, {conv(8, 8), 0.2}};
    // 0.6 + 0.9 = 1.5 s spent; the next would start at 1.5 with 0.9 the longest so far: past 2.
    const device::TuningRecord record = choose(fake, candidates, 2.0);
    CHECK(fake.timed == std::vector<KernelTuning>{conv(4, 4), conv(4, 8)});
    CHECK_FALSE(record.today_timed_twice);
    CHECK(record.untimed == 2);
    CHECK(record.chosen == conv(4, 4));
    CHECK(record.seconds <= 2.0);
    CHECK(record.summary(device::DeviceKind::DiscreteGpu) ==
          "convolution tiles 4x4, step 16: the default, fastest (2 of 4 variants timed in 1.5 s)");

    // A budget the first variant alone overruns still times it: today's choice is always known.
    FakeDevice slow = fake;
    slow.now = 0;
    slow.timed.clear();
    const device::TuningRecord first_only = choose(slow, candidates, 0.1);
    CHECK(slow.timed == std::vector<KernelTuning>{conv(4, 4)});
    CHECK(first_only.chosen == conv(4, 4));
    CHECK(first_only.untimed == 3);
}

TEST_CASE("the budget leaves out building today's programs, which the warm-up needs anyway", "[tuning]") {
    const std::vector<KernelTuning> candidates{conv(4, 4), conv(4, 8), conv(8, 4), conv(8, 8)};
    FakeDevice fake;
    fake.milliseconds = {{conv(4, 4), 2.0}, {conv(4, 8), 3.0}, {conv(8, 4), 1.0}, {conv(8, 8), 0.5}};
    fake.cost_seconds = {{conv(4, 4), 1.6}, {conv(4, 8), 0.3}, {conv(8, 4), 0.3}, {conv(8, 8), 0.3}};
    fake.build_seconds = {{conv(4, 4), 1.5}};
    // 0.1 s spent after the first (1.6 less its 1.5 s build) and 1.6 the dearest: the second starts
    // (1.7 <= 2), then the third (0.4 + 1.6 = 2.0), not the fourth (0.7 + 1.6 > 2).
    const device::TuningRecord record = choose(fake, candidates, 2.0);
    CHECK(fake.timed == std::vector<KernelTuning>{conv(4, 4), conv(4, 8), conv(8, 4)});
    CHECK(record.untimed == 1);
    CHECK(record.shared_build_seconds == 1.5);
    CHECK(record.seconds == Approx(0.7));
    CHECK(record.chosen == conv(8, 4));
}

TEST_CASE("a variant within timing noise of today's choice does not replace it", "[tuning]") {
    FakeDevice fake;
    // 4% faster is a tie (ops::min_gain is 5%); 6% faster wins, and then the fastest of those wins.
    fake.milliseconds = {{conv(4, 4), 2.0}, {conv(4, 8), 1.92}, {conv(8, 4), 1.88}, {conv(8, 8), 1.85}};
    fake.cost_seconds = {{conv(4, 4), 0.1}, {conv(4, 8), 0.1}, {conv(8, 4), 0.1}, {conv(8, 8), 0.1}};
    CHECK(ops::min_gain == 0.05);
    CHECK(choose(fake, {conv(4, 4), conv(4, 8)}, 2.0).chosen == conv(4, 4));
    CHECK(choose(fake, {conv(4, 4), conv(4, 8), conv(8, 4)}, 2.0).chosen == conv(8, 4));
    CHECK(choose(fake, {conv(4, 4), conv(8, 4), conv(4, 8), conv(8, 8)}, 2.0).chosen == conv(8, 8));
}

TEST_CASE("a challenger that only beat a slow first timing of today's tiles does not replace them", "[tuning]") {
    // Today's first timing 2.0 ms, as a cold start's can be; timed again it takes 1.7, and the
    // challenger's 1.65 is then within noise of it.
    FakeDevice fake;
    std::vector<double> today_times{2.0, 1.7};
    fake.cost_seconds = {{conv(4, 4), 0.1}, {conv(8, 4), 0.1}};
    fake.milliseconds = {{conv(8, 4), 1.65}};
    const device::TuningRecord record = ops::choose_tuning(
        {conv(4, 4), conv(8, 4)},
        [&](const KernelTuning& tuning, double& build) {
            if (tuning != conv(4, 4)) return fake.time(tuning, build);
            fake.timed.push_back(tuning);
            const double ms = today_times.front();
            today_times.erase(today_times.begin());
            return ms;
        },
        2.0, [&fake] { return fake.now; });
    CHECK(fake.timed == std::vector<KernelTuning>{conv(4, 4), conv(8, 4), conv(4, 4)});
    CHECK(record.today_timed_twice);
    CHECK(record.chosen == conv(4, 4));
    CHECK(record.timed.front().milliseconds == 1.7);
}

TEST_CASE("a device whose every variant fails keeps today's choice", "[tuning]") {
    FakeDevice fake;
    fake.milliseconds = {{conv(4, 4), NAN}, {conv(8, 8), NAN}};
    fake.cost_seconds = {{conv(4, 4), 0.1}, {conv(8, 8), 0.1}};
    const device::TuningRecord record = choose(fake, {conv(4, 4), conv(8, 8)}, 2.0);
    CHECK(record.chosen == conv(4, 4));
    CHECK(record.timed.size() == 2);
    CHECK(record.speedup() == 1.0);
}

TEST_CASE("a stored tuning reads back for its device and driver only, and a damaged or unknown one not at all",
          "[tuning]") {
    test::TempDir root("tuning-record");
    device::DeviceDescription device = test::test_device();
    device.kind = device::DeviceKind::DiscreteGpu;  // whose summary names the convolution tiles
    device::TuningRecord record;
    record.chosen = conv(8, 4);
    record.timed = {{conv(4, 4), 2.0, ""}, {conv(8, 4), 1.6, ""}, {conv(8, 8), NAN, "CL_OUT_OF_RESOURCES"}};
    record.untimed = 1;
    record.seconds = 1.25;
    record.shared_build_seconds = 0.75;
    record.today_timed_twice = true;
    record.date = "2026-11-27 13:00 UTC";
    REQUIRE(device::store_tuning(root.path(), device, record));
    const std::filesystem::path path = device::tuning_record_path(root.path(), device);
    CHECK(path.parent_path() == root.path() / "tuning");

    // What is on disk, read as plain JSON.
    std::ifstream file(path);
    const nlohmann::json json = nlohmann::json::parse(file);
    CHECK(json["device"] == device.name);
    CHECK(json["driver"] == device.driver_version);
    CHECK(json["chosen"]["conv2d"] == nlohmann::json({{"TM", 8}, {"TN", 4}, {"STEP", 16}}));
    CHECK(json["timed"][2]["milliseconds"].is_null());
    CHECK(json["timed"][2]["error"] == "CL_OUT_OF_RESOURCES");

    const std::optional<device::TuningRecord> read = device::read_tuning(root.path(), device);
    REQUIRE(read);
    CHECK(read->chosen == record.chosen);
    REQUIRE(read->timed.size() == 3);
    CHECK(read->timed[1].milliseconds == 1.6);
    CHECK(std::isnan(read->timed[2].milliseconds));
    CHECK(read->untimed == 1);
    CHECK(read->shared_build_seconds == 0.75);
    CHECK(read->today_timed_twice);
    CHECK(read->date == record.date);
    device::fill_tuning_state(root.path(), device);
    CHECK(device.tuning == record.chosen);
    CHECK(device.tuning_summary ==
          "convolution tiles 8x4, step 16: 1.25x the default (3 of 4 variants timed in 1.2 s)");

    // Another driver has its own record (none yet): the source's tiles.
    device::DeviceDescription updated = device;
    updated.driver_version += ".1";
    CHECK_FALSE(device::read_tuning(root.path(), updated));
    device::fill_tuning_state(root.path(), updated);
    CHECK(updated.tuning == KernelTuning{});
    CHECK(updated.tuning_summary.empty());

    // A tile the kernels were never checked with, as a hand edit would leave it, is not used.
    nlohmann::json edited = json;
    edited["chosen"]["conv2d"]["TM"] = 3;
    std::ofstream(path) << edited.dump();
    CHECK_FALSE(device::read_tuning(root.path(), device));

    std::ofstream(path) << json.dump().substr(0, 80);  // cut short
    CHECK_FALSE(device::read_tuning(root.path(), device));
}

TEST_CASE("of two warm-ups tuning one device at once, the first to keep its record wins and the other adopts it",
          "[tuning]") {
    test::TempDir root("tuning-keep");
    const device::DeviceDescription device = test::test_device();
    device::TuningRecord first, second;
    first.chosen = conv(4, 8);
    first.timed = {{conv(4, 4), 2.0, ""}, {conv(4, 8), 1.5, ""}};
    second.chosen = conv(4, 4);
    second.timed = {{conv(4, 4), 1.9, ""}, {conv(4, 8), 1.95, ""}};

    const std::optional<device::TuningRecord> kept_first = device::keep_tuning(root.path(), device, first);
    REQUIRE(kept_first);
    CHECK(kept_first->chosen == first.chosen);
    const std::optional<device::TuningRecord> kept_second = device::keep_tuning(root.path(), device, second);
    REQUIRE(kept_second);
    CHECK(kept_second->chosen == first.chosen);  // the second adopts the first's choice
    CHECK(kept_second->timed[0].milliseconds == 2.0);
    CHECK(device::read_tuning(root.path(), device)->chosen == first.chosen);
    // Only the record: no file of the second's left beside it.
    std::size_t files = 0;
    for (const auto& item : std::filesystem::directory_iterator(root.path() / "tuning"))
        files += item.is_regular_file();
    CHECK(files == 1);
}

TEST_CASE("opening a device for the warm-up tunes it once, stores the winner, and builds with it", "[tuning]") {
    test::TempDir root("tuning-warm-up");
    test::ScopedEnvironment cache("BACKPROP_CACHE_DIR", root.path().string());
    cl::DeviceInfo device = test::test_device();
    device.tuning = {};
    device.tuning_summary.clear();
    const std::size_t candidates = device::tuning_candidates(device.kind).size();
    std::vector<std::size_t> heard;
    device::DeviceOpening opening;
    opening.tuning = [&heard](std::size_t done, std::size_t total) {
        heard.push_back(done);
        CHECK(total == device::tuning_candidates(test::test_device().kind).size());
    };
    std::optional<device::TuningRecord> tuned;
    {
        device::DeviceForWork opened(device, opening);
        REQUIRE(opened.tuned());
        tuned = opened.tuned();
        CHECK(opened.runtime().tuning() == tuned->chosen);
    }
    // Every variant the budget allowed was timed, each heard once, in order; today's first.
    REQUIRE_FALSE(tuned->timed.empty());
    CHECK(tuned->timed.size() + tuned->untimed == candidates);
    CHECK(heard.size() == tuned->timed.size());
    CHECK(tuned->timed.front().tuning == KernelTuning{});
    for (const device::VariantTime& variant : tuned->timed) {
        INFO(variant.tuning.describe(device.kind) << ": " << variant.error);
        CHECK(variant.error.empty());
        CHECK(variant.milliseconds > 0);
    }
    CHECK(tuned->seconds > 0);

    // Discovery now gives the device its tuning, and the next opening does not tune again.
    const std::optional<device::TuningRecord> stored = device::read_tuning(cl::cache_root(), device);
    REQUIRE(stored);
    CHECK(stored->chosen == tuned->chosen);
    const std::vector<cl::DeviceInfo> found = cl::discover_devices();
    const cl::DeviceInfo& again = found.at(device.index);
    CHECK(again.tuning == tuned->chosen);
    CHECK(again.tuning_summary == tuned->summary(device.kind));
    heard.clear();
    device::DeviceForWork reopened(again, opening);
    CHECK_FALSE(reopened.tuned());
    CHECK(heard.empty());
}
