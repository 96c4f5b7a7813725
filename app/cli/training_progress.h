#pragma once
// What `backprop train` shows while it trains. On a terminal: one bar per epoch, redrawn in place at
// most 10 times a second, with the epoch's running loss and accuracy, images/s and the time left.
// Otherwise (a log, a pipe, CI): a plain line at every quarter of an epoch.
#include <chrono>
#include <iosfwd>

#include "engine/runs/reports.h"

namespace bps::cli {

class TrainingProgress {
public:
    TrainingProgress(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}
    void batch(const session::BatchReport& report);
    // Ends the current bar, if one is showing.
    void finish();

private:
    std::ostream& out_;
    bool terminal_;
    bool bar_showing_ = false;
    int quarter_epoch_ = -1;
    int last_quarter_ = -1;
    std::chrono::steady_clock::time_point last_drawn_;
};

// "epoch 1/5: loss 0.4821, accuracy 0.8290 | validation loss 0.4102, accuracy 0.8512 | 22 s, 2,412 images/s"
std::string epoch_line(const session::EpochReport& report);

}  // namespace bps::cli
