#pragma once
// When a reported training loss says that the run diverged. A NaN or infinite loss always does.
// A loss that stays finite can still explode (a probe saw 3.5e20 an image, and the run ended
// "successfully" with useless weights), so a loss far above the run's first epoch's counts too:
// the mean over the batches since the previous report (BatchReport::recent_loss) above
//     limit = max(1000 x reference, 1000),
// where the reference is the lowest such mean reported in the first epoch this run trains.
//
// Why these figures:
// - The reference is the run's own first epoch, so the rule fits any loss scale: a mean squared
//   error on raw targets may start near 1e8, a cross-entropy starts near ln(classes) (2.3 for ten).
//   Its lowest report rather than its first: a rate high enough to explode may do so within the
//   first report's batches, whose mean then already holds the explosion.
// - 1000 times: a healthy run's loss spikes by a few times, tens at most (a high rate, a batch of
//   hard images). A cross-entropy of 1000 x 2.3 nats gives the right class a probability of
//   e^-2300: the weights have blown up, and the loss keeps growing until it overflows.
// - The floor of 1000: a first epoch that reached a tiny loss (an easy dataset, a resumed run near
//   0.001) would otherwise call an ordinary bump of a few units an explosion.
// Only training losses are judged so: a validation loss (evaluation mode) can sit far above the
// training loss early on, while BatchNorm's running statistics settle, without any divergence.
// A NaN or infinite validation loss is a divergence all the same (TrainingRun checks it).
#include <string>

#include "engine/runs/reports.h"

namespace bps::session {

enum class LossVerdict { fine, not_a_number, infinite, exploded };

class LossWatch {
public:
    static constexpr double growth_limit = 1000;  // times the reference
    static constexpr double floor = 1000;         // in the loss's own units

    // `first_epoch`: the first epoch this run trains (0-based; a resumed run's may be later).
    explicit LossWatch(int first_epoch) : first_epoch_(first_epoch) {}

    // The verdict on a batch report. A fine report of the first epoch may lower the reference.
    LossVerdict check(const BatchReport& report);

    // Above this a recent loss has exploded: infinite until a first fine report of the first epoch.
    double limit() const noexcept;
    // The lowest recent loss of the first epoch; negative before its first fine report.
    double reference() const noexcept { return reference_; }

    // What the verdict means, for the learner: "the loss became NaN (not a number)", "the loss grew
    // to 3.5e+20 an image, more than 1000 times the first epoch's 2.31".
    std::string describe(LossVerdict verdict, const BatchReport& report) const;

private:
    int first_epoch_;
    double reference_ = -1;
};

}  // namespace bps::session
