#pragma once
// Learning-rate schedules over epochs.
namespace bps::train {

enum class ScheduleKind { constant, step, cosine };

struct Schedule {
    ScheduleKind kind = ScheduleKind::constant;
    int step_size = 1;  // step: multiply by gamma every step_size epochs
    float gamma = 0.1f;
    int total_epochs = 1;  // cosine: from the base rate at epoch 0 to min_rate at total_epochs
    float min_rate = 0.0f;
};

// The learning rate for `epoch` (0-based, may be fractional for per-batch cosine). Cosine stays at
// min_rate past total_epochs. Throws std::invalid_argument for step_size or total_epochs below 1.
float learning_rate_at(const Schedule& schedule, float base_rate, double epoch);

}  // namespace bps::train
