#include "ui/editor/palette_dock.h"

#include <QEvent>
#include <QHeaderView>
#include <QLineEdit>
#include <QMimeData>
#include <QPainter>
#include <QPixmap>
#include <QStyle>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "engine/project/network_edits.h"
#include "ui/editor/network_scene.h"
#include "ui/editor/node_item.h"

namespace bps::ui {

namespace {

constexpr int label_role = Qt::UserRole;  // a leaf's palette label; empty on a group row

// A tree whose drags carry the palette label in the canvas's mime type.
class PaletteTree : public QTreeWidget {
public:
    using QTreeWidget::QTreeWidget;
    int widest_row() const { return sizeHintForColumn(0); }  // with the indentation of its level

protected:
    QStringList mimeTypes() const override { return {NetworkScene::layer_mime_type}; }

    QMimeData* mimeData(const QList<QTreeWidgetItem*>& items) const override {
        for (const QTreeWidgetItem* item : items) {
            const QString label = item->data(0, label_role).toString();
            if (label.isEmpty()) continue;
            auto* mime = new QMimeData;
            mime->setData(NetworkScene::layer_mime_type, label.toUtf8());
            return mime;
        }
        return nullptr;
    }

    Qt::DropActions supportedDropActions() const override { return Qt::CopyAction; }
};

// A small swatch in the group's accent, as the canvas paints the group's nodes.
QIcon accent_icon(const QColor& accent) {
    QPixmap swatch(12, 12);
    swatch.fill(Qt::transparent);
    QPainter painter(&swatch);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(accent);
    painter.drawRoundedRect(QRectF(1, 1, 10, 10), 3, 3);
    return QIcon(swatch);
}

}  // namespace

PaletteDock::PaletteDock(QWidget* parent)
    : QDockWidget(tr("Layers"), parent), filter_(new QLineEdit), tree_(new PaletteTree) {
    setObjectName("paletteDock");
    filter_->setObjectName("paletteFilter");
    filter_->setPlaceholderText(tr("Filter layers"));
    filter_->setClearButtonEnabled(true);
    tree_->setObjectName("paletteTree");
    tree_->setHeaderHidden(true);
    tree_->setRootIsDecorated(true);
    tree_->setDragEnabled(true);
    tree_->setDragDropMode(QAbstractItemView::DragOnly);
    tree_->setSelectionMode(QAbstractItemView::SingleSelection);

    for (const std::string& group : project::palette_groups()) {
        auto* group_item = new QTreeWidgetItem(tree_, {QString::fromStdString(group)});
        group_item->setFlags(Qt::ItemIsEnabled);  // a heading: neither dragged nor chosen
        for (const project::PaletteEntry& entry : project::palette()) {
            if (entry.group != group) continue;
            const QString label = QString::fromStdString(entry.label);
            auto* item = new QTreeWidgetItem(group_item, {label});
            item->setData(0, label_role, label);
            item->setToolTip(0, QString::fromStdString(entry.description));
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled);
        }
    }
    tree_->expandAll();
    paint_group_icons();
    // Never narrower than its longest label ("GlobalAveragePooling2D"): no label is cut, and the
    // list never scrolls sideways.
    tree_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    tree_->setMinimumWidth(static_cast<PaletteTree*>(tree_)->widest_row() + 2 * tree_->frameWidth() +
                           tree_->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, tree_));

    // itemActivated is a double-click or Enter (or a single click where the platform says so).
    connect(tree_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        const QString label = item->data(0, label_role).toString();
        if (!label.isEmpty()) emit appendRequested(label);
    });
    connect(filter_, &QLineEdit::textChanged, this, &PaletteDock::apply_filter);

    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(filter_);
    layout->addWidget(tree_);
    setWidget(content);
}

void PaletteDock::paint_group_icons() {
    const QPalette colours = tree_->palette();
    for (int g = 0; g < tree_->topLevelItemCount(); ++g) {
        QTreeWidgetItem* group = tree_->topLevelItem(g);
        group->setIcon(0, accent_icon(group_accent(group->text(0).toStdString(), colours)));
    }
}

void PaletteDock::changeEvent(QEvent* event) {
    QDockWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) paint_group_icons();
}

void PaletteDock::apply_filter(const QString& text) {
    const QString wanted = text.trimmed();
    for (int g = 0; g < tree_->topLevelItemCount(); ++g) {
        QTreeWidgetItem* group = tree_->topLevelItem(g);
        bool any = false;
        for (int i = 0; i < group->childCount(); ++i) {
            QTreeWidgetItem* item = group->child(i);
            const bool shown = wanted.isEmpty() || item->text(0).contains(wanted, Qt::CaseInsensitive) ||
                               group->text(0).contains(wanted, Qt::CaseInsensitive);
            item->setHidden(!shown);
            any = any || shown;
        }
        group->setHidden(!any);
    }
}

}  // namespace bps::ui
