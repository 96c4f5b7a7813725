#pragma once
// ui/document/ is the floor of the studio's widgets: the application's model (this document), the
// edit gestures that merge a widget's run of edits into one undo step, and the quiet setters that
// show the model's values without counting as edits. editor/ and dashboard/ (and the window) stand
// on it; nothing here includes them.
//
// The project being edited: the one model that the canvas, the docks, the menus and the tests
// change, and only through commands on its undo stack (so every edit can be undone, and a drag or
// a slider's run of values is one step). After every change, undo and redo it recomputes the
// graph report against the dataset's input shape and class count, and says so with changed().
// No widget here: tests drive it without a window.
#include <QObject>
#include <QString>
#include <QUndoStack>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/graph_report.h"
#include "engine/project/project.h"

namespace bps::ui {

class NetworkDocument : public QObject {
    Q_OBJECT
public:
    explicit NetworkDocument(QObject* parent = nullptr);

    const project::Project& project() const { return project_; }
    const model::NetworkSpec& network() const { return project_.network; }
    const model::GraphReport& report() const { return report_; }
    // The dataset's image shape and classes as the report used them; a problem finding them
    // (an image folder that is gone) is in dataset_problem() and the report knows no classes.
    const datasets::ImageShape& input_shape() const { return input_shape_; }
    std::optional<int> classes() const { return classes_; }
    const std::string& dataset_problem() const { return dataset_problem_; }
    QUndoStack* undo_stack() { return &undo_stack_; }

    // The file the project was opened from or saved to; empty for a new project.
    const std::filesystem::path& file() const { return file_; }
    bool is_modified() const { return !undo_stack_.isClean(); }
    // Replaces the whole project (New, Open, recovery): the undo history starts again and the
    // project counts as saved to `file`. A recovered project passes modified = true.
    void reset(project::Project project, std::filesystem::path file = {}, bool modified = false);
    // After a successful save to `file`: the current state is the saved one.
    void mark_saved(std::filesystem::path file);

    int index_of(const std::string& name) const;  // -1 when no layer has the name
    const model::LayerSpec* layer(const std::string& name) const;
    const model::NodeReport* node_report(const std::string& name) const;

    // The edits. Each is one undo step; each returns why it was refused (and changes nothing), or
    // nothing when it was done. Names are layer names.

    // Adds the palette entry `label` at `at`; `added` receives the new layer's name.
    std::optional<std::string> add_layer(const std::string& label, model::CanvasPosition at,
                                         std::string* added = nullptr);
    // The palette's double-click: adds the palette entry after `after` on its outgoing edges
    // (before it when it is the output; with `after` empty, before the output), rewiring them and
    // moving layers right to make room; see project::insert_layer.
    std::optional<std::string> append_layer(const std::string& label, const std::string& after,
                                            std::string* added = nullptr);
    std::optional<std::string> connect(const std::string& from, const std::string& to);
    std::optional<std::string> disconnect(const std::string& from, const std::string& to);
    std::optional<std::string> remove_layers(const std::vector<std::string>& names);
    // Layers (with their edges) and connections between layers that stay, in one step: the
    // canvas's Delete, Cut and "Disconnect inputs". Refused when one of the connections is not
    // there, or when there is nothing to remove.
    std::optional<std::string> remove(const std::vector<std::string>& layers,
                                      const std::vector<std::pair<std::string, std::string>>& connections);
    // Moves layers to new positions. Moves with the same non-zero `gesture` (one mouse drag, a
    // run of arrow-key nudges) merge into one undo step.
    std::optional<std::string> move_layers(const std::vector<std::pair<std::string, model::CanvasPosition>>& moves,
                                           int gesture = 0);
    // Replaces a layer's parameters (its name, type and inputs are kept from `changed` too: a
    // rename goes through project::rename_layer's rules). Edits with the same non-zero `gesture`
    // (a slider's drag, a spin box's run of steps) merge into one undo step.
    std::optional<std::string> update_layer(const std::string& name, const model::LayerSpec& changed, int gesture = 0);
    std::optional<std::string> rename_layer(const std::string& name, const std::string& new_name);
    // Pastes clipboard text (project::layers_to_clipboard) moved by (dx, dy); `pasted` receives
    // the new names.
    std::optional<std::string> paste(const std::string& clipboard, double dx, double dy,
                                     std::vector<std::string>* pasted = nullptr);
    std::optional<std::string> tidy();
    // The dataset (and so the input node's shape and the class count the output is checked against).
    // Edits with the same non-zero `gesture` (a spin box's run of steps) merge into one undo step.
    std::optional<std::string> set_dataset(const project::DatasetSettings& dataset, int gesture = 0);
    std::optional<std::string> set_training(const project::TrainingSettings& training, int gesture = 0);
    // The device preference: a device's index or name as `backprop devices` shows it; empty for
    // the best device.
    std::optional<std::string> set_device(const std::string& device);

    // While a run trains this project, its network and dataset stay as the run read them: those
    // edits (and undo, redo and paste) are refused with `reason`; the training settings stay
    // editable (a learning rate changed during the run). An empty reason unlocks.
    void set_locked(const QString& reason);
    bool locked() const { return !lock_reason_.isEmpty(); }
    const QString& lock_reason() const { return lock_reason_; }

    // A fresh gesture number for move_layers and update_layer.
    int new_gesture() { return ++last_gesture_; }

signals:
    // The project and the report are current (after an edit, undo, redo or reset).
    void changed();
    // reset() put another project in place (New, Open, recovery): just before its changed(), so
    // views drop what they kept of the old one (a selection, a layer being edited).
    void replaced();
    // An edit was refused; the editor shows `reason` in the status bar.
    void refused(const QString& reason);
    // file() or is_modified() changed: the window title follows.
    void fileStateChanged();
    // set_locked changed the lock: the canvas and the inspector stop or start taking edits.
    void lockChanged(bool locked);

private:
    friend class ProjectEditCommand;
    struct State {
        model::NetworkSpec network;
        project::DatasetSettings dataset;
        project::TrainingSettings training;
        std::string device;
    };
    State state() const;
    void apply(const State& state);  // used by the commands' undo and redo
    // Pushes a command that turns the current state into `after`; merges with the previous
    // command when both have the same non-zero merge id and gesture.
    void push(const QString& text, State after, int merge_id = 0, int gesture = 0);
    std::optional<std::string> refuse(std::string reason);
    void recompute();

    project::Project project_;
    model::GraphReport report_;
    datasets::ImageShape input_shape_{1, 28, 28};
    std::optional<int> classes_;
    std::string dataset_problem_;
    project::DatasetSettings facts_for_;  // the dataset input_shape_ and classes_ were found for
    bool facts_known_ = false;
    std::filesystem::path file_;
    QUndoStack undo_stack_;
    int last_gesture_ = 0;
    QString lock_reason_;
};

}  // namespace bps::ui
