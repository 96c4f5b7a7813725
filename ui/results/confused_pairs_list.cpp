#include "ui/results/confused_pairs_list.h"

#include <QApplication>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QVBoxLayout>

#include "engine/base/number_text.h"
#include "engine/session/results_tables.h"
#include "ui/results/results_export.h"

namespace bps::ui {

namespace {
constexpr int true_class_role = Qt::UserRole;
constexpr int predicted_role = Qt::UserRole + 1;
// Between the pair's names and its numbers in an item's text.
const QString numbers_gap = QStringLiteral("   ");

// The pair's names at the left and its numbers in a column at the right, so the counts line up;
// the item's text stays the whole line (for screen readers and copying).
class PairLineDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
        QStyleOptionViewItem item = option;
        initStyleOption(&item, index);
        const QString text = item.text;
        item.text.clear();  // the style draws the background and the selection, the text is ours
        const QStyle* style = item.widget ? item.widget->style() : QApplication::style();
        style->drawControl(QStyle::CE_ItemViewItem, &item, painter, item.widget);
        const qsizetype gap = text.lastIndexOf(numbers_gap);
        const QString names = gap < 0 ? text : text.left(gap);
        const QString numbers = gap < 0 ? QString() : text.mid(gap + numbers_gap.size());
        const QRect area = item.rect.adjusted(6, 0, -6, 0);
        const QFontMetrics metrics(item.font);
        const int numbers_width = metrics.horizontalAdvance(numbers);
        const QPalette::ColorGroup group = item.state & QStyle::State_Active ? QPalette::Active : QPalette::Inactive;
        painter->save();
        painter->setFont(item.font);
        painter->setPen(item.palette.color(
            group, item.state & QStyle::State_Selected ? QPalette::HighlightedText : QPalette::Text));
        painter->drawText(area, Qt::AlignLeft | Qt::AlignVCenter,
                          metrics.elidedText(names, Qt::ElideRight, area.width() - numbers_width - 12));
        painter->drawText(area, Qt::AlignRight | Qt::AlignVCenter, numbers);
        painter->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
        return QStyledItemDelegate::sizeHint(option, index) + QSize(0, 6);
    }
};

}  // namespace

ConfusedPairsList::ConfusedPairsList(QWidget* parent) : QWidget(parent) {
    list_ = new QListWidget(this);
    list_->setSelectionMode(QAbstractItemView::SingleSelection);
    list_->setCursor(Qt::PointingHandCursor);
    list_->setItemDelegate(new PairLineDelegate(list_));
    empty_ = new QLabel(this);
    empty_->setWordWrap(true);
    empty_->setAlignment(Qt::AlignCenter);
    empty_->setForegroundRole(QPalette::PlaceholderText);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(list_, 1);
    layout->addWidget(empty_, 1);
    connect(list_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        emit pairClicked(item->data(true_class_role).toInt(), item->data(predicted_role).toInt());
    });
    set_matrix({}, {});
}

void ConfusedPairsList::set_matrix(const session::ConfusionMatrix& matrix, const QStringList& class_names) {
    matrix_ = matrix;
    names_ = class_names_for(class_names, matrix.classes);
    pairs_ = session::most_confused(matrix, pairs_shown);
    list_->clear();
    for (const session::ConfusedPair& pair : pairs_) {
        const QString text = tr("%1 → %2%3%4 (%5%)")
                                 .arg(names_[pair.true_class], names_[pair.predicted], numbers_gap,
                                      QString::fromStdString(session::format_thousands(pair.count)),
                                      QString::number(100.0 * pair.share, 'f', 1));
        auto* item = new QListWidgetItem(text, list_);
        item->setData(true_class_role, pair.true_class);
        item->setData(predicted_role, pair.predicted);
        item->setToolTip(tr("%1 of the %2 images of %3 were taken for %4. Click to show them.")
                             .arg(QString::fromStdString(session::format_thousands(pair.count)),
                                  QString::fromStdString(session::format_thousands(matrix.support(pair.true_class))),
                                  names_[pair.true_class], names_[pair.predicted]));
    }
    empty_->setText(empty_text());
    list_->setHidden(pairs_.empty());
    empty_->setHidden(!pairs_.empty());
}

QString ConfusedPairsList::empty_text() const {
    if (matrix_.classes <= 0 || matrix_.total() == 0) return tr("No evaluation to show");
    return tr("No confusions: every image was classified right");
}

bool ConfusedPairsList::showing_empty_text() const {
    return !empty_->isHidden();
}

void ConfusedPairsList::select_pair(int true_class, int predicted) {
    const QSignalBlocker quiet(list_);
    for (int row = 0; row < list_->count(); ++row) {
        QListWidgetItem* item = list_->item(row);
        if (item->data(true_class_role).toInt() == true_class && item->data(predicted_role).toInt() == predicted) {
            list_->setCurrentItem(item);
            list_->scrollToItem(item);
            return;
        }
    }
    list_->clearSelection();
    list_->setCurrentRow(-1);
}

bool ConfusedPairsList::export_csv(const QString& path, QString* error) const {
    return save_text(session::confused_pairs_csv(pairs_, to_std_names(names_)), path, error);
}

bool ConfusedPairsList::export_png(const QString& path, QString* error) {
    return save_png(grab().toImage(), path, error);
}

}  // namespace bps::ui
