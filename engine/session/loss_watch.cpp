#include "engine/session/loss_watch.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/base/number_text.h"

namespace bps::session {

LossVerdict LossWatch::check(const BatchReport& report) {
    if (std::isnan(report.loss) || std::isnan(report.recent_loss)) return LossVerdict::not_a_number;
    if (std::isinf(report.loss) || std::isinf(report.recent_loss)) return LossVerdict::infinite;
    if (report.recent_loss > limit()) return LossVerdict::exploded;
    if (report.epoch == first_epoch_ && (reference_ < 0 || report.recent_loss < reference_))
        reference_ = std::max(report.recent_loss, 0.0);
    return LossVerdict::fine;
}

double LossWatch::limit() const noexcept {
    if (reference_ < 0) return std::numeric_limits<double>::infinity();
    return std::max(growth_limit * reference_, floor);
}

std::string LossWatch::describe(LossVerdict verdict, const BatchReport& report) const {
    switch (verdict) {
        case LossVerdict::not_a_number:
            return "the loss became NaN (not a number)";
        case LossVerdict::infinite:
            return "the loss became infinite";
        case LossVerdict::exploded:
            return "the loss grew to " + format_rate(report.recent_loss) + " an image, more than " +
                   format_rate(growth_limit) + " times the first epoch's " + format_rate(reference_) +
                   (growth_limit * reference_ < floor ? " (and above " + format_rate(floor) + ")" : std::string());
        case LossVerdict::fine:
            break;
    }
    return "the loss is fine";
}

}  // namespace bps::session
