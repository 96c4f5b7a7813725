#include "ui/dashboard/curve_smoothing.h"

#include <cmath>
#include <limits>

namespace bps::ui {

ExponentialSmoother::ExponentialSmoother(double weight)
    : weight_(std::isfinite(weight) ? std::clamp(weight, 0.0, max_smoothing_weight) : 0.0),
      smoothed_(std::numeric_limits<double>::quiet_NaN()) {}

double ExponentialSmoother::add(double value) {
    if (!std::isfinite(value)) return smoothed_;
    last_ = last_ * weight_ + (1 - weight_) * value;
    weight_power_ *= weight_;
    smoothed_ = last_ / (1 - weight_power_);
    return smoothed_;
}

std::vector<double> smoothed(std::span<const double> values, double weight) {
    ExponentialSmoother smoother(weight);
    std::vector<double> out;
    out.reserve(values.size());
    for (double value : values) out.push_back(smoother.add(value));
    return out;
}

}  // namespace bps::ui
