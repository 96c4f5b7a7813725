// backprop runs: a project's runs as the studio's run list shows them, from the folders beside the
// project file that the studio and `backprop train` write alike.
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/printable.h"
#include "app/cli/project_argument.h"
#include "engine/base/number_text.h"
#include "engine/runs/run_record.h"
#include "engine/session/run_evaluation.h"

namespace bps::cli {

const char* const runs_help =
    "usage: backprop runs PROJECT [--json]\n"
    "\n"
    "Lists the runs of a project file, oldest first: those of the studio and of 'backprop train', kept\n"
    "in PROJECT.runs/ beside it. For each: its folder, name, start, outcome, epochs, the last\n"
    "validation and the test accuracy, the device, and whether it keeps its weights and its\n"
    "evaluation (what it got wrong, image by image). A damaged run is named on stderr and skipped.\n"
    "--json prints one JSON object per run with its folder and the files in it.\n";

namespace {

std::string accuracy_text(const std::optional<session::Evaluation>& evaluation) {
    if (!evaluation) return "-";
    std::ostringstream text;
    text << std::fixed << std::setprecision(4) << evaluation->accuracy;
    return text.str();
}

nlohmann::json optional_figures(const std::optional<session::Evaluation>& evaluation) {
    if (!evaluation) return nullptr;
    return {{"accuracy", evaluation->accuracy}, {"loss", evaluation->loss}, {"samples", evaluation->samples}};
}

}  // namespace

int run_runs(Arguments& arguments) {
    const std::optional<std::string> word = arguments.take_word();
    const bool json = arguments.take_flag("--json");
    arguments.expect_nothing_left();
    const OpenedProject opened = open_project(word);
    if (opened.project_file.empty() || !opened.weights_file.empty())
        throw UsageError("runs are kept beside a project file; '" + *word + "' is not one");
    const std::filesystem::path folder = session::runs_folder_for(opened.project_file);
    std::vector<std::string> problems;
    const std::vector<session::RunRecord> runs = session::list_runs(folder, &problems);
    for (const std::string& problem : problems)
        std::cerr << "backprop runs: skipped a damaged run: " << problem << "\n";

    if (json) {
        for (const session::RunRecord& run : runs) {
            const session::RunReceipt& receipt = run.receipt;
            std::error_code ignored;
            const bool evaluated = std::filesystem::exists(run.folder / "evaluation.json", ignored);
            nlohmann::json line = {
                {"id", run.id()},
                {"folder", run.folder.string()},
                {"name", receipt.name},
                {"started_at", receipt.started_at},
                {"outcome", receipt.outcome},
                {"epochs_completed", receipt.epochs_completed},
                {"validation", optional_figures(receipt.validation)},
                {"test", optional_figures(receipt.test)},
                {"device", receipt.device},
                {"seconds", receipt.seconds},
                {"weights", run.weights().empty() ? nlohmann::json(nullptr) : nlohmann::json(run.weights().string())},
                {"evaluation", evaluated}};
            std::cout << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        }
        return exit_ok;
    }
    if (runs.empty()) {
        std::cout << "no runs of " << opened.project_file.string() << " yet (they are kept in " << folder.string()
                  << ")\n";
        return exit_ok;
    }
    std::cout << session::format_count(runs.size(), "run") << " of " << opened.project_file.string() << " in "
              << folder.string() << "\n\n"
              << std::left << std::setw(24) << "folder" << std::setw(22) << "name" << std::setw(10) << "outcome"
              << std::right << std::setw(7) << "epochs" << std::setw(12) << "validation" << std::setw(10) << "test"
              << "  device\n";
    for (const session::RunRecord& run : runs) {
        const session::RunReceipt& receipt = run.receipt;
        std::cout << std::left << std::setw(24) << run.id() << std::setw(22) << printable(receipt.name) << std::setw(10)
                  << receipt.outcome << std::right << std::setw(7) << receipt.epochs_completed << std::setw(12)
                  << accuracy_text(receipt.validation) << std::setw(10) << accuracy_text(receipt.test) << "  "
                  << printable(receipt.device) << "\n";
    }
    return exit_ok;
}

}  // namespace bps::cli
