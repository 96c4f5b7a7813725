#pragma once
// The Inspector dock: the parameters of the selected layer in widgets that accept only what the
// layer can take (units 1..65536, a Dropout rate 0..95 %, padding valid or same, ...), its name,
// and for the Input layer the project's dataset. Every change goes to the document as one edit
// (update_layer, rename_layer, set_dataset), so it can be undone; a spin box's run of steps and
// one drag of the Dropout slider are one undo step (one gesture). When the document changes (an
// undo, a canvas edit) the widgets show the current values without sending edits back.
#include <QDockWidget>
#include <QString>
#include <functional>
#include <optional>
#include <string>

#include "engine/model/network_spec.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSlider;
class QSpinBox;

namespace bps::ui {

class EditGesture;

class NetworkDocument;

class InspectorDock : public QDockWidget {
    Q_OBJECT
public:
    // Asks for an image folder (a QFileDialog by default); returns an empty string when cancelled.
    using FolderChooser = std::function<QString(QWidget* parent, const QString& start)>;

    explicit InspectorDock(NetworkDocument* document, QWidget* parent = nullptr);

    // The layer being edited; empty when none is (nothing selected, or the layer was removed).
    const QString& shown_layer() const { return shown_; }
    // Tests replace the modal folder dialog.
    void set_folder_chooser(FolderChooser chooser) { folder_chooser_ = std::move(chooser); }

    // The widgets, by name, for tests (they also carry these object names).
    QLineEdit* name_edit() const { return name_; }
    QLabel* name_error() const { return name_error_; }
    QSpinBox* units_box() const { return units_; }  // Dense units, Conv2D filters
    QSlider* rate_slider() const { return rate_slider_; }
    QSpinBox* rate_box() const { return rate_box_; }
    QComboBox* dataset_box() const { return dataset_; }
    QLabel* input_shape_label() const { return input_shape_; }
    QLabel* placeholder() const { return placeholder_; }

public slots:
    // Edits the named layer; an empty name shows "Select a layer to edit it".
    void show_layer(const QString& name);
    // Shows the document's current values.
    void refresh();

private:
    void document_changed();
    QWidget* build_editor();
    QSpinBox* spin_box(const char* object_name, int minimum, int maximum);
    QDoubleSpinBox* double_spin_box(const char* object_name, double minimum, double maximum, int decimals, double step);
    void show_values(const model::LayerSpec& spec);
    void show_dataset();

    // The gesture that `source`'s edit joins: a new one unless `source` continues its run (same
    // widget, focus kept, nothing else changed the document meanwhile).
    // Copies the shown layer, lets `change` alter it (false: nothing changed) and sends it.
    void edit_layer(QObject* source, const std::function<bool(model::LayerSpec&)>& change, bool merge);
    void rename();
    void choose_dataset(int index);
    void choose_folder();
    void edit_image_size();
    void report_refusal(const std::optional<std::string>& refusal);

    NetworkDocument* document_;
    QString shown_;
    FolderChooser folder_chooser_;
    EditGesture* gestures_;
    bool editing_ = false;  // our own edit is in the document: its changed() is no outside change

    QLabel* placeholder_ = nullptr;
    QWidget* editor_ = nullptr;
    QLabel* type_ = nullptr;
    QLineEdit* name_ = nullptr;
    QLabel* name_error_ = nullptr;
    QLabel* output_ = nullptr;
    QLabel* node_problems_ = nullptr;
    QLabel* edit_error_ = nullptr;

    QWidget* units_group_ = nullptr;
    QLabel* units_label_ = nullptr;
    QSpinBox* units_ = nullptr;
    QComboBox* initializer_ = nullptr;

    QWidget* conv_group_ = nullptr;
    QSpinBox* kernel_h_ = nullptr;
    QSpinBox* kernel_w_ = nullptr;
    QSpinBox* stride_h_ = nullptr;
    QSpinBox* stride_w_ = nullptr;
    QComboBox* padding_ = nullptr;

    QWidget* pool_group_ = nullptr;
    QSpinBox* pool_h_ = nullptr;
    QSpinBox* pool_w_ = nullptr;
    QSpinBox* pool_stride_h_ = nullptr;
    QSpinBox* pool_stride_w_ = nullptr;

    QWidget* dropout_group_ = nullptr;
    QSlider* rate_slider_ = nullptr;
    QSpinBox* rate_box_ = nullptr;

    QWidget* activation_group_ = nullptr;
    QComboBox* activation_ = nullptr;
    QWidget* slope_group_ = nullptr;
    QDoubleSpinBox* slope_ = nullptr;

    QWidget* batch_norm_group_ = nullptr;
    QDoubleSpinBox* momentum_ = nullptr;
    QDoubleSpinBox* epsilon_ = nullptr;

    QWidget* input_group_ = nullptr;
    QComboBox* dataset_ = nullptr;
    int folder_index_ = -1;  // the "Image folder…" entry of dataset_
    QWidget* folder_group_ = nullptr;
    QLabel* folder_ = nullptr;
    QPushButton* choose_folder_ = nullptr;
    QWidget* image_size_group_ = nullptr;
    QSpinBox* image_height_ = nullptr;
    QSpinBox* image_width_ = nullptr;
    QComboBox* image_channels_ = nullptr;
    QLabel* input_shape_ = nullptr;
    QLabel* dataset_problem_ = nullptr;

    QLabel* no_parameters_ = nullptr;
};

}  // namespace bps::ui
