#pragma once
// The palette of layers: every entry of project::palette(), grouped as project::palette_groups()
// orders them (Input, Core, Convolution, ...), each with its description as a tooltip. Dragging an
// entry carries NetworkScene::layer_mime_type (the label) onto the canvas, which adds the layer
// where it is dropped. Double-click or Enter asks, through appendRequested, for the layer after
// the selection: the window calls document->append_layer(label, first selected layer). A filter
// box narrows the list as the learner types.
#include <QDockWidget>
#include <QString>

class QLineEdit;
class QTreeWidget;

namespace bps::ui {

class PaletteDock : public QDockWidget {
    Q_OBJECT
public:
    explicit PaletteDock(QWidget* parent = nullptr);

    QTreeWidget* tree() const { return tree_; }
    QLineEdit* filter() const { return filter_; }

signals:
    // The learner chose the palette entry `label` (double-click or Enter).
    void appendRequested(const QString& label);

protected:
    void changeEvent(QEvent* event) override;

private:
    void apply_filter(const QString& text);
    void paint_group_icons();  // again when the palette changes (dark mode)

    QLineEdit* filter_;
    QTreeWidget* tree_;
};

}  // namespace bps::ui
