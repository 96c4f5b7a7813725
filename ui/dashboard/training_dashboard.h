#pragma once
// The Training tab: what a run is doing (RunStatus) over its curves (TrainingCurves), and the
// project's runs under them (RunList), whose ticked runs the curves overlay in the runs' colours.
// The live run is always drawn. The dashboard keeps these three in step; the run itself (the
// engine job, the receipts on disk) is app/gui's TrainingController, which hands it values.
#include <QString>
#include <QWidget>
#include <filesystem>

#include "engine/runs/run_record.h"

class QSplitter;

namespace bps::ui {

class RunList;
class RunStatus;
class TrainingCurves;

class TrainingDashboard : public QWidget {
    Q_OBJECT
public:
    explicit TrainingDashboard(QWidget* parent = nullptr);

    TrainingCurves* curves() const { return curves_; }
    RunList* run_list() const { return runs_; }
    RunStatus* status() const { return status_; }

    // The runs kept in `runs_folder` (the project's), listed and drawn when ticked.
    void show_runs(const std::filesystem::path& runs_folder);
    // A run that starts now: listed, ticked, drawn, and protected from deletion until it ends.
    void begin_run(const session::RunRecord& record);
    // Its receipt changed (it ended): the list's row follows; the live mark goes when `ended`.
    void update_run(const session::RunRecord& record, bool ended);
    const QString& live_run() const { return live_; }

private:
    void show_ticked(const QStringList& ticked);

    RunStatus* status_;
    TrainingCurves* curves_;
    RunList* runs_;
    QSplitter* split_;
    QString live_;
};

}  // namespace bps::ui
