// The rules of pause, resume, step and stop, without a device: a worker thread calls
// before_batch as a training loop does, and the test steers it from this thread. Every wait is a
// bounded wait on the worker's own reports.
#include <algorithm>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/session/run_control.h"

using namespace bps::session;

namespace {
// A loop of `batches` batches on its own thread, recording what it did.
struct Worker {
    RunControl control;
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::string> log;  // "batch", "batch (step)", "paused", "running", "stopped", "done"
    std::thread thread;

    // Starts paused, so the test, not the scheduler, decides when the first batch runs.
    explicit Worker(int batches) {
        control.pause();
        thread = std::thread([this, batches] {
            for (int i = 0; i < batches; ++i) {
                if (!control.before_batch([this](bool paused) { add(paused ? "paused" : "running"); })) {
                    add("stopped");
                    return;
                }
                add(control.stepping() ? "batch (step)" : "batch");
            }
            add("done");
        });
    }
    ~Worker() {
        control.stop();
        thread.join();
    }
    void add(const std::string& entry) {
        {
            std::lock_guard lock(mutex);
            log.push_back(entry);
        }
        changed.notify_all();
    }
    bool wait_for_entry(const std::string& entry, std::size_t count = 1) {
        std::unique_lock lock(mutex);
        return changed.wait_for(lock, std::chrono::seconds(60), [&] {
            return static_cast<std::size_t>(std::count(log.begin(), log.end(), entry)) >= count;
        });
    }
    std::vector<std::string> entries() {
        std::lock_guard lock(mutex);
        return log;
    }
};
}  // namespace

TEST_CASE("a paused run waits, reports it, and stop while paused stops", "[job][control]") {
    RunControl control;
    control.pause();
    std::vector<std::string> log;
    std::thread stopper;
    const bool went_on = control.before_batch([&](bool is_paused) {
        log.push_back(is_paused ? "paused" : "running");
        if (is_paused) stopper = std::thread([&control] { control.stop(); });
    });
    stopper.join();
    CHECK_FALSE(went_on);
    CHECK(log == std::vector<std::string>{"paused"});
    CHECK(control.stop_requested());
}

TEST_CASE("resume with nothing paused does nothing and step while running does nothing", "[job][control]") {
    RunControl control;
    control.resume();
    control.step();
    CHECK_FALSE(control.paused());
    std::vector<std::string> log;
    CHECK(control.before_batch([&](bool is_paused) { log.push_back(is_paused ? "paused" : "running"); }));
    CHECK_FALSE(control.stepping());
    CHECK(log.empty());
    // A step asked for while running is not saved up for a later pause.
    control.pause();
    std::thread resumer;
    CHECK(control.before_batch([&](bool is_paused) {
        log.push_back(is_paused ? "paused" : "running");
        if (is_paused) resumer = std::thread([&control] { control.resume(); });
    }));
    resumer.join();
    CHECK(log == std::vector<std::string>{"paused", "running"});
    CHECK_FALSE(control.stepping());
}

TEST_CASE("each step lets exactly one batch through and the run stays paused", "[job][control]") {
    Worker worker(100);
    REQUIRE(worker.wait_for_entry("paused"));
    const std::size_t before = worker.entries().size();
    worker.control.step();
    REQUIRE(worker.wait_for_entry("batch (step)", 1));
    worker.control.step();
    REQUIRE(worker.wait_for_entry("batch (step)", 2));
    worker.control.resume();
    REQUIRE(worker.wait_for_entry("running"));
    REQUIRE(worker.wait_for_entry("done"));
    const std::vector<std::string> log = worker.entries();
    // After the pause: two steps, then running again; "paused" was reported once.
    REQUIRE(log.size() > before + 3);
    CHECK(log[before] == "batch (step)");
    CHECK(log[before + 1] == "batch (step)");
    CHECK(log[before + 2] == "running");
    CHECK(std::count(log.begin(), log.end(), "paused") == 1);
}

TEST_CASE("a learning rate must be positive and finite", "[job][control]") {
    RunControl control;
    CHECK(control.learning_rate(0.5f) == 0.5f);
    control.set_learning_rate(0.0f);
    control.set_learning_rate(-1.0f);
    control.set_learning_rate(std::numeric_limits<float>::infinity());
    control.set_learning_rate(std::numeric_limits<float>::quiet_NaN());
    CHECK(control.learning_rate(0.5f) == 0.5f);
    control.set_learning_rate(0.25f);
    CHECK(control.learning_rate(0.5f) == 0.25f);
}
