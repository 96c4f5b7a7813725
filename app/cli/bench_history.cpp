#include "app/cli/bench_history.h"

#include <iostream>

#include "app/cli/arguments.h"
#include "datasets/data_location.h"
#include "engine/base/atomic_file.h"
#include "engine/base/same_file.h"

namespace bps::cli {

std::filesystem::path default_comparison_history() {
    return datasets::user_data_folder() / "device-comparisons.json";
}

void check_history_destination(const std::filesystem::path& file, const std::vector<std::filesystem::path>& inputs,
                               bool given) {
    for (const std::filesystem::path& input : inputs)
        if (io::same_file(file, input))
            throw UsageError("the comparison history " + file.string() +
                             " is the project file this run reads: give another --history, or --no-history");
    if (!given) return;
    try {
        bench::read_comparison_history(file);
        io::check_can_save(file);
    } catch (const std::exception& error) {
        throw UsageError(std::string(error.what()) + " (--history names the file the run is added to)");
    }
}

void keep_in_comparison_history(const std::filesystem::path& file,
                                const std::vector<bench::ComparisonRecord>& records) {
    if (records.empty()) return;
    try {
        std::filesystem::path aside;
        bench::add_to_comparison_history(file, records, &aside);
        if (!aside.empty())
            std::cerr << "the device comparison history " << file.string() << " was damaged; it was kept as "
                      << aside.string() << ", and a new history starts\n";
        std::cerr << "kept in the device comparison history " << file.string()
                  << " (the studio's Compare Devices shows it; --no-history leaves it out)\n";
    } catch (const bench::ComparisonHistoryError& error) {
        std::cerr << "this run could not be kept in the device comparison history: " << error.what() << "\n";
    }
}

}  // namespace bps::cli
