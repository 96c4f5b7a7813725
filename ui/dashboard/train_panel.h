#pragma once
// The Train panel: the project's training settings (epochs, batch size, seed, optimiser, schedule,
// data split and augmentation, device) and the run buttons. Every setting is edited through the
// NetworkDocument, so it is an undo step and lands in the project file; a spin box's run of
// steps is one step (one gesture). The panel shows the document's values after every change
// (an undo, an Open) without sending them back. It starts no run itself: the buttons only ask,
// and the window says what the run does with set_run_state. While a run is active only the
// learning rate stays editable, because the job can take a new rate at its next batch and
// nothing else.
#include <QString>
#include <QWidget>
#include <cstddef>
#include <vector>

#include "engine/device/device_description.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace bps::ui {

class EditGesture;

class NetworkDocument;

class TrainPanel : public QWidget {
    Q_OBJECT
public:
    enum class RunState { idle, preparing, running, paused, stopping };

    // `devices` as device::list_devices() gave them (may be empty: the device box is then
    // disabled and says why); `default_device` is default_device_index(devices).
    TrainPanel(NetworkDocument* document, std::vector<device::DeviceDescription> devices, std::size_t default_device,
               QWidget* parent = nullptr);

    // Enables the buttons that apply in `state` and locks every setting but the learning rate
    // while a run is not idle.
    void set_run_state(RunState state);
    RunState run_state() const { return run_state_; }
    // The device to ask the engine for: the project's device string, "" for the best one.
    QString device_request() const;
    // A run that is stopped still tests the weights it kept (on by default; a studio setting, not
    // the project's): its status and the run list then show a test accuracy.
    bool test_when_stopped() const;
    // The window refuses to train a network with problems; `why` shows under the buttons and as
    // the Train button's tooltip.
    void set_train_enabled(bool enabled, const QString& why);
    // The device with this index is no longer skipped (enabled on the Devices tab).
    void mark_device_enabled(std::size_t device_index);

    // The widgets tests drive (they also carry these object names).
    QPushButton* train_button() const { return train_; }                  // "trainButton"
    QPushButton* pause_button() const { return pause_; }                  // "pauseButton"
    QPushButton* resume_button() const { return resume_; }                // "resumeButton"
    QPushButton* step_button() const { return step_; }                    // "stepButton"
    QPushButton* stop_button() const { return stop_; }                    // "stopButton"
    QDoubleSpinBox* learning_rate_box() const { return learning_rate_; }  // "learningRate"
    QComboBox* device_box() const { return device_; }                     // "device"
    QCheckBox* test_when_stopped_box() const { return test_when_stopped_; }  // "testWhenStopped"
    // The setting a course hint points at: learning_rate, epochs, batch_size, validation_fraction,
    // optimizer, augmentation, seed (exercise.h's "control:" names); null for another name.
    QWidget* control(const QString& name) const;

public slots:
    // Shows the document's current values.
    void refresh();

signals:
    void trainRequested();
    void pauseRequested();
    void resumeRequested();
    void stepRequested();
    void stopRequested();
    // The learning rate was edited while a run is preparing, running or paused: the run takes it
    // from its next batch (the document has it too, as an undo step).
    void learningRateChanged(double rate);

private:
    QWidget* build_buttons();
    QWidget* build_training();
    QWidget* build_optimiser();
    QWidget* build_schedule();
    QWidget* build_data();
    QWidget* build_device();
    QSpinBox* spin_box(QSpinBox* box, const char* object_name, int minimum, int maximum, const QString& tip);
    QDoubleSpinBox* double_spin_box(QDoubleSpinBox* box, const char* object_name, double minimum, double maximum,
                                    int decimals, const QString& tip);
    void fill_devices();
    void show_device();
    void show_rows();
    void apply_lock();

    void document_changed();
    // The gesture that `source`'s edit joins: a new one unless `source` continues its run (same
    // widget, focus kept, nothing else changed the document meanwhile).
    // Copies the project's settings, lets `change` alter them and sends them; `merge`: the edit
    // joins `source`'s run of edits.
    template <typename Change>
    void edit_training(QObject* source, Change change, bool merge);
    template <typename Change>
    void edit_dataset(QObject* source, Change change, bool merge);
    void edit_seed();
    void choose_device(int index);

    NetworkDocument* document_;
    std::vector<device::DeviceDescription> devices_;
    std::size_t default_device_;
    RunState run_state_ = RunState::idle;
    bool train_enabled_ = true;
    QString train_blocked_why_;
    EditGesture* gestures_;
    bool editing_ = false;   // our own edit is in the document: its changed() is no outside change
    bool updating_ = false;  // refresh() is setting the widgets: their signals are no edits

    QPushButton* train_ = nullptr;
    QPushButton* pause_ = nullptr;
    QPushButton* resume_ = nullptr;
    QPushButton* step_ = nullptr;
    QPushButton* stop_ = nullptr;
    QLabel* locked_line_ = nullptr;
    QLabel* blocked_line_ = nullptr;

    QSpinBox* epochs_ = nullptr;
    QSpinBox* batch_size_ = nullptr;
    QLineEdit* seed_ = nullptr;

    QFormLayout* optimiser_form_ = nullptr;
    QComboBox* optimiser_ = nullptr;
    QDoubleSpinBox* learning_rate_ = nullptr;
    QDoubleSpinBox* momentum_ = nullptr;
    QDoubleSpinBox* weight_decay_ = nullptr;

    QFormLayout* schedule_form_ = nullptr;
    QComboBox* schedule_ = nullptr;
    QSpinBox* step_size_ = nullptr;
    QDoubleSpinBox* gamma_ = nullptr;
    QDoubleSpinBox* min_rate_ = nullptr;

    QSpinBox* validation_ = nullptr;
    QCheckBox* normalise_ = nullptr;
    QCheckBox* random_crop_ = nullptr;
    QSpinBox* crop_padding_ = nullptr;
    QCheckBox* flip_ = nullptr;

    QComboBox* device_ = nullptr;
    QCheckBox* test_when_stopped_ = nullptr;
    int unknown_device_entry_ = -1;  // "NAME (not on this computer)", or -1 when not shown

    std::vector<QWidget*> locked_while_running_;  // every setting but the learning rate
};

}  // namespace bps::ui
