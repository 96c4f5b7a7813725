// The Results tab's matrix, per-class table and most-confused pairs under the offscreen platform,
// on a confusion matrix written by hand (Fashion-MNIST's names, rows of unequal support): what
// the cells say and where they are, clicks and the signals they give, sorting by numbers, and the
// exports read back from disk.
#include <QFile>
#include <QHeaderView>
#include <QHelpEvent>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/runs/confusion_matrix.h"
#include "tests/ui/qt_test_class.h"
#include "ui/results/class_figures_table.h"
#include "ui/results/confused_pairs_list.h"
#include "ui/results/confusion_matrix_view.h"

using bps::ui::ClassFiguresTable;
using bps::ui::ConfusedPairsList;
using bps::ui::ConfusionMatrixView;
namespace session = bps::session;

namespace {

const QStringList fashion_names{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

// Counts drawn once at random and written down, then two rows set to the example (Shirt
// taken for T-shirt/top 112 times of 1,000; T-shirt/top recognised 850 times of 1,000). Supports
// differ (96 to 1,020) so that a sort of the text "1,000" before "987" shows; ties (58, 28) test
// the pairs' order.
const std::vector<std::vector<std::size_t>> counts_by_row{
    {850, 27, 0, 0, 0, 0, 28, 38, 43, 14},    {0, 968, 0, 0, 17, 0, 0, 8, 8, 12},
    {23, 21, 820, 0, 13, 0, 84, 17, 0, 9},    {0, 25, 0, 880, 0, 22, 29, 20, 24, 0},
    {30, 24, 18, 31, 790, 48, 0, 21, 10, 48}, {0, 0, 0, 0, 6, 90, 0, 0, 0, 0},
    {112, 58, 31, 58, 7, 15, 610, 32, 4, 73}, {20, 0, 18, 6, 0, 21, 0, 940, 0, 0},
    {28, 11, 0, 0, 0, 0, 0, 0, 960, 0},       {0, 3, 0, 0, 28, 0, 0, 0, 24, 945}};

session::ConfusionMatrix matrix_of(const std::vector<std::vector<std::size_t>>& rows) {
    session::ConfusionMatrix matrix(static_cast<int>(rows.size()));
    for (std::size_t t = 0; t < rows.size(); ++t)
        for (std::size_t p = 0; p < rows.size(); ++p)
            for (std::size_t i = 0; i < rows[t][p]; ++i) matrix.add(static_cast<int>(t), static_cast<int>(p));
    return matrix;
}

std::size_t row_sum(std::size_t t) {
    return std::accumulate(counts_by_row[t].begin(), counts_by_row[t].end(), std::size_t{0});
}
std::size_t column_sum(std::size_t p) {
    std::size_t sum = 0;
    for (const auto& row : counts_by_row) sum += row[p];
    return sum;
}

QStringList read_lines(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    QStringList lines = QString::fromUtf8(file.readAll()).split('\n');
    if (!lines.isEmpty() && lines.back().isEmpty()) lines.removeLast();
    return lines;
}

// Pressing and releasing on a cell of a table or list's viewport.
void click_in(QWidget* viewport, QPoint point) {
    QTest::mouseClick(viewport, Qt::LeftButton, {}, point);
}

bool near(QRgb pixel, const QColor& colour) {
    return std::abs(qRed(pixel) - colour.red()) <= 2 && std::abs(qGreen(pixel) - colour.green()) <= 2 &&
           std::abs(qBlue(pixel) - colour.blue()) <= 2;
}

}  // namespace

class ResultsTablesTest : public QObject {
    Q_OBJECT
private slots:
    void matrixCellsAreNamedInTheLearnersWords();
    void hoveringACellShowsItsName();
    void proportionsShowTheShareOfTheTrueClass();
    void clickingACellSelectsItAndSaysWhich();
    void clickingAClassNameAsksForItsImages();
    void theArrowKeysWalkTheCells();
    void theMatrixFitsItsSizesAndTwoClasses();
    void anEmptyMatrixSaysThereIsNothingToShow();
    void theMatrixExportsAPictureAndItsCounts();
    void anExportToAMissingFolderNamesTheFile();
    void theTableShowsEachClassFiguresAndTheAccuracy();
    void theTableSortsByNumbersNotText();
    void aClickOnASortedRowNamesItsClass();
    void theTableExportsItsFigures();
    void thePairsAreTheLargestConfusionsInOrder();
    void clickingAPairNamesItsCell();
    void noConfusionsSaysSo();
    void thePairsExportAsCsv();
};

void ResultsTablesTest::matrixCellsAreNamedInTheLearnersWords() {
    ConfusionMatrixView view;
    view.set_matrix(matrix_of(counts_by_row), fashion_names);
    QCOMPARE(view.cell_text(6, 0), QStringLiteral("Shirt taken for T-shirt/top: 112 of 1,000"));
    QCOMPARE(view.cell_text(0, 0), QStringLiteral("T-shirt/top recognised: 850 of 1,000"));
    QCOMPARE(view.cell_text(4, 9), QStringLiteral("Coat taken for Ankle boot: 48 of 1,020"));
    QCOMPARE(view.cell_text(5, 5), QStringLiteral("Sandal recognised: 90 of 96"));
    QCOMPARE(view.cell_text(10, 0), QString());  // outside the matrix
    QCOMPARE(view.scale(), ConfusionMatrixView::Scale::counts);
    QCOMPARE(view.cell_value_text(1, 1), QStringLiteral("968"));

    // Thousands are grouped in the cells as in the tooltips.
    ConfusionMatrixView two;
    two.set_matrix(matrix_of({{1234, 66}, {5, 2000}}), {"cat", "dog"});
    QCOMPARE(two.cell_value_text(0, 0), QStringLiteral("1,234"));
    QCOMPARE(two.cell_text(1, 0), QStringLiteral("dog taken for cat: 5 of 2,005"));
}

void ResultsTablesTest::hoveringACellShowsItsName() {
    ConfusionMatrixView view;
    view.set_matrix(matrix_of(counts_by_row), fashion_names);
    view.resize(520, 460);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QPoint centre = view.cell_rect(6, 0).center();
    QHelpEvent help(QEvent::ToolTip, centre, view.mapToGlobal(centre));
    QCoreApplication::sendEvent(&view, &help);
    QTRY_COMPARE_WITH_TIMEOUT(QToolTip::text(), QStringLiteral("Shirt taken for T-shirt/top: 112 of 1,000"), 2000);
    const QPoint diagonal = view.cell_rect(0, 0).center();
    QHelpEvent help_diagonal(QEvent::ToolTip, diagonal, view.mapToGlobal(diagonal));
    QCoreApplication::sendEvent(&view, &help_diagonal);
    QTRY_COMPARE_WITH_TIMEOUT(QToolTip::text(), QStringLiteral("T-shirt/top recognised: 850 of 1,000"), 2000);
    QToolTip::hideText();
}

void ResultsTablesTest::proportionsShowTheShareOfTheTrueClass() {
    ConfusionMatrixView view;
    view.set_matrix(matrix_of(counts_by_row), fashion_names);
    view.set_scale(ConfusionMatrixView::Scale::proportions);
    QCOMPARE(view.scale(), ConfusionMatrixView::Scale::proportions);
    QCOMPARE(view.cell_value_text(6, 0), QStringLiteral("11.2%"));
    QCOMPARE(view.cell_value_text(0, 0), QStringLiteral("85.0%"));
    QCOMPARE(view.cell_value_text(5, 5), QStringLiteral("93.8%"));  // 90 of 96
    QCOMPARE(view.cell_value_text(4, 9), QStringLiteral("4.7%"));   // 48 of 1,020
    QCOMPARE(view.cell_value_text(0, 2), QStringLiteral("0.0%"));
    // The tooltip still says the counts.
    QCOMPARE(view.cell_text(6, 0), QStringLiteral("Shirt taken for T-shirt/top: 112 of 1,000"));
    view.set_scale(ConfusionMatrixView::Scale::counts);
    QCOMPARE(view.cell_value_text(6, 0), QStringLiteral("112"));
}

void ResultsTablesTest::clickingACellSelectsItAndSaysWhich() {
    ConfusionMatrixView view;
    view.set_matrix(matrix_of(counts_by_row), fashion_names);
    view.resize(520, 460);
    QSignalSpy cells(&view, &ConfusionMatrixView::cellClicked);
    QSignalSpy classes(&view, &ConfusionMatrixView::classClicked);
    for (const auto& [t, p] : std::vector<std::pair<int, int>>{{6, 0}, {0, 0}, {9, 4}, {2, 6}}) {
        QTest::mouseClick(&view, Qt::LeftButton, {}, view.cell_rect(t, p).center());
        QCOMPARE(cells.count(), 1);
        QCOMPARE(cells.takeFirst(), (QList<QVariant>{t, p}));
        QCOMPARE(view.selected_cell(), std::make_optional(std::pair{t, p}));
        QCOMPARE(view.cell_at(view.cell_rect(t, p).topLeft()), std::make_optional(std::pair{t, p}));
        QCOMPARE(view.cell_at(view.cell_rect(t, p).bottomRight()), std::make_optional(std::pair{t, p}));
    }
    QCOMPARE(classes.count(), 0);
    // Selecting from elsewhere says nothing; a click outside the cells selects nothing.
    view.select_cell(3, 5);
    QCOMPARE(view.selected_cell(), std::make_optional(std::pair{3, 5}));
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(cells.count(), 0);
    QCOMPARE(view.cell_at(QPoint(2, 2)), std::nullopt);
    view.clear_selection();
    QCOMPARE(view.selected_cell(), std::nullopt);
    // A new matrix of the same classes (the next epoch) keeps the cell; fewer classes drop it.
    view.select_cell(9, 4);
    view.set_matrix(matrix_of(counts_by_row), fashion_names);
    QCOMPARE(view.selected_cell(), std::make_optional(std::pair{9, 4}));
    view.set_matrix(matrix_of({{3, 1}, {2, 4}}), {"cat", "dog"});
    QCOMPARE(view.selected_cell(), std::nullopt);
}

void ResultsTablesTest::clickingAClassNameAsksForItsImages() {
    ConfusionMatrixView view;
    view.set_matrix(matrix_of(counts_by_row), fashion_names);
    view.resize(520, 460);
    QSignalSpy cells(&view, &ConfusionMatrixView::cellClicked);
    QSignalSpy classes(&view, &ConfusionMatrixView::classClicked);
    for (int t : {6, 0, 9}) {
        const QRect name = view.class_name_rect(t);
        QVERIFY(!name.isEmpty());
        QVERIFY(name.right() < view.cell_rect(t, 0).left());  // at the left of its row
        QCOMPARE(name.center().y() / 4, view.cell_rect(t, 0).center().y() / 4);
        QTest::mouseClick(&view, Qt::LeftButton, {}, name.center());
        QCOMPARE(classes.count(), 1);
        QCOMPARE(classes.takeFirst().at(0).toInt(), t);
    }
    QCOMPARE(cells.count(), 0);
    QCOMPARE(view.selected_cell(), std::nullopt);
}

void ResultsTablesTest::theArrowKeysWalkTheCells() {
    ConfusionMatrixView view;
    view.set_matrix(matrix_of(counts_by_row), fashion_names);
    view.resize(520, 460);
    QSignalSpy cells(&view, &ConfusionMatrixView::cellClicked);
    view.select_cell(6, 0);
    QTest::keyClick(&view, Qt::Key_Right);
    QCOMPARE(cells.takeFirst(), (QList<QVariant>{6, 1}));
    QTest::keyClick(&view, Qt::Key_Down);
    QCOMPARE(cells.takeFirst(), (QList<QVariant>{7, 1}));
    QTest::keyClick(&view, Qt::Key_Up);
    QTest::keyClick(&view, Qt::Key_Left);
    QCOMPARE(cells.count(), 2);
    QCOMPARE(cells.takeLast(), (QList<QVariant>{6, 0}));
    cells.clear();
    QCOMPARE(view.selected_cell(), std::make_optional(std::pair{6, 0}));
    // At the edge the cell stays where it is.
    view.select_cell(9, 9);
    QTest::keyClick(&view, Qt::Key_Right);
    QTest::keyClick(&view, Qt::Key_Down);
    QCOMPARE(cells.count(), 2);
    QCOMPARE(cells.takeLast(), (QList<QVariant>{9, 9}));
    QTest::keyClick(&view, Qt::Key_Return);
    QCOMPARE(cells.takeLast(), (QList<QVariant>{9, 9}));
}

void ResultsTablesTest::theMatrixFitsItsSizesAndTwoClasses() {
    ConfusionMatrixView view;
    QVERIFY(view.minimumSizeHint().width() >= 300 && view.minimumSizeHint().width() <= 340);
    QVERIFY(view.minimumSizeHint().height() >= 260 && view.minimumSizeHint().height() <= 300);
    QVERIFY(view.sizeHint().width() >= view.minimumSizeHint().width());
    const auto check_fits = [&view](QSize size, int smallest_cell) {
        view.resize(size);
        const int n = view.matrix().classes;
        for (int t = 0; t < n; ++t) {
            QVERIFY(view.rect().contains(view.class_name_rect(t)));
            for (int p = 0; p < n; ++p) {
                const QRect cell = view.cell_rect(t, p);
                QVERIFY2(view.rect().contains(cell), qPrintable(QStringLiteral("cell %1,%2 outside").arg(t).arg(p)));
                QVERIFY(cell.width() >= smallest_cell && cell.height() >= smallest_cell);
                if (p > 0) QCOMPARE(cell.left(), view.cell_rect(t, p - 1).right() + 1);  // no gap, no overlap
                if (t > 0) QCOMPARE(cell.top(), view.cell_rect(t - 1, p).bottom() + 1);
            }
        }
    };
    view.set_matrix(matrix_of(counts_by_row), fashion_names);
    check_fits({520, 460}, 24);
    check_fits({900, 800}, 50);
    check_fits({320, 280}, 12);
    // 47 classes (EMNIST balanced): small cells, still each in its place.
    std::vector<std::vector<std::size_t>> many(47, std::vector<std::size_t>(47, 1));
    QStringList many_names;
    for (int c = 0; c < 47; ++c) many_names << QStringLiteral("class %1").arg(c);
    view.set_matrix(matrix_of(many), many_names);
    check_fits({520, 460}, 4);
    check_fits({900, 800}, 9);
    QCOMPARE(view.cell_at(view.cell_rect(46, 23).center()), std::make_optional(std::pair{46, 23}));
    // Two classes: big cells, but not posters, and the block centred.
    view.set_matrix(matrix_of({{40, 10}, {3, 47}}), {"cat", "dog"});
    check_fits({520, 460}, 60);
    check_fits({900, 800}, 60);
    const QRect cell = view.cell_rect(0, 0);
    QVERIFY(cell.width() <= 120);
    const QRect both = view.cell_rect(0, 0).united(view.cell_rect(1, 1));
    QVERIFY(std::abs(both.center().x() - view.width() / 2) < view.width() / 5);
}

void ResultsTablesTest::anEmptyMatrixSaysThereIsNothingToShow() {
    ConfusionMatrixView view;
    view.resize(520, 460);
    view.set_matrix(session::ConfusionMatrix{}, {});
    QCOMPARE(view.cell_rect(0, 0), QRect());
    QCOMPARE(view.cell_at(QPoint(260, 230)), std::nullopt);
    QSignalSpy cells(&view, &ConfusionMatrixView::cellClicked);
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(260, 230));
    QCOMPARE(cells.count(), 0);
    // The hint is drawn in the middle: the centre row has text pixels, the corners none.
    const QImage picture = view.picture();
    const QRgb background = picture.pixel(1, 1);
    int marked = 0;
    for (int x = 0; x < picture.width(); ++x) marked += picture.pixel(x, picture.height() / 2) != background;
    QVERIFY(marked > 0);
}

void ResultsTablesTest::theMatrixExportsAPictureAndItsCounts() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ConfusionMatrixView view;
    view.set_matrix(matrix_of(counts_by_row), fashion_names);
    view.resize(520, 460);
    view.select_cell(6, 0);
    QString error;
    const QString png = dir.filePath("matrix.png");
    QVERIFY2(view.export_png(png, &error), qPrintable(error));
    const QImage image(png);
    QCOMPARE(image.size(), QSize(520, 460));
    // The selected cell's outline is the selection colour; the largest count's cell (Trouser
    // recognised, 968) is the deep end of the scale, an empty cell the white end.
    const QRect selected = view.cell_rect(6, 0);
    QVERIFY(near(image.pixel(selected.left() + 1, selected.center().y()), ConfusionMatrixView::selection_colour()));
    QVERIFY(near(image.pixel(selected.center().x(), selected.top() + 1), ConfusionMatrixView::selection_colour()));
    const QRect largest = view.cell_rect(1, 1);
    const QRgb deep = image.pixel(largest.left() + 4, largest.top() + 4);
    QVERIFY(near(deep, ConfusionMatrixView::scale_colour(1.0)));
    QVERIFY(qGray(deep) < 80);
    const QRect empty = view.cell_rect(0, 2);
    QVERIFY(near(image.pixel(empty.left() + 4, empty.top() + 4), QColor(Qt::white)));
    // A cell of about half the largest count is in between.
    const QRect middle = view.cell_rect(6, 6);  // 610 of 968
    const QRgb between = image.pixel(middle.left() + 4, middle.top() + 4);
    QVERIFY(near(between, ConfusionMatrixView::scale_colour(610.0 / 968.0)));
    QVERIFY(qGray(between) > qGray(deep) && qGray(between) < 250);
    // At proportions the colour follows the share: Sandal's 90 of 96 is darker than Shirt's 610 of 1,000.
    view.set_scale(ConfusionMatrixView::Scale::proportions);
    const QImage shares = view.picture();
    const QRect sandal = view.cell_rect(5, 5);
    const QRgb sandal_fill = shares.pixel(sandal.left() + 4, sandal.top() + 4);
    QVERIFY(near(sandal_fill, ConfusionMatrixView::scale_colour(90.0 / 96.0)));
    const QRgb shirt_fill = shares.pixel(middle.left() + 4, middle.top() + 4);
    QVERIFY(near(shirt_fill, ConfusionMatrixView::scale_colour(0.61)));
    QVERIFY(qGray(sandal_fill) < qGray(shirt_fill));
    // A picture at another size is drawn for that size.
    QCOMPARE(view.picture(QSize(900, 800)).size(), QSize(900, 800));

    const QString csv = dir.filePath("matrix.csv");
    QVERIFY2(view.export_csv(csv, &error), qPrintable(error));
    const QStringList lines = read_lines(csv);
    QCOMPARE(lines.size(), 12);
    QCOMPARE(lines[0], "true \\ predicted," + fashion_names.join(',') + ",total");
    for (std::size_t t = 0; t < counts_by_row.size(); ++t) {
        const QStringList cells = lines[static_cast<int>(t) + 1].split(',');
        QCOMPARE(cells.size(), 12);
        QCOMPARE(cells[0], fashion_names[static_cast<int>(t)]);
        for (std::size_t p = 0; p < counts_by_row.size(); ++p)
            QCOMPARE(cells[static_cast<int>(p) + 1].toULongLong(), counts_by_row[t][p]);
        QCOMPARE(cells[11].toULongLong(), row_sum(t));
    }
    const QStringList totals = lines[11].split(',');
    QCOMPARE(totals[0], QStringLiteral("total"));
    for (std::size_t p = 0; p < counts_by_row.size(); ++p)
        QCOMPARE(totals[static_cast<int>(p) + 1].toULongLong(), column_sum(p));
    QCOMPARE(totals[11].toULongLong(), std::size_t{9120});
}

void ResultsTablesTest::anExportToAMissingFolderNamesTheFile() {
    QTemporaryDir dir;
    ConfusionMatrixView view;
    view.set_matrix(matrix_of(counts_by_row), fashion_names);
    view.resize(520, 460);
    const QString missing = dir.filePath("no such folder/matrix.png");
    QString error;
    QVERIFY(!view.export_png(missing, &error));
    QVERIFY2(error.contains("matrix.png") && error.contains("no such folder"), qPrintable(error));
    QVERIFY(!QFile::exists(missing));
    error.clear();
    QVERIFY(!view.export_csv(dir.filePath("no such folder/matrix.csv"), &error));
    QVERIFY2(error.contains("matrix.csv"), qPrintable(error));
}

void ResultsTablesTest::theTableShowsEachClassFiguresAndTheAccuracy() {
    ClassFiguresTable table;
    table.set_matrix(matrix_of(counts_by_row), fashion_names);
    QCOMPARE(table.accuracy_text(), QStringLiteral("Accuracy 86.1% on 9,120 images — chance with 10 classes: 10.0%"));
    QCOMPARE(table.findChild<QLabel*>()->text(), table.accuracy_text());
    const QAbstractItemModel* model = table.view()->model();
    QCOMPARE(model->rowCount(), 10);
    QCOMPARE(model->columnCount(), 5);
    QCOMPARE(model->headerData(ClassFiguresTable::recall_column, Qt::Horizontal).toString(), QStringLiteral("Recall"));
    for (int row = 0; row < 10; ++row) {
        const int c = table.class_at_row(row);
        QCOMPARE(c, row);  // class order at first
        const auto t = static_cast<std::size_t>(c);
        const double precision = static_cast<double>(counts_by_row[t][t]) / static_cast<double>(column_sum(t));
        const double recall = static_cast<double>(counts_by_row[t][t]) / static_cast<double>(row_sum(t));
        const double f1 = 2 * precision * recall / (precision + recall);
        QCOMPARE(model->index(row, ClassFiguresTable::class_column).data().toString(), fashion_names[c]);
        QCOMPARE(model->index(row, ClassFiguresTable::precision_column).data().toString(),
                 QString::number(precision, 'f', 3));
        QCOMPARE(model->index(row, ClassFiguresTable::recall_column).data().toString(),
                 QString::number(recall, 'f', 3));
        QCOMPARE(model->index(row, ClassFiguresTable::f1_column).data().toString(), QString::number(f1, 'f', 3));
    }
    QCOMPARE(model->index(6, ClassFiguresTable::recall_column).data().toString(), QStringLiteral("0.610"));
    QCOMPARE(model->index(4, ClassFiguresTable::support_column).data().toString(), QStringLiteral("1,020"));
    QCOMPARE(model->index(5, ClassFiguresTable::support_column).data().toString(), QStringLiteral("96"));

    // Two classes: chance is a half; no evaluation says so.
    table.set_matrix(matrix_of({{3, 1}, {0, 4}}), {"cat", "dog"});
    QCOMPARE(table.accuracy_text(), QStringLiteral("Accuracy 87.5% on 8 images — chance with 2 classes: 50.0%"));
    table.set_matrix(session::ConfusionMatrix{}, {});
    QCOMPARE(model->rowCount(), 0);
    QCOMPARE(table.accuracy_text(), QStringLiteral("No evaluation to show"));
}

void ResultsTablesTest::theTableSortsByNumbersNotText() {
    ClassFiguresTable table;
    table.set_matrix(matrix_of(counts_by_row), fashion_names);
    table.resize(480, 420);
    table.show();
    QVERIFY(QTest::qWaitForWindowExposed(&table));
    const auto shown_classes = [&table] {
        std::vector<int> order;
        for (int row = 0; row < table.view()->model()->rowCount(); ++row) order.push_back(table.class_at_row(row));
        return order;
    };
    const auto class_order_by = [](auto key) {
        std::vector<int> order(counts_by_row.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&key](int a, int b) { return key(a) < key(b); });
        return order;
    };
    // Clicking the Recall header sorts by recall, lowest first.
    QHeaderView* header = table.view()->horizontalHeader();
    const int recall_x = header->sectionViewportPosition(ClassFiguresTable::recall_column) +
                         header->sectionSize(ClassFiguresTable::recall_column) / 2;
    click_in(header->viewport(), QPoint(recall_x, header->height() / 2));
    QCOMPARE(header->sortIndicatorSection(), int(ClassFiguresTable::recall_column));
    std::vector<int> by_recall = class_order_by([](int c) {
        const auto t = static_cast<std::size_t>(c);
        return static_cast<double>(counts_by_row[t][t]) / static_cast<double>(row_sum(t));
    });
    if (header->sortIndicatorOrder() == Qt::DescendingOrder) std::reverse(by_recall.begin(), by_recall.end());
    QCOMPARE(shown_classes(), by_recall);
    // A second click turns the order round.
    click_in(header->viewport(), QPoint(recall_x, header->height() / 2));
    std::reverse(by_recall.begin(), by_recall.end());
    QCOMPARE(shown_classes(), by_recall);

    // By support: 96 < 987 < 1,000 < 1,013 < 1,020, which text would order "1,000" < "1,013" < ... < "96".
    table.view()->sortByColumn(ClassFiguresTable::support_column, Qt::AscendingOrder);
    // Four classes tie at 1,000 (a sort keeps their previous order): compare the supports shown.
    std::vector<std::size_t> supports_shown, supports_sorted;
    for (int c : shown_classes()) supports_shown.push_back(row_sum(static_cast<std::size_t>(c)));
    for (std::size_t t = 0; t < counts_by_row.size(); ++t) supports_sorted.push_back(row_sum(t));
    std::sort(supports_sorted.begin(), supports_sorted.end());
    QCOMPARE(supports_shown, supports_sorted);
    QCOMPARE(shown_classes().front(), 5);  // Sandal, 96
    QCOMPARE(shown_classes().back(), 4);   // Coat, 1,020
    // The class column restores the dataset's order.
    table.view()->sortByColumn(ClassFiguresTable::class_column, Qt::AscendingOrder);
    QCOMPARE(shown_classes(), class_order_by([](int c) { return c; }));
}

void ResultsTablesTest::aClickOnASortedRowNamesItsClass() {
    ClassFiguresTable table;
    table.set_matrix(matrix_of(counts_by_row), fashion_names);
    table.resize(480, 420);
    table.show();
    QVERIFY(QTest::qWaitForWindowExposed(&table));
    table.view()->sortByColumn(ClassFiguresTable::recall_column, Qt::AscendingOrder);
    QSignalSpy classes(&table, &ClassFiguresTable::classClicked);
    QTableView* view = table.view();
    // Row 0 is Shirt (the lowest recall, 0.610), row 1 Coat (790 of 1,020 = 0.775), the last Bag (0.961).
    for (const auto& [row, expected] : std::vector<std::pair<int, int>>{{0, 6}, {1, 4}, {9, 8}}) {
        const QRect rect = view->visualRect(view->model()->index(row, ClassFiguresTable::f1_column));
        click_in(view->viewport(), rect.center());
        QCOMPARE(classes.count(), 1);
        QCOMPARE(classes.takeFirst().at(0).toInt(), expected);
    }
}

void ResultsTablesTest::theTableExportsItsFigures() {
    QTemporaryDir dir;
    ClassFiguresTable table;
    table.set_matrix(matrix_of(counts_by_row), fashion_names);
    table.resize(480, 420);
    QString error;
    const QString csv = dir.filePath("classes.csv");
    QVERIFY2(table.export_csv(csv, &error), qPrintable(error));
    const QStringList lines = read_lines(csv);
    QCOMPARE(lines.size(), 13);
    QCOMPARE(lines[0], QStringLiteral("class,precision,recall,f1,support"));
    for (std::size_t t = 0; t < counts_by_row.size(); ++t) {
        const QStringList cells = lines[static_cast<int>(t) + 1].split(',');
        QCOMPARE(cells.size(), 5);
        QCOMPARE(cells[0], fashion_names[static_cast<int>(t)]);
        const double precision = static_cast<double>(counts_by_row[t][t]) / static_cast<double>(column_sum(t));
        const double recall = static_cast<double>(counts_by_row[t][t]) / static_cast<double>(row_sum(t));
        QVERIFY(std::abs(cells[1].toDouble() - precision) < 0.00006);
        QVERIFY(std::abs(cells[2].toDouble() - recall) < 0.00006);
        QCOMPARE(cells[4].toULongLong(), row_sum(t));
    }
    QCOMPARE(lines[11].split(',').value(0), QStringLiteral("accuracy"));
    QVERIFY(std::abs(lines[11].split(',').value(3).toDouble() - 7853.0 / 9120.0) < 0.00006);
    QCOMPARE(lines[11].split(',').value(4), QStringLiteral("9120"));
    QCOMPARE(lines[12].split(',').value(0), QStringLiteral("chance"));
    QCOMPARE(table.csv().toUtf8(), [&csv] {
        QFile file(csv);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }());
    const QString png = dir.filePath("classes.png");
    QVERIFY2(table.export_png(png, &error), qPrintable(error));
    QCOMPARE(QImage(png).size(), QSize(480, 420));
}

void ResultsTablesTest::thePairsAreTheLargestConfusionsInOrder() {
    ConfusedPairsList pairs;
    pairs.set_matrix(matrix_of(counts_by_row), fashion_names);
    // Worked out here: every off-diagonal cell with a sample, largest first, ties in row-major order.
    struct Pair {
        int t, p;
        std::size_t count;
    };
    std::vector<Pair> expected;
    for (std::size_t t = 0; t < counts_by_row.size(); ++t)
        for (std::size_t p = 0; p < counts_by_row.size(); ++p)
            if (t != p && counts_by_row[t][p] > 0)
                expected.push_back({static_cast<int>(t), static_cast<int>(p), counts_by_row[t][p]});
    std::stable_sort(expected.begin(), expected.end(), [](const Pair& a, const Pair& b) { return a.count > b.count; });
    expected.resize(10);
    QListWidget* list = pairs.list();
    QCOMPARE(list->count(), 10);
    QVERIFY(!pairs.showing_empty_text());
    for (int row = 0; row < 10; ++row) {
        const Pair& pair = expected[static_cast<std::size_t>(row)];
        const double share = 100.0 * static_cast<double>(pair.count) / static_cast<double>(row_sum(pair.t));
        QCOMPARE(list->item(row)->text(), QStringLiteral("%1 → %2   %3 (%4%)")
                                              .arg(fashion_names[pair.t], fashion_names[pair.p])
                                              .arg(pair.count)
                                              .arg(share, 0, 'f', 1));
    }
    QCOMPARE(list->item(0)->text(), QStringLiteral("Shirt → T-shirt/top   112 (11.2%)"));
    QCOMPARE(list->item(1)->text(), QStringLiteral("Pullover → Shirt   84 (8.5%)"));
    // Shirt → Trouser and Shirt → Dress tie at 58: the earlier column first.
    QCOMPARE(list->item(3)->text(), QStringLiteral("Shirt → Trouser   58 (5.8%)"));
    QCOMPARE(list->item(4)->text(), QStringLiteral("Shirt → Dress   58 (5.8%)"));
}

void ResultsTablesTest::clickingAPairNamesItsCell() {
    ConfusedPairsList pairs;
    pairs.set_matrix(matrix_of(counts_by_row), fashion_names);
    pairs.resize(360, 300);
    pairs.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pairs));
    QSignalSpy clicked(&pairs, &ConfusedPairsList::pairClicked);
    QListWidget* list = pairs.list();
    for (const auto& [row, t, p] : std::vector<std::tuple<int, int, int>>{{0, 6, 0}, {1, 2, 6}, {4, 6, 3}}) {
        click_in(list->viewport(), list->visualItemRect(list->item(row)).center());
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.takeFirst(), (QList<QVariant>{t, p}));
    }
    // A cell chosen in the matrix selects its pair quietly; a cell not listed clears the selection.
    pairs.select_pair(2, 6);
    QCOMPARE(list->currentRow(), 1);
    QCOMPARE(list->selectedItems().size(), 1);
    pairs.select_pair(0, 0);
    QCOMPARE(list->selectedItems().size(), 0);
    QCOMPARE(clicked.count(), 0);
}

void ResultsTablesTest::noConfusionsSaysSo() {
    ConfusedPairsList pairs;
    pairs.set_matrix(matrix_of({{5, 0, 0}, {0, 7, 0}, {0, 0, 2}}), {"cat", "dog", "bird"});
    QVERIFY(pairs.showing_empty_text());
    QCOMPARE(pairs.list()->count(), 0);
    QCOMPARE(pairs.empty_text(), QStringLiteral("No confusions: every image was classified right"));
    pairs.set_matrix(matrix_of({{5, 1}, {0, 7}}), {"cat", "dog"});
    QVERIFY(!pairs.showing_empty_text());
    QCOMPARE(pairs.list()->item(0)->text(), QStringLiteral("cat → dog   1 (16.7%)"));
}

void ResultsTablesTest::thePairsExportAsCsv() {
    QTemporaryDir dir;
    ConfusedPairsList pairs;
    pairs.set_matrix(matrix_of(counts_by_row), fashion_names);
    QString error;
    const QString csv = dir.filePath("pairs.csv");
    QVERIFY2(pairs.export_csv(csv, &error), qPrintable(error));
    const QStringList lines = read_lines(csv);
    QCOMPARE(lines.size(), 11);
    QCOMPARE(lines[0], QStringLiteral("true,predicted,count,share"));
    const QStringList first = lines[1].split(',');
    QCOMPARE(first.value(0), QStringLiteral("Shirt"));
    QCOMPARE(first.value(1), QStringLiteral("T-shirt/top"));
    QCOMPARE(first.value(2), QStringLiteral("112"));
    QVERIFY(std::abs(first.value(3).toDouble() - 0.112) < 0.00006);
    QCOMPARE(lines[2].split(',').value(0), QStringLiteral("Pullover"));
    QVERIFY(!pairs.export_csv(dir.filePath("gone/pairs.csv"), &error));
    QVERIFY2(error.contains("pairs.csv"), qPrintable(error));
}

BACKPROP_QT_TEST(ResultsTablesTest)
#include "test_results_tables.moc"
