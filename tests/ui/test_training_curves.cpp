// The dashboard's curves under the offscreen platform: the smoothing in numbers, the points a run
// reports arriving in the plots' graphs (in its colour, NaN left out), runs shown and hidden and
// overlaid, markers, the hover text, the PNG and CSV exports read back, and 100,000 points.
//
// Set BPS_SCREENSHOT_DIR to a folder to keep a picture of two overlaid runs (curves.png).
#include <qcustomplot.h>

#include <QApplication>
#include <QFile>
#include <QImage>
#include <QPushButton>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "engine/runs/run_record.h"
#include "tests/ui/qt_test_class.h"
#include "ui/dashboard/curve_smoothing.h"
#include "ui/dashboard/training_curves.h"

using bps::ui::TrainingCurves;
namespace session = bps::session;

namespace {

constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();
constexpr double infinity = std::numeric_limits<double>::infinity();

const QColor red(214, 39, 40);
const QColor blue(31, 119, 180);

// A batch point whose figures are easy to recognise: loss 1/(i+1), accuracy i/100, rate 0.01,
// speed 1000 + i, at position i/10.
session::BatchPoint batch(int i) {
    session::BatchPoint point;
    point.position = i / 10.0;
    point.loss = 1.0 / (i + 1);
    point.accuracy = i / 100.0;
    point.learning_rate = 0.01;
    point.images_per_second = 1000 + i;
    return point;
}

session::EpochPoint epoch(double position, double validation_loss, double validation_accuracy) {
    session::EpochPoint point;
    point.position = position;
    point.train_loss = 0.5;
    point.train_accuracy = 0.8;
    point.validation_loss = validation_loss;
    point.validation_accuracy = validation_accuracy;
    return point;
}

std::vector<double> values(const QCPGraph* graph) {
    std::vector<double> out;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) out.push_back(it->value);
    return out;
}

std::vector<double> keys(const QCPGraph* graph) {
    std::vector<double> out;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) out.push_back(it->key);
    return out;
}

bool all_finite(const QCPGraph* graph) {
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        if (!std::isfinite(it->key) || !std::isfinite(it->value)) return false;
    return true;
}

bool same_rgb(const QColor& a, const QColor& b) {
    return a.rgb() == b.rgb();
}

QStringList legend_names(const QCustomPlot* plot) {
    QStringList names;
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i)))
            names.append(item->plottable()->name());
    return names;
}

QStringList item_texts(const QCustomPlot* plot) {
    QStringList texts;
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(plot->item(i))) texts.append(text->text());
    return texts;
}

QPushButton* button(const TrainingCurves& curves, const QString& text) {
    for (QPushButton* candidate : curves.findChildren<QPushButton*>())
        if (candidate->text() == text) return candidate;
    return nullptr;
}

QStringList read_lines(const QString& file) {
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(in.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

// Two runs of three epochs as a learner would see them: noisy falling loss, rising accuracy, a
// learning rate step with its marker, validation points per epoch.
void add_realistic_run(TrainingCurves& curves, const QString& id, const QString& name, const QColor& colour,
                       double speed, unsigned seed) {
    curves.set_run(id, name, colour);
    std::mt19937 random(seed);
    std::normal_distribution<double> noise(0, 1);
    const int batches = 300;
    for (int e = 0; e < 3; ++e) {
        for (int b = 1; b <= batches; ++b) {
            const double x = e + static_cast<double>(b) / batches;
            session::BatchPoint point;
            point.position = x;
            point.loss = std::max(0.05, 0.35 + 1.9 * std::exp(-2.2 * x) + 0.04 * noise(random) * (1 + 1 / (x + 0.3)));
            point.accuracy = std::clamp(0.9 - 0.8 * std::exp(-2.5 * x) + 0.015 * noise(random), 0.0, 1.0);
            point.learning_rate = x < 2 ? 0.01 : 0.003;
            point.images_per_second = speed + 120 * noise(random);
            curves.add_batch(id, point);
        }
        curves.add_epoch(
            id, epoch(e + 1, 0.42 + 0.5 * std::exp(-1.5 * (e + 1)) + 0.01 * seed, 0.84 + 0.02 * e - 0.01 * seed));
        if (e == 1) curves.add_marker(id, {2.0, "learning rate 0.01 → 0.003"});
    }
}

}  // namespace

class TrainingCurvesTest : public QObject {
    Q_OBJECT
private slots:
    void theSmoothingIsTheExponentialMovingAverageWithDebias() {
        // w = 0.5 by hand: last 0.5, 1.25, 2.125, 3.0625 over de-bias 0.5, 0.75, 0.875, 0.9375; the
        // NaN is skipped and repeats the previous smoothed value.
        const std::vector<double> raw{1, 2, 3, not_a_number, 4};
        const std::vector<double> out = bps::ui::smoothed(raw, 0.5);
        QCOMPARE(out.size(), raw.size());
        const std::vector<double> expected{1.0, 1.25 / 0.75, 2.125 / 0.875, 2.125 / 0.875, 3.0625 / 0.9375};
        for (std::size_t i = 0; i < out.size(); ++i)
            QVERIFY2(std::abs(out[i] - expected[i]) < 1e-12, qPrintable(QString::number(i)));
        // w = 0.6 on {2, 4}: (0.8 / 0.4, (0.48 + 1.6) / 0.64) = (2, 3.25).
        const std::vector<double> two = bps::ui::smoothed(std::vector<double>{2, 4}, 0.6);
        QVERIFY(std::abs(two[0] - 2.0) < 1e-12);
        QVERIFY(std::abs(two[1] - 3.25) < 1e-12);
    }

    void aSmoothingWeightOfZeroGivesTheRawValues() {
        const std::vector<double> raw{0.9, 0.1, 0.5, 2.5};
        QCOMPARE(bps::ui::smoothed(raw, 0), raw);
    }

    void theSmoothingIsNanUntilTheFirstFiniteValueAndCarriesItAfterwards() {
        const std::vector<double> out =
            bps::ui::smoothed(std::vector<double>{not_a_number, infinity, 3, -infinity}, 0.9);
        QVERIFY(std::isnan(out[0]));
        QVERIFY(std::isnan(out[1]));
        QVERIFY(std::abs(out[2] - 3.0) < 1e-12);
        QVERIFY(std::abs(out[3] - 3.0) < 1e-12);
    }

    void theNearestPointIsFoundInsideTheSeriesAndNoneOutside() {
        std::vector<session::BatchPoint> points(3);
        points[0].position = 0.1;
        points[1].position = 0.2;
        points[2].position = 0.4;
        const std::span<const session::BatchPoint> span(points);
        QCOMPARE(bps::ui::nearest_point(span, 0.1), std::optional<std::size_t>(0));
        QCOMPARE(bps::ui::nearest_point(span, 0.29), std::optional<std::size_t>(1));
        QCOMPARE(bps::ui::nearest_point(span, 0.31), std::optional<std::size_t>(2));
        QCOMPARE(bps::ui::nearest_point(span, 0.4), std::optional<std::size_t>(2));
        QCOMPARE(bps::ui::nearest_point(span, 0.05), std::optional<std::size_t>());
        QCOMPARE(bps::ui::nearest_point(span, 0.41), std::optional<std::size_t>());
        QCOMPARE(bps::ui::nearest_point(span, not_a_number), std::optional<std::size_t>());
        QCOMPARE(bps::ui::nearest_point(std::span<const session::BatchPoint>(), 0.2), std::optional<std::size_t>());
    }

    void batchPointsArriveInThePlotsAtTheirPositionsInTheRunsColour() {
        TrainingCurves curves;
        curves.set_run("a", "Run 1", red);
        for (int i = 0; i < 10; ++i) curves.add_batch("a", batch(i));
        curves.add_epoch("a", epoch(1.0, 0.3, 0.91));
        curves.replot_now();

        const QCPGraph* raw = curves.raw_loss_graph("a");
        QVERIFY(raw);
        QCOMPARE(raw->parentPlot(), curves.loss_plot());
        QCOMPARE(raw->dataCount(), 10);
        QCOMPARE(keys(raw)[3], 0.3);
        QCOMPARE(values(raw)[3], 0.25);
        QVERIFY(same_rgb(raw->pen().color(), red));
        QVERIFY(raw->pen().color().alpha() < 100);  // faint

        const QCPGraph* smooth = curves.smoothed_loss_graph("a");
        QCOMPARE(smooth->dataCount(), 10);
        QVERIFY(same_rgb(smooth->pen().color(), red));
        QCOMPARE(smooth->pen().color().alpha(), 255);

        QCOMPARE(curves.train_accuracy_graph("a")->parentPlot(), curves.accuracy_plot());
        QCOMPARE(curves.train_accuracy_graph("a")->dataCount(), 10);
        QCOMPARE(curves.learning_rate_graph("a")->parentPlot(), curves.learning_rate_plot());
        QCOMPARE(values(curves.learning_rate_graph("a")), std::vector<double>(10, 0.01));
        QCOMPARE(curves.speed_graph("a")->parentPlot(), curves.speed_plot());
        QCOMPARE(values(curves.speed_graph("a"))[9], 1009.0);
        QVERIFY(same_rgb(curves.speed_graph("a")->pen().color(), red));

        const QCPGraph* validation = curves.validation_loss_graph("a");
        QCOMPARE(validation->dataCount(), 1);
        QCOMPARE(keys(validation)[0], 1.0);
        QCOMPARE(values(validation)[0], 0.3);
        QCOMPARE(validation->lineStyle(), QCPGraph::lsNone);
        QVERIFY(validation->scatterStyle().shape() != QCPScatterStyle::ssNone);
        const QCPGraph* validation_accuracy = curves.validation_accuracy_graph("a");
        QCOMPARE(values(validation_accuracy)[0], 0.91);
        QCOMPARE(validation_accuracy->pen().style(), Qt::DashLine);

        QCOMPARE(curves.history("a")->batches.size(), std::size_t{10});
        QCOMPARE(curves.history("a")->epochs.size(), std::size_t{1});
        QVERIFY(!curves.history("missing"));
    }

    void pointsWaitForTheReplotTimerInsteadOfDrawingOneByOne() {
        TrainingCurves curves;
        curves.set_run("a", "Run 1", red);
        curves.replot_now();
        curves.add_batch("a", batch(0));
        QCOMPARE(curves.raw_loss_graph("a")->dataCount(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(curves.raw_loss_graph("a")->dataCount(), 1, 5000);
    }

    void nanAndInfinitePointsAreNotDrawn() {
        TrainingCurves curves;
        curves.set_run("a", "Run 1", red);
        for (int i = 0; i < 5; ++i) {
            session::BatchPoint point = batch(i);
            if (i == 2) point.loss = not_a_number;
            if (i == 3) point.learning_rate = infinity;
            if (i == 4) point.images_per_second = -infinity;
            curves.add_batch("a", point);
        }
        curves.add_epoch("a", epoch(1.0, not_a_number, 0.5));
        curves.replot_now();
        QCOMPARE(curves.raw_loss_graph("a")->dataCount(), 4);
        QCOMPARE(keys(curves.raw_loss_graph("a")), (std::vector<double>{0.0, 0.1, 0.3, 0.4}));
        QCOMPARE(curves.learning_rate_graph("a")->dataCount(), 4);
        QCOMPARE(curves.speed_graph("a")->dataCount(), 4);
        QCOMPARE(curves.validation_loss_graph("a")->dataCount(), 0);
        QCOMPARE(curves.validation_accuracy_graph("a")->dataCount(), 1);
        // The smoothed line carries its last value over the NaN instead of breaking or diving.
        const std::vector<double> smooth = values(curves.smoothed_loss_graph("a"));
        QCOMPARE(smooth.size(), std::size_t{5});
        QCOMPARE(smooth[2], smooth[1]);
        for (const QCPGraph* graph : {curves.raw_loss_graph("a"), curves.smoothed_loss_graph("a"),
                                      curves.learning_rate_graph("a"), curves.speed_graph("a")})
            QVERIFY(all_finite(graph));
    }

    void twoRunsOverlayInTheirOwnColoursWithOneLegendEntryEach() {
        TrainingCurves curves;
        curves.set_run("a", "Run 1", red);
        curves.set_run("b", "Run 2", blue);
        for (int i = 0; i < 4; ++i) {
            curves.add_batch("a", batch(i));
            curves.add_batch("b", batch(i + 1));
        }
        curves.replot_now();
        QCOMPARE(curves.shown_runs(), (QStringList{"a", "b"}));
        QCOMPARE(curves.raw_loss_graph("a")->parentPlot(), curves.raw_loss_graph("b")->parentPlot());
        QVERIFY(same_rgb(curves.smoothed_loss_graph("a")->pen().color(), red));
        QVERIFY(same_rgb(curves.smoothed_loss_graph("b")->pen().color(), blue));
        QVERIFY(same_rgb(curves.train_accuracy_graph("b")->pen().color(), blue));
        QCOMPARE(values(curves.raw_loss_graph("b"))[0], 0.5);
        QCOMPARE(legend_names(curves.loss_plot()), (QStringList{"Run 1", "Run 2"}));
        QVERIFY(curves.loss_plot()->legend->visible());
    }

    void setShownRunsHidesTheOtherRunsGraphsAndLegendEntries() {
        TrainingCurves curves;
        curves.set_run("a", "Run 1", red);
        curves.set_run("b", "Run 2", blue);
        curves.add_batch("a", batch(0));
        curves.add_batch("b", batch(0));
        curves.add_marker("a", {0.0, "paused"});
        curves.set_shown_runs({"b"});
        curves.replot_now();
        QCOMPARE(curves.shown_runs(), QStringList{"b"});
        for (QCPGraph* graph :
             {curves.raw_loss_graph("a"), curves.smoothed_loss_graph("a"), curves.validation_loss_graph("a"),
              curves.train_accuracy_graph("a"), curves.validation_accuracy_graph("a"), curves.learning_rate_graph("a"),
              curves.speed_graph("a")})
            QVERIFY(!graph->visible());
        QVERIFY(curves.raw_loss_graph("b")->visible());
        QVERIFY(curves.smoothed_loss_graph("b")->visible());
        QVERIFY(!curves.marker_lines("a", curves.loss_plot()).front()->visible());
        QCOMPARE(legend_names(curves.loss_plot()), QStringList{"Run 2"});
        QVERIFY(!curves.values_at(0).contains("Run 1"));

        curves.set_shown_runs({"a", "b"});
        QVERIFY(curves.raw_loss_graph("a")->visible());
        QVERIFY(curves.marker_lines("a", curves.loss_plot()).front()->visible());
        QCOMPARE(legend_names(curves.loss_plot()), (QStringList{"Run 1", "Run 2"}));
    }

    void theHintShowsWhileNoRunIsShown() {
        TrainingCurves curves;
        QVERIFY(curves.empty_hint()->visible());
        QCOMPARE(curves.empty_hint()->text(), QString("Press Train to see the network learn"));
        curves.set_run("a", "Run 1", red);
        QVERIFY(!curves.empty_hint()->visible());
        curves.set_shown_runs({});
        QVERIFY(curves.empty_hint()->visible());
        curves.set_shown_runs({"a"});
        curves.remove_run("a");
        QVERIFY(curves.empty_hint()->visible());
        QCOMPARE(curves.loss_plot()->graphCount(), 0);
        QVERIFY(!curves.raw_loss_graph("a"));
    }

    void renamingARunRenamesItsLegendEntry() {
        TrainingCurves curves;
        curves.set_run("a", "Run 1", red);
        curves.rename_run("a", "small lr");
        QCOMPARE(legend_names(curves.loss_plot()), QStringList{"small lr"});
        QVERIFY(curves.values_at(0).contains("small lr"));
    }

    void settingARunAgainReplacesItsCurvesWithTheNewHistory() {
        TrainingCurves curves;
        curves.set_run("a", "Run 1", red);
        for (int i = 0; i < 5; ++i) curves.add_batch("a", batch(i));
        curves.replot_now();
        session::RunHistory history;
        history.batches = {batch(7), batch(8)};
        curves.set_run("a", "Run 1", blue, history);
        curves.replot_now();
        QCOMPARE(curves.loss_plot()->graphCount(), 3);  // raw, smoothed, validation: one run's
        QCOMPARE(curves.raw_loss_graph("a")->dataCount(), 2);
        QCOMPARE(values(curves.raw_loss_graph("a"))[0], 0.125);
        QVERIFY(same_rgb(curves.raw_loss_graph("a")->pen().color(), blue));
    }

    void aMarkerDrawsAVerticalDashedLineInEveryPlotAndItsTextInTheLossPlot() {
        TrainingCurves curves;
        curves.set_run("a", "Run 1", red);
        curves.add_batch("a", batch(0));
        curves.add_marker("a", {1.5, "learning rate 0.01 → 0.003"});
        curves.replot_now();
        for (const QCustomPlot* plot :
             {curves.loss_plot(), curves.accuracy_plot(), curves.learning_rate_plot(), curves.speed_plot()}) {
            const std::vector<QCPItemStraightLine*> lines = curves.marker_lines("a", plot);
            QCOMPARE(lines.size(), std::size_t{1});
            QCOMPARE(lines[0]->point1->coords().x(), 1.5);
            QCOMPARE(lines[0]->point2->coords().x(), 1.5);
            QVERIFY(lines[0]->point1->coords().y() != lines[0]->point2->coords().y());
            QCOMPARE(lines[0]->pen().style(), Qt::DashLine);
            QVERIFY(same_rgb(lines[0]->pen().color(), red));
        }
        QVERIFY(item_texts(curves.loss_plot()).contains("learning rate 0.01 → 0.003"));
        QCOMPARE(curves.history("a")->markers.size(), std::size_t{1});
    }

    void valuesAtNamesEveryShownRunWithItsFiguresAtThatEpoch() {
        TrainingCurves curves;
        curves.set_smoothing(0);
        curves.set_run("a", "Run 1", red);
        curves.set_run("b", "Run 2", blue);
        for (int i = 0; i <= 10; ++i) curves.add_batch("a", batch(i));
        for (int i = 0; i <= 10; ++i) {
            session::BatchPoint point = batch(i);
            point.loss = 2.0;
            point.learning_rate = 0.003;
            curves.add_batch("b", point);
        }
        curves.add_epoch("a", epoch(1.0, 0.375, 0.875));
        const QString text = curves.values_at(0.32);  // nearest batch: i = 3 at 0.3
        QVERIFY2(text.startsWith("epoch 0.32"), qPrintable(text));
        QVERIFY2(text.contains("Run 1\n  loss 0.25 (smoothed 0.25)"), qPrintable(text));
        QVERIFY2(text.contains("accuracy 3.0 %"), qPrintable(text));
        QVERIFY2(text.contains("learning rate 0.01"), qPrintable(text));
        QVERIFY2(text.contains("images/s 1003"), qPrintable(text));
        QVERIFY2(text.contains("Run 2\n  loss 2 (smoothed 2)"), qPrintable(text));
        QVERIFY2(text.contains("learning rate 0.003"), qPrintable(text));
        // The validation figures appear where the epoch's point is.
        const QString at_end = curves.values_at(1.0);
        QVERIFY2(at_end.contains("validation loss 0.375, accuracy 87.5 % (epoch 1)"), qPrintable(at_end));
        QVERIFY(!text.contains("validation"));
        // Past the end of every curve there is nothing to name.
        QVERIFY(curves.values_at(5.0).contains("no points here"));
    }

    void hoveringAPlotDrawsTheTracerAtTheMousesEpochInEveryPlot() {
        TrainingCurves curves;
        curves.resize(1000, 700);
        curves.show();
        QVERIFY(QTest::qWaitForWindowExposed(&curves));
        curves.set_run("a", "Run 1", red);
        for (int i = 0; i <= 20; ++i) curves.add_batch("a", batch(i));
        curves.replot_now();
        QCustomPlot* plot = curves.accuracy_plot();
        const QPoint at = plot->axisRect()->center();
        QTest::mouseMove(plot, at);
        const double x = plot->xAxis->pixelToCoord(at.x());
        for (QCustomPlot* each :
             {curves.loss_plot(), curves.accuracy_plot(), curves.learning_rate_plot(), curves.speed_plot()}) {
            QCPItemStraightLine* tracer = nullptr;
            for (int i = 0; i < each->itemCount(); ++i)
                if (each->item(i)->layer()->name() == "hover")
                    tracer = qobject_cast<QCPItemStraightLine*>(each->item(i));
            QVERIFY(tracer);
            QTRY_VERIFY_WITH_TIMEOUT(tracer->visible(), 5000);
            QCOMPARE(tracer->point1->coords().x(), x);
        }
    }

    void theXAxesOfTheFourPlotsStayTogether() {
        TrainingCurves curves;
        curves.set_run("a", "Run 1", red);
        for (int i = 0; i <= 20; ++i) curves.add_batch("a", batch(i));
        curves.replot_now();
        QCOMPARE(curves.speed_plot()->xAxis->range().lower, 0.0);
        // All points, with a little room after the last one.
        QVERIFY(curves.speed_plot()->xAxis->range().upper > 2.0);
        QVERIFY(curves.speed_plot()->xAxis->range().upper < 2.1);
        curves.loss_plot()->xAxis->setRange(0.5, 1.0);
        for (const QCustomPlot* plot : {curves.accuracy_plot(), curves.learning_rate_plot(), curves.speed_plot()}) {
            QCOMPARE(plot->xAxis->range().lower, 0.5);
            QCOMPARE(plot->xAxis->range().upper, 1.0);
        }
        // The zoom holds while points arrive; Fit shows everything again.
        curves.add_batch("a", batch(30));
        curves.replot_now();
        QCOMPARE(curves.speed_plot()->xAxis->range().upper, 1.0);
        curves.fit();
        QVERIFY(curves.speed_plot()->xAxis->range().upper > 3.0);
        QVERIFY(curves.speed_plot()->xAxis->range().upper < 3.1);
        QCOMPARE(curves.loss_plot()->xAxis->range().lower, 0.0);
        // So does a double-click on any plot.
        curves.accuracy_plot()->xAxis->setRange(1.0, 1.5);
        QCOMPARE(curves.loss_plot()->xAxis->range().upper, 1.5);
        QTest::mouseDClick(curves.learning_rate_plot(), Qt::LeftButton, {},
                           curves.learning_rate_plot()->axisRect()->center());
        QCOMPARE(curves.loss_plot()->xAxis->range().lower, 0.0);
        QVERIFY(curves.loss_plot()->xAxis->range().upper > 3.0);
    }

    void exportPngWritesAllFourPlotsInOneImage() {
        TrainingCurves curves;
        add_realistic_run(curves, "a", "Run 1", red, 1800, 1);
        QTemporaryDir folder;
        QVERIFY(folder.isValid());
        const QString file = folder.filePath("curves.png");
        QString error;
        QVERIFY2(curves.export_png(file, &error), qPrintable(error));
        QImage image(file);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() >= 600 && image.width() <= 4000);
        QVERIFY(image.height() >= 400 && image.height() <= 4000);
        // The run's colour is in the picture, so the curves were drawn, not just the axes.
        bool found_red = false;
        for (int y = 0; y < image.height() && !found_red; y += 2)
            for (int x = 0; x < image.width() && !found_red; ++x) found_red = image.pixelColor(x, y).rgb() == red.rgb();
        QVERIFY(found_red);

        QVERIFY(!curves.export_png(folder.filePath("missing/curves.png"), &error));
        QVERIFY2(error.contains("missing/curves.png"), qPrintable(error));
    }

    void exportCsvWritesEveryShownRunsPointsUnderOneHeader() {
        TrainingCurves curves;
        curves.set_run("a", "Run 1", red);
        curves.set_run("b", "Run 2", blue);
        curves.set_run("c", "Run 3", Qt::green);
        for (int i = 1; i <= 4; ++i) {
            curves.add_batch("a", batch(i));
            curves.add_batch("b", batch(i));
            curves.add_batch("c", batch(i));
        }
        curves.add_epoch("a", epoch(1.0, 0.375, 0.875));
        curves.set_shown_runs({"a", "b"});
        QTemporaryDir folder;
        const QString file = folder.filePath("curves.csv");
        QString error;
        QVERIFY2(curves.export_csv(file, &error), qPrintable(error));
        const QStringList lines = read_lines(file);
        QCOMPARE(lines.size(), 1 + 5 + 4);  // the header, Run 1's four batches and one epoch, Run 2's four
        QCOMPARE(lines[0], QString("run,kind,epoch,loss,accuracy,learning_rate,images_per_second,validation_loss,"
                                   "validation_accuracy"));
        const QStringList first = lines[1].split(',');
        QCOMPARE(first.size(), 9);
        QCOMPARE(first[0], QString("Run 1"));
        QCOMPARE(first[1], QString("batch"));
        QCOMPARE(first[2].toDouble(), 0.1);
        QCOMPARE(first[3].toDouble(), 0.5);
        QCOMPARE(first[4].toDouble(), 0.01);
        QCOMPARE(first[5].toDouble(), 0.01);
        QCOMPARE(first[6].toDouble(), 1001.0);
        QCOMPARE(lines.filter("run,kind").size(), 1);
        QCOMPARE(lines.filter("Run 2,").size(), 4);
        QCOMPARE(lines.filter("Run 3,").size(), 0);
        const QStringList epoch_row = lines.filter("Run 1,epoch").value(0).split(',');
        QCOMPARE(epoch_row.value(7).toDouble(), 0.375);
        QCOMPARE(epoch_row.value(8).toDouble(), 0.875);

        QVERIFY(!curves.export_csv(folder.filePath("missing/curves.csv"), &error));
        QVERIFY2(error.contains("missing/curves.csv"), qPrintable(error));
    }

    void theExportButtonsAskWhereToSaveAndWriteThere() {
        TrainingCurves curves;
        curves.set_run("a", "Run 1", red);
        curves.add_batch("a", batch(1));
        QTemporaryDir folder;
        QStringList titles;
        curves.ask_save_path = [&](const QString& title, const QString& filter) {
            titles.append(title);
            return folder.filePath(filter.contains("csv") ? "points" : "picture");  // no suffix: added
        };
        QStringList errors;
        curves.show_error = [&](const QString& message) { errors.append(message); };
        QPushButton* csv = button(curves, "Export CSV…");
        QPushButton* png = button(curves, "Export PNG…");
        QVERIFY(csv && png && button(curves, "Fit"));
        csv->click();
        png->click();
        QCOMPARE(titles.size(), 2);
        QVERIFY(errors.isEmpty());
        QCOMPARE(read_lines(folder.filePath("points.csv")).size(), 2);
        QVERIFY(!QImage(folder.filePath("picture.png")).isNull());

        curves.ask_save_path = [](const QString&, const QString&) { return QString(); };  // cancelled
        csv->click();
        QVERIFY(errors.isEmpty());
    }

    void aHundredThousandPointsAreKeptAndDrawnWithAdaptiveSampling() {
        TrainingCurves curves;
        curves.resize(1000, 700);
        curves.set_run("a", "Run 1", red);
        const int count = 100000;
        std::vector<double> raw;
        raw.reserve(count);
        for (int i = 0; i < count; ++i) {
            session::BatchPoint point;
            point.position = i / 1000.0;
            point.loss = 1.0 + std::sin(i * 0.01) + (i % 7) * 0.01;
            point.accuracy = 0.5;
            point.learning_rate = 0.01;
            point.images_per_second = 2000;
            raw.push_back(point.loss);
            curves.add_batch("a", point);
        }
        curves.replot_now();
        for (const QCPGraph* graph : {curves.raw_loss_graph("a"), curves.smoothed_loss_graph("a"),
                                      curves.train_accuracy_graph("a"), curves.speed_graph("a")}) {
            QCOMPARE(graph->dataCount(), count);
            QVERIFY(graph->adaptiveSampling());
        }
        const std::vector<double> expected = bps::ui::smoothed(raw, curves.smoothing());
        QCOMPARE(values(curves.smoothed_loss_graph("a")).back(), expected.back());
        // One more point appends to what is drawn.
        session::BatchPoint more = batch(0);
        more.position = count / 1000.0;
        curves.add_batch("a", more);
        curves.replot_now();
        QCOMPARE(curves.raw_loss_graph("a")->dataCount(), count + 1);
        QCOMPARE(keys(curves.raw_loss_graph("a")).back(), 100.0);
    }

    void changingTheSmoothingRedrawsTheSmoothedLineAsTheEmaOfTheRawValues() {
        TrainingCurves curves;
        QCOMPARE(curves.smoothing(), 0.6);
        QCOMPARE(curves.smoothing_slider()->value(), 60);
        curves.set_run("a", "Run 1", red);
        std::vector<double> raw, accuracy;
        for (int i = 0; i < 20; ++i) {
            session::BatchPoint point = batch(i);
            point.loss = 1.0 + ((i * 37) % 11) / 10.0;
            raw.push_back(point.loss);
            accuracy.push_back(point.accuracy);
            curves.add_batch("a", point);
        }
        curves.replot_now();
        QCOMPARE(values(curves.smoothed_loss_graph("a")), bps::ui::smoothed(raw, 0.6));

        curves.set_smoothing(0.3);
        curves.replot_now();
        QCOMPARE(curves.smoothing_slider()->value(), 30);
        QCOMPARE(values(curves.smoothed_loss_graph("a")), bps::ui::smoothed(raw, 0.3));
        QCOMPARE(values(curves.train_accuracy_graph("a")), bps::ui::smoothed(accuracy, 0.3));
        QCOMPARE(values(curves.raw_loss_graph("a")), raw);

        curves.smoothing_slider()->setValue(0);
        curves.replot_now();
        QCOMPARE(curves.smoothing(), 0.0);
        QCOMPARE(values(curves.smoothed_loss_graph("a")), raw);
        // Points after the change extend the line with the new weight.
        curves.set_smoothing(0.9);
        session::BatchPoint point = batch(20);
        raw.push_back(point.loss);
        curves.add_batch("a", point);
        curves.replot_now();
        const std::vector<double> expected = bps::ui::smoothed(raw, 0.9);
        const std::vector<double> drawn = values(curves.smoothed_loss_graph("a"));
        QCOMPARE(drawn.size(), expected.size());
        QCOMPARE(drawn.back(), expected.back());
    }

    void twoRealisticRunsDrawInTheWindow() {
        TrainingCurves curves;
        curves.resize(1200, 800);
        curves.show();
        QVERIFY(QTest::qWaitForWindowExposed(&curves));
        add_realistic_run(curves, "a", "Run 1 (lr 0.01)", blue, 1800, 1);
        add_realistic_run(curves, "b", "Run 2 (batch 128)", QColor(255, 127, 14), 2600, 2);
        curves.replot_now();
        const QImage image = curves.grab().toImage();
        QCOMPARE(image.width(), 1200 * static_cast<int>(image.devicePixelRatio()));
        QCOMPARE(curves.raw_loss_graph("b")->dataCount(), 900);
        QCOMPARE(legend_names(curves.loss_plot()), (QStringList{"Run 1 (lr 0.01)", "Run 2 (batch 128)"}));
        const QByteArray folder = qgetenv("BPS_SCREENSHOT_DIR");
        if (!folder.isEmpty()) {
            QVERIFY(image.save(QString::fromLocal8Bit(folder) + "/curves.png"));
            TrainingCurves empty;
            empty.resize(1200, 800);
            empty.show();
            QVERIFY(QTest::qWaitForWindowExposed(&empty));
            QVERIFY(empty.grab().save(QString::fromLocal8Bit(folder) + "/curves-empty.png"));
            QVERIFY(curves.export_png(QString::fromLocal8Bit(folder) + "/curves-export.png", nullptr));
        }
    }
};

BACKPROP_QT_TEST(TrainingCurvesTest)
#include "test_training_curves.moc"
