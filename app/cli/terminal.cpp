#include "app/cli/terminal.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <ostream>
#include <sstream>

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

namespace bps::cli {

namespace {

volatile std::sig_atomic_t interrupted = 0;

// SIGTERM (a shutdown, `kill`, a job scheduler) and SIGHUP (the terminal closed) stop a run like
// Ctrl-C does: after the batch, with the weights saved. A second signal of the kind ends the
// process at once.
extern "C" void on_interrupt(int signal_number) {
    interrupted = 1;
    std::signal(signal_number, SIG_DFL);
}

// MiB, as `backprop datasets` states download sizes.
std::string mebibytes(std::uint64_t bytes) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1024.0 * 1024.0);
    return text.str();
}

}  // namespace

bool stderr_is_terminal() {
#ifdef _WIN32
    return _isatty(_fileno(stderr)) != 0;
#else
    return isatty(fileno(stderr)) != 0;
#endif
}

void catch_interrupts() {
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
#ifdef SIGHUP
    std::signal(SIGHUP, on_interrupt);  // not on Windows
#endif
}

void survive_closed_output() {
#ifdef SIGPIPE
    std::signal(SIGPIPE, SIG_IGN);  // not on Windows, where a closed pipe fails the write already
#endif
}

bool interrupt_requested() {
    return interrupted != 0;
}

std::string progress_bar(double fraction, int width) {
    const int filled = std::clamp(static_cast<int>(fraction * width), 0, width);
    std::string bar = "[";
    bar.append(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(width - filled), ' ');
    return bar + "]";
}

void ProgressDisplay::bytes(const std::string& label, std::uint64_t done, std::uint64_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (label != label_) {
        finish();
        label_ = label;
        first_done_ = done;  // resumed bytes do not count towards the speed
        last_quarter_ = -1;
        started_ = now;
        last_drawn_ = {};
    }
    const double fraction = total > 0 ? std::min(1.0, static_cast<double>(done) / static_cast<double>(total)) : 0.0;
    const int percent = static_cast<int>(fraction * 100.0);
    if (!terminal_) {
        const int quarter = static_cast<int>(fraction * 4.0);
        if (quarter == last_quarter_) return;
        last_quarter_ = quarter;
        out_ << label << ": " << percent << "% (" << mebibytes(done) << " of " << mebibytes(total) << " MiB)\n"
             << std::flush;
        return;
    }
    if (done < total && now - last_drawn_ < std::chrono::milliseconds(100)) return;
    last_drawn_ = now;
    const double seconds = std::chrono::duration<double>(now - started_).count();
    const double speed = seconds > 0.2 ? static_cast<double>(done - first_done_) / seconds : 0.0;
    std::ostringstream line;
    line << "\r" << label << " " << progress_bar(fraction, 24) << " " << std::setw(3) << percent << "% "
         << mebibytes(done) << "/" << mebibytes(total) << " MiB";
    if (speed > 0) {
        line << "  " << mebibytes(static_cast<std::uint64_t>(speed)) << " MiB/s";
        if (done < total) line << "  ETA " << static_cast<long long>(static_cast<double>(total - done) / speed) << " s";
    }
    line << "   ";  // clears what a longer previous line left
    out_ << line.str() << std::flush;
    bar_showing_ = true;
}

void ProgressDisplay::finish() {
    if (bar_showing_) out_ << "\n" << std::flush;
    bar_showing_ = false;
}

void print_note(const std::string& line) {
    std::cerr << "note: " << line << "\n";
}

}  // namespace bps::cli
