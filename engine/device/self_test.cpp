// A self-test's result, read by the learner: its state and the one line that sums it up. The
// test itself runs in engine/bench/self_test.cpp.
#include "engine/device/self_test.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "engine/base/number_text.h"

namespace bps::device {

namespace {
std::string figure(double value) {
    std::ostringstream text;
    text << std::setprecision(2) << value;
    return text.str();
}
}  // namespace

SelfTestState SelfTestResult::state() const {
    if (!error.empty()) return SelfTestState::not_run;
    return correct() ? SelfTestState::passed : SelfTestState::wrong_results;
}

bool SelfTestResult::correct() const {
    return error.empty() && !checks.empty() &&
           std::all_of(checks.begin(), checks.end(), [](const SelfTestCheck& check) { return check.passed(); });
}

std::string SelfTestResult::summary() const {
    if (!error.empty()) return "could not finish: " + error;
    std::string wrong;
    for (const SelfTestCheck& check : checks)
        if (!check.passed())
            wrong += (wrong.empty() ? "" : "; ") + check.name + ": " + figure(check.error) +
                     " (float rounding allows " + figure(check.tolerance) + ")";
    if (!wrong.empty()) return wrong;
    return "passed " + std::to_string(checks.size()) + " checks in " + session::format_milliseconds(1000 * seconds) +
           "; kernel launch " + figure(launch_us) + " us (with the wait " + figure(launch_finish_us) + " us)";
}

}  // namespace bps::device
