#include "engine/session/worker/last_finite_weights.h"

#include <cmath>
#include <utility>

#include "engine/io/network_weights.h"

namespace bps::session {

namespace {

std::vector<io::NamedArray> read_now(ops::Runtime& runtime, const std::vector<model::ParameterView>& views) {
    std::vector<io::NamedArray> arrays;
    arrays.reserve(views.size());
    for (const model::ParameterView& view : views) arrays.push_back({view.name, view.dims, runtime.read(view.value)});
    return arrays;
}

void write_back(ops::Runtime& runtime, const std::vector<model::ParameterView>& views,
                const std::vector<io::NamedArray>& arrays) {
    for (std::size_t i = 0; i < views.size() && i < arrays.size(); ++i) runtime.write(views[i].value, arrays[i].values);
}

bool all_finite(const std::vector<io::NamedArray>& arrays) {
    for (const io::NamedArray& array : arrays)
        for (float value : array.values)
            if (!std::isfinite(value)) return false;
    return true;
}

}  // namespace

void LastFiniteWeights::keep_now(ops::Runtime& runtime, const model::Network& network, std::size_t batches) {
    Snapshot now;
    now.weights = read_now(runtime, network.parameters());
    now.state = read_now(runtime, network.optimizer_state());
    now.updates = network.updates();
    now.batches = batches;
    {
        std::lock_guard lock(kept_mutex_);
        kept_ = std::move(now);
    }
    pending_ = false;
    last_snapshot_ = Clock::now();
}

void LastFiniteWeights::offer(ops::Runtime& runtime, const model::Network& network, std::size_t batches,
                              Clock::time_point now) {
    if (pending_ || now - last_snapshot_ < interval_) return;
    offer_now(runtime, network, batches);
    last_snapshot_ = now;
}

void LastFiniteWeights::offer_now(ops::Runtime& runtime, const model::Network& network, std::size_t batches) {
    if (pending_) return;
    const auto start = [&runtime](std::vector<PendingRead>& reads, const std::vector<model::ParameterView>& views) {
        // Reused between snapshots: the host memory is allocated once per run.
        reads.resize(views.size());
        for (std::size_t i = 0; i < views.size(); ++i) {
            reads[i].array.name = views[i].name;
            reads[i].array.dims = views[i].dims;
            reads[i].read.start(runtime, views[i].value);
        }
    };
    start(pending_weights_, network.parameters());
    start(pending_state_, network.optimizer_state());
    pending_updates_ = network.updates();
    pending_batches_ = batches;
    pending_ = true;
    last_snapshot_ = Clock::now();
}

void LastFiniteWeights::confirm(std::size_t batches) {
    // The weights after batch p are proven by the loss of batch p + 1 or later.
    if (!pending_ || pending_batches_ >= batches) return;
    const auto take = [](std::vector<PendingRead>& reads, std::vector<io::NamedArray>& into) {
        into.resize(reads.size());
        for (std::size_t i = 0; i < reads.size(); ++i) {
            // Already complete: the loss of a later batch was read after it on the same queue.
            const std::vector<float>& values = reads[i].read.wait();
            into[i].name = reads[i].array.name;
            into[i].dims = reads[i].array.dims;
            into[i].values.assign(values.begin(), values.end());
        }
    };
    // The reads are waited for outside the lock, so copy() never waits on the device; the
    // snapshot replaced becomes the spare, whose memory the next one reuses.
    take(pending_weights_, spare_.weights);
    take(pending_state_, spare_.state);
    pending_ = false;
    // A finite loss does not prove finite weights: a NaN behind a ReLU leaves the loss a number.
    // Such a snapshot is never kept (the host copy is at hand: one pass over it, a few reports apart).
    if (!all_finite(spare_.weights) || !all_finite(spare_.state)) return;
    spare_.updates = pending_updates_;
    spare_.batches = pending_batches_;
    {
        std::lock_guard lock(kept_mutex_);
        std::swap(kept_, spare_);
    }
}

KeptWeights LastFiniteWeights::copy() const {
    std::lock_guard lock(kept_mutex_);
    return {kept_.weights, kept_.batches};
}

void LastFiniteWeights::restore(ops::Runtime& runtime, model::Network& network) {
    pending_ = false;
    write_back(runtime, network.parameters(), kept_.weights);
    write_back(runtime, network.optimizer_state(), kept_.state);
    network.set_updates(kept_.updates);
}

}  // namespace bps::session
