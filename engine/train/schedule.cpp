#include "engine/train/schedule.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace bps::train {

namespace {
// Spelled out: <numbers> is missing from some older standard libraries still in use.
constexpr double pi = 3.14159265358979323846;
}  // namespace

float learning_rate_at(const Schedule& schedule, float base_rate, double epoch) {
    switch (schedule.kind) {
        case ScheduleKind::constant:
            return base_rate;
        case ScheduleKind::step: {
            if (schedule.step_size < 1)
                throw std::invalid_argument("step schedule: step_size " + std::to_string(schedule.step_size) +
                                            " must be at least 1");
            // Whole epochs only: a per-batch fractional epoch keeps the rate of the epoch it is in.
            const double decays = std::floor(std::max(0.0, epoch) / schedule.step_size);
            return static_cast<float>(base_rate * std::pow(static_cast<double>(schedule.gamma), decays));
        }
        case ScheduleKind::cosine: {
            if (schedule.total_epochs < 1)
                throw std::invalid_argument("cosine schedule: total_epochs " + std::to_string(schedule.total_epochs) +
                                            " must be at least 1");
            const double progress = std::clamp(epoch / schedule.total_epochs, 0.0, 1.0);
            const double min_rate = schedule.min_rate;
            return static_cast<float>(min_rate + (base_rate - min_rate) * 0.5 * (1.0 + std::cos(pi * progress)));
        }
    }
    return base_rate;
}

}  // namespace bps::train
