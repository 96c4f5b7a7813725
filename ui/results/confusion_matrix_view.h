#pragma once
// A confusion matrix as a learner reads it: rows are the true classes, columns what the network
// took them for, each cell coloured by what it shows (counts, or the share of the true class's
// samples) on a white-to-deep-blue scale with its legend, and the totals beside. Hovering a cell
// names it ("Shirt taken for T-shirt/top: 112 of 1,000"); clicking it selects it and says so, so
// the Results tab can show its images; clicking a row's class name asks for that class's images.
//
// The view only paints and forwards: it is given the counts (session::ConfusionMatrix) and the
// class names, and it never reads a run. The same paint code draws the screen and the exported PNG.
#include <QColor>
#include <QImage>
#include <QRect>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <memory>
#include <optional>
#include <utility>

#include "engine/runs/confusion_matrix.h"

class QPainter;

namespace bps::ui {

class ConfusionMatrixView : public QWidget {
    Q_OBJECT
public:
    enum class Scale { counts, proportions };

    explicit ConfusionMatrixView(QWidget* parent = nullptr);
    ~ConfusionMatrixView() override;

    // An empty matrix (no classes) shows "No evaluation to show". The selection is kept when it is
    // still inside the new matrix (an epoch slider replaying matrices keeps the learner's cell).
    void set_matrix(const session::ConfusionMatrix& matrix, const QStringList& class_names);
    const session::ConfusionMatrix& matrix() const { return matrix_; }
    const QStringList& class_names() const { return names_; }

    // Counts show "1,000"; proportions the share of the true class's samples, "85.0%".
    void set_scale(Scale scale);
    Scale scale() const { return scale_; }

    // "Shirt taken for T-shirt/top: 112 of 1,000" off the diagonal, "T-shirt/top recognised: 850 of
    // 1,000" on it ("of" the true class's samples): the cell's tooltip.
    QString cell_text(int true_class, int predicted) const;
    // What the cell shows at the current scale: "1,000" or "85.0%".
    QString cell_value_text(int true_class, int predicted) const;

    // The selected cell is drawn with an outline; select_cell emits nothing (the caller knows).
    void select_cell(int true_class, int predicted);
    std::optional<std::pair<int, int>> selected_cell() const { return selected_; }
    void clear_selection();

    // Where things are, in widget coordinates (empty rects outside the matrix).
    QRect cell_rect(int true_class, int predicted) const;
    QRect class_name_rect(int true_class) const;  // the row's name at the left
    std::optional<std::pair<int, int>> cell_at(QPoint point) const;

    // The view as a picture, at the widget's size or the given one, drawn by the paint code.
    QImage picture(QSize size = {}) const;
    // Each returns false with `error` naming the file when it cannot be written.
    bool export_png(const QString& path, QString* error) const;
    bool export_csv(const QString& path, QString* error) const;  // session::confusion_csv

    // The colour of a cell whose shown value is `fraction` of the scale (0: white, 1: deep blue).
    static QColor scale_colour(double fraction);
    // The outline of the selected cell.
    static QColor selection_colour();

    QSize sizeHint() const override { return {520, 460}; }
    QSize minimumSizeHint() const override { return {320, 280}; }

signals:
    void cellClicked(int true_class, int predicted);
    void classClicked(int true_class);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Layout;
    // The layout of the last size asked for, kept until the matrix, the scale or the font changes:
    // every mouse move hit-tests through it.
    const Layout& layout_for(QSize size) const;
    Layout compute_layout(QSize size) const;
    void forget_layout();
    void arrange(Layout& layout, const QFont& label_font, QSize size) const;
    void paint(QPainter& painter, QSize size) const;
    double colour_fraction(int true_class, int predicted) const;
    std::optional<int> class_name_at(QPoint point) const;

    session::ConfusionMatrix matrix_;
    QStringList names_;
    Scale scale_ = Scale::counts;
    std::size_t largest_count_ = 0;
    std::optional<std::pair<int, int>> selected_;
    std::optional<std::pair<int, int>> hovered_;
    mutable std::unique_ptr<Layout> layout_;
    mutable QSize layout_size_;
};

}  // namespace bps::ui
