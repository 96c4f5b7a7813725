#pragma once
// Every class's probability as a horizontal bar, in class order: its name, the bar and the
// percentage. The true class's bar is green and the most probable class's red when it is wrong,
// as ConvNetJS's test strip colours them, so a learner sees at a glance whether the answer was
// right and how sure the network was. Without a true label (a drawing), the most probable class
// stands out in the accent colour. Paints only.
#include <QStringList>
#include <QWidget>
#include <optional>
#include <vector>

namespace bps::ui {

class ProbabilityBars : public QWidget {
    Q_OBJECT
public:
    explicit ProbabilityBars(QWidget* parent = nullptr);

    void set_classes(const QStringList& names);
    // One probability per class (fewer or more than the names: the rest are named by index).
    void set_probabilities(std::vector<float> probabilities, std::optional<int> true_label = {});
    void clear();

    const std::vector<float>& probabilities() const { return probabilities_; }
    std::optional<int> true_label() const { return true_label_; }
    // The class with the highest probability; none while cleared.
    std::optional<int> top_class() const;
    // The colour class `label`'s bar is painted in.
    QColor bar_colour(int label) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QString name_of(int label) const;
    int row_height() const;

    QStringList names_;
    std::vector<float> probabilities_;
    std::optional<int> true_label_;
};

}  // namespace bps::ui
