#pragma once
// The Start tab: where a learner begins. The course, the templates (each a card with its
// thumbnail and its description's first sentence), Open…, the recent projects, and "Show this
// page at start". It paints and forwards: the main window (main_window_start.cpp) creates the
// projects, opens the files and keeps the setting.
#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

#include "engine/project/project.h"

class QCheckBox;
class QGridLayout;
class QListWidget;
class QPushButton;
class QScrollArea;

namespace bps::ui {

class TemplateCard;

class StartPage : public QWidget {
    Q_OBJECT
public:
    // The QSettings key of "Show this page at start" (true when absent).
    static constexpr const char* show_at_start_key = "startPage/showAtStart";
    // A recent project's path, on its row of the recent list.
    static constexpr int path_role = Qt::UserRole;

    struct Template {
        QString name;   // what File ▸ New calls it: "blank", "cnn", ...
        QString title;  // the card's heading: "Blank", "cnn" (the project's name)
        project::Project project;
    };

    explicit StartPage(QWidget* parent = nullptr);

    // One card per template, in this order, named "startTemplate_<name>".
    void set_templates(const std::vector<Template>& templates);
    // The recent projects, newest first; a file no longer there is shown greyed (a click still
    // reports it, and the window says it is gone).
    void set_recent(const QStringList& paths);
    void set_show_at_start(bool show);

    // The first sentence of a template's description: the card's one line.
    static QString first_sentence(const QString& description);

    TemplateCard* template_card(const QString& name) const;
    QStringList template_names() const;
    QListWidget* recent_list() const { return recent_; }
    QPushButton* open_button() const { return open_; }
    QPushButton* course_button() const { return course_; }
    QCheckBox* show_at_start_box() const { return show_at_start_; }
    // How many template cards stand in a row: four, or two where four would not fit the page's
    // width (the page never scrolls sideways).
    int cards_per_row() const { return cards_per_row_; }

protected:
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

signals:
    void templateChosen(const QString& name);
    void openRequested();
    void recentChosen(const QString& path);
    void courseRequested();
    void showAtStartChanged(bool show);

private:
    void place_cards(int per_row);
    void fit_cards();

    QScrollArea* scroll_ = nullptr;
    QWidget* content_ = nullptr;
    int cards_per_row_ = 4;
    int four_across_width_ = 0;  // the content's least width with four cards a row, once measured
    QGridLayout* templates_;
    QListWidget* recent_;
    QPushButton* open_;
    QPushButton* course_;
    QCheckBox* show_at_start_;
};

}  // namespace bps::ui
