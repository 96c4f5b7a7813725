// Try it under the offscreen platform: the drawing canvas (strokes in logical pixels, ink, undo,
// clear, when it signals) and the panel (what it forwards, what a prediction shows, the received
// image saved and read back).
#include <QAction>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QGuiApplication>
#include <QImage>
#include <QLabel>
#include <QMimeData>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <cmath>
#include <memory>

#include "tests/ui/qt_test_class.h"
#include "ui/results/probability_bars.h"
#include "ui/try_it/drawing_canvas.h"
#include "ui/try_it/try_it_panel.h"

using bps::ui::DrawingCanvas;
using bps::ui::TryItPanel;
using bps::ui::TryItPrediction;

namespace {

const QStringList fashion_classes{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                  "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

// The widget point where the canvas shows a logical point.
QPoint widget_point(const DrawingCanvas& canvas, QPointF logical) {
    const QRectF square = canvas.drawing_rect();
    return (square.topLeft() + logical * (square.width() / DrawingCanvas::logical_side)).toPoint();
}

// A left-button stroke from `from` to `to` (logical pixels) in `steps` moves.
void draw_stroke(DrawingCanvas& canvas, QPointF from, QPointF to, int steps = 8) {
    QTest::mousePress(&canvas, Qt::LeftButton, {}, widget_point(canvas, from));
    for (int step = 1; step <= steps; ++step)
        QTest::mouseMove(&canvas, widget_point(canvas, from + (to - from) * step / double(steps)));
    QTest::mouseRelease(&canvas, Qt::LeftButton, {}, widget_point(canvas, to));
}

int ink_at(const QImage& ink, int x, int y) {
    return ink.constScanLine(y)[x];
}

TryItPrediction coat_prediction() {
    TryItPrediction prediction;
    prediction.channels = 1;
    prediction.height = prediction.width = 28;
    prediction.pixels.assign(28 * 28, 0.0f);
    for (int y = 6; y < 22; ++y)
        for (int x = 8; x < 20; ++x) prediction.pixels[std::size_t(y * 28 + x)] = float(x + y) / 60.0f;
    prediction.probabilities = {0.01f, 0.0f, 0.05f, 0.01f, 0.87f, 0.0f, 0.04f, 0.0f, 0.02f, 0.0f};
    prediction.adjusted = "resized from 300x280 to 28x28 and made grey";
    prediction.true_label = 6;
    prediction.source = "test image 4,211 (true: Shirt)";
    return prediction;
}

}  // namespace

class TryItPanelTest : public QObject {
    Q_OBJECT

private slots:
    void aStrokeInksItsPathInLogicalPixels() {
        // Wider than tall: the 300x300 square sits 60 pixels from the left edge.
        DrawingCanvas canvas;
        canvas.resize(420, 300);
        canvas.show();
        QVERIFY(QTest::qWaitForWindowExposed(&canvas));
        QCOMPARE(canvas.drawing_rect(), QRectF(60, 0, 300, 300));
        QCOMPARE(canvas.to_logical(QPointF(90, 150)), QPointF(28, 140));
        QVERIFY(canvas.is_empty());

        draw_stroke(canvas, {28, 140}, {252, 140});
        QCOMPARE(canvas.stroke_count(), 1);
        const QImage ink = canvas.ink();
        QCOMPARE(ink.size(), QSize(280, 280));
        QCOMPARE(ink.format(), QImage::Format_Grayscale8);
        // Along the path, and within half the 18-pixel pen of it: full ink.
        for (int x = 28; x <= 252; x += 4) {
            QCOMPARE(ink_at(ink, x, 140), 255);
            QCOMPARE(ink_at(ink, x, 134), 255);
            QCOMPARE(ink_at(ink, x, 146), 255);
        }
        // Far from it: none.
        for (const QPoint away :
             {QPoint(140, 20), QPoint(140, 260), QPoint(5, 140), QPoint(275, 140), QPoint(140, 120)})
            QCOMPARE(ink_at(ink, away.x(), away.y()), 0);
        // The same drawing at MNIST's size: a line 1.8 pixels wide centred on y = 14.0, so rows 13
        // and 14 are each 0.9 covered, and a column holds 1.8 pixels' worth of ink.
        const QImage small = canvas.ink(28);
        QCOMPARE(small.size(), QSize(28, 28));
        int column = 0;
        for (int y = 0; y < 28; ++y) column += ink_at(small, 14, y);
        QVERIFY2(std::abs(column - 459) <= 12, qPrintable(QString::number(column)));
        QVERIFY(std::abs(ink_at(small, 14, 13) - 230) <= 6);
        QVERIFY(std::abs(ink_at(small, 14, 14) - 230) <= 6);
        QCOMPARE(ink_at(small, 14, 4), 0);
    }

    void drawingChangedComesOncePerStrokeAndNeverWhileThePenMoves() {
        DrawingCanvas canvas;
        canvas.resize(280, 280);
        canvas.show();
        QVERIFY(QTest::qWaitForWindowExposed(&canvas));
        QSignalSpy changed(&canvas, &DrawingCanvas::drawingChanged);
        QTest::mousePress(&canvas, Qt::LeftButton, {}, QPoint(50, 50));
        for (int x = 60; x <= 200; x += 10) QTest::mouseMove(&canvas, QPoint(x, 80));
        QCOMPARE(changed.count(), 0);
        QCOMPARE(canvas.stroke_count(), 0);  // not finished until the pen lifts
        QTest::mouseRelease(&canvas, Qt::LeftButton, {}, QPoint(200, 80));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(canvas.stroke_count(), 1);

        // A tap is a stroke too: a dot as wide as the pen.
        QTest::mouseClick(&canvas, Qt::LeftButton, {}, QPoint(140, 200));
        QCOMPARE(changed.count(), 2);
        QCOMPARE(canvas.stroke_count(), 2);
        QCOMPARE(ink_at(canvas.ink(), 140, 200), 255);
        QCOMPARE(ink_at(canvas.ink(), 140, 200 - 7), 255);
        QCOMPARE(ink_at(canvas.ink(), 140, 200 - 12), 0);

        // Another button draws nothing; a press beside the square starts no stroke.
        QTest::mouseClick(&canvas, Qt::RightButton, {}, QPoint(100, 100));
        QCOMPARE(changed.count(), 2);
    }

    void undoRemovesExactlyTheLastStrokeAndClearEmpties() {
        DrawingCanvas canvas;
        canvas.resize(560, 560);
        canvas.show();
        QVERIFY(QTest::qWaitForWindowExposed(&canvas));
        draw_stroke(canvas, {60, 60}, {220, 220});
        const QImage one_stroke = canvas.ink();
        canvas.set_pen_width(30);
        draw_stroke(canvas, {220, 60}, {60, 220});
        QCOMPARE(canvas.stroke_count(), 2);
        QVERIFY(canvas.ink() != one_stroke);
        QCOMPARE(ink_at(canvas.ink(), 210, 70), 255);

        QSignalSpy changed(&canvas, &DrawingCanvas::drawingChanged);
        canvas.undo_stroke();
        QCOMPARE(changed.count(), 1);
        QCOMPARE(canvas.stroke_count(), 1);
        QCOMPARE(canvas.ink(), one_stroke);

        canvas.clear();
        QCOMPARE(changed.count(), 2);
        QVERIFY(canvas.is_empty());
        const QImage blank = canvas.ink();
        for (int y = 0; y < blank.height(); ++y)
            for (int x = 0; x < blank.width(); ++x) QCOMPARE(ink_at(blank, x, y), 0);
        // Nothing left to undo: no signal.
        canvas.undo_stroke();
        QCOMPARE(changed.count(), 2);
    }

    void ctrlZOnTheCanvasUndoesAStrokeNotTheWindowsUndo() {
        // The window's Edit > Undo (the network editor's) has Ctrl+Z everywhere in the window.
        QWidget window;
        QAction editor_undo(&window);
        editor_undo.setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
        window.addAction(&editor_undo);
        QSignalSpy editor_undos(&editor_undo, &QAction::triggered);
        auto* canvas = new DrawingCanvas(&window);
        canvas->resize(280, 280);
        window.resize(300, 300);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        draw_stroke(*canvas, {40, 40}, {200, 200});
        draw_stroke(*canvas, {200, 40}, {40, 200});
        canvas->setFocus();
        QTRY_VERIFY_WITH_TIMEOUT(canvas->hasFocus(), 5000);
        QTest::keyClick(canvas, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(canvas->stroke_count(), 1);
        QCOMPARE(editor_undos.count(), 0);
    }

    void thePanelForwardsEachDrawingWithItsCentring() {
        TryItPanel panel;
        panel.set_input(1, 28, 28, fashion_classes);
        panel.resize(1100, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy drawings(&panel, &TryItPanel::drawingChanged);
        QVERIFY(!panel.no_centring_box()->isChecked());

        draw_stroke(*panel.canvas(), {100, 60}, {100, 220});
        QCOMPARE(drawings.count(), 1);
        QCOMPARE(drawings.at(0).at(0).value<QImage>(), panel.canvas()->ink());
        QCOMPARE(drawings.at(0).at(1).toBool(), true);

        // Toggling "No centring" with a drawing re-sends it, centre = !box.
        panel.no_centring_box()->setChecked(true);
        QCOMPARE(drawings.count(), 2);
        QCOMPARE(drawings.at(1).at(0).value<QImage>(), panel.canvas()->ink());
        QCOMPARE(drawings.at(1).at(1).toBool(), false);
        draw_stroke(*panel.canvas(), {60, 140}, {220, 140});
        QCOMPARE(drawings.count(), 3);
        QCOMPARE(drawings.at(2).at(1).toBool(), false);
        panel.no_centring_box()->setChecked(false);
        QCOMPARE(drawings.count(), 4);
        QCOMPARE(drawings.at(3).at(1).toBool(), true);

        // The buttons: Undo stroke, Clear (an empty ink, so the controller clears its prediction).
        QTest::mouseClick(panel.undo_button(), Qt::LeftButton);
        QCOMPARE(panel.canvas()->stroke_count(), 1);
        QCOMPARE(drawings.count(), 5);
        QTest::mouseClick(panel.clear_button(), Qt::LeftButton);
        QCOMPARE(drawings.count(), 6);
        QVERIFY(panel.canvas()->is_empty());
        // With nothing drawn, the box has nothing to re-send.
        panel.no_centring_box()->setChecked(true);
        QCOMPARE(drawings.count(), 6);

        // The pen width slider sets the canvas's pen.
        panel.pen_width_slider()->setValue(30);
        QCOMPARE(panel.canvas()->pen_width(), 30);
    }

    void drawingIsOfferedForOneChannelOnly() {
        TryItPanel panel;
        panel.set_input(1, 28, 28, fashion_classes);
        QVERIFY(panel.drawing_offered());
        QVERIFY(panel.canvas()->isVisibleTo(&panel));
        QCOMPARE(panel.inputs()->currentIndex(), int(TryItPanel::draw_tab));

        panel.set_input(3, 32, 32, {"airplane", "automobile", "bird"});
        QVERIFY(!panel.drawing_offered());
        QVERIFY(!panel.canvas()->isVisibleTo(&panel));
        QCOMPARE(panel.inputs()->currentIndex(), int(TryItPanel::image_file_tab));
        panel.inputs()->setCurrentIndex(TryItPanel::draw_tab);
        QVERIFY(panel.drawing_unavailable_label()->isVisibleTo(&panel));
        QCOMPARE(panel.drawing_unavailable_label()->text(),
                 QString("Drawing works for one-channel images such as MNIST's; open an image file or take a test "
                         "image instead."));
    }

    void ctrlVPastesTheClipboardsImage() {
        TryItPanel panel;
        panel.set_input(1, 28, 28, fashion_classes);
        panel.resize(1100, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowActive(&panel));
        QImage picture(40, 30, QImage::Format_RGB32);
        picture.fill(QColor(10, 200, 30));
        QGuiApplication::clipboard()->setImage(picture);
        QSignalSpy pasted(&panel, &TryItPanel::imagePasted);
        panel.canvas()->setFocus();
        QTRY_VERIFY_WITH_TIMEOUT(panel.canvas()->hasFocus(), 5000);
        QTest::keyClick(panel.canvas(), Qt::Key_V, Qt::ControlModifier);
        QCOMPARE(pasted.count(), 1);
        const QImage received = pasted.at(0).at(0).value<QImage>();
        QCOMPARE(received.size(), QSize(40, 30));
        QCOMPARE(received.pixelColor(20, 15), QColor(10, 200, 30));
        QCOMPARE(panel.inputs()->currentIndex(), int(TryItPanel::image_file_tab));

        // Nothing to paste: said in red, nothing emitted.
        QGuiApplication::clipboard()->setText("not an image");
        QTest::mouseClick(panel.paste_button(), Qt::LeftButton);
        QCOMPARE(pasted.count(), 1);
        QCOMPARE(panel.status_label()->text(),
                 QString("The clipboard holds no image: copy an image, or an image file, first."));
    }

    void droppingAFileChoosesItAndOpenAsksForOne() {
        TryItPanel panel;
        QTemporaryDir dir;
        const QString path = dir.filePath("shirt.png");
        QImage(28, 28, QImage::Format_Grayscale8).save(path);
        QSignalSpy chosen(&panel, &TryItPanel::imageFileChosen);

        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(path)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        enter.setAccepted(false);
        QCoreApplication::sendEvent(&panel, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&panel, &drop);
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.at(0).at(0).toString(), path);

        // A web address is no file: refused.
        QMimeData web;
        web.setUrls({QUrl("https://example.com/shirt.png")});
        QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &web, Qt::LeftButton, Qt::NoModifier);
        refused.setAccepted(false);
        QCoreApplication::sendEvent(&panel, &refused);
        QVERIFY(!refused.isAccepted());

        panel.ask_image_file = [&] { return path; };
        QTest::mouseClick(panel.open_button(), Qt::LeftButton);
        QCOMPARE(chosen.count(), 2);
        QCOMPARE(chosen.at(1).at(0).toString(), path);
        panel.ask_image_file = [] { return QString(); };  // cancelled
        QTest::mouseClick(panel.open_button(), Qt::LeftButton);
        QCOMPARE(chosen.count(), 2);

        QSignalSpy random(&panel, &TryItPanel::randomTestImageRequested);
        QTest::mouseClick(panel.random_button(), Qt::LeftButton);
        QCOMPARE(random.count(), 1);
    }

    void theRunChooserSignalsOnlyTheLearnersChoice() {
        TryItPanel panel;
        QSignalSpy chosen(&panel, &TryItPanel::runChosen);
        panel.set_runs({"2026-11-26T10-00-00", "2026-11-26T11-00-00"}, {"Run 1", "Run 2"}, "2026-11-26T11-00-00");
        QCOMPARE(chosen.count(), 0);
        QCOMPARE(panel.current_run(), QString("2026-11-26T11-00-00"));
        QCOMPARE(panel.run_chooser()->currentText(), QString("Run 2"));
        QCOMPARE(panel.run_chooser()->count(), 2);
        emit panel.run_chooser()->activated(0);  // what a pick in its list emits
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.at(0).at(0).toString(), QString("2026-11-26T10-00-00"));

        panel.set_status("Preparing the network on Test GPU…");
        QCOMPARE(panel.status_label()->text(), QString("Preparing the network on Test GPU…"));
        panel.show_failure("The run 'Run 3' has no weights file: weights.h5");
        QCOMPARE(panel.status_label()->text(), QString("The run 'Run 3' has no weights file: weights.h5"));
        QVERIFY(panel.status_label()->styleSheet().contains("color"));
        panel.set_status("Ready");
        QVERIFY(panel.status_label()->styleSheet().isEmpty());
    }

    void aPredictionShowsWhatTheNetworkReceivedAndSaid() {
        TryItPanel panel;
        panel.set_input(1, 28, 28, fashion_classes);
        QVERIFY(!panel.save_button()->isEnabled());
        panel.show_prediction(coat_prediction());
        QCOMPARE(panel.top_class_label()->text(), QString("Coat — 87%"));
        QCOMPARE(panel.verdict_label()->text(), QString("Wrong: the true class is Shirt."));
        // The top class in its bar's colour (red: wrong), the true class's bar green.
        QVERIFY(panel.top_class_label()->styleSheet().contains(panel.bars()->bar_colour(4).name()));
        QVERIFY(panel.bars()->bar_colour(4) != panel.bars()->bar_colour(6));
        QCOMPARE(panel.bars()->true_label(), std::optional<int>(6));
        QCOMPARE(panel.bars()->probabilities(), coat_prediction().probabilities);
        QCOMPARE(panel.adjusted_label()->text(), QString("resized from 300x280 to 28x28 and made grey"));
        QCOMPARE(panel.source_label()->text(), QString("From test image 4,211 (true: Shirt)"));
        QVERIFY(panel.save_button()->isEnabled());
        // 28 pixels enlarged 6 times, each a crisp square.
        const QImage shown = panel.received_view()->pixmap().toImage();
        QCOMPARE(shown.size(), QSize(168, 168));
        QCOMPARE(qGray(shown.pixel(6 * 10 + 2, 6 * 8 + 5)), int(std::lround(18.0 / 60.0 * 255.0)));
        QCOMPARE(qGray(shown.pixel(6 * 2, 6 * 2)), 0);

        TryItPrediction right = coat_prediction();
        right.true_label = 4;
        panel.show_prediction(right);
        QCOMPARE(panel.verdict_label()->text(), QString("Right: the true class is Coat."));
        TryItPrediction drawn = coat_prediction();
        drawn.true_label.reset();
        drawn.source = "your drawing";
        drawn.probabilities = {0.004f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        drawn.probabilities[8] = 0.996f;
        panel.show_prediction(drawn);
        QCOMPARE(panel.top_class_label()->text(), QString("Bag — 100%"));
        QCOMPARE(panel.verdict_label()->text(), QString());
        QCOMPARE(panel.source_label()->text(), QString("From your drawing"));

        // A new run's input forgets the prediction.
        panel.set_input(1, 28, 28, fashion_classes);
        QVERIFY(!panel.prediction());
        QVERIFY(!panel.save_button()->isEnabled());
    }

    void theReceivedImageIsSavedAsTheNetworkReceivedIt() {
        QTemporaryDir dir;
        TryItPanel panel;
        panel.set_input(1, 28, 28, fashion_classes);
        QString error;
        QVERIFY(!panel.save_received_image(dir.filePath("none.png"), &error));
        QCOMPARE(error, QString("There is no received image yet: draw, open an image or take a test image first."));
        QVERIFY(!QFileInfo::exists(dir.filePath("none.png")));

        // Grey, with values between the 8-bit steps: each is rounded to the nearest.
        TryItPrediction grey = coat_prediction();
        for (std::size_t i = 0; i < grey.pixels.size(); ++i) grey.pixels[i] = float((i * 37) % 1000) / 999.0f;
        panel.show_prediction(grey);
        const QString grey_path = dir.filePath("grey.png");
        QVERIFY2(panel.save_received_image(grey_path, &error), qPrintable(error));
        const QImage grey_back(grey_path);
        QCOMPARE(grey_back.size(), QSize(28, 28));
        QVERIFY(grey_back.isGrayscale());
        for (int y = 0; y < 28; ++y)
            for (int x = 0; x < 28; ++x)
                QCOMPARE(qGray(grey_back.pixel(x, y)),
                         int(std::lround(double(grey.pixels[std::size_t(y * 28 + x)]) * 255.0)));

        // RGB from CHW planes.
        TryItPrediction colour;
        colour.channels = 3;
        colour.height = 5;
        colour.width = 7;
        for (int c = 0; c < 3; ++c)
            for (int i = 0; i < 35; ++i) colour.pixels.push_back(float((c * 35 + i) * 2) / 255.0f + 0.001f);
        colour.probabilities = {0.2f, 0.8f};
        panel.show_prediction(colour);
        QCOMPARE(panel.received_view()->pixmap().size(), QSize(7 * 24, 5 * 24));
        const QString colour_path = dir.filePath("colour.png");
        QVERIFY2(panel.save_received_image(colour_path, &error), qPrintable(error));
        const QImage colour_back(colour_path);
        QCOMPARE(colour_back.size(), QSize(7, 5));
        QVERIFY(!colour_back.isGrayscale());
        const auto expected = [&](int c, int y, int x) {
            return int(std::lround(double(colour.pixels[std::size_t(c * 35 + y * 7 + x)]) * 255.0));
        };
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 7; ++x) {
                const QRgb rgb = colour_back.pixel(x, y);
                QCOMPARE(qRed(rgb), expected(0, y, x));
                QCOMPARE(qGreen(rgb), expected(1, y, x));
                QCOMPARE(qBlue(rgb), expected(2, y, x));
            }

        // A folder that does not exist: the message names the file and says why.
        const QString nowhere = dir.filePath("missing/received.png");
        QVERIFY(!panel.save_received_image(nowhere, &error));
        QVERIFY2(error.startsWith("Could not save " + nowhere) && error.contains("does not exist"), qPrintable(error));

        // The button asks where.
        const QString asked = dir.filePath("asked.png");
        panel.ask_save_path = [&] { return asked; };
        QTest::mouseClick(panel.save_button(), Qt::LeftButton);
        QCOMPARE(QImage(asked).size(), QSize(7, 5));
    }

    void the_bars_export_as_a_png() {
        QTemporaryDir dir;
        TryItPanel panel;
        panel.set_input(1, 28, 28, fashion_classes);
        panel.resize(1100, 600);
        panel.show_prediction(coat_prediction());
        const QString path = dir.filePath("bars.png");
        QString error;
        QVERIFY2(panel.export_png(path, &error), qPrintable(error));
        const QImage bars(path);
        QCOMPARE(bars.size(), panel.bars()->grab().size());
        QVERIFY(!bars.isNull());
    }
};

BACKPROP_QT_TEST(TryItPanelTest)
#include "test_try_it_panel.moc"
