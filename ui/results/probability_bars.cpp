#include "ui/results/probability_bars.h"

#include <QPainter>
#include <QPalette>
#include <algorithm>
#include <cmath>

namespace bps::ui {

namespace {

// Tableau's green and red, told apart by most colour-blind eyes by their lightness too.
const QColor right_colour(44, 160, 44);
const QColor wrong_colour(214, 39, 40);
const QColor top_colour(31, 119, 180);

}  // namespace

ProbabilityBars::ProbabilityBars(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Minimum);
}

void ProbabilityBars::set_classes(const QStringList& names) {
    names_ = names;
    updateGeometry();
    update();
}

void ProbabilityBars::set_probabilities(std::vector<float> probabilities, std::optional<int> true_label) {
    probabilities_ = std::move(probabilities);
    true_label_ = true_label;
    updateGeometry();
    update();
}

void ProbabilityBars::clear() {
    set_probabilities({}, std::nullopt);
}

std::optional<int> ProbabilityBars::top_class() const {
    if (probabilities_.empty()) return std::nullopt;
    return static_cast<int>(std::max_element(probabilities_.begin(), probabilities_.end()) - probabilities_.begin());
}

QColor ProbabilityBars::bar_colour(int label) const {
    if (true_label_ && label == *true_label_) return right_colour;
    if (label == top_class()) return true_label_ ? wrong_colour : top_colour;
    return palette().color(QPalette::Mid);
}

QString ProbabilityBars::name_of(int label) const {
    return label < names_.size() ? names_[label] : QString::number(label);
}

int ProbabilityBars::row_height() const {
    return fontMetrics().height() + 6;
}

QSize ProbabilityBars::sizeHint() const {
    const int rows = std::max<int>(static_cast<int>(probabilities_.size()), static_cast<int>(names_.size()));
    return {320, std::max(1, rows) * row_height()};
}

QSize ProbabilityBars::minimumSizeHint() const {
    const int rows = std::max<int>(static_cast<int>(probabilities_.size()), static_cast<int>(names_.size()));
    return {180, std::max(1, rows) * row_height()};
}

void ProbabilityBars::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    // Measured in bold, the widest a name is drawn (the true and the top class are bold).
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics metrics(bold);
    const int rows = std::max<int>(static_cast<int>(probabilities_.size()), static_cast<int>(names_.size()));
    int name_width = 0;
    for (int label = 0; label < rows; ++label)
        name_width = std::max(name_width, metrics.horizontalAdvance(name_of(label)));
    name_width = std::min(name_width + 8, width() * 2 / 5);  // long names are elided, the bars keep room
    const int percent_width = metrics.horizontalAdvance(QStringLiteral("100.0%")) + 8;
    const int bar_left = name_width, bar_width = std::max(10, width() - name_width - percent_width);
    const int height = row_height();
    const bool top_known = top_class().has_value();
    for (int label = 0; label < rows; ++label) {
        const QRect row(0, label * height, width(), height);
        const bool stands_out = top_known && (label == top_class() || (true_label_ && label == *true_label_));
        QFont font = painter.font();
        font.setBold(stands_out);
        painter.setFont(font);
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QRect(0, row.top(), name_width - 6, height), Qt::AlignRight | Qt::AlignVCenter,
                         metrics.elidedText(name_of(label), Qt::ElideRight, name_width - 6));
        const QRect track(bar_left, row.top() + 3, bar_width, height - 6);
        painter.fillRect(track, palette().color(QPalette::AlternateBase));
        const std::size_t index = static_cast<std::size_t>(label);
        if (index >= probabilities_.size()) continue;
        const float probability = std::clamp(probabilities_[index], 0.0f, 1.0f);
        const int filled = static_cast<int>(std::lround(probability * static_cast<float>(bar_width)));
        painter.fillRect(QRect(track.left(), track.top(), filled, track.height()), bar_colour(label));
        painter.drawText(QRect(bar_left + bar_width + 4, row.top(), percent_width - 4, height),
                         Qt::AlignLeft | Qt::AlignVCenter, QString::number(100.0 * probability, 'f', 1) + "%");
    }
}

}  // namespace bps::ui
