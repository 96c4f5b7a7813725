#pragma once
// The two helpers every benchmark figure is made with: elapsed wall time, and the median of
// repeated measurements (robust to the odd slow run a busy machine causes).
#include <algorithm>
#include <chrono>
#include <vector>

namespace bps::bench {

using Clock = std::chrono::steady_clock;

inline double milliseconds_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The middle value, or the mean of the middle two; 0 for none.
inline double median(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace bps::bench
