#pragma once
// The Results tab: for a run of the project, which classes the network confuses (the confusion
// matrix, the per-class table and the most-confused pairs), on which images (a gallery sorted by
// loss, the most confidently wrong first) and why (one image large, with its occlusion map and
// saliency). Clicking a cell, a pair or a class fills the gallery; clicking an image shows it.
//
// The panel paints and forwards. What it shows arrives from app/gui's ResultsController, which
// reads the run's evaluation and images and computes each image's maps on a worker: the panel asks
// with runChosen, evaluateRequested and sampleInsightRequested.
#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>

#include "datasets/dataset.h"
#include "engine/session/run_evaluation.h"
#include "engine/session/sample_selection.h"
#include "ui/results/results_export.h"

class QButtonGroup;
class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QStackedWidget;
class QTabWidget;
class QToolButton;

namespace bps::ui {

class ClassFiguresTable;
class ConfusedPairsList;
class ConfusionMatrixView;
class SampleDetail;
class SampleGallery;

class ResultsPanel : public QWidget {
    Q_OBJECT
public:
    enum class Split { test, validation };

    explicit ResultsPanel(QWidget* parent = nullptr);

    // The runs to choose from (ids and names in list order) and the one shown. No signal.
    void set_runs(const QStringList& ids, const QStringList& names, const QString& current);
    QString current_run() const;

    // In place of the views: a line while the evaluation is read, why there is none (with Evaluate
    // now when the run can be evaluated), or a problem in red (a damaged evaluation file).
    void show_message(const QString& text, bool offer_evaluation = false, bool problem = false);
    // The run's evaluation; `test_title` names what its test split is ("10,000 test images", "all
    // 256 images of the folder"). The test split is shown when there is one, else the validation's
    // last epoch. The most-confused pair is selected, so the gallery starts with its images.
    void show_evaluation(std::shared_ptr<const session::RunEvaluation> evaluation, const QString& test_title);
    // The test split's images in the samples' order, for the gallery and the one-image view; null
    // while they load.
    void set_images(std::shared_ptr<const datasets::Dataset> images);
    // A line under the bar: "Evaluating: building kernels 3 of 13", a weights file that is gone.
    void set_status(const QString& text, bool problem = false);
    // Evaluate now stays offered while the run has no test evaluation.
    void set_evaluating(bool evaluating);

    void set_split(Split split);
    Split split() const;
    // The validation epoch shown, 1-based (the slider's value).
    void set_epoch(int epoch);
    int epoch() const;
    // What the matrix and the table show now (the test split, or a validation epoch).
    const session::ConfusionMatrix* shown_matrix() const;
    // Fills the gallery with one cell's images, a class's (predicted unset) or every image.
    void show_samples(const session::SampleFilter& filter);
    // What the learner picked last in the matrix, the pairs or the table (never what the panel
    // selected by itself), as the course's interpretation checks read it: "Shirt>T-shirt/top"
    // (true>predicted) and a class name. Empty: nothing picked in this evaluation.
    QString chosen_pair() const;
    QString chosen_class() const;

    ConfusionMatrixView* matrix_view() const { return matrix_; }
    ClassFiguresTable* class_table() const { return table_; }
    ConfusedPairsList* pairs_list() const { return pairs_; }
    SampleGallery* gallery() const { return gallery_; }
    SampleDetail* detail() const { return detail_; }
    QComboBox* run_chooser() const { return runs_; }
    QComboBox* split_chooser() const { return split_; }
    QSlider* epoch_slider() const { return epoch_slider_; }
    QPushButton* evaluate_button() const { return evaluate_; }
    QToolButton* export_button() const { return export_; }
    QLabel* status_label() const { return status_; }
    QLabel* message_label() const { return message_; }
    bool showing_views() const;

    // Files no export may replace: the run's own and the project's (results_export.h).
    void set_kept_files(std::vector<KeptFile> files) { kept_ = std::move(files); }

    // Where an export goes (default: a save dialog); empty: cancelled. Replaced in tests.
    std::function<QString(const QString& title, const QString& suggested, const QString& filter)> ask_save_path;

signals:
    void runChosen(const QString& id);
    void evaluateRequested(const QString& id);
    // The one-image view shows `sample` and waits for its occlusion map and saliency.
    void sampleInsightRequested(std::size_t sample);
    // An export failed or succeeded: the window's status bar says so.
    void exported(const QString& message);

private:
    void build_export_menu();
    void show_split();
    void show_sample(std::size_t sample);
    void select_cell(int true_class, int predicted);
    void select_class(int true_class);
    QString class_name(int label) const;
    void export_to(const QString& title, const QString& suggested, const QString& filter,
                   const std::function<bool(const QString&, QString*)>& write);

    std::shared_ptr<const session::RunEvaluation> evaluation_;
    std::shared_ptr<const session::SampleResults> samples_;  // the test split's, shared with the gallery
    std::shared_ptr<const datasets::Dataset> images_;
    QStringList class_names_;
    std::vector<KeptFile> kept_;
    std::optional<std::size_t> chosen_sample_;        // the image the learner chose last
    std::optional<std::pair<int, int>> chosen_cell_;  // the cell the learner clicked last
    std::optional<int> chosen_class_;                 // the class the learner clicked last
    QString test_title_;

    QComboBox* runs_;
    QComboBox* split_;
    QSlider* epoch_slider_;
    QLabel* epoch_label_;
    QButtonGroup* scale_;
    QPushButton* evaluate_;
    QToolButton* export_;
    QLabel* status_;
    QStackedWidget* pages_;
    QLabel* message_;
    QPushButton* message_evaluate_;
    ConfusionMatrixView* matrix_;
    QTabWidget* tables_;
    ClassFiguresTable* table_;
    ConfusedPairsList* pairs_;
    SampleGallery* gallery_;
    SampleDetail* detail_;
};

}  // namespace bps::ui
