#pragma once
// The terminal facts the CLI adapts to: progress bars only on a terminal, Ctrl-C as a request
// to stop cleanly at the next safe point rather than killing the process.
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace bps::cli {

bool stderr_is_terminal();

// "note: LINE" on stderr: something the engine reports that did not stop the command (a damaged
// kernel cache cleared or rebuilt).
void print_note(const std::string& line);

// Ctrl-C, SIGTERM and SIGHUP set a flag instead of ending the process; a second one ends it as usual.
void catch_interrupts();
bool interrupt_requested();

// A reader that goes away (`backprop train | head`, a pager quit) makes writing to the pipe fail
// instead of ending the process: the output stops, the work and its saving go on.
void survive_closed_output();

// "[#####     ]": `fraction` (0 to 1) of `width` cells filled.
std::string progress_bar(double fraction, int width);

// One progress display on stderr. On a terminal a bar redrawn in place at most 10 times a
// second; otherwise a plain line at every quarter, so logs stay readable.
class ProgressDisplay {
public:
    ProgressDisplay(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}
    // `done` of `total` bytes of the item `label` (a new label starts a new line).
    void bytes(const std::string& label, std::uint64_t done, std::uint64_t total);
    // Ends the current line, if a bar is showing.
    void finish();

private:
    std::ostream& out_;
    bool terminal_;
    std::string label_;
    std::uint64_t first_done_ = 0;
    int last_quarter_ = -1;
    bool bar_showing_ = false;
    std::chrono::steady_clock::time_point started_, last_drawn_;
};

}  // namespace bps::cli
