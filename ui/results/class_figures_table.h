#pragma once
// Per-class numbers beat one number: precision, recall, F1 and support for each class of an
// evaluated split, sortable by any column, under the overall accuracy and what chance would give
// ("Accuracy 91.2% on 10,000 images — chance with 10 classes: 10.0%"). Clicking a row asks for that
// class's images. It only shows what it is given (session::class_figures of the matrix).
#include <QString>
#include <QStringList>
#include <QWidget>

#include "engine/runs/confusion_matrix.h"

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace bps::ui {

class ClassFiguresModel;

class ClassFiguresTable : public QWidget {
    Q_OBJECT
public:
    enum Column { class_column, precision_column, recall_column, f1_column, support_column, column_count };
    // The role holding each cell's number (the class's index in the class column), which sorting
    // uses: "0.9" must come after "0.10".
    static constexpr int sort_role = Qt::UserRole;

    explicit ClassFiguresTable(QWidget* parent = nullptr);

    // An empty matrix (no classes) empties the table and says there is no evaluation.
    void set_matrix(const session::ConfusionMatrix& matrix, const QStringList& class_names);

    QTableView* view() const { return view_; }
    QString accuracy_text() const;  // the label above the table
    // The class shown in a row of the view (whatever the sort); -1 outside the table.
    int class_at_row(int view_row) const;

    QString csv() const;  // session::class_figures_csv
    // Each returns false with `error` naming the file when it cannot be written.
    bool export_csv(const QString& path, QString* error) const;
    bool export_png(const QString& path, QString* error);

signals:
    void classClicked(int true_class);

private:
    session::ConfusionMatrix matrix_;
    QStringList names_;
    QLabel* accuracy_ = nullptr;
    QTableView* view_ = nullptr;
    ClassFiguresModel* model_ = nullptr;
    QSortFilterProxyModel* sorted_ = nullptr;
};

}  // namespace bps::ui
