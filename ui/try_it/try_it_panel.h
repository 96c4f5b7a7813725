#pragma once
// Try it: the learner gives a trained network an image and sees every class's probability. Three
// ways in: draw (one-channel datasets such as MNIST's), open, drop or paste an image file, or take
// a random test image. The panel shows "What the network receives": the image exactly as the
// network got it, enlarged, with what was done to the input to get it (fitting and centring a
// drawing as MNIST's digits were, resizing and converting a file as the dataset's images are).
//
// It only paints and forwards: the window's controller prepares the inputs, runs the predictor on
// a worker and calls show_prediction; the panel's signals say what the learner gave.
#include <QImage>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <optional>

#include "ui/results/results_export.h"
#include "ui/try_it/try_it_prediction.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QStackedWidget;
class QTabWidget;

namespace bps::ui {

class DrawingCanvas;
class ProbabilityBars;

class TryItPanel : public QWidget {
    Q_OBJECT
public:
    // The input tabs, in order.
    enum InputTab { draw_tab, image_file_tab, test_image_tab };

    explicit TryItPanel(QWidget* parent = nullptr);

    // The runs that can be tried (ids and the names shown), `current` selected. Selecting it here
    // does not emit runChosen; the learner choosing another does.
    void set_runs(const QStringList& ids, const QStringList& names, const QString& current);
    QString current_run() const;  // its id; empty when none

    // "Preparing the network on <device>…", "Ready". Clears a failure shown before.
    void set_status(const QString& text);
    // In red, until the next set_status: "The run 'Run 3' has no weights file: …".
    void show_failure(const QString& message);

    // The chosen run's input and classes. Drawing is offered only for one channel; the prediction
    // shown before is cleared.
    void set_input(int channels, int height, int width, const QStringList& class_names);
    bool drawing_offered() const { return channels_ == 1; }

    void show_prediction(const TryItPrediction& prediction);
    void clear_prediction();
    const std::optional<TryItPrediction>& prediction() const { return prediction_; }

    // The received image as an 8-bit PNG (received_image.h), written whole through QSaveFile.
    // False with `error` set when there is none yet or it cannot be written.
    bool save_received_image(const QString& path, QString* error);
    // Files neither save may replace: the run's own, the project's and the image file given
    // (results_export.h's refuse_kept).
    void set_kept_files(std::vector<KeptFile> files) { kept_ = std::move(files); }
    // The probability bars as a PNG.
    bool export_png(const QString& path, QString* error);

    // Replaceable in tests; default to QFileDialog's.
    std::function<QString()> ask_image_file;
    std::function<QString()> ask_save_path;
    std::function<QString()> ask_export_path;

    DrawingCanvas* canvas() const { return canvas_; }
    QComboBox* run_chooser() const { return runs_; }
    QTabWidget* inputs() const { return inputs_; }
    QSlider* pen_width_slider() const { return pen_width_; }
    QPushButton* clear_button() const { return clear_; }
    QPushButton* undo_button() const { return undo_; }
    QCheckBox* no_centring_box() const { return no_centring_; }
    QPushButton* open_button() const { return open_; }
    QPushButton* paste_button() const { return paste_; }
    QPushButton* random_button() const { return random_; }
    QPushButton* save_button() const { return save_; }
    QPushButton* export_button() const { return export_; }
    ProbabilityBars* bars() const { return bars_; }
    QLabel* status_label() const { return status_; }
    QLabel* received_view() const { return received_; }
    QLabel* adjusted_label() const { return adjusted_; }
    QLabel* source_label() const { return source_; }
    QLabel* top_class_label() const { return top_class_; }
    QLabel* verdict_label() const { return verdict_; }
    QLabel* drawing_unavailable_label() const { return drawing_unavailable_; }

signals:
    void runChosen(const QString& id);
    // The canvas's ink (280x280, Format_Grayscale8) after each stroke, undo or clear; centre is
    // false while "No centring" is ticked.
    void drawingChanged(const QImage& ink, bool centre);
    void imageFileChosen(const QString& path);
    void imagePasted(const QImage& image);
    void randomTestImageRequested();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    std::vector<KeptFile> kept_;
    QWidget* make_draw_page();
    QWidget* make_image_file_page();
    QWidget* make_test_image_page();
    QWidget* make_received_box();
    QWidget* make_result_box();
    void emit_drawing();
    void open_image_file();
    void paste_from_clipboard();
    void save_asking();
    void export_asking();
    void show_received_image(const QImage& image);

    int channels_ = 1;
    QStringList class_names_;
    std::optional<TryItPrediction> prediction_;

    QComboBox* runs_;
    QLabel* status_;
    QTabWidget* inputs_;
    QStackedWidget* draw_stack_;
    DrawingCanvas* canvas_;
    QSlider* pen_width_;
    QLabel* pen_width_value_;
    QPushButton* clear_;
    QPushButton* undo_;
    QCheckBox* no_centring_;
    QLabel* drawing_unavailable_;
    QPushButton* open_;
    QPushButton* paste_;
    QPushButton* random_;
    QLabel* received_;
    QLabel* adjusted_;
    QLabel* source_;
    QPushButton* save_;
    QLabel* top_class_;
    QLabel* verdict_;
    ProbabilityBars* bars_;
    QPushButton* export_;
};

}  // namespace bps::ui
