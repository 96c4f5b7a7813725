#pragma once
// Keeps a table's columns inside its width, so that a dock's table never scrolls sideways: each
// column is as wide as its contents and heading while they all fit (the spare width going to
// `stretch_column`, or shared evenly with `spread_spare`), and all narrow together, their text
// elided, when they do not.
#include <QAbstractItemModel>
#include <QEvent>
#include <QHeaderView>
#include <QObject>
#include <QTableView>
#include <algorithm>
#include <vector>

namespace bps::ui {

class FitColumns : public QObject {
public:
    static constexpr int spread_spare = -1;  // as `stretch_column`: every column gets a share

    FitColumns(QTableView* view, int stretch_column) : QObject(view), view_(view), stretch_column_(stretch_column) {
        view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
        view->horizontalHeader()->setStretchLastSection(false);
        view->viewport()->installEventFilter(this);
        QAbstractItemModel* model = view->model();
        connect(model, &QAbstractItemModel::modelReset, this, &FitColumns::fit);
        connect(model, &QAbstractItemModel::layoutChanged, this, &FitColumns::fit);
        connect(model, &QAbstractItemModel::dataChanged, this, &FitColumns::fit);
        connect(model, &QAbstractItemModel::rowsInserted, this, &FitColumns::fit);
        fit();
    }

    void fit() {
        const int columns = view_->model()->columnCount();
        if (columns == 0) return;
        std::vector<int> wanted(static_cast<std::size_t>(columns));
        long total = 0;
        for (int column = 0; column < columns; ++column) {
            view_->resizeColumnToContents(column);  // its contents' or its heading's width
            const int width = view_->columnWidth(column);
            wanted[static_cast<std::size_t>(column)] = width;
            total += width;
        }
        const int available = view_->viewport()->width();
        for (int column = 0; column < columns; ++column) {
            int width = wanted[static_cast<std::size_t>(column)];
            if (total > available)
                width = static_cast<int>(static_cast<long>(width) * available / total);
            else if (column == stretch_column_)
                width += available - static_cast<int>(total);
            else if (stretch_column_ == spread_spare) {
                const int spare = available - static_cast<int>(total);
                width += column + 1 < columns ? spare / columns : spare - (columns - 1) * (spare / columns);
            }
            view_->setColumnWidth(column, width);
        }
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Resize) fit();
        return QObject::eventFilter(watched, event);
    }

private:
    QTableView* view_;
    int stretch_column_;
};

}  // namespace bps::ui
