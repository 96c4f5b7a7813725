#pragma once
// The live snapshots a training run hands the Inside view (JobSetup::inside_interval): every
// parameter and the gradient of every trainable one, read without blocking between batches (as
// session/last_finite_weights.h reads its snapshots) and handed over once the reads have
// completed, which a later batch boundary finds out without waiting. The interval may change
// from any thread (TrainingJob::set_inside_interval). Device code: only the training run uses it.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include "engine/io/weights_file.h"
#include "engine/model/network.h"
#include "engine/ops/metrics.h"
#include "engine/ops/runtime.h"
#include "engine/session/inside_snapshot.h"

namespace bps::session {

class LiveInside {
public:
    using Clock = std::chrono::steady_clock;

    // `interval_ms` (milliseconds, zero: no snapshots) outlives this and is read at every batch.
    explicit LiveInside(const std::atomic<long long>& interval_ms) : interval_ms_(interval_ms) {}

    bool wanted() const { return interval_ms_.load(std::memory_order_relaxed) > 0; }

    // After a batch: the snapshot whose reads have completed since (nullptr: none), and new reads
    // started when none is pending and the last began at least an interval ago. Never waits.
    std::shared_ptr<const InsideSnapshot> between_batches(ops::Runtime& runtime, const model::Network& network,
                                                          std::size_t batches, int epoch, double position,
                                                          Clock::time_point now);

private:
    struct PendingRead {
        io::NamedArray array;  // its values come from `read`
        ops::AsyncRead read;
    };
    const std::atomic<long long>& interval_ms_;
    std::vector<PendingRead> weights_, gradients_;
    InsideSnapshot taking_;  // batches, epoch and position of the pending reads
    bool pending_ = false;
    Clock::time_point last_start_{};
};

// The gradient of every trainable parameter of `network`, named as its parameter; blocking.
std::vector<io::NamedArray> download_gradients(ops::Runtime& runtime, const model::Network& network);

}  // namespace bps::session
