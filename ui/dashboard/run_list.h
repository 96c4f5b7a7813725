#pragma once
// The runs of the open project (the folders of session::list_runs), one row each: a tick to
// overlay the run's curves, its colour on the plots, its name (renamed in place), when it started,
// how it ended and its figures. Renaming, deleting and exporting weights happen here on disk
// through engine/runs/run_record.h; the window listens to tickedRunsChanged to redraw the
// curves and to problem for its status bar.
//
// A run keeps its colour for the whole session, whatever else is ticked, added or deleted, so a
// learner comparing curves never sees "the blue run" change identity.
#include <QColor>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <filesystem>
#include <functional>
#include <vector>

#include "engine/runs/run_record.h"

class QLabel;
class QMenu;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace bps::ui {

class HideableColumns;

class RunList : public QWidget {
    Q_OBJECT
public:
    enum Column {
        run_column,
        started_column,
        outcome_column,
        epochs_column,
        validation_column,
        test_column,
        device_column,
        duration_column,
        // The settings the run trained with, shown right after its name (they can be hidden).
        learning_rate_column,
        batch_column,
        optimiser_column,
        planned_epochs_column,
        column_count
    };
    explicit RunList(QWidget* parent = nullptr);

    // Reads the runs in `runs_folder` (oldest first); runs that cannot be read are named in a small
    // label under the list. Showing another folder forgets the previous project's ticks, colours and
    // active run; showing the same one again keeps them.
    void show_folder(const std::filesystem::path& runs_folder);
    // The project these runs belong to (empty while unsaved): an export never replaces it.
    void set_project_file(const std::filesystem::path& file) { project_file_ = file; }
    const std::filesystem::path& folder() const { return folder_; }

    // A run that just started: shown at the end, ticked.
    void add_run(const session::RunRecord& record);
    // The run's receipt or history changed (it finished): its row shows the new figures.
    void update_run(const session::RunRecord& record);

    QStringList run_ids() const;      // in list order
    QStringList ticked_runs() const;  // in list order
    void set_ticked(const QString& id, bool ticked);
    const session::RunRecord* run(const QString& id) const;  // null when not listed
    QColor colour_of(const QString& id) const;               // invalid when not listed

    // The run being trained: it cannot be deleted. Empty: none.
    void set_active_run(const QString& id);
    const QString& active_run() const { return active_; }

    // Each returns false with `error` set (and emits problem) when it fails; false with an empty
    // error when the learner said no to `confirm`.
    bool rename(const QString& id, const QString& name, QString* error);
    bool remove(const QString& id, QString* error);  // asks `confirm` first
    // Copies the run's weights file; an existing destination is replaced only after `confirm`, and
    // whole (a failed copy leaves it as it was).
    bool export_weights(const QString& id, const QString& destination, QString* error);
    // Writes a PyTorch or Keras script that re-creates the run's network and predicts
    // (engine/runs/code_export.h) or trains it further (engine/runs/training_script.h), and the
    // run's weights beside it, which the script loads: "<script name>.h5" for a script that
    // predicts, "<script name>_start.h5" for one that trains (it saves "<script name>.h5").
    enum class ScriptKind { pytorch, keras, pytorch_training, keras_training };
    bool export_script(const QString& id, ScriptKind kind, const QString& script, QString* error);
    // Writes the run's network with its weights as an ONNX model (engine/runs/onnx_export.h);
    // an existing destination is replaced only after `confirm`, and whole.
    bool export_onnx(const QString& id, const QString& destination, QString* error);
    // The run kept a checkpoint (checkpoint.h5 in its folder): training can go on from it.
    bool can_continue(const QString& id) const;
    // What File > Export acts on: the selected run, else the newest with weights; empty: none.
    QString run_to_export() const;
    // Asks where (ask_export_path, ask_script_path, ask_onnx_path), then exports as above.
    void export_weights_asking(const QString& id);
    void export_script_asking(const QString& id, ScriptKind kind);
    void export_onnx_asking(const QString& id);

    QString selected_run() const;  // empty when none
    void select_run(const QString& id);

    // Replaceable in tests; default to QMessageBox::question and QFileDialog::getSaveFileName.
    std::function<bool(const QString& question)> confirm;
    std::function<QString(const QString& suggested)> ask_export_path;
    std::function<QString(const QString& suggested)> ask_script_path;
    std::function<QString(const QString& suggested)> ask_onnx_path;

    QTreeWidget* tree() const { return tree_; }
    // Which columns are hidden (the header's context menu), remembered in QSettings under columns_key.
    HideableColumns* columns() const { return columns_; }
    static constexpr const char* columns_key = "runList/hiddenColumns";
    QLabel* problems_label() const { return problems_; }
    QPushButton* export_button() const { return export_; }
    QPushButton* delete_button() const { return delete_; }
    // The row's context menu (Rename, Continue training, Export weights…, the Python scripts
    // (predicting and training, PyTorch and Keras), Export as ONNX…, Show in folder, Delete…),
    // owned by the caller.
    QMenu* context_menu(const QString& id);

signals:
    void tickedRunsChanged(const QStringList& ids);
    void runRenamed(const QString& id, const QString& name);
    void runRemoved(const QString& id);
    void problem(const QString& message);
    // Continue training was asked for this run (it has a checkpoint).
    void continueRequested(const QString& id);

private:
    bool has_weights(const session::RunRecord& record) const;
    // False, with the reason, when `destination` is a file an export must never replace: a listed
    // run's own file or the project file (ui/results/results_export.h's refuse_kept). `allowed`,
    // when given, is the one kept file that may be named (the run's weights, which a script reads).
    bool refuse_kept_file(const QString& destination, QString* error, const std::filesystem::path& allowed = {});
    int index_of(const QString& id) const;
    QTreeWidgetItem* item_of(const QString& id) const;
    int assign_colour(const QString& id);
    void append_row(const session::RunRecord& record, bool ticked);
    void fill_row(QTreeWidgetItem* item, const session::RunRecord& record);
    void item_changed(QTreeWidgetItem* item, int column);
    bool write_whole(const QString& destination, const QByteArray& bytes, QString* error);
    // Where an export of `record` is offered: its file name with `suffix`, in the dialog folder.
    QString suggested_export(const session::RunRecord& record, const QString& suffix) const;
    void delete_selected();
    void update_buttons();
    bool fail(QString* error, const QString& message);

    std::filesystem::path folder_;
    std::vector<session::RunRecord> runs_;  // in list order, the same as the tree's rows
    std::filesystem::path project_file_;
    QMap<QString, int> colour_index_;  // decided once per id, kept for the session
    QString active_;
    bool filling_ = false;  // rows being filled by code, not edited by the learner
    QTreeWidget* tree_;
    HideableColumns* columns_;
    QLabel* problems_;
    QPushButton* export_;
    QPushButton* delete_;
};

}  // namespace bps::ui
