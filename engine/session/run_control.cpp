#include "engine/session/run_control.h"

#include <cmath>

namespace bps::session {

void RunControl::pause() {
    std::lock_guard lock(mutex_);
    paused_ = true;
}

void RunControl::resume() {
    {
        std::lock_guard lock(mutex_);
        if (!paused_) return;
        paused_ = false;
        steps_ = 0;
    }
    changed_.notify_all();
}

void RunControl::step() {
    {
        std::lock_guard lock(mutex_);
        if (!paused_) return;
        ++steps_;
    }
    changed_.notify_all();
}

void RunControl::stop() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
}

void RunControl::set_learning_rate(float rate) {
    if (!(rate > 0) || !std::isfinite(rate)) return;
    std::lock_guard lock(mutex_);
    rate_ = rate;
}

bool RunControl::paused() const {
    std::lock_guard lock(mutex_);
    return paused_;
}

bool RunControl::stop_requested() const {
    std::lock_guard lock(mutex_);
    return stop_;
}

bool RunControl::stepping() const {
    std::lock_guard lock(mutex_);
    return stepping_;
}

float RunControl::learning_rate(float fallback) const {
    std::lock_guard lock(mutex_);
    return rate_.value_or(fallback);
}

bool RunControl::before_batch(const std::function<void(bool paused)>& changed) {
    std::unique_lock lock(mutex_);
    stepping_ = false;
    for (;;) {
        if (stop_) return false;
        if (!paused_) {
            if (!waiting_) return true;
            waiting_ = false;
            lock.unlock();
            if (changed) changed(false);
            lock.lock();
            continue;  // a pause or stop may have come meanwhile
        }
        if (steps_ > 0) {
            --steps_;
            stepping_ = true;
            return true;
        }
        if (!waiting_) {
            waiting_ = true;
            lock.unlock();
            if (changed) changed(true);
            lock.lock();
            continue;
        }
        changed_.wait(lock);
    }
}

}  // namespace bps::session
