#pragma once
// The Inside tab: what the network learned and how it sees one image. A run (or the run training
// now, live) is chosen above; its layers are listed with their figures below (choosing a row, or a
// node on the canvas, chooses the layer); the middle shows the chosen layer's activations for one
// or two images, its filters, and the histograms of every layer's weights and gradients over the
// epochs. An epoch slider replays what the run kept after each epoch.
//
// Values only: app/gui's InsideController computes everything on a worker and calls the show_
// functions; the panel's signals say what the learner chose.
#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

#include "ui/inside/activation_maps.h"
#include "ui/inside/filter_tiles.h"
#include "ui/inside/layer_figures_table.h"
#include "ui/inside/parameter_histograms.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTabWidget;
class QVBoxLayout;

namespace bps::ui {

using ParameterHistory = ParameterHistograms::ParameterHistory;
using EpochFigures = ParameterHistograms::EpochFigures;

// Which image a slot shows.
struct InsideImageChoice {
    enum class Kind { test_image, drawing, file };
    Kind kind = Kind::test_image;
    int index = 0;  // test_image: which one
    QString file;   // file: the image file
};

// One layer's output for the slot's image, and what the slot shows it under.
struct InsideImageActivations {
    QString image_title;                // "Test image 17: Pullover"
    std::vector<ActivationSet> layers;  // every layer, execution order
};

// One position of the epoch slider.
struct InsideEpoch {
    int epoch = 0;  // after this many epochs (0: before training); -1: now (live), or the end
    QString label;  // "after epoch 3", "before training", "now (live)", "end of training"
};

class InsidePanel : public QWidget {
    Q_OBJECT
public:
    explicit InsidePanel(QWidget* parent = nullptr);

    // The runs to look inside, `current` chosen; the id "live" is the run training now.
    void set_sources(const QStringList& ids, const QStringList& names, const QString& current);
    QString source() const;
    void set_status(const QString& text, bool problem = false);

    // The slider's positions (none: no replay, `reason` says why), the chosen one's index.
    void set_epochs(std::vector<InsideEpoch> epochs, int chosen, const QString& reason = {});
    int chosen_epoch_index() const;
    bool at_last_epoch() const;

    // How many test images the index may choose from (0: none).
    void set_test_images(int count);
    InsideImageChoice image_choice(int slot) const;  // slot 0 or 1
    bool comparing() const;

    // The layers in order (the table's rows), and the one chosen.
    void show_figures(std::vector<LayerFiguresRow> rows);
    QString chosen_layer() const { return layer_; }
    // Chooses `layer` as a click on its row would (the canvas's selection), emitting layerChosen
    // when it changes.
    void choose_layer(const QString& layer);

    void show_activations(int slot, InsideImageActivations activations);
    void clear_activations(const QString& reason);
    void show_filters(FilterSet filters);
    void clear_filters(const QString& reason);
    void show_histories(std::vector<ParameterHistory> histories, const QString& parameter, int epoch);
    void clear_histories(const QString& reason);

    FilterTiles* filters() const { return filters_; }
    ParameterHistograms* histograms() const { return histograms_; }
    LayerFiguresTable* figures() const { return figures_; }
    // The chosen layer's maps for slot 0 and 1 (the first layer when every layer is shown).
    ActivationMaps* activations(int slot) const;
    QTabWidget* views() const { return views_; }
    QSlider* epoch_slider() const { return epoch_slider_; }

signals:
    void sourceChosen(const QString& id);
    void layerChosen(const QString& layer);
    void epochChosen(int index);
    void imagesChanged();  // either slot's image, or comparing on or off

private:
    QWidget* make_source_row();
    QWidget* make_image_row();
    QWidget* make_activation_page();
    void show_chosen_layer_maps();
    void image_source_changed(int slot);

    QComboBox* sources_ = nullptr;
    QSlider* epoch_slider_ = nullptr;
    QLabel* epoch_label_ = nullptr;
    QLabel* status_ = nullptr;
    QComboBox* image_kind_[2] = {nullptr, nullptr};
    QSpinBox* image_index_[2] = {nullptr, nullptr};
    QPushButton* random_[2] = {nullptr, nullptr};
    QString image_file_[2];
    QCheckBox* compare_ = nullptr;
    QCheckBox* every_layer_ = nullptr;
    QTabWidget* views_ = nullptr;
    QWidget* maps_area_ = nullptr;
    QVBoxLayout* maps_column_[2] = {nullptr, nullptr};
    std::vector<ActivationMaps*> every_layer_maps_[2];
    ActivationMaps* chosen_maps_[2] = {nullptr, nullptr};
    FilterTiles* filters_ = nullptr;
    ParameterHistograms* histograms_ = nullptr;
    LayerFiguresTable* figures_ = nullptr;
    std::vector<InsideEpoch> epochs_;
    InsideImageActivations shown_[2];
    QString layer_;
    int test_images_ = 0;
};

}  // namespace bps::ui
