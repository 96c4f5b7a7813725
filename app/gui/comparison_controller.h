#pragma once
// What pressing Compare does: the comparison behind the studio's Compare Devices tab. It builds
// the comparison's setup from the panel's choices (the editor's project or a reference network),
// runs it through a ComparisonRunner on a worker thread, hands progress and each device's result
// to the panel as they come, and keeps every comparison, finished or cancelled, in the history
// file, so the next start shows it again. Nothing here waits for a device.
#include <QObject>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/compare/comparison_history.h"

namespace bps::ui {
class MainWindow;
struct ComparisonRequest;
}  // namespace bps::ui

namespace bps::app {

class ComparisonRunner;

class ComparisonController : public QObject {
    Q_OBJECT
public:
    // history_file: where comparisons are kept (read now; a damaged one is moved aside and the
    // panel says where). command_line: the `backprop` program that times cold and warm starts
    // (absent: those are not timed, and the panel says why).
    ComparisonController(ui::MainWindow* window, std::filesystem::path history_file, std::filesystem::path command_line,
                         QObject* parent = nullptr);
    ~ComparisonController() override;

    // Starts a comparison with these choices; false, with the reason in the panel, when it cannot.
    bool compare(const ui::ComparisonRequest& request);
    bool running() const;
    ComparisonRunner* runner() const { return runner_; }
    const std::vector<bench::ComparisonRecord>& history() const { return history_; }
    // Asked before a comparison starts: a reason not to (a training run uses the devices), or "".
    std::function<QString()> busy_reason;

    // `backprop` (`backprop.exe`) beside the running studio.
    static std::filesystem::path command_line_beside_studio();

private:
    void finished(const std::vector<bench::DeviceComparison>& results);
    void failed(const QString& message);

    ui::MainWindow* window_;
    std::filesystem::path history_file_;
    std::filesystem::path command_line_;
    ComparisonRunner* runner_;
    std::vector<bench::ComparisonRecord> history_;
    bench::ComparisonSetup setup_;  // of the comparison in progress
    std::string project_label_;
    QString start_note_;  // said again when the comparison ends
};

}  // namespace bps::app
