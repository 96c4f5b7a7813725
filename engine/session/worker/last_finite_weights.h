#pragma once
// The weights a run can go back to when its loss stops being a number. A training run never waits
// for the device to learn its loss, so a NaN is seen batches after the step that caused it; by
// then the weights on the device are lost. This keeps a copy on the host instead: a snapshot of
// every parameter and the optimiser's state, read without blocking after some batch p, becomes
// the kept one once a finite loss is reported for a later batch (the weights after p produced
// it). The run then always holds a copy known to be good, at most two snapshots old.
#include <chrono>
#include <cstddef>
#include <mutex>
#include <vector>

#include "engine/io/weights_file.h"
#include "engine/model/network.h"
#include "engine/ops/metrics.h"
#include "engine/ops/runtime.h"

namespace bps::session {

// The parameters kept, and after how many batches of the run they were taken.
struct KeptWeights {
    std::vector<io::NamedArray> weights;
    std::size_t batches = 0;
};

class LastFiniteWeights {
public:
    using Clock = std::chrono::steady_clock;

    // Snapshots are taken at most once per `interval` (zero: whenever asked).
    explicit LastFiniteWeights(std::chrono::milliseconds interval) : interval_(interval) {}

    // The network as it is now, read blocking: before the first batch (`batches` 0), when the
    // weights are the initial or starting ones and known to be finite.
    void keep_now(ops::Runtime& runtime, const model::Network& network, std::size_t batches);

    // Starts a non-blocking snapshot of the weights after `batches` batches, unless one is
    // still waiting for its confirmation or the last one is more recent than the interval.
    void offer(ops::Runtime& runtime, const model::Network& network, std::size_t batches, Clock::time_point now);
    // The same, whatever the interval: at an epoch's end, so that a run whose epochs are shorter
    // than the interval still keeps weights newer than its start.
    void offer_now(ops::Runtime& runtime, const model::Network& network, std::size_t batches);

    // A finite loss was reported for every batch up to `batches`: a snapshot taken before that
    // becomes the kept one, unless it holds a NaN or infinite value (then it is dropped).
    void confirm(std::size_t batches);

    // After a divergence: the network gets the kept weights, optimiser state and update count
    // back, and any unconfirmed snapshot is dropped (it may hold the bad weights).
    void restore(ops::Runtime& runtime, model::Network& network);

    // The kept parameters (as io::download_parameters gives them), and after how many batches
    // of this run they were taken.
    const std::vector<io::NamedArray>& weights() const noexcept { return kept_.weights; }
    std::size_t batches() const noexcept { return kept_.batches; }

    // A copy of the kept parameters, from any thread: the watchdog saves them while the worker
    // waits inside a driver that stopped answering. Never waits on the device.
    KeptWeights copy() const;

private:
    struct Snapshot {
        std::vector<io::NamedArray> weights, state;
        int updates = 0;
        std::size_t batches = 0;
    };
    struct PendingRead {
        io::NamedArray array;  // its values come from `read`
        ops::AsyncRead read;
    };
    std::chrono::milliseconds interval_;
    // Guards kept_ against copy() on another thread; held only while host memory is copied.
    mutable std::mutex kept_mutex_;
    Snapshot kept_;
    Snapshot spare_;
    std::vector<PendingRead> pending_weights_, pending_state_;
    int pending_updates_ = 0;
    std::size_t pending_batches_ = 0;
    bool pending_ = false;
    Clock::time_point last_snapshot_{};
};

}  // namespace bps::session
