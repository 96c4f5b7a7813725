// The Inside view's figures per layer and its histograms, on values the test makes itself: the
// histograms' drawn bins against the given counts, the chosen epoch bold and later ones left out,
// the gradient sizes on a log axis with the chosen epoch marked, the findings for constructed
// vanishing and exploding gradients (and none for a healthy network), and the table's texts,
// selection and width.
//
// Set BPS_SCREENSHOT_DIR to a folder to keep pictures of both widgets filled with a 6-layer cnn's
// figures over 5 epochs, at 1000x320 and 1600x450 (charts-*.png).
#include <qcustomplot.h>

#include <QApplication>
#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "engine/runs/inside_figures.h"
#include "tests/ui/qt_test_class.h"
#include "ui/inside/layer_figures_table.h"
#include "ui/inside/parameter_histograms.h"

using bps::ui::LayerFiguresRow;
using bps::ui::LayerFiguresTable;
using bps::ui::ParameterHistograms;
namespace session = bps::session;

namespace {

// Figures whose histogram is exactly `counts` over [-half, half], with the given spread.
session::ValueFigures figures(std::vector<std::uint32_t> counts, float half, double deviation, double mean = 0) {
    session::ValueFigures result;
    result.count = 0;
    for (std::uint32_t count : counts) result.count += count;
    result.mean = mean;
    result.deviation = deviation;
    result.min = -half;
    result.max = half;
    result.histogram.low = -half;
    result.histogram.high = half;
    result.histogram.counts = std::move(counts);
    return result;
}

// The density a histogram of `counts` over [-half, half] is drawn as: each count over the total
// times the bin's width (the area under the line is 1).
std::vector<double> density(const std::vector<double>& counts, double half) {
    double total = 0;
    for (double count : counts) total += count;
    const double width = 2 * half / static_cast<double>(counts.size());
    std::vector<double> result;
    for (double count : counts) result.push_back(count / (total * width));
    return result;
}

// Curves equal to within float rounding (the histograms' ranges are floats).
bool near(const std::vector<double>& drawn, const std::vector<double>& expected) {
    if (drawn.size() != expected.size()) return false;
    for (std::size_t i = 0; i < drawn.size(); ++i)
        if (std::abs(drawn[i] - expected[i]) > 1e-5 * std::max(1.0, std::abs(expected[i]))) return false;
    return true;
}

// A parameter whose gradient sizes are `sizes`, epoch i+1 for sizes[i] (epoch 0 has none).
ParameterHistograms::ParameterHistory with_gradient_sizes(const QString& parameter, const std::vector<double>& sizes) {
    ParameterHistograms::ParameterHistory history{parameter, {}};
    history.epochs.push_back({0, figures({1, 2, 1}, 0.1f, 0.05), std::nullopt});
    for (std::size_t i = 0; i < sizes.size(); ++i)
        history.epochs.push_back(
            {static_cast<int>(i) + 1, figures({1, 2, 1}, 0.1f, 0.05), figures({1, 3, 1}, 0.01f, sizes[i])});
    return history;
}

// What session::value_figures computes, for the pictures' realistic values (its implementation is
// on another branch): symmetric bins over the largest magnitude.
session::ValueFigures measured(const std::vector<float>& values) {
    session::ValueFigures result;
    result.count = values.size();
    double sum = 0, squares = 0;
    float largest = 0;
    result.min = values.front();
    result.max = values.front();
    for (float v : values) {
        sum += v;
        result.min = std::min(result.min, v);
        result.max = std::max(result.max, v);
        largest = std::max(largest, std::abs(v));
    }
    result.mean = sum / static_cast<double>(values.size());
    for (float v : values) squares += (v - result.mean) * (v - result.mean);
    result.deviation = std::sqrt(squares / static_cast<double>(values.size()));
    result.histogram.low = -largest;
    result.histogram.high = largest;
    result.histogram.counts.assign(session::default_histogram_bins, 0);
    for (float v : values) {
        auto bin = static_cast<int>((v + largest) / (2 * largest) * session::default_histogram_bins);
        bin = std::clamp(bin, 0, session::default_histogram_bins - 1);
        ++result.histogram.counts[static_cast<std::size_t>(bin)];
    }
    return result;
}

std::vector<float> normal_values(std::mt19937& random, std::size_t count, double mean, double deviation) {
    std::normal_distribution<float> normal(static_cast<float>(mean), static_cast<float>(deviation));
    std::vector<float> values(count);
    for (float& v : values) v = normal(random);
    return values;
}

// A 6-layer cnn on 28x28 images over 5 epochs: weights N(0, 0.1) widening a little, gradients
// shrinking as the loss falls, the first layers' a few times smaller than the last's.
struct Realistic {
    std::vector<ParameterHistograms::ParameterHistory> histories;
    std::vector<LayerFiguresRow> rows;
};

Realistic realistic_cnn(const std::vector<double>& first_gradient_sizes) {
    struct Layer {
        const char* name;
        const char* type;
        const char* shape;
        const char* formula;
        std::size_t weights;  // 0: no weights
        std::optional<double> zero;
    };
    const std::vector<Layer> layers = {
        {"conv1", "Conv2D", "32x26x26", "32x3x3x1 + 32 = 320", 288, {}},
        {"relu1", "ReLU", "32x26x26", "0", 0, 0.47},
        {"conv2", "Conv2D", "32x24x24", "32x3x3x32 + 32 = 9248", 9216, {}},
        {"relu2", "ReLU", "32x24x24", "0", 0, 0.58},
        {"pool1", "MaxPool2D", "32x12x12", "0", 0, {}},
        {"conv3", "Conv2D", "64x10x10", "64x3x3x32 + 64 = 18496", 18432, {}},
        {"relu3", "ReLU", "64x10x10", "0", 0, 0.61},
        {"conv4", "Conv2D", "64x8x8", "64x3x3x64 + 64 = 36928", 36864, {}},
        {"relu4", "ReLU", "64x8x8", "0", 0, 0.66},
        {"pool2", "MaxPool2D", "64x4x4", "0", 0, {}},
        {"flatten", "Flatten", "1024", "0", 0, {}},
        {"fc1", "Dense", "128", "128x1024 + 128 = 131200", 131072, {}},
        {"relu5", "ReLU", "128", "0", 0, 0.72},
        {"fc2", "Dense", "10", "10x128 + 10 = 1290", 1280, {}},
    };
    std::mt19937 random(50);
    Realistic result;
    int weight_layer = 0;
    for (const Layer& layer : layers) {
        LayerFiguresRow row{QString::fromLatin1(layer.name),
                            QString::fromLatin1(layer.type),
                            QString::fromLatin1(layer.shape),
                            QString::fromLatin1(layer.formula),
                            {},
                            {},
                            layer.zero};
        if (layer.weights > 0) {
            ParameterHistograms::ParameterHistory history{QString::fromLatin1(layer.name) + QStringLiteral(".weight"),
                                                          {}};
            for (int epoch = 0; epoch <= 5; ++epoch) {
                const auto weights = measured(normal_values(random, layer.weights, 0.002 * epoch, 0.1 + 0.006 * epoch));
                std::optional<session::ValueFigures> gradients;
                if (epoch > 0) {
                    const double size =
                        first_gradient_sizes[static_cast<std::size_t>(weight_layer)] * std::pow(0.72, epoch - 1);
                    gradients = measured(normal_values(random, std::min<std::size_t>(layer.weights, 20000), 0, size));
                }
                history.epochs.push_back({epoch, weights, gradients});
                if (epoch == 5) {
                    row.weights = weights;
                    row.gradients = gradients;
                }
            }
            result.histories.push_back(std::move(history));
            ++weight_layer;
        }
        result.rows.push_back(row);
    }
    return result;
}

const std::vector<double> healthy_sizes = {1.1e-3, 1.6e-3, 2.4e-3, 3.1e-3, 4.0e-3, 1.2e-2};
const std::vector<double> vanishing_sizes = {2.2e-5, 1.1e-4, 4.5e-4, 1.6e-3, 4.0e-3, 9.0e-3};

void save(QWidget& widget, const QString& name, QSize size) {
    const QString folder = qEnvironmentVariable("BPS_SCREENSHOT_DIR");
    if (folder.isEmpty()) return;
    QDir().mkpath(folder);
    widget.resize(size);
    widget.show();
    QApplication::processEvents();
    // QCustomPlot replots on resize; the picture is taken once the queued replots are done.
    for (QCustomPlot* plot : widget.findChildren<QCustomPlot*>()) plot->replot();
    QApplication::processEvents();
    QVERIFY(widget.grab().save(QDir(folder).filePath(name)));
}

}  // namespace

class InsideChartsTest : public QObject {
    Q_OBJECT
private slots:
    void histogramsDrawTheGivenCountsUpToTheChosenEpoch();
    void theChosenEpochIsBoldAndLaterEpochsAreLeftOut();
    void gradientSizesAreDrawnPerLayerOnALogAxis();
    void clickingALayersLineOrNameChoosesIt();
    void vanishingGradientsAreNamed();
    void vanishingGradientsInALaterLayerAreNamedToo();
    void explodingGradientsAreNamed();
    void gradientsThatBecomeNanAreNamed();
    void aHealthyNetworkHasNoFinding();
    void clearShowsTheReasonAndNoFigures();
    void anUnknownParameterFallsBackToTheFirst();
    void shortNumbersReadWell();
    void tableCellsShowTheFigures();
    void vanishingGradientsAreMarkedInTheTable();
    void selectLayerSelectsWithoutEmittingAndAClickEmits();
    void aLiveRefreshKeepsTheSelection();
    void tableFits1000PxWithoutSidewaysScrolling();
    void screenshots();
};

void InsideChartsTest::histogramsDrawTheGivenCountsUpToTheChosenEpoch() {
    ParameterHistograms::ParameterHistory conv1{QStringLiteral("conv1.weight"), {}};
    conv1.epochs.push_back({0, figures({1, 4, 9, 4, 1}, 0.5f, 0.2), std::nullopt});
    conv1.epochs.push_back({1, figures({2, 5, 7, 5, 2}, 0.6f, 0.22), figures({3, 8, 3}, 0.03f, 0.01)});
    conv1.epochs.push_back({2, figures({3, 5, 5, 5, 3}, 0.75f, 0.25), figures({2, 10, 2}, 0.02f, 0.005)});
    ParameterHistograms histograms;
    histograms.set_histories({conv1, with_gradient_sizes(QStringLiteral("fc1.weight"), {0.1, 0.08})},
                             QStringLiteral("conv1.weight"), 2);
    QVERIFY(histograms.reason().isEmpty());
    QCOMPARE(histograms.objectName(), QStringLiteral("insideHistograms"));
    QVERIFY(near(histograms.weights_curve(0), density({1, 4, 9, 4, 1}, 0.5)));
    QVERIFY(near(histograms.weights_curve(1), density({2, 5, 7, 5, 2}, 0.6)));
    QVERIFY(near(histograms.weights_curve(2), density({3, 5, 5, 5, 3}, 0.75)));
    // Five bins over [-0.75, 0.75] are 0.3 wide: their centres.
    const std::vector<double> centres = histograms.weights_bin_centres(2);
    const std::vector<double> expected_centres = {-0.6, -0.3, 0, 0.3, 0.6};
    QCOMPARE(centres.size(), expected_centres.size());
    for (std::size_t i = 0; i < centres.size(); ++i) QVERIFY(std::abs(centres[i] - expected_centres[i]) < 1e-6);
    // Epoch 0 has no gradients: only epochs 1 and 2 are drawn.
    QCOMPARE(histograms.gradients_epochs(), (std::vector<int>{1, 2}));
    QVERIFY(histograms.gradients_curve(0).empty());
    QVERIFY(near(histograms.gradients_curve(1), density({3, 8, 3}, 0.03)));
    QVERIFY(near(histograms.gradients_curve(2), density({2, 10, 2}, 0.02)));
    QCOMPARE(histograms.weights_plot()->graphCount(), 3);
    QCOMPARE(histograms.gradients_plot()->graphCount(), 2);
    // The x axis holds every drawn epoch's bins, centred on zero.
    const QCPRange x = histograms.weights_plot()->xAxis->range();
    QVERIFY(x.lower <= -0.75 && x.upper >= 0.75);
    QVERIFY(std::abs(x.lower + x.upper) < 1e-9);
    // The y axis holds the tallest density: epoch 0's 9 of 19 in a bin 0.2 wide.
    QVERIFY(histograms.weights_plot()->yAxis->range().upper >= 9.0 / (19 * 0.2));
}

void InsideChartsTest::theChosenEpochIsBoldAndLaterEpochsAreLeftOut() {
    ParameterHistograms::ParameterHistory conv1{QStringLiteral("conv1.weight"), {}};
    for (int epoch = 0; epoch <= 4; ++epoch)
        conv1.epochs.push_back({epoch, figures({1, static_cast<std::uint32_t>(epoch + 2), 1}, 0.5f, 0.2),
                                epoch == 0
                                    ? std::nullopt
                                    : std::optional(figures({1, static_cast<std::uint32_t>(epoch), 1}, 0.1f, 0.01))});
    ParameterHistograms histograms;
    histograms.set_histories({conv1}, QStringLiteral("conv1.weight"), 2);
    QCOMPARE(histograms.weights_epochs(), (std::vector<int>{0, 1, 2}));
    QCOMPARE(histograms.bold_weights_epoch(), 2);
    QCOMPARE(histograms.gradients_epochs(), (std::vector<int>{1, 2}));
    QCOMPARE(histograms.bold_gradients_epoch(), 2);
    QVERIFY(histograms.weights_curve(3).empty());
    // The earlier lines fade from light (early) to dark (late): the later one is darker.
    QCustomPlot* plot = histograms.weights_plot();
    QVERIFY(plot->graph(0)->pen().color().lightness() > plot->graph(1)->pen().color().lightness());
    QVERIFY(plot->graph(2)->pen().widthF() > plot->graph(1)->pen().widthF());
    QVERIFY(plot->graph(2)->brush().style() != Qt::NoBrush);  // the chosen epoch is filled under
    auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
    QVERIFY(title);
    QCOMPARE(title->text(), QStringLiteral("conv1's weights, epoch 2"));
    // A note says which epochs the thin lines are.
    bool note_shown = false;
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(plot->item(i)); text && text->visible())
            note_shown = note_shown || text->text() == QStringLiteral("thin: epochs 0–1,\nlight to dark");
    QVERIFY(note_shown);

    histograms.set_histories({conv1}, QStringLiteral("conv1.weight"), 4);
    QCOMPARE(histograms.bold_weights_epoch(), 4);
    QCOMPARE(histograms.weights_epochs(), (std::vector<int>{0, 1, 2, 3, 4}));

    // At epoch 0 the gradients' chart says why it is empty.
    histograms.set_histories({conv1}, QStringLiteral("conv1.weight"), 0);
    QCOMPARE(histograms.weights_epochs(), (std::vector<int>{0}));
    QCOMPARE(histograms.bold_weights_epoch(), 0);
    QVERIFY(histograms.gradients_epochs().empty());
    QCOMPARE(histograms.bold_gradients_epoch(), -1);
    bool hint_shown = false;
    for (int i = 0; i < histograms.gradients_plot()->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(histograms.gradients_plot()->item(i)); text && text->visible())
            hint_shown = text->text().contains(QStringLiteral("No gradients at epoch 0"));
    QVERIFY(hint_shown);
}

void InsideChartsTest::gradientSizesAreDrawnPerLayerOnALogAxis() {
    ParameterHistograms histograms;
    const auto conv1 = with_gradient_sizes(QStringLiteral("conv1.weight"), {0.004, 0.003, 0.002});
    const auto conv2 = with_gradient_sizes(QStringLiteral("conv2.weight"), {0.006, 0.005, 0.004});
    const auto fc1 = with_gradient_sizes(QStringLiteral("fc1.weight"), {0.02, 0.015, 0.01});
    histograms.set_histories({conv1, conv2, fc1}, QStringLiteral("conv2.weight"), 2);
    QCustomPlot* plot = histograms.gradient_size_plot();
    QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(histograms.gradient_size_line_count(), 3);
    QCOMPARE(plot->graphCount(), 3);
    QCOMPARE(histograms.gradient_sizes(QStringLiteral("conv1.weight")), (std::vector<double>{0.004, 0.003, 0.002}));
    QCOMPARE(histograms.gradient_sizes(QStringLiteral("fc1.weight")), (std::vector<double>{0.02, 0.015, 0.01}));
    QCOMPARE(histograms.gradient_size_epochs(QStringLiteral("conv2.weight")), (std::vector<double>{1, 2, 3}));
    // The legend names the layers, in execution order.
    QStringList names;
    for (int i = 0; i < plot->legend->itemCount(); ++i)  // its cells: some may be empty
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i)))
            names << item->plottable()->name();
    QCOMPARE(names, (QStringList{"conv1", "conv2", "fc1"}));
    // The chosen layer's line is the widest; the chosen epoch is a vertical line.
    QVERIFY(plot->graph(1)->pen().widthF() > plot->graph(0)->pen().widthF());
    QVERIFY(histograms.chosen_epoch_line()->visible());
    QCOMPARE(histograms.chosen_epoch_line()->point1->coords().x(), 2.0);
    QCOMPARE(histograms.chosen_epoch_line()->point2->coords().x(), 2.0);
    QVERIFY(histograms.chosen_epoch_label()->visible());
    QCOMPARE(histograms.chosen_epoch_label()->text(), QStringLiteral("epoch 2"));
    QCOMPARE(histograms.chosen_epoch_label()->position->coords().x(), 2.0);
    // Every size is inside the y range.
    QVERIFY(plot->yAxis->range().lower < 0.002 && plot->yAxis->range().upper > 0.02);
    QVERIFY(plot->yAxis->range().lower > 0);
}

void InsideChartsTest::clickingALayersLineOrNameChoosesIt() {
    ParameterHistograms histograms;
    histograms.resize(1000, 320);
    histograms.set_histories({with_gradient_sizes(QStringLiteral("conv1.weight"), {1e-5, 1e-5, 1e-5}),
                              with_gradient_sizes(QStringLiteral("fc1.weight"), {1e-2, 1e-2, 1e-2})},
                             QStringLiteral("conv1.weight"), 2);
    histograms.show();
    QVERIFY(QTest::qWaitForWindowExposed(&histograms));
    QCustomPlot* plot = histograms.gradient_size_plot();
    plot->replot();
    QSignalSpy chosen(&histograms, &ParameterHistograms::parameterChosen);
    // On fc1's line, between epochs 2 and 3.
    const QPointF on_line = plot->graph(1)->coordsToPixels(2.5, 1e-2);
    QTest::mouseClick(plot, Qt::LeftButton, {}, on_line.toPoint());
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.back().front().toString(), QStringLiteral("fc1.weight"));
    // On conv1's name in the legend.
    QCPAbstractLegendItem* conv1 = nullptr;
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i));
            item && item->plottable()->name() == QStringLiteral("conv1"))
            conv1 = item;
    QVERIFY(conv1);
    QTest::mouseClick(plot, Qt::LeftButton, {}, conv1->outerRect().center());
    QCOMPARE(chosen.count(), 2);
    QCOMPARE(chosen.back().front().toString(), QStringLiteral("conv1.weight"));
    // Empty space chooses nothing.
    QTest::mouseClick(plot, Qt::LeftButton, {}, plot->graph(1)->coordsToPixels(2.5, 1e-4).toPoint());
    QCOMPARE(chosen.count(), 2);
}

void InsideChartsTest::vanishingGradientsAreNamed() {
    ParameterHistograms histograms;
    // At epoch 2: conv1 1e-5, conv2 1e-4, fc2 3.4e-3: conv1 is 1/340 of fc2.
    histograms.set_histories({with_gradient_sizes(QStringLiteral("conv1.weight"), {2e-5, 1e-5, 1e-5}),
                              with_gradient_sizes(QStringLiteral("conv2.weight"), {2e-4, 1e-4, 1e-4}),
                              with_gradient_sizes(QStringLiteral("fc2.weight"), {4e-3, 3.4e-3, 3e-3})},
                             QStringLiteral("conv1.weight"), 2);
    QCOMPARE(
        histograms.finding(),
        QStringLiteral("conv1's gradients are 1/340 of fc2's: the first layers learn slowly (vanishing gradients)"));
    QVERIFY(histograms.finding_label()->isVisibleTo(&histograms));
    QCOMPARE(histograms.finding_label()->text(), histograms.finding());
    // At epoch 0 there are no gradients to compare.
    histograms.set_histories({with_gradient_sizes(QStringLiteral("conv1.weight"), {2e-5, 1e-5}),
                              with_gradient_sizes(QStringLiteral("fc2.weight"), {4e-3, 3.4e-3})},
                             QStringLiteral("conv1.weight"), 0);
    QCOMPARE(histograms.finding(), QString());
    QVERIFY(!histograms.finding_label()->isVisibleTo(&histograms));
    // The thresholds are named, and a ratio just above 1/100 is no finding.
    QCOMPARE(ParameterHistograms::vanishing_ratio, 0.01);
    histograms.set_histories({with_gradient_sizes(QStringLiteral("conv1.weight"), {1.01e-4}),
                              with_gradient_sizes(QStringLiteral("fc2.weight"), {1e-2})},
                             QStringLiteral("conv1.weight"), 1);
    QCOMPARE(histograms.finding(), QString());
    histograms.set_histories({with_gradient_sizes(QStringLiteral("conv1.weight"), {0.99e-4}),
                              with_gradient_sizes(QStringLiteral("fc2.weight"), {1e-2})},
                             QStringLiteral("conv1.weight"), 1);
    QCOMPARE(
        histograms.finding(),
        QStringLiteral("conv1's gradients are 1/100 of fc2's: the first layers learn slowly (vanishing gradients)"));
}

void InsideChartsTest::vanishingGradientsInALaterLayerAreNamedToo() {
    ParameterHistograms histograms;
    histograms.set_histories({with_gradient_sizes(QStringLiteral("conv1.weight"), {1e-2}),
                              with_gradient_sizes(QStringLiteral("fc1.weight"), {1.2e-5})},
                             QStringLiteral("fc1.weight"), 1);
    QCOMPARE(histograms.finding(), QStringLiteral("fc1's gradients are 1/830 of conv1's: fc1 learns far more slowly "
                                                  "than the layers before it"));
}

void InsideChartsTest::explodingGradientsAreNamed() {
    ParameterHistograms histograms;
    QCOMPARE(ParameterHistograms::exploding_growth, 100.0);
    // fc1: 0.01 at epoch 1, 1.2 at epoch 4: 120 times in 3 epochs.
    histograms.set_histories({with_gradient_sizes(QStringLiteral("conv1.weight"), {0.01, 0.012, 0.011, 0.013}),
                              with_gradient_sizes(QStringLiteral("fc1.weight"), {0.01, 0.05, 0.3, 1.2})},
                             QStringLiteral("fc1.weight"), 4);
    QCOMPARE(histograms.finding(), QStringLiteral("fc1's gradients grew 120x in 3 epochs (exploding)"));
    // Just under the threshold is no finding.
    histograms.set_histories({with_gradient_sizes(QStringLiteral("conv1.weight"), {0.01, 0.012}),
                              with_gradient_sizes(QStringLiteral("fc1.weight"), {0.01, 0.99})},
                             QStringLiteral("fc1.weight"), 1);
    QCOMPARE(histograms.finding(), QString());
    // From the lowest point, not the first: 0.002 at epoch 2 to 0.5 at epoch 3.
    histograms.set_histories({with_gradient_sizes(QStringLiteral("conv1.weight"), {0.01, 0.002, 0.5}),
                              with_gradient_sizes(QStringLiteral("fc1.weight"), {0.01, 0.01, 0.01})},
                             QStringLiteral("conv1.weight"), 1);
    QCOMPARE(histograms.finding(), QStringLiteral("conv1's gradients grew 250x in 1 epoch (exploding)"));
    // A fall is no growth.
    histograms.set_histories({with_gradient_sizes(QStringLiteral("conv1.weight"), {1.0, 0.001}),
                              with_gradient_sizes(QStringLiteral("fc1.weight"), {1.0, 0.5})},
                             QStringLiteral("conv1.weight"), 1);
    QCOMPARE(histograms.finding(), QString());
}

void InsideChartsTest::gradientsThatBecomeNanAreNamed() {
    ParameterHistograms histograms;
    histograms.set_histories({with_gradient_sizes(QStringLiteral("conv1.weight"), {0.01, 0.02}),
                              with_gradient_sizes(QStringLiteral("fc1.weight"), {0.01, std::nan("")})},
                             QStringLiteral("conv1.weight"), 1);
    QCOMPARE(histograms.finding(),
             QStringLiteral("fc1's gradients became NaN at epoch 2: training blew up (exploding gradients)"));
    // NaN is never drawn on the log axis.
    QCOMPARE(histograms.gradient_sizes(QStringLiteral("fc1.weight")), (std::vector<double>{0.01}));
}

void InsideChartsTest::aHealthyNetworkHasNoFinding() {
    ParameterHistograms histograms;
    const Realistic cnn = realistic_cnn(healthy_sizes);
    for (int epoch = 0; epoch <= 5; ++epoch) {
        histograms.set_histories(cnn.histories, QStringLiteral("conv2.weight"), epoch);
        QCOMPARE(histograms.finding(), QString());
    }
    const Realistic vanishing = realistic_cnn(vanishing_sizes);
    histograms.set_histories(vanishing.histories, QStringLiteral("conv1.weight"), 3);
    QVERIFY(histograms.finding().endsWith(QStringLiteral("the first layers learn slowly (vanishing gradients)")));
}

void InsideChartsTest::clearShowsTheReasonAndNoFigures() {
    ParameterHistograms histograms;
    QVERIFY(!histograms.reason().isEmpty());  // before any run
    histograms.set_histories({with_gradient_sizes(QStringLiteral("conv1.weight"), {1e-5}),
                              with_gradient_sizes(QStringLiteral("fc2.weight"), {1e-2})},
                             QStringLiteral("conv1.weight"), 1);
    QVERIFY(histograms.reason().isEmpty());
    QVERIFY(!histograms.finding().isEmpty());
    histograms.clear(QStringLiteral("This run has no replay"));
    QCOMPARE(histograms.reason(), QStringLiteral("This run has no replay"));
    QCOMPARE(histograms.findChild<QLabel*>(QStringLiteral("insideHistogramsReason"))->text(),
             QStringLiteral("This run has no replay"));
    QCOMPARE(histograms.finding(), QString());
    QVERIFY(histograms.weights_curve(0).empty());
    QCOMPARE(histograms.gradient_size_line_count(), 0);
    for (int i = 0; i < histograms.gradient_size_plot()->legend->itemCount(); ++i)
        QVERIFY(!histograms.gradient_size_plot()->legend->item(i));
    histograms.set_histories({}, QString(), 0);
    QVERIFY(!histograms.reason().isEmpty());
}

void InsideChartsTest::anUnknownParameterFallsBackToTheFirst() {
    ParameterHistograms histograms;
    ParameterHistograms::ParameterHistory conv1{QStringLiteral("conv1.weight"), {}};
    conv1.epochs.push_back({0, figures({7, 8, 9}, 0.5f, 0.2), std::nullopt});
    histograms.set_histories({conv1, with_gradient_sizes(QStringLiteral("fc1.weight"), {0.1})},
                             QStringLiteral("gone.weight"), 0);
    QCOMPARE(histograms.chosen_parameter(), QStringLiteral("conv1.weight"));
    QVERIFY(near(histograms.weights_curve(0), density({7, 8, 9}, 0.5)));
}

void InsideChartsTest::shortNumbersReadWell() {
    QCOMPARE(LayerFiguresTable::short_number(0.098123), QStringLiteral("0.0981"));
    QCOMPARE(LayerFiguresTable::short_number(12.345), QStringLiteral("12.3"));
    QCOMPARE(LayerFiguresTable::short_number(1.2e-5), QStringLiteral("1.2e-5"));
    QCOMPARE(LayerFiguresTable::short_number(-3.456e-4), QStringLiteral("-3.46e-4"));
    QCOMPARE(LayerFiguresTable::short_number(0.001), QStringLiteral("0.001"));
    QCOMPARE(LayerFiguresTable::short_number(4321.7), QStringLiteral("4322"));
    QCOMPARE(LayerFiguresTable::short_number(2.5e7), QStringLiteral("2.5e7"));
    QCOMPARE(LayerFiguresTable::short_number(0), QStringLiteral("0"));
    QCOMPARE(LayerFiguresTable::short_number(std::nan("")), QStringLiteral("NaN"));
    QCOMPARE(LayerFiguresTable::percent(0.4312), QStringLiteral("43.1%"));
    QCOMPARE(LayerFiguresTable::percent(1.0), QStringLiteral("100.0%"));
}

void InsideChartsTest::tableCellsShowTheFigures() {
    LayerFiguresTable table;
    QCOMPARE(table.objectName(), QStringLiteral("insideFigures"));
    LayerFiguresRow conv1{QStringLiteral("conv1"),
                          QStringLiteral("Conv2D"),
                          QStringLiteral("32x26x26"),
                          QStringLiteral("32x3x3x1 + 32 = 320"),
                          figures({1, 2, 1}, 0.3f, 0.0981, 0.0012),
                          figures({1, 2, 1}, 0.001f, 1.2e-5, -3.4e-7),
                          std::nullopt};
    conv1.weights->count = 288;
    LayerFiguresRow relu1{QStringLiteral("relu1"),
                          QStringLiteral("ReLU"),
                          QStringLiteral("32x26x26"),
                          QStringLiteral("0"),
                          std::nullopt,
                          std::nullopt,
                          0.4312};
    LayerFiguresRow fc1{QStringLiteral("fc1"),
                        QStringLiteral("Dense"),
                        QStringLiteral("128"),
                        QStringLiteral("128x1024 + 128 = 131200"),
                        figures({1}, 0.2f, 0.05, -0.0003),
                        std::nullopt,
                        std::nullopt};
    table.set_rows({conv1, relu1, fc1});
    QCOMPARE(table.row_count(), 3);
    QCOMPARE(table.model()->columnCount(), 7);
    QCOMPARE(table.cell_text(0, LayerFiguresTable::layer_column), QStringLiteral("conv1"));
    QCOMPARE(table.cell_text(0, LayerFiguresTable::type_column), QStringLiteral("Conv2D"));
    QCOMPARE(table.cell_text(0, LayerFiguresTable::output_column), QStringLiteral("32x26x26"));
    QCOMPARE(table.cell_text(0, LayerFiguresTable::parameters_column), QStringLiteral("32x3x3x1 + 32 = 320"));
    QCOMPARE(table.cell_text(0, LayerFiguresTable::weights_column), QStringLiteral("0.0012 ± 0.0981"));
    QCOMPARE(table.cell_text(0, LayerFiguresTable::gradients_column), QStringLiteral("-3.4e-7 ± 1.2e-5"));
    QCOMPARE(table.cell_text(0, LayerFiguresTable::zero_column), QStringLiteral("—"));
    QCOMPARE(table.cell_text(1, LayerFiguresTable::weights_column), QStringLiteral("—"));
    QCOMPARE(table.cell_text(1, LayerFiguresTable::zero_column), QStringLiteral("43.1%"));
    QCOMPARE(table.cell_text(2, LayerFiguresTable::weights_column), QStringLiteral("-3e-4 ± 0.05"));
    QCOMPARE(table.cell_text(2, LayerFiguresTable::gradients_column), QStringLiteral("—"));
    // The cells explain themselves.
    QCOMPARE(table.cell_tooltip(0, LayerFiguresTable::weights_column),
             QStringLiteral("mean 0.0012, standard deviation 0.0981 over 288 weights\nsmallest -0.3, largest 0.3"));
    QCOMPARE(table.cell_tooltip(2, LayerFiguresTable::gradients_column),
             QStringLiteral("No gradients yet: they come with the first batch."));
    QCOMPARE(table.cell_tooltip(1, LayerFiguresTable::zero_column),
             QStringLiteral("43.1% of this ReLU's outputs are zero on the chosen image."));
    for (int column = 0; column < LayerFiguresTable::column_count; ++column)
        QVERIFY(!table.model()->headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
    QVERIFY(table.model()
                ->headerData(LayerFiguresTable::gradients_column, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("vanishing gradient")));
    QCOMPARE(table.model()->headerData(LayerFiguresTable::weights_column, Qt::Horizontal).toString(),
             QStringLiteral("Weights mean ± std"));
}

void InsideChartsTest::vanishingGradientsAreMarkedInTheTable() {
    LayerFiguresTable table;
    Realistic cnn = realistic_cnn(vanishing_sizes);
    table.set_rows(cnn.rows);
    // conv1's gradients (2.2e-5 at epoch 1, shrinking) are far below fc2's (9e-3): marked; conv3's are not.
    const QModelIndex conv1 = table.model()->index(0, LayerFiguresTable::gradients_column);
    const QModelIndex conv3 = table.model()->index(5, LayerFiguresTable::gradients_column);
    QVERIFY(conv1.data(Qt::ForegroundRole).isValid());
    QVERIFY(!conv3.data(Qt::ForegroundRole).isValid());
    QVERIFY(table.cell_tooltip(0, LayerFiguresTable::gradients_column)
                .contains(QStringLiteral("of fc2's: this layer learns slowly (vanishing gradients).")));
    const Realistic healthy = realistic_cnn(healthy_sizes);
    table.set_rows(healthy.rows);
    QVERIFY(!table.model()->index(0, LayerFiguresTable::gradients_column).data(Qt::ForegroundRole).isValid());
}

void InsideChartsTest::selectLayerSelectsWithoutEmittingAndAClickEmits() {
    LayerFiguresTable table;
    table.resize(1000, 200);
    const Realistic cnn = realistic_cnn(healthy_sizes);
    table.set_rows(cnn.rows);
    table.show();
    QVERIFY(QTest::qWaitForWindowExposed(&table));
    QSignalSpy chosen(&table, &LayerFiguresTable::layerChosen);
    table.select_layer(QStringLiteral("fc2"));
    QCOMPARE(table.selected_layer(), QStringLiteral("fc2"));
    QCOMPARE(table.currentIndex().row(), 13);
    // Scrolled to: the row is inside the viewport.
    const QRect fc2 = table.visualRect(table.model()->index(13, 0));
    QVERIFY(table.viewport()->rect().contains(fc2));
    QCOMPARE(chosen.count(), 0);
    table.select_layer(QStringLiteral("nothing"));
    QCOMPARE(table.selected_layer(), QString());
    // The learner picks conv1.
    table.scrollToTop();
    const QRect conv1 = table.visualRect(table.model()->index(0, LayerFiguresTable::type_column));
    QTest::mouseClick(table.viewport(), Qt::LeftButton, {}, conv1.center());
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.front().front().toString(), QStringLiteral("conv1"));
    QCOMPARE(table.selected_layer(), QStringLiteral("conv1"));
    // The keyboard too.
    QTest::keyClick(&table, Qt::Key_Down);
    QCOMPARE(chosen.count(), 2);
    QCOMPARE(chosen.back().front().toString(), QStringLiteral("relu1"));
}

void InsideChartsTest::aLiveRefreshKeepsTheSelection() {
    LayerFiguresTable table;
    Realistic cnn = realistic_cnn(healthy_sizes);
    table.set_rows(cnn.rows);
    table.select_layer(QStringLiteral("conv3"));
    QSignalSpy chosen(&table, &LayerFiguresTable::layerChosen);
    cnn.rows[5].weights->deviation = 0.5;
    table.set_rows(cnn.rows);
    QCOMPARE(table.selected_layer(), QStringLiteral("conv3"));
    QCOMPARE(table.cell_text(5, LayerFiguresTable::weights_column).section(QStringLiteral(" ± "), 1),
             QStringLiteral("0.5"));
    // Another network: the layer is still selected where it is found.
    cnn.rows.erase(cnn.rows.begin(), cnn.rows.begin() + 2);
    table.set_rows(cnn.rows);
    QCOMPARE(table.selected_layer(), QStringLiteral("conv3"));
    QCOMPARE(table.currentIndex().row(), 3);
    QCOMPARE(chosen.count(), 0);
}

void InsideChartsTest::tableFits1000PxWithoutSidewaysScrolling() {
    LayerFiguresTable table;
    table.resize(1000, 300);
    Realistic cnn = realistic_cnn(vanishing_sizes);
    table.set_rows(cnn.rows);
    table.show();
    QVERIFY(QTest::qWaitForWindowExposed(&table));
    QApplication::processEvents();
    QVERIFY(!table.horizontalScrollBar()->isVisible());
    QCOMPARE(table.horizontalScrollBar()->maximum(), 0);
    int total = 0;
    for (int column = 0; column < LayerFiguresTable::column_count; ++column) {
        const int width = table.columnWidth(column);
        total += width;
        // No text is cut: each column is as wide as its widest cell and its heading.
        QVERIFY2(width >= static_cast<QAbstractItemView&>(table).sizeHintForColumn(column),
                 qPrintable(QString::number(column)));
        QVERIFY2(width >= table.horizontalHeader()->sectionSizeHint(column), qPrintable(QString::number(column)));
    }
    QVERIFY(total <= table.viewport()->width());
    QVERIFY(total >= table.viewport()->width() - 2);  // the spare width is used, not left blank
}

void InsideChartsTest::screenshots() {
    if (qEnvironmentVariableIsEmpty("BPS_SCREENSHOT_DIR")) QSKIP("BPS_SCREENSHOT_DIR is not set");
    const Realistic cnn = realistic_cnn(healthy_sizes);
    const Realistic vanishing = realistic_cnn(vanishing_sizes);
    {
        ParameterHistograms histograms;
        histograms.set_histories(cnn.histories, QStringLiteral("conv2.weight"), 5);
        save(histograms, QStringLiteral("charts-histograms-1000x320.png"), {1000, 320});
        save(histograms, QStringLiteral("charts-histograms-1600x450.png"), {1600, 450});
        histograms.set_histories(vanishing.histories, QStringLiteral("conv1.weight"), 3);
        save(histograms, QStringLiteral("charts-histograms-vanishing-1000x320.png"), {1000, 320});
        histograms.set_histories(cnn.histories, QStringLiteral("conv2.weight"), 0);
        save(histograms, QStringLiteral("charts-histograms-epoch0-1000x320.png"), {1000, 320});
        histograms.clear(QStringLiteral("This run was trained before replays were kept: it has no replay"));
        save(histograms, QStringLiteral("charts-histograms-cleared-1000x320.png"), {1000, 320});
    }
    {
        LayerFiguresTable table;
        table.set_rows(cnn.rows);
        table.select_layer(QStringLiteral("conv2"));
        save(table, QStringLiteral("charts-table-1000x320.png"), {1000, 320});
        table.set_rows(vanishing.rows);
        save(table, QStringLiteral("charts-table-1600x450.png"), {1600, 450});
    }
}

BACKPROP_QT_TEST(InsideChartsTest)
#include "test_inside_charts.moc"
