#include "ui/dashboard/training_dashboard.h"

#include <QSplitter>
#include <QVBoxLayout>

#include "ui/dashboard/run_list.h"
#include "ui/dashboard/run_status.h"
#include "ui/dashboard/training_curves.h"
#include "ui/qt_text.h"

namespace bps::ui {

namespace {}  // namespace

TrainingDashboard::TrainingDashboard(QWidget* parent)
    : QWidget(parent),
      status_(new RunStatus(this)),
      curves_(new TrainingCurves(this)),
      runs_(new RunList(this)),
      split_(new QSplitter(Qt::Vertical, this)) {
    setObjectName("trainingDashboard");
    split_->setObjectName("dashboardSplit");
    split_->addWidget(curves_);
    split_->addWidget(runs_);
    // Room for three runs in the list on a 720-line laptop screen: comparing runs needs more than one.
    split_->setStretchFactor(0, 3);
    split_->setStretchFactor(1, 1);
    split_->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(status_);
    layout->addWidget(split_, 1);

    connect(runs_, &RunList::tickedRunsChanged, this, &TrainingDashboard::show_ticked);
    connect(runs_, &RunList::runRenamed, curves_, &TrainingCurves::rename_run);
    connect(runs_, &RunList::runRemoved, curves_, &TrainingCurves::remove_run);
}

void TrainingDashboard::show_runs(const std::filesystem::path& runs_folder) {
    // Another project's runs: the curves start again from what its folder holds.
    for (const QString& id : runs_->run_ids())
        if (id != live_) curves_->remove_run(id);
    runs_->show_folder(runs_folder);
    for (const QString& id : runs_->run_ids()) {
        const session::RunRecord* record = runs_->run(id);
        curves_->set_run(id, text_of(record->receipt.name), runs_->colour_of(id), record->history);
    }
    show_ticked(runs_->ticked_runs());
}

void TrainingDashboard::begin_run(const session::RunRecord& record) {
    const QString id = text_of(record.id());
    live_ = id;
    runs_->add_run(record);
    runs_->set_active_run(id);
    curves_->set_run(id, text_of(record.receipt.name), runs_->colour_of(id), record.history);
    show_ticked(runs_->ticked_runs());
}

void TrainingDashboard::update_run(const session::RunRecord& record, bool ended) {
    runs_->update_run(record);
    if (ended && text_of(record.id()) == live_) {
        live_.clear();
        runs_->set_active_run({});
        show_ticked(runs_->ticked_runs());
    }
}

void TrainingDashboard::show_ticked(const QStringList& ticked) {
    QStringList shown = ticked;
    if (!live_.isEmpty() && !shown.contains(live_)) shown.push_back(live_);
    curves_->set_shown_runs(shown);
}

}  // namespace bps::ui
