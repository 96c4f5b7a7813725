// A measurement, hidden from ctest (run `engine_tests "[.measure]" -s`): the cnn template on
// Fashion-MNIST for 400 batches of 64, without live snapshots and with one every 250 ms (what the
// Inside view asks while it is shown), alternated five times so that a busy machine hurts both
// alike; the best and the median of each are compared (other programs only ever slow a run down,
// so the best is the closest to the run alone). The bound: live snapshots cost at most 5%
// of the images per second.
#include <algorithm>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>

#include "engine/session/training_job.h"

using namespace bps;
using namespace bps::session;

namespace {

struct Measured {
    double images_per_second = 0;
    std::size_t snapshots = 0;
};

Measured train_cnn(std::chrono::milliseconds inside_interval) {
    JobSetup setup;
    setup.project = project::example_project("cnn");
    setup.project.training.batch_size = 64;
    setup.source = "cnn.json";
    setup.batch_limit = 400;
    setup.inside_interval = inside_interval;
    std::mutex mutex;
    std::condition_variable changed;
    bool ended = false;
    Measured measured;
    std::optional<std::string> failure;
    JobEvents events;
    // The last report's: the epoch's images so far over its time so far.
    events.batch = [&](const BatchReport& report) {
        std::lock_guard lock(mutex);
        measured.images_per_second = report.images_per_second;
    };
    events.inside = [&](std::shared_ptr<const InsideSnapshot>) {
        std::lock_guard lock(mutex);
        ++measured.snapshots;
    };
    events.finished = [&](const JobResult&) {
        std::lock_guard lock(mutex);
        ended = true;
        changed.notify_all();
    };
    events.failed = [&](const JobFailure& problem) {
        std::lock_guard lock(mutex);
        failure = problem.message;
        ended = true;
        changed.notify_all();
    };
    TrainingJob job(setup, events);
    std::unique_lock lock(mutex);
    REQUIRE(changed.wait_for(lock, std::chrono::minutes(9), [&] { return ended; }));
    INFO(failure.value_or(""));
    REQUIRE_FALSE(failure);
    return measured;
}

}  // namespace

TEST_CASE("live snapshots every 250 ms cost the cnn at most 5% of its images per second", "[.measure]") {
    std::vector<double> without, with;
    constexpr int rounds = 5;
    for (int round = 0; round < rounds; ++round) {
        const Measured plain = train_cnn(std::chrono::milliseconds(0));
        const Measured live = train_cnn(std::chrono::milliseconds(250));
        WARN("round " << round << ": " << plain.images_per_second << " images/s without live snapshots, "
                      << live.images_per_second << " images/s with one every 250 ms (" << live.snapshots
                      << " snapshots)");
        CHECK(plain.snapshots == 0);
        CHECK(live.snapshots > 0);
        without.push_back(plain.images_per_second);
        with.push_back(live.images_per_second);
    }
    const auto median = [](std::vector<double> values) {
        std::sort(values.begin(), values.end());
        return values[values.size() / 2];
    };
    const double best_plain = *std::max_element(without.begin(), without.end());
    const double best_live = *std::max_element(with.begin(), with.end());
    WARN("best: " << best_plain << " images/s without, " << best_live << " with; median: " << median(without)
                  << " without, " << median(with) << " with");
    CHECK(best_live >= 0.95 * best_plain);
}
