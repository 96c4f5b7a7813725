#pragma once
// Columns a learner can hide and show again from the header's context menu (a tick per column),
// remembered between starts in QSettings under one key, as the list of the hidden columns' names.
// Names, not positions, are kept, so a later version that adds a column keeps the learner's choice.
#include <QObject>
#include <QString>
#include <QStringList>

class QMenu;
class QTreeView;

namespace bps::ui {

class HideableColumns : public QObject {
    Q_OBJECT
public:
    // `names` has one entry per logical column; a column with an empty name is always shown (the
    // run's name, say). The hidden ones are read from QSettings at once.
    HideableColumns(QTreeView* view, QString settings_key, QStringList names);

    void set_hidden(int column, bool hidden);  // and remembered
    bool hidden(int column) const;
    // The header's context menu: a ticked action per column that can be hidden, owned by the caller.
    QMenu* menu();

private:
    void save() const;

    QTreeView* view_;
    QString key_;
    QStringList names_;
};

}  // namespace bps::ui
