#pragma once
// Notices a device that stopped making progress. The worker beats once per batch it trains or
// evaluates; a batch never runs more than two uploads ahead of the device (ops::StagedUpload), so
// a device that hangs stops the beats within a batch or two. When no beat comes for `limit`, the
// watchdog calls `overdue` once, on its own thread: the worker itself is stuck in a driver call
// that nothing can interrupt. A pause is waiting by choice and is not counted.
//
// The first beat may take longer (`first_limit`): the first step compiles what the driver builds
// lazily (CLBlast's GEMM kernels, ~11 s on a cold cache here, longer on a slow laptop).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace bps::session {

class Watchdog {
public:
    using Clock = std::chrono::steady_clock;

    // `overdue` gets how long it has been since the last beat (or the start), and the progress
    // that beat carried.
    Watchdog(std::chrono::milliseconds limit, std::chrono::milliseconds first_limit,
             std::function<void(std::chrono::milliseconds, std::size_t)> overdue);
    ~Watchdog();  // stops watching; waits for an overdue call in progress
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

    // The worker: progress, with a count for the message (batches trained); never blocks, never
    // wakes the watchdog's thread.
    void beat(std::size_t progress) noexcept;
    // The worker: waiting by choice (a pause), until go_on() or the next beat.
    void hold() noexcept;
    // The worker: working again after hold(); the bound counts from now.
    void go_on() noexcept;

private:
    void watch();
    static std::int64_t now_ns() noexcept;

    std::chrono::milliseconds limit_, first_limit_;
    std::function<void(std::chrono::milliseconds, std::size_t)> overdue_;
    std::atomic<std::int64_t> last_beat_ns_;
    std::atomic<std::size_t> progress_{0};
    std::atomic<bool> beaten_{false};
    std::atomic<bool> held_{false};
    std::mutex mutex_;
    std::condition_variable stop_changed_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace bps::session
