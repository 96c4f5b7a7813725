#pragma once
// What the Inside tab shows: a run's network looked inside, on the worker. A finished run's
// weights file becomes a session::Predictor (kept on the device between requests); the epoch
// slider puts a replayed epoch's kept arrays in place of the final ones (session/epoch_replay.h);
// the run in training sends live snapshots (TrainingRunner::insideSnapshot, asked for only while
// the tab is shown), each put into the same predictor. Every request computes every layer's
// output for the chosen images and the figures of every parameter; choosing a layer only redraws.
//
// Everything that touches a file or the device runs through one JobQueue, so the window never
// waits; a live snapshot replaces one still waiting, and an answer for an earlier choice is dropped.
#include <QImage>
#include <QObject>
#include <QString>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "app/gui/inside_pictures.h"
#include "engine/project/project.h"
#include "engine/runs/inside_figures.h"
#include "engine/runs/model_card.h"
#include "engine/runs/run_record.h"
#include "engine/session/inside_snapshot.h"
#include "engine/session/predictor.h"
#include "ui/inside/inside_panel.h"

namespace bps::ui {
class MainWindow;
}

namespace bps::app {

class JobQueue;
class TrainingController;
struct InsideSlot;

// Where the weights of a request come from.
struct InsideWeights {
    enum class Kind { final, replay, live };
    Kind kind = Kind::final;
    std::filesystem::path weights_file;                       // final and replay: the run's weights
    std::filesystem::path run_folder;                         // replay, live: where its replay is
    int epoch = 0;                                            // replay: which
    std::shared_ptr<const session::InsideSnapshot> snapshot;  // live
    // live: the network and its images (the predictor is made from the first snapshot)
    std::optional<project::Project> project;
    std::optional<session::ModelCard> card;
};

// One image to look inside with, as the learner chose it.
struct InsideImageRequest {
    ui::InsideImageChoice choice;
    QImage ink;  // drawing: Try It's canvas
    bool centre = true;
};

class InsideController : public QObject {
    Q_OBJECT
public:
    InsideController(ui::MainWindow* window, TrainingController* training, QObject* parent = nullptr);
    ~InsideController() override;

    // Tests: the queue whose idle() says that everything asked has been answered.
    JobQueue* queue() const { return queue_; }
    // How often the run in training is asked for live snapshots while the tab is shown.
    static constexpr std::chrono::milliseconds live_interval{250};

signals:
    // A request's answer (or its failure) reached the panel.
    void viewShown();

private:
    void refresh_sources();
    void choose_source(const QString& id);
    void request_view();
    void show_answer(const InsideAnswer& answer);
    void show_layer();
    void snapshot_arrived(std::shared_ptr<const session::InsideSnapshot> snapshot);
    void follow_tab();
    bool shown() const;
    InsideWeights weights_for_choice() const;
    std::vector<InsideImageRequest> image_requests() const;

    ui::MainWindow* window_;
    TrainingController* training_;
    JobQueue* queue_;
    std::shared_ptr<InsideSlot> slot_;
    QString source_;  // a run id, "live", or empty
    std::optional<session::RunRecord> record_;
    std::optional<project::Project> live_project_;
    std::optional<session::ModelCard> live_card_;
    std::shared_ptr<const session::InsideSnapshot> latest_;
    std::vector<ui::InsideEpoch> epochs_;
    std::optional<InsideAnswer> answer_;
    unsigned generation_ = 0;
};

}  // namespace bps::app
