#pragma once
// What the Results tab and the Try it panel show, for a run of the open project: the run's
// evaluation read from its folder (session/run_evaluation.h), the images it was evaluated on, and
// its weights as a session::Predictor, built once per chosen run and kept on the device, which
// answers one image at a time: a gallery image's occlusion map and saliency, a drawing prepared as
// MNIST's digits were, an image file, a random test image. "Evaluate now" evaluates a run that has
// no evaluation (an old run, one stopped early, one on an image folder) and keeps the result in
// its folder.
//
// Everything that touches a file or the device runs through one JobQueue, so the window never
// waits; a result that arrives after the learner chose another run is dropped.
#include <QImage>
#include <QObject>
#include <QString>
#include <QTemporaryDir>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "app/gui/worker_bridge.h"
#include "datasets/dataset.h"
#include "engine/runs/run_record.h"
#include "engine/session/run_evaluation.h"
#include "ui/results/results_export.h"

namespace bps::ui {
class MainWindow;
}

namespace bps::app {

class JobQueue;
class TrainingController;
struct PredictorSlot;

class ResultsController : public QObject {
    Q_OBJECT
public:
    ResultsController(ui::MainWindow* window, TrainingController* training, QObject* parent = nullptr);
    ~ResultsController() override;

    // The run both views show; empty: none.
    const QString& run() const { return run_; }
    // Shows run `id` of the run list in both views: reads its evaluation and images and prepares
    // its predictor, each on the worker.
    void choose_run(const QString& id);
    // The choosers list the run list's runs again; the chosen run stays when it is still listed,
    // else the newest is chosen.
    void refresh_runs();
    // Tests: the queue whose idle() says that everything asked has been answered.
    JobQueue* queue() const { return queue_; }
    // The images the chosen run was evaluated on, once read.
    std::shared_ptr<const datasets::Dataset> images() const { return images_; }

signals:
    // Tests and the window's status bar: the chosen run's evaluation is shown (or why not).
    void runShown(const QString& id);
    // Try it showed a prediction (or a failure).
    void predictionShown();
    // A sample's occlusion map and saliency reached the one-image view.
    void insightShown(std::size_t sample);

private:
    // Both tabs' run choosers list the run list's runs, with `chosen` current.
    void show_choosers(const QString& chosen);
    void read_evaluation();
    void load_images();
    void prepare_predictor();
    void evaluate(const QString& id);
    void request_insight(std::size_t sample);
    // Runs a Try It job, the latest replacing one still waiting; its prediction or failure is shown.
    void submit_try(Job job);
    void predict_drawing(const QImage& ink, bool centre);
    void predict_file(const QString& path, const QString& source);
    void predict_test_image();
    void show_problem(const QString& message);
    bool current(unsigned generation) const { return generation == generation_; }

    ui::MainWindow* window_;
    TrainingController* training_;
    JobQueue* queue_;
    std::shared_ptr<PredictorSlot> predictor_;
    QString run_;
    std::optional<session::RunRecord> record_;  // the chosen run as it was read when chosen
    unsigned generation_ = 0;                   // bumped by every choice: older answers are dropped
    std::shared_ptr<const datasets::Dataset> images_;
    std::string images_source_;             // the dataset settings images_ were read for
    std::vector<ui::KeptFile> kept_files_;  // the chosen run's files and the project's
    QTemporaryDir pasted_;                  // pasted images become files here, read as any image file is
    int pasted_count_ = 0;
    std::mt19937 random_{std::random_device{}()};
};

}  // namespace bps::app
