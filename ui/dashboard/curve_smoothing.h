#pragma once
// The arithmetic behind the dashboard's curves, apart from any widget so tests check it in
// numbers: TensorBoard's smoothing (an exponential moving average with de-bias, so the curve
// starts at the first value instead of creeping up from zero) and the lookup that turns the mouse's
// x into the nearest point of a curve for the hover text.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace bps::ui {

// The smoothing weight the slider allows; 1 would freeze the curve at its first value.
inline constexpr double max_smoothing_weight = 0.999;

// The moving average one value at a time, so a live curve extends its smoothed line in O(1) per
// point instead of recomputing it. `smoothed()` uses it too, so both give the same numbers.
class ExponentialSmoother {
public:
    // `weight` is clamped to [0, max_smoothing_weight]; 0 passes the values through.
    explicit ExponentialSmoother(double weight = 0);

    // The smoothed value after `value`: last = last*w + (1-w)*value, divided by 1 - w^n where n counts
    // the finite values so far. A NaN or infinite value is skipped: the previous smoothed value is
    // returned again (NaN while no finite value has been seen).
    double add(double value);

    double weight() const { return weight_; }

private:
    double weight_;
    double last_ = 0;
    double weight_power_ = 1;  // w^n, kept as a running product
    double smoothed_;
};

// The whole series smoothed with `weight` (see ExponentialSmoother::add); same length as `values`.
std::vector<double> smoothed(std::span<const double> values, double weight);

// The index of the point nearest to `position` (ties: the earlier one) among points with a
// `position` member sorted ascending (session::BatchPoint, session::EpochPoint), by binary search;
// nullopt when there are none, when `position` is NaN, or when it lies outside [first, last], so the
// hover names no value where a curve has not reached.
template <class Point>
std::optional<std::size_t> nearest_point(std::span<const Point> points, double position) {
    if (points.empty() || !(position >= points.front().position) || !(position <= points.back().position))
        return std::nullopt;
    const auto after = std::lower_bound(points.begin(), points.end(), position,
                                        [](const Point& point, double x) { return point.position < x; });
    std::size_t index = static_cast<std::size_t>(after - points.begin());
    if (index > 0 && (index == points.size() || position - points[index - 1].position <= after->position - position))
        --index;
    return index;
}

}  // namespace bps::ui
