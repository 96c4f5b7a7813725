// The Inside view's pictures under the offscreen platform, on plain values: the filters' tiles
// (kernels on one diverging scale, colour tiles of a first layer on RGB input, a Dense layer's
// units as images) and the activation maps (each channel on its own range, a flat layer as a strip
// of cells). Pixels grabbed from the widgets are checked against the values they were painted
// from, and a laptop-sized tab (about 1000x500) never runs a tile past its width.
//
// Set BPS_SCREENSHOT_DIR to a folder to keep pictures of each (filters-*.png, activations-*.png:
// the whole canvas, and *-view.png: what a 1000x500 tab shows).
#include <QApplication>
#include <QDir>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QImage>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "tests/ui/qt_test_class.h"
#include "ui/inside/activation_maps.h"
#include "ui/inside/filter_tiles.h"

using bps::ui::ActivationMaps;
using bps::ui::ActivationSet;
using bps::ui::FilterSet;
using bps::ui::FilterTiles;

namespace {

// Uniform in [-1, 1] and never exactly zero, so a wrong colour cannot pass as white.
std::vector<float> random_values(std::size_t count, unsigned seed, float low = -1.0f, float high = 1.0f) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> uniform(low, high);
    std::vector<float> values(count);
    for (auto& value : values) {
        do value = uniform(generator);
        while (std::abs(value) < 1e-3f);
    }
    return values;
}

// Smooth maps as trained filters look: a few Gaussian blobs of either sign per map, and a little
// noise.
std::vector<float> smooth_values(int maps, int height, int width, unsigned seed) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    std::normal_distribution<float> noise(0.0f, 0.03f);
    std::vector<float> values;
    values.reserve(static_cast<std::size_t>(maps) * height * width);
    for (int map = 0; map < maps; ++map) {
        struct Blob {
            float y, x, spread, sign;
        };
        std::vector<Blob> blobs;
        for (int i = 0; i < 3; ++i)
            blobs.push_back({uniform(generator) * height, uniform(generator) * width,
                             (0.15f + 0.35f * uniform(generator)) * std::max(height, width),
                             uniform(generator) < 0.5f ? -1.0f : 1.0f});
        const float strength = 0.3f + 0.7f * uniform(generator);
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                float value = noise(generator);
                for (const Blob& blob : blobs) {
                    const float dy = y - blob.y, dx = x - blob.x;
                    value += blob.sign * std::exp(-(dy * dy + dx * dx) / (2 * blob.spread * blob.spread));
                }
                values.push_back(strength * value);
            }
    }
    return values;
}

FilterSet filter_set(FilterSet::Kind kind, int count, int channels, int height, int width, std::vector<float> values) {
    FilterSet set;
    set.layer = kind == FilterSet::Kind::dense_images ? "fc1" : (channels <= 3 ? "conv1" : "conv2");
    set.kind = kind;
    set.count = count;
    set.channels = channels;
    set.height = height;
    set.width = width;
    set.values = std::move(values);
    return set;
}

ActivationSet activation_set(int channels, int height, int width, std::vector<float> values) {
    ActivationSet set;
    set.title = "Image: test image 17, Pullover";
    set.layer = height == 1 ? "fc2" : "conv1";
    set.channels = channels;
    set.height = height;
    set.width = width;
    set.values = std::move(values);
    return set;
}

// The centre of value (y, x) in a tile enlarged `scale` times.
QPoint cell_centre(const QRect& tile, int scale, int y, int x) {
    return {tile.x() + x * scale + scale / 2, tile.y() + y * scale + scale / 2};
}

QColor pixel(const QImage& image, QPoint point) {
    return image.pixelColor(point);
}

void save(QWidget* widget, const QString& name) {
    const QByteArray folder = qgetenv("BPS_SCREENSHOT_DIR");
    if (folder.isEmpty()) return;
    QDir().mkpath(QString::fromLocal8Bit(folder));
    widget->grab().save(QDir(QString::fromLocal8Bit(folder)).filePath(name));
}

// Shows `widget` at a laptop window's tab size and lets its layout settle.
void show_at(QWidget* widget, QSize size) {
    widget->resize(size);
    widget->show();
    QVERIFY(QTest::qWaitForWindowExposed(widget));
    QApplication::processEvents();
}

// Every drawn tile lies inside the canvas, and the canvas is no wider than the scroll area's
// viewport: nothing needs a sideways scroll.
void check_no_sideways_overflow(FilterTiles& tiles) {
    const QWidget* canvas = tiles.canvas();
    QVERIFY(canvas->width() <= canvas->parentWidget()->width());
    QVERIFY(canvas->width() <= tiles.width());
    const int channels = tiles.channels_shown();
    for (int filter = 0; filter < tiles.filters_shown(); ++filter)
        for (int channel = 0; channel < channels; ++channel) {
            const QRect tile = tiles.tile_rect(filter, channel);
            QVERIFY(!tile.isEmpty());
            QVERIFY2(canvas->rect().contains(tile), qPrintable(QString("tile %1,%2").arg(filter).arg(channel)));
        }
}

}  // namespace

class InsidePicturesTest : public QObject {
    Q_OBJECT
private slots:
    void theDivergingScaleIsBlueWhiteRedCentredOnZero();
    void kernelTilesArePaintedFromTheirValuesOnOneScale();
    void aLayerWithManyChannelsShowsSixteenAndSaysSo();
    void aFirstLayerOnColourInputIsDrawnAsColourTiles();
    void aDenseLayersUnitsAreDrawnAsImagesOfTheInput();
    void tilesNeverRunPastALaptopTabsWidth();
    void aClickOnATileNamesItsFilterAndChannel();
    void aTilesTooltipGivesItsRange();
    void aLayerWithoutFiltersSaysWhy();
    void eachActivationMapIsScaledToItsOwnRange();
    void smallMapsAreEnlargedToAReadableSize();
    void aFlatLayerIsOneStripOfCellsWithItsValues();
    void activationMapsFlowToTheWidth();
    void picturesToLookAt();
};

void InsidePicturesTest::theDivergingScaleIsBlueWhiteRedCentredOnZero() {
    FilterTiles tiles;
    tiles.set_filters(filter_set(FilterSet::Kind::kernels, 1, 1, 1, 3, {-0.5f, 0.0f, 0.25f}));
    QCOMPARE(tiles.magnitude(), 0.5f);
    QCOMPARE(tiles.colour_of(-0.5f), QColor(5, 48, 97));     // RdBu's darkest blue
    QCOMPARE(tiles.colour_of(0.0f), QColor(247, 247, 247));  // near-white
    QCOMPARE(tiles.colour_of(0.5f), QColor(103, 0, 31));     // its darkest red
    QCOMPARE(tiles.colour_of(2.0f), QColor(103, 0, 31));     // clamped
    QVERIFY(tiles.colour_of(0.25f).red() > tiles.colour_of(0.25f).blue());
    QVERIFY(tiles.colour_of(-0.25f).blue() > tiles.colour_of(-0.25f).red());
    QCOMPARE(tiles.colour_of_rgb(-0.5f, 0.0f, 0.5f), QColor(0, 128, 255));
}

void InsidePicturesTest::kernelTilesArePaintedFromTheirValuesOnOneScale() {
    const int filters = 8, channels = 4, side = 3;
    const auto values = random_values(static_cast<std::size_t>(filters) * channels * side * side, 1);
    FilterTiles tiles;
    tiles.set_filters(filter_set(FilterSet::Kind::kernels, filters, channels, side, side, values));
    show_at(&tiles, {1000, 500});
    QVERIFY(tiles.reason().isEmpty());
    float largest = 0;
    for (float value : values) largest = std::max(largest, std::abs(value));
    QCOMPARE(tiles.magnitude(), largest);
    QCOMPARE(tiles.filters_shown(), filters);
    QCOMPARE(tiles.channels_shown(), channels);
    QVERIFY(tiles.caption().isEmpty());
    QVERIFY(tiles.scale() * side >= 24);  // a 3x3 kernel stays readable
    const QImage image = tiles.canvas()->grab().toImage();
    for (int filter = 0; filter < filters; ++filter)
        for (int channel = 0; channel < channels; ++channel) {
            const QRect tile = tiles.tile_rect(filter, channel);
            QCOMPARE(tile.size(), QSize(side * tiles.scale(), side * tiles.scale()));
            for (int y = 0; y < side; ++y)
                for (int x = 0; x < side; ++x) {
                    const float value = values[((filter * channels + channel) * side + y) * side + x];
                    QCOMPARE(tiles.shown_value(filter, channel, y, x), value);
                    QCOMPARE(pixel(image, cell_centre(tile, tiles.scale(), y, x)), tiles.colour_of(value));
                    // nearest neighbour: the value's whole square, corners included, is its colour
                    const QPoint corner(tile.x() + x * tiles.scale(), tile.y() + y * tiles.scale());
                    QCOMPARE(pixel(image, corner), tiles.colour_of(value));
                    QCOMPARE(pixel(image, corner + QPoint(tiles.scale() - 1, tiles.scale() - 1)),
                             tiles.colour_of(value));
                }
        }
    QVERIFY(std::isnan(tiles.shown_value(filters, 0, 0, 0)));
    QVERIFY(std::isnan(tiles.shown_value(0, channels, 0, 0)));
}

void InsidePicturesTest::aLayerWithManyChannelsShowsSixteenAndSaysSo() {
    FilterTiles tiles;
    show_at(&tiles, {1000, 500});
    tiles.set_filters(filter_set(FilterSet::Kind::kernels, 32, 32, 3, 3, random_values(32 * 32 * 9, 2)));
    QCOMPARE(tiles.channels_shown(), 16);
    QCOMPARE(tiles.filters_shown(), 32);
    QCOMPARE(tiles.caption(), QString("showing 16 of 32 input channels"));
    QVERIFY(tiles.tile_rect(0, 16).isEmpty());
    QVERIFY(std::isnan(tiles.shown_value(0, 16, 0, 0)));

    tiles.set_filters(filter_set(FilterSet::Kind::kernels, 128, 64, 3, 3, random_values(128 * 64 * 9, 3)));
    QCOMPARE(tiles.filters_shown(), 64);
    QCOMPARE(tiles.caption(), QString("showing 16 of 64 input channels, 64 of 128 filters"));
    QVERIFY(tiles.tile_rect(64, 0).isEmpty());
    QVERIFY(!tiles.tile_rect(63, 15).isEmpty());
}

void InsidePicturesTest::aFirstLayerOnColourInputIsDrawnAsColourTiles() {
    const int filters = 32, side = 5;
    const auto values = random_values(static_cast<std::size_t>(filters) * 3 * side * side, 4);
    FilterTiles tiles;
    tiles.set_filters(filter_set(FilterSet::Kind::colour_kernels, filters, 3, side, side, values));
    show_at(&tiles, {1000, 500});
    QCOMPARE(tiles.filters_shown(), filters);
    QCOMPARE(tiles.channels_shown(), 1);
    QVERIFY(tiles.scale() * side >= 24);
    const QImage image = tiles.canvas()->grab().toImage();
    const auto at = [&](int filter, int channel, int y, int x) {
        return values[((filter * 3 + channel) * side + y) * side + x];
    };
    for (int filter = 0; filter < filters; ++filter) {
        const QRect tile = tiles.tile_rect(filter, -1);
        QCOMPARE(tiles.tile_rect(filter, 2), tile);
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x) {
                QCOMPARE(tiles.shown_value(filter, 1, y, x), at(filter, 1, y, x));
                QCOMPARE(pixel(image, cell_centre(tile, tiles.scale(), y, x)),
                         tiles.colour_of_rgb(at(filter, 0, y, x), at(filter, 1, y, x), at(filter, 2, y, x)));
            }
    }
    // Without three channels there are no colours to draw.
    tiles.set_filters(filter_set(FilterSet::Kind::colour_kernels, 4, 2, 3, 3, random_values(4 * 2 * 9, 5)));
    QCOMPARE(tiles.reason(),
             QString("conv1 has 2 input channels, not red, green and blue, so its filters cannot be drawn in colour."));
}

void InsidePicturesTest::aDenseLayersUnitsAreDrawnAsImagesOfTheInput() {
    const int units = 128, side = 28;
    const auto values = random_values(static_cast<std::size_t>(units) * side * side, 6);
    FilterTiles tiles;
    tiles.set_filters(filter_set(FilterSet::Kind::dense_images, units, 1, side, side, values));
    show_at(&tiles, {1000, 500});
    QCOMPARE(tiles.filters_shown(), 64);
    QCOMPARE(tiles.caption(), QString("showing 64 of 128 units"));
    QCOMPARE(tiles.scale(), 2);
    const QImage image = tiles.canvas()->grab().toImage();
    for (int unit : {0, 17, 63}) {
        const QRect tile = tiles.tile_rect(unit, 0);
        QCOMPARE(tile.size(), QSize(56, 56));
        for (int y : {0, 13, 27})
            for (int x : {0, 5, 27}) {
                const float value = values[(static_cast<std::size_t>(unit) * side + y) * side + x];
                QCOMPARE(tiles.shown_value(unit, 0, y, x), value);
                QCOMPARE(pixel(image, cell_centre(tile, 2, y, x)), tiles.colour_of(value));
            }
    }
    QVERIFY(tiles.tile_rect(64, 0).isEmpty());
}

void InsidePicturesTest::tilesNeverRunPastALaptopTabsWidth() {
    // A 1280x720 window leaves its Inside tab about 1000x500; a narrower side-by-side half 480.
    for (const QSize size : {QSize(1000, 500), QSize(480, 500), QSize(1700, 800)}) {
        FilterTiles tiles;
        show_at(&tiles, size);
        tiles.set_filters(filter_set(FilterSet::Kind::kernels, 32, 32, 3, 3, random_values(32 * 32 * 9, 7)));
        QApplication::processEvents();
        check_no_sideways_overflow(tiles);
        QVERIFY(tiles.scale() * 3 >= 24);
        tiles.set_filters(filter_set(FilterSet::Kind::dense_images, 64, 1, 28, 28, random_values(64 * 784, 8)));
        QApplication::processEvents();
        check_no_sideways_overflow(tiles);
        QCOMPARE(tiles.filters_shown(), 64);
    }
    FilterTiles tiles;
    show_at(&tiles, {1000, 500});
    tiles.set_filters(filter_set(FilterSet::Kind::kernels, 32, 32, 3, 3, random_values(32 * 32 * 9, 9)));
    QApplication::processEvents();
    const auto* scroll = tiles.findChild<QScrollArea*>("insideFiltersScroll");
    QVERIFY(scroll);
    QVERIFY(scroll->verticalScrollBar()->isVisible());
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());
}

void InsidePicturesTest::aClickOnATileNamesItsFilterAndChannel() {
    FilterTiles tiles;
    tiles.set_filters(filter_set(FilterSet::Kind::kernels, 8, 4, 3, 3, random_values(8 * 4 * 9, 10)));
    show_at(&tiles, {1000, 500});
    QSignalSpy clicked(&tiles, &FilterTiles::tileClicked);
    QTest::mouseClick(tiles.canvas(), Qt::LeftButton, {}, tiles.tile_rect(5, 2).center());
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.at(0).at(0).toInt(), 5);
    QCOMPARE(clicked.at(0).at(1).toInt(), 2);
    QTest::mouseClick(tiles.canvas(), Qt::LeftButton, {}, QPoint(2, 2));  // the header: no tile
    QCOMPARE(clicked.count(), 1);

    tiles.set_filters(filter_set(FilterSet::Kind::colour_kernels, 8, 3, 5, 5, random_values(8 * 3 * 25, 11)));
    QApplication::processEvents();
    QTest::mouseClick(tiles.canvas(), Qt::LeftButton, {}, tiles.tile_rect(7, -1).center());
    QCOMPARE(clicked.count(), 2);
    QCOMPARE(clicked.at(1).at(0).toInt(), 7);
    QCOMPARE(clicked.at(1).at(1).toInt(), -1);  // all three channels
}

void InsidePicturesTest::aTilesTooltipGivesItsRange() {
    std::vector<float> values(4 * 3 * 9, 0.5f);
    // filter 2, channel 1: from -0.25 to 0.75
    for (int i = 0; i < 9; ++i) values[(2 * 3 + 1) * 9 + i] = -0.25f + 0.125f * i;
    FilterTiles tiles;
    tiles.set_filters(filter_set(FilterSet::Kind::kernels, 4, 3, 3, 3, values));
    show_at(&tiles, {1000, 500});
    const QPoint inside = tiles.tile_rect(2, 1).center();
    QHelpEvent help(QEvent::ToolTip, inside, tiles.canvas()->mapToGlobal(inside));
    QApplication::sendEvent(tiles.canvas(), &help);
    QTRY_COMPARE_WITH_TIMEOUT(QToolTip::text(), QString("filter 2, channel 1: min -0.25 .. max 0.75"), 2000);
    QToolTip::hideText();
}

void InsidePicturesTest::aLayerWithoutFiltersSaysWhy() {
    FilterTiles tiles;
    show_at(&tiles, {1000, 500});
    tiles.set_filters(filter_set(FilterSet::Kind::kernels, 4, 1, 3, 3, random_values(36, 12)));
    const QString reason = "fc2 has no filters to draw: its inputs are fc1's 128 units, not an image.";
    tiles.clear(reason);
    QCOMPARE(tiles.reason(), reason);
    QCOMPARE(tiles.filters_shown(), 0);
    QVERIFY(tiles.tile_rect(0, 0).isEmpty());
    QCOMPARE(tiles.canvas()->height(), tiles.canvas()->parentWidget()->height());  // nothing to scroll
    tiles.set_filters(filter_set(FilterSet::Kind::kernels, 4, 1, 3, 3, random_values(35, 13)));
    QCOMPARE(tiles.reason(),
             QString("conv1's weights do not match their shape (35 values for 4x1x3x3), so they are not drawn."));
}

void InsidePicturesTest::eachActivationMapIsScaledToItsOwnRange() {
    const int channels = 12, side = 14;
    // Each channel its own spread, so one range for all would be wrong for most.
    std::vector<float> values;
    for (int channel = 0; channel < channels; ++channel) {
        const auto map = random_values(side * side, 20 + channel, -0.1f * channel, 1.0f + channel);
        values.insert(values.end(), map.begin(), map.end());
    }
    ActivationMaps maps;
    maps.set_activations(activation_set(channels, side, side, values));
    show_at(&maps, {1000, 500});
    const QImage image = maps.canvas()->grab().toImage();
    for (int channel = 0; channel < channels; ++channel) {
        const auto begin = values.begin() + channel * side * side, end = begin + side * side;
        const auto [low, high] = std::minmax_element(begin, end);
        QCOMPARE(maps.range_of(channel), std::make_pair(*low, *high));
        const int darkest = static_cast<int>(low - begin), brightest = static_cast<int>(high - begin);
        const QRect map = maps.map_rect(channel);
        QCOMPARE(map.size(), QSize(side * maps.scale(), side * maps.scale()));
        QCOMPARE(maps.shown_value(channel, darkest / side, darkest % side), *low);
        QCOMPARE(pixel(image, cell_centre(map, maps.scale(), darkest / side, darkest % side)), QColor(0, 0, 0));
        QCOMPARE(pixel(image, cell_centre(map, maps.scale(), brightest / side, brightest % side)),
                 QColor(255, 255, 255));
        for (int y : {0, 6, 13})
            for (int x : {1, 9}) {
                const float value = values[(channel * side + y) * side + x];
                QCOMPARE(pixel(image, cell_centre(map, maps.scale(), y, x)), maps.colour_of(channel, value));
            }
        QCOMPARE(maps.label_of(channel), QString("ch %1  %2 \u2013 %3")
                                             .arg(channel)
                                             .arg(QString::number(*low, 'f', 2))
                                             .arg(QString::number(*high, 'f', 2)));
    }
    // A constant map is drawn mid-grey.
    maps.set_activations(activation_set(2, 3, 3, {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
    QApplication::processEvents();
    const QImage constant = maps.canvas()->grab().toImage();
    QCOMPARE(pixel(constant, maps.map_rect(0).center()), QColor(128, 128, 128));
    QCOMPARE(maps.label_of(0), QString("ch 0  all 0.00"));
    QCOMPARE(maps.range_of(1), std::make_pair(1.0f, 9.0f));
    QCOMPARE(maps.label_of(1), QString("ch 1  1.00 \u2013 9.00"));
}

void InsidePicturesTest::smallMapsAreEnlargedToAReadableSize() {
    ActivationMaps maps;
    show_at(&maps, {1000, 500});
    maps.set_activations(activation_set(4, 7, 7, random_values(4 * 49, 30)));
    QVERIFY(maps.map_rect(0).width() >= 48);
    maps.set_activations(activation_set(32, 28, 28, random_values(32 * 784, 31)));
    QCOMPARE(maps.scale(), 2);
    // Few maps in a wide tab are drawn larger, up to twice, without taking more rows.
    maps.set_activations(activation_set(4, 28, 28, random_values(4 * 784, 34)));
    QCOMPARE(maps.scale(), 5);
    QCOMPARE(maps.map_rect(3).y(), maps.map_rect(0).y());
    maps.set_activations(activation_set(32, 14, 14, random_values(32 * 196, 32)));
    QVERIFY(maps.map_rect(0).width() >= 56);
}

void InsidePicturesTest::aFlatLayerIsOneStripOfCellsWithItsValues() {
    const std::vector<float> values = {-1.5f, 0.25f, 3.0f, 0.0f, 1.0f, 2.0f, -0.5f, 0.75f, 4.5f, 0.1f};
    ActivationMaps maps;
    auto set = activation_set(10, 1, 1, values);
    set.zero_fraction = 0.42;
    maps.set_activations(set);
    show_at(&maps, {1000, 500});
    QVERIFY(maps.is_flat());
    QCOMPARE(maps.columns() >= 10, true);  // one strip
    const QImage image = maps.canvas()->grab().toImage();
    for (int unit = 0; unit < 10; ++unit) {
        QCOMPARE(maps.range_of(unit), std::make_pair(-1.5f, 4.5f));  // the layer's one range
        QCOMPARE(maps.map_rect(unit).y(), maps.map_rect(0).y());
        QCOMPARE(maps.label_of(unit), QString::number(values[unit], 'f', 2));
        QCOMPARE(pixel(image, maps.map_rect(unit).center()), maps.colour_of(unit, values[unit]));
    }
    QCOMPARE(pixel(image, maps.map_rect(0).center()), QColor(0, 0, 0));
    QCOMPARE(pixel(image, maps.map_rect(8).center()), QColor(255, 255, 255));
    // Many units: small cells that wrap, without numbers.
    maps.set_activations(activation_set(512, 1, 1, random_values(512, 33)));
    QApplication::processEvents();
    QVERIFY(maps.label_of(0).isEmpty());
    QVERIFY(maps.map_rect(511).right() < maps.canvas()->width());
}

void InsidePicturesTest::activationMapsFlowToTheWidth() {
    ActivationMaps maps;
    maps.set_activations(activation_set(32, 14, 14, random_values(32 * 196, 40)));
    show_at(&maps, {1000, 500});
    const int wide = maps.columns();
    for (int channel = 0; channel < 32; ++channel) QVERIFY(maps.canvas()->rect().contains(maps.map_rect(channel)));
    maps.resize(480, 500);  // half a tab: the side-by-side comparison
    QApplication::processEvents();
    QVERIFY(maps.columns() < wide);
    QVERIFY(maps.canvas()->width() <= maps.width());
    for (int channel = 0; channel < 32; ++channel) QVERIFY(maps.canvas()->rect().contains(maps.map_rect(channel)));
    QVERIFY(maps.canvas()->height() > 500);  // it scrolls down
    maps.clear("Choose an image to see what conv1 makes of it.");
    QCOMPARE(maps.reason(), QString("Choose an image to see what conv1 makes of it."));
    QVERIFY(maps.map_rect(0).isEmpty());
}

void InsidePicturesTest::picturesToLookAt() {
    if (qEnvironmentVariableIsEmpty("BPS_SCREENSHOT_DIR")) QSKIP("BPS_SCREENSHOT_DIR is not set");
    for (const QSize size : {QSize(1000, 500), QSize(1600, 800)}) {
        const QString suffix = size.width() == 1000 ? "" : "-wide";
        FilterTiles tiles;
        show_at(&tiles, size);
        tiles.set_filters(filter_set(FilterSet::Kind::kernels, 32, 1, 3, 3, smooth_values(32, 3, 3, 50)));
        QApplication::processEvents();
        save(&tiles, "filters-conv1-view" + suffix + ".png");
        tiles.set_filters(filter_set(FilterSet::Kind::kernels, 32, 32, 3, 3, smooth_values(32 * 32, 3, 3, 51)));
        QApplication::processEvents();
        save(&tiles, "filters-conv2-view" + suffix + ".png");
        save(tiles.canvas(), "filters-conv2" + suffix + ".png");
        tiles.set_filters(filter_set(FilterSet::Kind::colour_kernels, 32, 3, 5, 5, smooth_values(96, 5, 5, 52)));
        QApplication::processEvents();
        save(&tiles, "filters-colour-view" + suffix + ".png");
        tiles.set_filters(filter_set(FilterSet::Kind::dense_images, 128, 1, 28, 28, smooth_values(128, 28, 28, 53)));
        QApplication::processEvents();
        save(&tiles, "filters-dense-view" + suffix + ".png");
        save(tiles.canvas(), "filters-dense" + suffix + ".png");
        tiles.clear("fc2 has no filters to draw: its inputs are fc1's 128 units, not an image.");
        QApplication::processEvents();
        save(&tiles, "filters-none-view" + suffix + ".png");

        ActivationMaps maps;
        show_at(&maps, size);
        auto set = activation_set(32, 14, 14, smooth_values(32, 14, 14, 54));
        for (auto& value : set.values) value = std::max(0.0f, value);  // as after a ReLU
        set.zero_fraction = 0.42;
        maps.set_activations(set);
        QApplication::processEvents();
        save(&maps, "activations-14x14-view" + suffix + ".png");
        save(maps.canvas(), "activations-14x14" + suffix + ".png");
        maps.set_activations(activation_set(10, 1, 1, random_values(10, 55, -3.0f, 6.0f)));
        QApplication::processEvents();
        save(&maps, "activations-flat-view" + suffix + ".png");
        maps.set_activations(activation_set(128, 1, 1, random_values(128, 56, 0.0f, 6.0f)));
        QApplication::processEvents();
        save(&maps, "activations-flat128-view" + suffix + ".png");
        maps.set_activations(activation_set(8, 28, 28, smooth_values(8, 28, 28, 57)));
        QApplication::processEvents();
        save(&maps, "activations-28x28-view" + suffix + ".png");

        // Two images side by side, as the window compares them.
        QWidget pair;
        auto* row = new QHBoxLayout(&pair);
        row->setContentsMargins(0, 0, 0, 0);
        auto* first = new ActivationMaps;
        auto* second = new ActivationMaps;
        second->setObjectName("insideActivationsSecond");
        row->addWidget(first);
        row->addWidget(second);
        show_at(&pair, size);
        auto sweater = activation_set(16, 14, 14, smooth_values(16, 14, 14, 58));
        sweater.title = "Image: test image 17, Pullover";
        auto coat = activation_set(16, 14, 14, smooth_values(16, 14, 14, 59));
        coat.title = "Image: test image 23, Coat";
        for (auto* set : {&sweater, &coat}) {
            for (auto& value : set->values) value = std::max(0.0f, value);
            set->zero_fraction = 0.37;
        }
        first->set_activations(sweater);
        second->set_activations(coat);
        QApplication::processEvents();
        save(&pair, "activations-side-by-side-view" + suffix + ".png");
    }
}

BACKPROP_QT_TEST(InsidePicturesTest)
#include "test_inside_pictures.moc"
