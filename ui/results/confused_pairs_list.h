#pragma once
// The most-confused pairs of an evaluated split (session::most_confused, the 10 largest
// off-diagonal cells), one line each: "Shirt → T-shirt/top   112 (11.2%)", the share being of the
// true class's images. Clicking a pair asks for its cell (and its images); select_pair follows a
// cell chosen elsewhere. It only shows what it is given.
#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

#include "engine/runs/confusion_matrix.h"

class QLabel;
class QListWidget;

namespace bps::ui {

class ConfusedPairsList : public QWidget {
    Q_OBJECT
public:
    static constexpr std::size_t pairs_shown = 10;

    explicit ConfusedPairsList(QWidget* parent = nullptr);

    // No confusions (or no evaluation) shows a sentence instead of an empty list.
    void set_matrix(const session::ConfusionMatrix& matrix, const QStringList& class_names);

    const std::vector<session::ConfusedPair>& pairs() const { return pairs_; }
    QListWidget* list() const { return list_; }
    QString empty_text() const;  // what shows when no pair is listed
    bool showing_empty_text() const;

    // Selects the pair's line without a signal; a pair not listed clears the selection.
    void select_pair(int true_class, int predicted);

    // Each returns false with `error` naming the file when it cannot be written.
    bool export_csv(const QString& path, QString* error) const;  // session::confused_pairs_csv
    bool export_png(const QString& path, QString* error);

signals:
    void pairClicked(int true_class, int predicted);

private:
    session::ConfusionMatrix matrix_;
    QStringList names_;
    std::vector<session::ConfusedPair> pairs_;
    QListWidget* list_ = nullptr;
    QLabel* empty_ = nullptr;
};

}  // namespace bps::ui
