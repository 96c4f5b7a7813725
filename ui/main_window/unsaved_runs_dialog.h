#pragma once
// File ▸ Recover Unsaved Runs…: the projects that were trained and never saved, whose runs wait
// in the studio's data folder, each with its name, its last run and how many runs it has. The
// learner picks one to open with its runs (then Save keeps them beside the project file).
#include <QDialog>
#include <QString>
#include <filesystem>
#include <vector>

class QPushButton;
class QTreeWidget;

namespace bps::ui {

// One unsaved project's runs, as the dialog lists them.
struct UnsavedProjectEntry {
    std::filesystem::path folder;  // where its runs are kept, one subfolder per run
    QString name;                  // the project's name, or "Untitled"
    QString last_run;              // when its newest run started, in the locale's short format
    int runs = 0;
};

class UnsavedRunsDialog : public QDialog {
    Q_OBJECT
public:
    static constexpr const char* list_name = "unsavedRunsList";
    static constexpr const char* open_button_name = "openUnsavedRunsButton";

    explicit UnsavedRunsDialog(std::vector<UnsavedProjectEntry> entries, QWidget* parent = nullptr);
    QTreeWidget* list() const { return list_; }
    QPushButton* open_button() const { return open_; }
    // The folder of the project picked with Open (empty before, or with none listed).
    std::filesystem::path chosen() const;

    // Shows the dialog over `parent`; the folder of the project to open, or empty when closed.
    static std::filesystem::path choose(QWidget* parent, std::vector<UnsavedProjectEntry> entries);

private:
    std::vector<UnsavedProjectEntry> entries_;
    QTreeWidget* list_;
    QPushButton* open_;
};

}  // namespace bps::ui
