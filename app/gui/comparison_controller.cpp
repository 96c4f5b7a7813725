#include "app/gui/comparison_controller.h"

#include <QCoreApplication>
#include <QDir>

#include "app/gui/comparison_runner.h"
#include "engine/base/number_text.h"
#include "engine/compare/reference_networks.h"
#include "engine/project/project_data.h"
#include "ui/devices/comparison_panel.h"
#include "ui/document/network_document.h"
#include "ui/main_window/main_window.h"

namespace bps::app {

namespace fs = std::filesystem;

namespace {
QString text(const fs::path& path) {
    return QString::fromStdWString(path.wstring());
}
}  // namespace

ComparisonController::ComparisonController(ui::MainWindow* window, fs::path history_file, fs::path command_line,
                                           QObject* parent)
    : QObject(parent),
      window_(window),
      history_file_(std::move(history_file)),
      command_line_(std::move(command_line)),
      runner_(new ComparisonRunner(this)) {
    ui::ComparisonPanel* panel = window_->comparison_panel();
    try {
        history_ = bench::read_comparison_history(history_file_);
    } catch (const bench::ComparisonHistoryError& error) {
        QString message = QString::fromStdString(error.what());
        try {
            const fs::path aside = bench::keep_damaged_history(history_file_);
            message += tr("; it was kept as %1, and a new history starts").arg(text(aside));
        } catch (const bench::ComparisonHistoryError& move_error) {
            // Left where it is: nothing is saved over it until it can be read or moved.
            message += QStringLiteral("; ") + QString::fromStdString(move_error.what());
            history_file_.clear();
        }
        panel->show_message(message);
    }
    panel->set_history(history_, static_cast<int>(history_.size()) - 1);
    connect(panel, &ui::ComparisonPanel::compareRequested, this, &ComparisonController::compare);
    connect(panel, &ui::ComparisonPanel::cancelRequested, runner_, &ComparisonRunner::cancel);
    connect(runner_, &ComparisonRunner::progressed, panel, &ui::ComparisonPanel::show_progress);
    connect(runner_, &ComparisonRunner::deviceCompared, panel, &ui::ComparisonPanel::add_device_result);
    connect(runner_, &ComparisonRunner::finished, this, &ComparisonController::finished);
    connect(runner_, &ComparisonRunner::failed, this, &ComparisonController::failed);
}

ComparisonController::~ComparisonController() = default;  // the runner asks a comparison to stop

bool ComparisonController::running() const {
    return runner_->running();
}

fs::path ComparisonController::command_line_beside_studio() {
#ifdef _WIN32
    const QString name = QStringLiteral("backprop.exe");
#else
    const QString name = QStringLiteral("backprop");
#endif
    return fs::path(QDir(QCoreApplication::applicationDirPath()).filePath(name).toStdWString());
}

bool ComparisonController::compare(const ui::ComparisonRequest& request) {
    ui::ComparisonPanel* panel = window_->comparison_panel();
    if (runner_->running()) return false;
    if (busy_reason) {
        const QString reason = busy_reason();
        if (!reason.isEmpty()) {
            panel->show_message(reason);
            return false;
        }
    }
    bench::ComparisonSetup setup;
    setup.devices = request.devices;
    setup.batch_size = request.batch_size;
    setup.curve_batches = request.curve_batches;
    setup.device_figures = request.device_figures;
    start_note_.clear();
    try {
        if (request.network == QLatin1String(ui::ComparisonPanel::current_project)) {
            const ui::NetworkDocument* document = window_->document();
            const project::Project& project = document->project();
            const session::DataFacts facts = session::project_data_facts(project.dataset);
            setup.network = project::project_network(project, facts.shape);
            setup.network_name = project.name.empty() ? "untitled project" : project.name;
            setup.optimizer = project.training.optimizer;
            setup.seed = project.training.seed;
            // The command line starts the project from its file: only what is saved there is timed.
            if (!document->file().empty() && !document->is_modified()) setup.project = document->file().string();
            project_label_ = setup.network_name;
        } else {
            setup.network_name = request.network.toStdString();
            setup.network = bench::reference_network(setup.network_name);
            project_label_ = "reference network";
        }
    } catch (const std::exception& error) {
        panel->show_message(tr("The current project cannot be compared: %1").arg(QString::fromStdString(error.what())));
        return false;
    }
    if (request.first_batch) {
        std::error_code missing;
        if (fs::is_regular_file(command_line_, missing))
            setup.first_batch_program = command_line_;
        else
            start_note_ =
                tr("Cold and warm starts were not timed: the command line %1 is not there.").arg(text(command_line_));
    }
    setup_ = setup;
    panel->set_running(true);
    if (!runner_->start(std::move(setup))) {
        panel->set_running(false);
        return false;
    }
    return true;
}

void ComparisonController::finished(const std::vector<bench::DeviceComparison>& results) {
    ui::ComparisonPanel* panel = window_->comparison_panel();
    panel->set_running(false);
    bench::ComparisonRecord record = bench::make_comparison_record(setup_, project_label_, results);
    const bool cancelled = !results.empty() && results.back().cancelled;
    QString message =
        cancelled ? tr("Cancelled; what was measured is kept.")
                  : tr("Compared %1.").arg(QString::fromStdString(session::format_count(results.size(), "device")));
    if (!start_note_.isEmpty()) message += QStringLiteral(" ") + start_note_;
    bool kept = false;
    if (!history_file_.empty()) {
        // The file as it is now: `backprop bench` may have added to it since the studio read it.
        try {
            fs::path aside;
            history_ = bench::add_to_comparison_history(history_file_, {record}, &aside);
            kept = true;
            if (!aside.empty())
                message +=
                    QStringLiteral(" ") + tr("The history file was damaged; it was kept as %1, and a new history "
                                             "starts.")
                                              .arg(text(aside));
        } catch (const bench::ComparisonHistoryError& error) {
            message += QStringLiteral(" ") + tr("It could not be kept: %1").arg(QString::fromStdString(error.what()));
        }
    }
    if (!kept) {
        history_.push_back(std::move(record));
        if (history_.size() > bench::max_kept_comparisons)
            history_.erase(history_.begin(), history_.end() - static_cast<std::ptrdiff_t>(bench::max_kept_comparisons));
    }
    panel->set_history(history_, static_cast<int>(history_.size()) - 1);
    panel->show_message(message);
}

void ComparisonController::failed(const QString& message) {
    ui::ComparisonPanel* panel = window_->comparison_panel();
    panel->set_running(false);
    panel->show_message(tr("The comparison could not run: %1").arg(message));
}

}  // namespace bps::app
