#pragma once
// The Problems dock: every problem of the graph report, one row each, with the layer it is on
// ("network" for a problem of the whole network) and the message in the learner's words, so a
// learner sees at once everything that stops the network from training. Clicking a row asks the
// editor to select that layer (layerActivated); the window wires it to the canvas. The dock only
// reads the document and follows its changed().
#include <QDockWidget>
#include <QString>

class QTreeWidget;
class QTreeWidgetItem;

namespace bps::ui {

class NetworkDocument;

class ProblemsDock : public QDockWidget {
    Q_OBJECT
public:
    explicit ProblemsDock(NetworkDocument* document, QWidget* parent = nullptr);

    // The problems shown: the report's, and the dataset's when it could not be read.
    int problem_count() const { return problem_count_; }
    // Columns: layer, message. With no problem it holds one "No problems" row that is no problem.
    QTreeWidget* view() const { return view_; }

public slots:
    void refresh();

signals:
    // A row naming a layer was clicked or activated (Enter, double-click).
    void layerActivated(const QString& name);

private:
    void activate(QTreeWidgetItem* item);

    NetworkDocument* document_;
    QTreeWidget* view_;
    int problem_count_ = 0;
};

}  // namespace bps::ui
