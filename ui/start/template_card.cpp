#include "ui/start/template_card.h"

#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

namespace bps::ui {

namespace {

QLabel* card_label(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setAttribute(Qt::WA_TransparentForMouseEvents);  // the card takes the clicks
    return label;
}

}  // namespace

TemplateCard::TemplateCard(const QString& title, const QString& description, const QString& facts,
                           const QPixmap& thumbnail, QWidget* parent)
    : QAbstractButton(parent),
      thumbnail_(new QLabel(this)),
      title_(card_label(title, this)),
      description_(card_label(description, this)),
      facts_(card_label(facts, this)) {
    setText(title);  // what accessibility tools read
    setCursor(Qt::PointingHandCursor);
    setAttribute(Qt::WA_Hover);
    setFocusPolicy(Qt::StrongFocus);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    thumbnail_->setPixmap(thumbnail);
    thumbnail_->setAlignment(Qt::AlignCenter);
    thumbnail_->setAttribute(Qt::WA_TransparentForMouseEvents);
    QFont bold = title_->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.1);
    title_->setFont(bold);
    description_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    QPalette quiet = facts_->palette();
    quiet.setColor(QPalette::WindowText, palette().color(QPalette::PlaceholderText));
    facts_->setPalette(quiet);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 10, 12, 10);
    layout->setSpacing(6);
    layout->addWidget(thumbnail_);
    layout->addWidget(title_);
    layout->addWidget(description_, 1);
    layout->addWidget(facts_);
}

QString TemplateCard::title() const {
    return title_->text();
}

QString TemplateCard::description() const {
    return description_->text();
}

QPixmap TemplateCard::thumbnail() const {
    return thumbnail_->pixmap();
}

// A raised panel in the base colour; the highlight colour outlines it under the mouse, while it
// is pressed, and with the keyboard's focus.
void TemplateCard::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    // The focus shows only when it came from the keyboard: a card the window focused by itself
    // must not look chosen.
    const bool keyboard_focus = hasFocus() && window()->testAttribute(Qt::WA_KeyboardFocusChange);
    const bool lit = underMouse() || isDown() || keyboard_focus;
    const QColor border = lit ? palette().color(QPalette::Highlight) : palette().color(QPalette::Mid);
    QColor fill = palette().color(QPalette::Base);
    if (isDown()) fill = fill.darker(105);
    painter.setPen(QPen(border, lit ? 2 : 1));
    painter.setBrush(fill);
    painter.drawRoundedRect(QRectF(rect()).adjusted(1, 1, -1, -1), 6, 6);
}

}  // namespace bps::ui
