#pragma once
// One template on the Start page: a button drawn as a card with the network's thumbnail, the
// template's name, its description's first sentence, and what it trains on. Clicking it (or Space
// while it has the focus) is the button's clicked(); the whole description is its tooltip.
#include <QAbstractButton>
#include <QPixmap>
#include <QString>

class QLabel;

namespace bps::ui {

class TemplateCard : public QAbstractButton {
    Q_OBJECT
public:
    TemplateCard(const QString& title, const QString& description, const QString& facts, const QPixmap& thumbnail,
                 QWidget* parent = nullptr);

    QString title() const;
    QString description() const;  // the line the card shows
    QPixmap thumbnail() const;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QLabel* thumbnail_;
    QLabel* title_;
    QLabel* description_;
    QLabel* facts_;
};

}  // namespace bps::ui
