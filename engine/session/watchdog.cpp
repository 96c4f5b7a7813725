#include "engine/session/watchdog.h"

#include <algorithm>

namespace bps::session {

Watchdog::Watchdog(std::chrono::milliseconds limit, std::chrono::milliseconds first_limit,
                   std::function<void(std::chrono::milliseconds, std::size_t)> overdue)
    : limit_(limit),
      first_limit_(std::max(first_limit, limit)),
      overdue_(std::move(overdue)),
      last_beat_ns_(now_ns()),
      thread_([this] { watch(); }) {}

Watchdog::~Watchdog() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    stop_changed_.notify_all();
    thread_.join();
}

std::int64_t Watchdog::now_ns() noexcept {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

void Watchdog::beat(std::size_t progress) noexcept {
    progress_.store(progress, std::memory_order_relaxed);
    last_beat_ns_.store(now_ns(), std::memory_order_relaxed);
    beaten_.store(true, std::memory_order_relaxed);
    held_.store(false, std::memory_order_relaxed);
}

void Watchdog::hold() noexcept {
    held_.store(true, std::memory_order_relaxed);
}

void Watchdog::go_on() noexcept {
    last_beat_ns_.store(now_ns(), std::memory_order_relaxed);
    held_.store(false, std::memory_order_relaxed);
}

void Watchdog::watch() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
        const std::chrono::milliseconds bound = beaten_ ? limit_ : first_limit_;
        const std::chrono::nanoseconds since(now_ns() - last_beat_ns_.load(std::memory_order_relaxed));
        if (!held_ && since >= bound) {
            lock.unlock();
            overdue_(std::chrono::duration_cast<std::chrono::milliseconds>(since), progress_.load());
            return;
        }
        // Wakes when the bound would pass if no beat came, and at least once per `limit`: a beat
        // moves the bound on without waking it, so the overdue call comes within twice the limit.
        const std::chrono::nanoseconds wait =
            held_ ? std::chrono::nanoseconds(limit_) : std::min<std::chrono::nanoseconds>(bound - since, limit_);
        stop_changed_.wait_for(lock, wait, [this] { return stop_; });
    }
}

}  // namespace bps::session
