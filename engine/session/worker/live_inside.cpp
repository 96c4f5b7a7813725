#include "engine/session/worker/live_inside.h"

#include <algorithm>

#include "engine/io/network_weights.h"

namespace bps::session {

std::shared_ptr<const InsideSnapshot> LiveInside::between_batches(ops::Runtime& runtime, const model::Network& network,
                                                                  std::size_t batches, int epoch, double position,
                                                                  Clock::time_point now) {
    std::shared_ptr<const InsideSnapshot> done;
    if (pending_) {
        const auto ready = [](const std::vector<PendingRead>& reads) {
            return std::all_of(reads.begin(), reads.end(), [](const PendingRead& read) { return read.read.ready(); });
        };
        if (!ready(weights_) || !ready(gradients_)) return done;
        auto snapshot = std::make_shared<InsideSnapshot>(taking_);
        const auto take = [](std::vector<PendingRead>& reads, std::vector<io::NamedArray>& into) {
            into.reserve(reads.size());
            for (PendingRead& read : reads) {
                const std::vector<float>& values = read.read.values();
                into.push_back({read.array.name, read.array.dims, values});
            }
        };
        take(weights_, snapshot->weights);
        take(gradients_, snapshot->gradients);
        pending_ = false;
        done = std::move(snapshot);
    }
    const long long interval = interval_ms_.load(std::memory_order_relaxed);
    if (interval <= 0 || now - last_start_ < std::chrono::milliseconds(interval)) return done;
    const std::vector<model::ParameterView> views = network.parameters();
    std::size_t trainable = 0;
    for (const model::ParameterView& view : views)
        if (view.gradient.buffer) ++trainable;
    weights_.resize(views.size());
    gradients_.resize(trainable);
    std::size_t gradient = 0;
    for (std::size_t i = 0; i < views.size(); ++i) {
        weights_[i].array.name = views[i].name;
        weights_[i].array.dims = views[i].dims;
        weights_[i].read.start(runtime, views[i].value);
        if (!views[i].gradient.buffer) continue;
        PendingRead& read = gradients_[gradient++];
        read.array.name = views[i].name;
        read.array.dims = views[i].dims;
        read.read.start(runtime, views[i].gradient);
    }
    taking_ = InsideSnapshot{batches, epoch, position, {}, {}};
    pending_ = true;
    last_start_ = now;
    return done;
}

std::vector<io::NamedArray> download_gradients(ops::Runtime& runtime, const model::Network& network) {
    std::vector<io::NamedArray> gradients;
    for (const model::ParameterView& view : network.parameters())
        if (view.gradient.buffer) gradients.push_back({view.name, view.dims, runtime.read(view.gradient)});
    return gradients;
}

}  // namespace bps::session
