#include "app/cli/training_progress.h"

#include <cstdio>
#include <ostream>
#include <sstream>
#include <string>

#include "app/cli/terminal.h"
#include "engine/base/number_text.h"

namespace bps::cli {

namespace {
std::string epoch_label(const session::BatchReport& report) {
    return "epoch " + std::to_string(report.epoch + 1) + "/" + std::to_string(report.epochs);
}
}  // namespace

void TrainingProgress::batch(const session::BatchReport& report) {
    const double fraction = static_cast<double>(report.batch) / static_cast<double>(report.batches);
    const double remaining = report.batch > 0 ? report.epoch_seconds * (1.0 / fraction - 1.0) : 0.0;
    const std::string figures = std::string("loss ") + session::format_fixed(report.loss, 4) + ", accuracy " +
                                session::format_fixed(report.accuracy, 4) + ", " +
                                session::format_thousands(static_cast<std::uint64_t>(report.images_per_second)) +
                                " images/s";
    if (!terminal_) {
        const int quarter = static_cast<int>(fraction * 4.0);
        if (report.epoch == quarter_epoch_ && quarter == last_quarter_) return;
        if (quarter == 0) return;  // the first line comes at a quarter of the epoch
        quarter_epoch_ = report.epoch;
        last_quarter_ = quarter;
        out_ << epoch_label(report) << ": batch " << report.batch << "/" << report.batches << ", " << figures
             << (report.batch < report.batches ? ", " + session::format_duration(remaining) + " left" : std::string())
             << "\n"
             << std::flush;
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (report.batch < report.batches && now - last_drawn_ < std::chrono::milliseconds(100)) return;
    last_drawn_ = now;
    std::ostringstream line;
    line << "\r" << epoch_label(report) << " " << progress_bar(fraction, 20) << " " << report.batch << "/"
         << report.batches << "  " << figures;
    if (report.batch < report.batches) line << "  ETA " << session::format_duration(remaining);
    line << "   ";  // clears what a longer previous line left
    out_ << line.str() << std::flush;
    bar_showing_ = true;
}

void TrainingProgress::finish() {
    if (bar_showing_) out_ << "\n" << std::flush;
    bar_showing_ = false;
}

std::string epoch_line(const session::EpochReport& report) {
    std::string line = "epoch " + std::to_string(report.epoch + 1) + "/" + std::to_string(report.epochs) + ": loss " +
                       session::format_fixed(report.train_loss, 4) + ", accuracy " +
                       session::format_fixed(report.train_accuracy, 4);
    if (report.validation)
        line += " | validation loss " + session::format_fixed(report.validation->loss, 4) + ", accuracy " +
                session::format_fixed(report.validation->accuracy, 4);
    line += " | " + session::format_duration(report.seconds) + ", " +
            session::format_thousands(static_cast<std::uint64_t>(report.images_per_second)) + " images/s";
    return line;
}

}  // namespace bps::cli
