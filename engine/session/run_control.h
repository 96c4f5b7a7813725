#pragma once
// The steering of a run: pause, resume, step, stop and a new learning rate, asked for from any
// thread in any order and honoured by the worker at the next batch boundary. No device involved,
// so its rules are tested on their own:
//   - resume with nothing paused does nothing; step while running does nothing;
//   - step while paused lets exactly one batch run, then the run is paused again;
//   - stop wins over everything, also while paused;
//   - the worker reports every change it acts on (paused, running again) through a callback.
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>

namespace bps::session {

class RunControl {
public:
    // Any thread.
    void pause();
    void resume();
    void step();
    void stop();
    void set_learning_rate(float rate);  // ignored unless positive and finite

    bool paused() const;
    bool stop_requested() const;

    // The worker, before each batch. Blocks while paused (waking for a step, a resume or a stop);
    // calls `changed(true)` when it starts waiting and `changed(false)` when it goes on again,
    // without holding the lock. Returns false when a stop was asked for.
    bool before_batch(const std::function<void(bool paused)>& changed);
    // True when the batch before_batch let through was a single step of a paused run.
    bool stepping() const;
    // The learning rate asked for most recently, or `fallback` when none was.
    float learning_rate(float fallback) const;

private:
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    bool paused_ = false;
    bool stop_ = false;
    int steps_ = 0;          // steps asked for while paused and not yet run
    bool waiting_ = false;   // the worker reported itself paused
    bool stepping_ = false;  // the batch let through is a step
    std::optional<float> rate_;
};

}  // namespace bps::session
