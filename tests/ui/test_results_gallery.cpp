// The results views under the offscreen platform: the gallery of a confusion cell (its samples in
// loss order, clicks, tiles' top-3 bars, 10,000 images scrolled to the end, exports read back) and
// the one-image view (its texts, the overlays that wait for the worker's maps, stale maps ignored,
// the overlay's picture, its export). The evaluation is session::evaluate_probabilities on seeded
// random probabilities; the expectations are computed here from the probabilities themselves.
#include <QFile>
#include <QImage>
#include <QListView>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "datasets/dataset.h"
#include "engine/session/predictor.h"
#include "engine/session/sample_evaluation.h"
#include "tests/ui/qt_test_class.h"
#include "ui/results/sample_detail.h"
#include "ui/results/sample_gallery.h"
#include "ui/results/sample_gallery_model.h"

using bps::ui::SampleDetail;
using bps::ui::SampleGallery;
using bps::ui::SampleGalleryModel;
namespace session = bps::session;
namespace datasets = bps::datasets;

namespace {

constexpr int classes = 10;
constexpr std::size_t sample_count = 10000;
constexpr int side = 28;
constexpr int shirt = 6, t_shirt = 0, pullover = 2;

const QStringList fashion_class_names{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                      "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

// Sample 0 is known: a Shirt taken for a T-shirt/top at 60%, the Shirt second at 25%, then the
// Pullover at 10%; the other seven share the last 5%.
std::vector<float> known_probabilities() {
    std::vector<float> p(classes, 0.05f / 7.0f);
    p[t_shirt] = 0.6f;
    p[shirt] = 0.25f;
    p[pullover] = 0.1f;
    return p;
}

struct Fixture {
    std::vector<float> probabilities;  // sample_count x classes
    std::vector<int> labels;
    std::shared_ptr<const session::SampleResults> samples;
    std::shared_ptr<const datasets::Dataset> images;
};

// Seeded softmaxes of random logits that favour the true class, so most are right, some
// confidently wrong; and 28x28 grey images, each with its own pattern.
const Fixture& fixture() {
    static const Fixture made = [] {
        Fixture f;
        std::mt19937 random(47);
        std::uniform_int_distribution<int> label_draw(0, classes - 1);
        std::normal_distribution<float> logit_draw(0.0f, 1.5f);
        for (std::size_t i = 0; i < sample_count; ++i) {
            const int label = label_draw(random);
            f.labels.push_back(label);
            std::vector<float> logits(classes);
            for (float& logit : logits) logit = logit_draw(random);
            logits[static_cast<std::size_t>(label)] += 2.0f;
            const float top = *std::max_element(logits.begin(), logits.end());
            float sum = 0;
            for (float& logit : logits) sum += (logit = std::exp(logit - top));
            for (float logit : logits) f.probabilities.push_back(logit / sum);
        }
        f.labels[0] = shirt;
        const std::vector<float> known = known_probabilities();
        std::copy(known.begin(), known.end(), f.probabilities.begin());
        f.samples = std::make_shared<const session::SampleResults>(
            session::evaluate_probabilities(f.probabilities, f.labels, classes).samples);

        auto dataset = std::make_shared<datasets::Dataset>();
        dataset->name = "generated";
        dataset->shape = {1, side, side};
        for (const QString& name : fashion_class_names) dataset->class_names.push_back(name.toStdString());
        dataset->labels.assign(f.labels.begin(), f.labels.end());
        dataset->images.resize(sample_count * side * side);
        for (std::size_t i = 0; i < sample_count; ++i)
            for (int y = 0; y < side; ++y)
                for (int x = 0; x < side; ++x)
                    dataset->images[i * side * side + static_cast<std::size_t>(y * side + x)] =
                        static_cast<float>((i * 7 + static_cast<std::size_t>(x * y)) % 256) / 255.0f;
        f.images = dataset;
        return f;
    }();
    return made;
}

std::vector<float> probabilities_of(std::size_t sample) {
    const auto& all = fixture().probabilities;
    return {all.begin() + static_cast<std::ptrdiff_t>(sample * classes),
            all.begin() + static_cast<std::ptrdiff_t>((sample + 1) * classes)};
}

std::vector<float> image_of(std::size_t sample) {
    const auto& all = fixture().images->images;
    const std::size_t plane = side * side;
    return {all.begin() + static_cast<std::ptrdiff_t>(sample * plane),
            all.begin() + static_cast<std::ptrdiff_t>((sample + 1) * plane)};
}

// The cell's samples as the gallery must order them, computed from the probabilities: the
// predicted class is the first most probable, the loss -ln p(true), highest first, ties in the
// split's order.
std::vector<std::size_t> cell_by_loss(int true_class, int predicted_class) {
    std::vector<std::size_t> cell;
    std::vector<double> loss(sample_count);
    for (std::size_t i = 0; i < sample_count; ++i) {
        const std::vector<float> p = probabilities_of(i);
        const int predicted = static_cast<int>(std::max_element(p.begin(), p.end()) - p.begin());
        loss[i] = -std::log(static_cast<double>(p[static_cast<std::size_t>(fixture().labels[i])]));
        if (fixture().labels[i] == true_class && predicted == predicted_class) cell.push_back(i);
    }
    std::stable_sort(cell.begin(), cell.end(), [&](std::size_t a, std::size_t b) { return loss[a] > loss[b]; });
    return cell;
}

void make_gallery(SampleGallery& gallery) {
    gallery.resize(900, 600);
    gallery.set_samples(fixture().samples, fashion_class_names);
    gallery.set_images(fixture().images);
}

// A heat that is zero except over one patch position: the occlusion map of a 4x4 patch moved by
// 4, which hides rows 8..11 and columns 12..15 at its hot position.
session::OcclusionMap one_hot_occlusion() {
    session::OcclusionMap occlusion;
    occlusion.label = t_shirt;
    occlusion.probability = 0.6f;
    occlusion.patch = 4;
    occlusion.stride = 4;
    occlusion.rows = occlusion.columns = 7;
    occlusion.drops.assign(49, 0.0f);
    occlusion.drops[2 * 7 + 3] = 0.5f;
    return occlusion;
}

session::InputGradient one_hot_saliency() {
    session::InputGradient saliency;
    saliency.label = t_shirt;
    saliency.score = 3.0f;
    saliency.values.assign(side * side, 0.0f);
    saliency.values[20 * side + 5] = -2.0f;  // brightening (20, 5) would lower the score: blue
    return saliency;
}

QString read_text(const QString& file) {
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(in.readAll());
}

}  // namespace

class ResultsGalleryTest : public QObject {
    Q_OBJECT
private slots:
    void aCellShowsExactlyItsSamplesMostConfidentlyWrongFirst() {
        SampleGallery gallery;
        make_gallery(gallery);
        gallery.show_selection({shirt, t_shirt}, QStringLiteral("Shirt taken for T-shirt/top"));
        const std::vector<std::size_t> expected = cell_by_loss(shirt, t_shirt);
        QVERIFY(expected.size() > 20);
        QCOMPARE(gallery.shown(), expected);
        QCOMPARE(gallery.view()->model()->rowCount(), static_cast<int>(expected.size()));
        for (int row = 0; row < static_cast<int>(expected.size()); ++row)
            QCOMPARE(gallery.view()->model()->index(row, 0).data(SampleGalleryModel::sample_role).toULongLong(),
                     static_cast<qulonglong>(expected[static_cast<std::size_t>(row)]));
        QCOMPARE(gallery.title_text(), QStringLiteral("Shirt taken for T-shirt/top — %1 images, the most "
                                                      "confidently wrong first")
                                           .arg(expected.size()));

        // A class's row: every Shirt, right or wrong.
        gallery.show_selection({shirt, std::nullopt}, QStringLiteral("Shirt"));
        const std::size_t shirts =
            static_cast<std::size_t>(std::count(fixture().labels.begin(), fixture().labels.end(), shirt));
        QCOMPARE(gallery.shown().size(), shirts);
        // The diagonal cell is all right answers: the least sure first.
        gallery.show_selection({shirt, shirt}, QStringLiteral("Shirt taken for Shirt"));
        QCOMPARE(gallery.shown(), cell_by_loss(shirt, shirt));
        QVERIFY2(gallery.title_text().endsWith(QStringLiteral("the least confident first")),
                 qPrintable(gallery.title_text()));
        // A class the evaluation lacks says so and shows nothing.
        gallery.show_selection({12, std::nullopt}, QStringLiteral("Class 12"));
        QVERIFY(gallery.shown().empty());
        QVERIFY2(gallery.title_text().startsWith(QStringLiteral("Class 12 — cannot be shown")),
                 qPrintable(gallery.title_text()));
    }

    void clickingATileEmitsItsSample() {
        SampleGallery gallery;
        make_gallery(gallery);
        gallery.show();
        QVERIFY(QTest::qWaitForWindowExposed(&gallery));
        gallery.show_selection({shirt, t_shirt}, QStringLiteral("Shirt taken for T-shirt/top"));
        QSignalSpy activated(&gallery, &SampleGallery::sampleActivated);
        for (const int row : {0, 6}) {
            QTRY_VERIFY_WITH_TIMEOUT(gallery.view()->viewport()->rect().contains(gallery.tile_rect(row)), 5000);
            QTest::mouseClick(gallery.view()->viewport(), Qt::LeftButton, {}, gallery.tile_rect(row).center());
            QCOMPARE(activated.count(), 1);
            QCOMPARE(activated.takeFirst().at(0).value<std::size_t>(), gallery.shown()[static_cast<std::size_t>(row)]);
        }
        // The keyboard reaches the same: Enter on the current tile.
        gallery.view()->setCurrentIndex(gallery.view()->model()->index(3, 0));
        QTest::keyClick(gallery.view(), Qt::Key_Return);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.takeFirst().at(0).value<std::size_t>(), gallery.shown()[3]);
        // Tiles are laid out in rows: the second tile is right of the first, not under it.
        QCOMPARE(gallery.tile_rect(1).top(), gallery.tile_rect(0).top());
        QVERIFY(gallery.tile_rect(1).left() > gallery.tile_rect(0).right());
    }

    void aTileCarriesItsLabelsAndItsTopThreeClasses() {
        SampleGallery gallery;
        gallery.set_samples(fixture().samples, fashion_class_names);
        gallery.show_selection({shirt, t_shirt}, QStringLiteral("Shirt taken for T-shirt/top"));
        const auto found = std::find(gallery.shown().begin(), gallery.shown().end(), std::size_t{0});
        QVERIFY(found != gallery.shown().end());
        const QModelIndex tile = gallery.view()->model()->index(static_cast<int>(found - gallery.shown().begin()), 0);
        QCOMPARE(tile.data(SampleGalleryModel::true_text_role).toString(), QStringLiteral("true: Shirt"));
        QCOMPARE(tile.data(SampleGalleryModel::predicted_text_role).toString(),
                 QStringLiteral("predicted: T-shirt/top"));
        QCOMPARE(tile.data(SampleGalleryModel::wrong_role).toBool(), true);
        QCOMPARE(tile.data(SampleGalleryModel::true_label_role).toInt(), shirt);
        QCOMPARE(tile.data(SampleGalleryModel::top_labels_role).value<QList<int>>(),
                 (QList<int>{t_shirt, shirt, pullover}));
        const QList<double> top = tile.data(SampleGalleryModel::top_probabilities_role).value<QList<double>>();
        QCOMPARE(top.size(), 3);
        QVERIFY(std::abs(top[0] - 0.6) < 1e-6 && std::abs(top[1] - 0.25) < 1e-6 && std::abs(top[2] - 0.1) < 1e-6);
        QCOMPARE(tile.data(SampleGalleryModel::top_texts_role).toStringList(),
                 (QStringList{"T-shirt/top 60%", "Shirt 25%", "Pullover 10%"}));
        // Until the images are loaded the tile has no thumbnail (the delegate paints a placeholder).
        QVERIFY(tile.data(SampleGalleryModel::thumbnail_role).value<QImage>().isNull());
        gallery.set_images(fixture().images);
        const QImage thumbnail = tile.data(SampleGalleryModel::thumbnail_role).value<QImage>();
        QCOMPARE(thumbnail.size(), QSize(side, side));
        // Pixel (x 5, y 3) of sample 0 is (0 * 7 + 15) % 256 / 255: grey 15.
        QCOMPARE(qGray(thumbnail.pixel(5, 3)), 15);
    }

    void tenThousandImagesScrollToTheEnd() {
        SampleGallery gallery;
        make_gallery(gallery);
        gallery.show();
        QVERIFY(QTest::qWaitForWindowExposed(&gallery));
        gallery.show_selection({}, QStringLiteral("Every test image"));
        QCOMPARE(gallery.shown().size(), sample_count);
        QVERIFY2(gallery.title_text().contains(QStringLiteral("10,000 images")), qPrintable(gallery.title_text()));
        QScrollBar* bar = gallery.view()->verticalScrollBar();
        // The batched layout grows the scroll range while it runs: step down until the end of the
        // range shows the last tile, with a bound on the steps.
        const int last = static_cast<int>(sample_count) - 1;
        const auto at_the_end = [&] {
            return bar->value() == bar->maximum() &&
                   gallery.view()->viewport()->rect().intersects(gallery.tile_rect(last));
        };
        int steps = 0;
        while (!at_the_end() && steps < 20000) {
            bar->setValue(bar->value() + bar->pageStep() / 2);
            QCoreApplication::processEvents();
            ++steps;
        }
        QVERIFY2(at_the_end(), qPrintable(QStringLiteral("after %1 steps the scroll bar is at %2 of %3")
                                              .arg(steps)
                                              .arg(bar->value())
                                              .arg(bar->maximum())));
        QVERIFY(steps > 100);  // it really scrolled through the rows, not jumped
        // The last tile's thumbnail is made when it is shown.
        QVERIFY(
            !gallery.view()->model()->index(last, 0).data(SampleGalleryModel::thumbnail_role).value<QImage>().isNull());
    }

    void theGalleryExportsItsTilesAndItsSamples() {
        SampleGallery gallery;
        make_gallery(gallery);
        gallery.show();
        QVERIFY(QTest::qWaitForWindowExposed(&gallery));
        gallery.show_selection({shirt, t_shirt}, QStringLiteral("Shirt taken for T-shirt/top"));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString error;
        const QString png = dir.filePath(QStringLiteral("gallery.png"));
        QVERIFY2(gallery.export_png(png, &error), qPrintable(error));
        const QImage picture(png);
        QVERIFY(!picture.isNull());
        QVERIFY(picture.width() >= gallery.view()->viewport()->width());
        QVERIFY(picture.height() > gallery.view()->viewport()->height());

        const QString csv = dir.filePath(QStringLiteral("gallery.csv"));
        QVERIFY2(gallery.export_csv(csv, &error), qPrintable(error));
        const QStringList lines = read_text(csv).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), static_cast<qsizetype>(gallery.shown().size()) + 1);
        QCOMPARE(lines[0], QStringLiteral("sample,true,predicted,loss,probability_of_true,probability_of_predicted"));
        for (std::size_t row = 0; row < gallery.shown().size(); ++row)
            QVERIFY2(lines[static_cast<qsizetype>(row) + 1].startsWith(
                         QStringLiteral("%1,Shirt,T-shirt/top,").arg(gallery.shown()[row])),
                     qPrintable(lines[static_cast<qsizetype>(row) + 1]));

        const QString refused = dir.filePath(QStringLiteral("no such folder/gallery.csv"));
        QVERIFY(!gallery.export_csv(refused, &error));
        QVERIFY2(error.contains(refused), qPrintable(error));
    }

    void theDetailNamesTheClassesTheProbabilityAndTheLoss() {
        SampleDetail detail;
        detail.resize(600, 500);
        detail.show_sample(0, image_of(0), 1, side, side, shirt, known_probabilities(), fashion_class_names);
        QCOMPARE(detail.summary_text(), QStringLiteral("true: Shirt · predicted: T-shirt/top (60.0%) · loss 1.39"));
        QCOMPARE(detail.status_text(), QStringLiteral("Computing the occlusion map and the saliency…"));
        QVERIFY(detail.image_button()->isChecked());
        QVERIFY(!detail.occlusion_button()->isEnabled());
        QVERIFY(!detail.saliency_button()->isEnabled());
        QVERIFY(!detail.choose_overlay(SampleDetail::Overlay::occlusion));
        QVERIFY(detail.overlay_sentence().isEmpty());
        // Enlarged by nearest neighbour to 280 pixels: each image pixel a 10x10 square.
        const QImage shown = detail.shown_picture();
        QCOMPARE(shown.size(), QSize(280, 280));
        QCOMPARE(qGray(shown.pixel(5 * 10 + 9, 3 * 10)), 15);
    }

    void theOverlaysWaitForTheirOwnSamplesMaps() {
        SampleDetail detail;
        detail.resize(600, 500);
        detail.show_sample(0, image_of(0), 1, side, side, shirt, known_probabilities(), fashion_class_names);
        const QImage plain = detail.shown_picture();
        // Maps of an image the learner has left: ignored.
        detail.show_insight(5, one_hot_occlusion(), one_hot_saliency());
        QVERIFY(!detail.occlusion_button()->isEnabled());
        detail.show_insight_failed(5, QStringLiteral("stale"));
        QCOMPARE(detail.status_text(), QStringLiteral("Computing the occlusion map and the saliency…"));

        detail.show_insight(0, one_hot_occlusion(), one_hot_saliency());
        QVERIFY(detail.occlusion_button()->isEnabled());
        QVERIFY(detail.saliency_button()->isEnabled());
        QTest::mouseClick(detail.occlusion_button(), Qt::LeftButton);
        QCOMPARE(detail.overlay(), SampleDetail::Overlay::occlusion);
        QVERIFY(detail.occlusion_button()->isChecked());
        QVERIFY2(
            detail.overlay_sentence().startsWith(QStringLiteral("Occlusion: how much the probability of "
                                                                "T-shirt/top (60.0%) drops when a grey 4x4 patch")),
            qPrintable(detail.overlay_sentence()));
        // Where the heat is largest (rows 8..11, columns 12..15) the picture turns red; where there
        // is no heat it is the grey image unchanged.
        const QImage occlusion = detail.shown_picture();
        QCOMPARE(occlusion.size(), plain.size());
        const QPoint hot(13 * 10 + 5, 9 * 10 + 5), cold(2 * 10 + 5, 25 * 10 + 5);
        QVERIFY(occlusion.pixel(hot) != plain.pixel(hot));
        QVERIFY(qRed(occlusion.pixel(hot)) > qBlue(occlusion.pixel(hot)) + 50);
        QCOMPARE(qGray(occlusion.pixel(cold)), qGray(plain.pixel(cold)));

        QTest::mouseClick(detail.saliency_button(), Qt::LeftButton);
        QCOMPARE(detail.overlay(), SampleDetail::Overlay::saliency);
        QVERIFY(detail.overlay_sentence().contains(QStringLiteral("sensitivity, not importance")));
        const QImage saliency = detail.shown_picture();
        const QPoint blue(5 * 10 + 5, 20 * 10 + 5);
        QVERIFY(qBlue(saliency.pixel(blue)) > qRed(saliency.pixel(blue)) + 50);
        QCOMPARE(qGray(saliency.pixel(hot)), qGray(plain.pixel(hot)));

        // Another image: the overlays are off again until its own maps come.
        detail.show_sample(7, image_of(7), 1, side, side, fixture().labels[7], probabilities_of(7),
                           fashion_class_names);
        QCOMPARE(detail.overlay(), SampleDetail::Overlay::image);
        QVERIFY(!detail.saliency_button()->isEnabled());
        detail.show_insight_failed(7, QStringLiteral("the device ran out of memory"));
        QCOMPARE(detail.status_text(), QStringLiteral("The occlusion map and the saliency could not be computed: the "
                                                      "device ran out of memory"));
        QVERIFY(!detail.occlusion_button()->isEnabled());
    }

    void theDetailExportsThePictureWithItsOverlay() {
        SampleDetail detail;
        QTemporaryDir dir;
        QString error;
        const QString png = dir.filePath(QStringLiteral("one image.png"));
        QVERIFY(!detail.export_png(png, &error));
        QVERIFY2(error.contains(png), qPrintable(error));
        detail.show_sample(0, image_of(0), 1, side, side, shirt, known_probabilities(), fashion_class_names);
        detail.show_insight(0, one_hot_occlusion(), one_hot_saliency());
        QVERIFY(detail.choose_overlay(SampleDetail::Overlay::occlusion));
        QVERIFY2(detail.export_png(png, &error), qPrintable(error));
        const QImage read_back = QImage(png).convertToFormat(QImage::Format_RGB32);
        QCOMPARE(read_back, detail.shown_picture().convertToFormat(QImage::Format_RGB32));
    }
};

BACKPROP_QT_TEST(ResultsGalleryTest)
#include "test_results_gallery.moc"
