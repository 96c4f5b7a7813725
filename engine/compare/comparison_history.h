#pragma once
// The device comparisons a learner keeps: each run with its date, the project and network, and
// per device its driver version and figures, so a later run can be set beside an earlier one
// (after a driver update, on another laptop). Kept as one JSON file (the studio keeps it in its
// data folder), saved atomically; exported as CSV, one row per device of each run.
#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/compare/device_comparison.h"

namespace bps::bench {

struct ComparisonRecord {
    std::string date;     // "2026-11-25 21:50 UTC"
    std::string project;  // the project's name (or "reference network")
    std::string network;  // ComparisonSetup::network_name
    int batch_size = 0;
    int curve_batches = 0;
    std::vector<DeviceComparison> devices;

    // "2026-11-25 21:50 UTC · cnn · batch 64 · 2 devices", for lists.
    std::string title() const;
};

// A record of a comparison that ended (or was cancelled) now.
ComparisonRecord make_comparison_record(const ComparisonSetup& setup, std::string project,
                                        std::vector<DeviceComparison> devices);

// A record per planned run of a comparison that ended now (setup.plan: `backprop bench`), each
// with the devices that ran it, in order; its project is "reference network" for a reference
// network, else the planned network's name (its file's name).
std::vector<ComparisonRecord> make_comparison_records(const ComparisonSetup& setup,
                                                      const std::vector<DeviceComparison>& results);

// The history file could not be read or written; what() names the file and says why.
class ComparisonHistoryError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The most records a history keeps; saving drops the oldest beyond it.
constexpr std::size_t max_kept_comparisons = 100;

// Oldest first; an absent file is an empty history. Throws ComparisonHistoryError for a file that
// is damaged, from a newer version, or unreadable.
std::vector<ComparisonRecord> read_comparison_history(const std::filesystem::path& file);
// Writes the newest max_kept_comparisons records atomically (the old file stays whole on any
// failure); throws ComparisonHistoryError.
void save_comparison_history(const std::filesystem::path& file, const std::vector<ComparisonRecord>& records);
// Moves a damaged history aside, so a new one can start and nothing is lost; returns where it went
// ("FILE.damaged-1", "-2", ...). Throws ComparisonHistoryError when it cannot be moved.
std::filesystem::path keep_damaged_history(const std::filesystem::path& file);

// Adds `records` to the history as the file holds it now, not as this program read it earlier: the
// studio and `backprop bench` both add to one file, and neither may drop what the other added
// meanwhile. A damaged file is moved aside first (keep_damaged_history; `aside` gets where, when
// given) and a new history starts. Returns the history saved, oldest first. Throws
// ComparisonHistoryError when the file can be neither read nor moved aside, or cannot be saved
// (the file on disk is then as it was).
std::vector<ComparisonRecord> add_to_comparison_history(const std::filesystem::path& file,
                                                        const std::vector<ComparisonRecord>& records,
                                                        std::filesystem::path* aside = nullptr);

// Comma-separated values (RFC 4180, with a header row): one row per device of every record.
std::string comparison_csv(const std::vector<ComparisonRecord>& records);

}  // namespace bps::bench
