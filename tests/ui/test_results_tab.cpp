// The Results and Try It tabs in the real window, on a real run on PoCL: a 28x28 image folder whose
// classes "dot" and "twin" are drawn alike, so the network confuses them. The matrix shows what the
// run recorded and, after Evaluate now, what `backprop evaluate --confusion` computes; a cell's
// gallery holds exactly that cell's images, most confidently wrong first (read from samples.bin by
// hand); a drawn stroke gets the probabilities `backprop predict` gives for the image the network
// received; the drawing is centred by its centre of mass; a run whose weights are gone says which
// file. Every wait is on a signal or a state, with a bound.
#include <QAbstractButton>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QListView>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>

#include "app/gui/job_queue.h"
#include "app/gui/results_controller.h"
#include "app/gui/training_controller.h"
#include "datasets/catalogue.h"
#include "engine/runs/run_record.h"
#include "engine/session/drawn_image.h"
#include "tests/support/files.h"
#include "tests/ui/qt_test_class.h"
#include "tests/ui/training_fixtures.h"
#include "ui/dashboard/run_list.h"
#include "ui/dashboard/training_dashboard.h"
#include "ui/main_window/main_window.h"
#include "ui/results/confusion_matrix_view.h"
#include "ui/results/probability_bars.h"
#include "ui/results/results_panel.h"
#include "ui/results/sample_detail.h"
#include "ui/results/sample_gallery.h"
#include "ui/try_it/drawing_canvas.h"
#include "ui/try_it/try_it_panel.h"

using namespace bps;
namespace fs = std::filesystem;

namespace {

constexpr int shapes_run_timeout_ms = 240000;                          // a cold kernel cache on a busy machine
const QStringList shape_class_names = {"bar", "dot", "ring", "twin"};  // the folder's order: sorted

// 28x28 images of four classes with noise and a small random shift: a vertical bar, a dot, a ring,
// and "twin", drawn exactly as the dot is.
bool write_shapes_folder(const fs::path& folder, int per_class) {
    std::mt19937 generator(3);
    std::uniform_int_distribution<int> noise(0, 50), shift(-2, 2);
    for (const QString& name : shape_class_names) {
        fs::create_directories(folder / name.toStdString());
        for (int i = 0; i < per_class; ++i) {
            const int dx = shift(generator), dy = shift(generator);
            std::vector<std::uint8_t> pixels;
            for (int y = 0; y < 28; ++y)
                for (int x = 0; x < 28; ++x) {
                    const double r = std::hypot(x - 13.5 - dx, y - 13.5 - dy);
                    bool ink = false;
                    if (name == "bar") ink = std::abs(x - 13.5 - dx) < 2.5 && y > 4 && y < 23;
                    if (name == "ring") ink = r > 7 && r < 10;
                    if (name == "dot" || name == "twin") ink = r < 5;
                    pixels.push_back(static_cast<std::uint8_t>(noise(generator) + (ink ? 200 : 0)));
                }
            if (!test::write_gray_png(folder / name.toStdString() / ("image" + std::to_string(i) + ".png"), 28, pixels))
                return false;
        }
    }
    return true;
}

project::Project shapes_project(const fs::path& folder) {
    project::Project project = test::two_class_folder_project(folder);
    project.name = "shapes";
    project.network.layers.back().units = 4;
    project.network.layers[2].units = 16;
    project.dataset.height = 28;
    project.dataset.width = 28;
    project.training.epochs = 4;
    return project;
}

// samples.bin read by hand, as its header documents: 16 bytes of header, then per sample int32
// label, int32 predicted, float32 loss and the probabilities.
struct Sample {
    int label = 0, predicted = 0;
    float loss = 0;
};
std::vector<Sample> read_samples(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    char magic[8];
    std::uint32_t count = 0, classes = 0;
    in.read(magic, 8);
    in.read(reinterpret_cast<char*>(&count), 4);
    in.read(reinterpret_cast<char*>(&classes), 4);
    std::vector<Sample> samples(count);
    for (Sample& sample : samples) {
        in.read(reinterpret_cast<char*>(&sample.label), 4);
        in.read(reinterpret_cast<char*>(&sample.predicted), 4);
        in.read(reinterpret_cast<char*>(&sample.loss), 4);
        in.seekg(static_cast<std::streamoff>(classes) * 4, std::ios::cur);
    }
    return in ? samples : std::vector<Sample>{};
}

nlohmann::json run_cli_json(const QStringList& arguments) {
    QProcess process;
    process.start(BACKPROP_CLI, arguments);
    if (!process.waitForFinished(shapes_run_timeout_ms) || process.exitCode() != 0) {
        qWarning("backprop %s failed: %s", qPrintable(arguments.join(' ')),
                 qPrintable(QString::fromUtf8(process.readAllStandardOutput() + process.readAllStandardError())));
        return {};
    }
    return nlohmann::json::parse(process.readAllStandardOutput().trimmed().split('\n').back().toStdString());
}

// The count a cell's tooltip names: "dot taken for twin: 12 of 30".
int count_in(const QString& cell_text) {
    const qsizetype colon = cell_text.lastIndexOf(": ");
    return cell_text.mid(colon + 2).section(' ', 0, 0).remove(',').toInt();
}

}  // namespace

class ResultsTabTest : public QObject {
    Q_OBJECT
    QTemporaryDir folder_;
    std::unique_ptr<ui::MainWindow> window_;
    std::unique_ptr<app::TrainingController> training_;
    std::unique_ptr<app::ResultsController> results_;

    fs::path here(const char* name) const { return fs::path(folder_.filePath(name).toStdString()); }
    ui::ResultsPanel* panel() const { return window_->results_panel(); }
    ui::TryItPanel* try_it() const { return window_->try_it_panel(); }
    const session::RunRecord* run() const {
        const QStringList ids = window_->dashboard()->run_list()->run_ids();
        return ids.isEmpty() ? nullptr : window_->dashboard()->run_list()->run(ids.back());
    }
    // The window shows `tab`; the views choose the newest run and wait until it is shown.
    void show_tab(QWidget* tab) {
        QSignalSpy shown(results_.get(), &app::ResultsController::runShown);
        window_->panels()->setCurrentWidget(tab);
        QVERIFY(shown.count() > 0 || shown.wait(60000));
    }
    void wait_until_idle() {
        QSignalSpy idle(results_->queue(), &app::JobQueue::idle);
        QVERIFY2(!results_->queue()->busy() || idle.wait(shapes_run_timeout_ms), "the results jobs did not end");
    }
    // The Results tab on the run, evaluated first when the first test function did not run.
    void show_evaluated_results() {
        const bool evaluated = fs::exists(run()->folder / "samples.bin");
        show_tab(panel());
        if (evaluated) return;
        QSignalSpy shown(results_.get(), &app::ResultsController::runShown);
        QTest::mouseClick(panel()->evaluate_button(), Qt::LeftButton);
        QVERIFY2(shown.wait(shapes_run_timeout_ms), "Evaluate now did not end");
    }
    // Draws one stroke through the points (in the canvas's 280x280 logical pixels) and waits for
    // its prediction.
    void draw(const std::vector<QPoint>& points) {
        ui::DrawingCanvas* canvas = try_it()->canvas();
        const auto to_widget = [canvas](QPoint logical) {
            const QRectF square = canvas->drawing_rect();
            return (square.topLeft() + QPointF(logical) * (square.width() / 280.0)).toPoint();
        };
        QSignalSpy predicted(results_.get(), &app::ResultsController::predictionShown);
        QTest::mousePress(canvas, Qt::LeftButton, {}, to_widget(points.front()));
        for (const QPoint& point : points) QTest::mouseMove(canvas, to_widget(point));
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, to_widget(points.back()));
        QVERIFY2(predicted.wait(shapes_run_timeout_ms), "no prediction after the stroke");
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        qRegisterMetaType<session::RunRecord>();
        QVERIFY(folder_.isValid());
        QVERIFY(write_shapes_folder(here("shapes"), 30));
        project::save_project(here("shapes.json"), shapes_project(here("shapes")));
        // The run is trained by the command line, which records it beside the project as the studio does.
        QProcess train;
        train.start(BACKPROP_CLI, {"train", folder_.filePath("shapes.json")});
        QVERIFY2(train.waitForFinished(shapes_run_timeout_ms), "backprop train did not end");
        QVERIFY2(train.exitCode() == 0, train.readAllStandardOutput() + train.readAllStandardError());
    }
    void init() {
        ui::StartupFacts facts;
        facts.dataset_catalogue = datasets::catalogue();
        facts.data_root = here("data");
        facts.recovery_folder = here("recovery");
        window_ = std::make_unique<ui::MainWindow>(std::move(facts));
        window_->prompts().error = [](const QString& message) { QFAIL(qPrintable("unexpected error: " + message)); };
        window_->resize(1600, 1000);
        training_ = std::make_unique<app::TrainingController>(window_.get(), here("unsaved-runs"));
        results_ = std::make_unique<app::ResultsController>(window_.get(), training_.get());
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        QVERIFY(window_->open_project(folder_.filePath("shapes.json")));
        QVERIFY(run());
    }
    void cleanup() {
        if (results_) wait_until_idle();  // no job outlives the window it answers
        results_.reset();
        training_.reset();
        window_.reset();
    }

    // The folder's run has its validation epochs but no test split: the matrix replays the epochs
    // as recorded, and Evaluate now evaluates every image of the folder, as `backprop evaluate` does.
    void theMatrixShowsTheRunAndEvaluateNowMatchesTheCommandLine() {
        show_tab(panel());
        QVERIFY(panel()->showing_views());
        QCOMPARE(panel()->split(), ui::ResultsPanel::Split::validation);
        QVERIFY(panel()->evaluate_button()->isVisible());
        // evaluation.json read independently: each epoch's matrix as the matrix view names it.
        nlohmann::json recorded;
        std::ifstream(run()->folder / "evaluation.json") >> recorded;
        const nlohmann::json& epochs = recorded.at("validation");
        QCOMPARE(static_cast<int>(epochs.size()), 4);
        for (int epoch = 1; epoch <= 4; ++epoch) {
            panel()->epoch_slider()->setValue(epoch);
            const nlohmann::json& matrix = epochs[static_cast<std::size_t>(epoch - 1)].at("confusion");
            for (int t = 0; t < 4; ++t)
                for (int p = 0; p < 4; ++p)
                    QCOMPARE(count_in(panel()->matrix_view()->cell_text(t, p)),
                             matrix[static_cast<std::size_t>(t)][static_cast<std::size_t>(p)].get<int>());
        }

        QSignalSpy shown(results_.get(), &app::ResultsController::runShown);
        QTest::mouseClick(panel()->evaluate_button(), Qt::LeftButton);
        QVERIFY2(shown.wait(shapes_run_timeout_ms), "Evaluate now did not end");
        QCOMPARE(panel()->split(), ui::ResultsPanel::Split::test);
        const nlohmann::json cli =
            run_cli_json({"evaluate", QString::fromStdString(run()->weights().string()), "--confusion", "--json"});
        QCOMPARE(cli.at("samples").get<int>(), 120);
        for (int t = 0; t < 4; ++t)
            for (int p = 0; p < 4; ++p)
                QCOMPARE(count_in(panel()->matrix_view()->cell_text(t, p)),
                         cli.at("confusion")[static_cast<std::size_t>(t)][static_cast<std::size_t>(p)].get<int>());
        // The run list shows the new test figure, and the validation epochs recorded while it
        // trained are all still there.
        QVERIFY(run()->receipt.test.has_value());
        nlohmann::json evaluated;
        std::ifstream(run()->folder / "evaluation.json") >> evaluated;
        QVERIFY(evaluated.at("validation") == epochs);
    }

    // Clicking the cell of the confused pair shows exactly its images, the highest loss first; an
    // image clicked shows large, and its occlusion map and saliency arrive.
    void aCellShowsItsImagesInLossOrderAndAnImageItsMaps() {
        show_evaluated_results();
        QTRY_VERIFY_WITH_TIMEOUT(results_->images() != nullptr, 60000);
        const std::vector<Sample> samples = read_samples(run()->folder / "samples.bin");
        QCOMPARE(static_cast<int>(samples.size()), 120);
        // The most confused of dot (1) and twin (3), as the network confused them.
        int dot_as_twin = 0, twin_as_dot = 0;
        for (const Sample& s : samples) {
            dot_as_twin += s.label == 1 && s.predicted == 3;
            twin_as_dot += s.label == 3 && s.predicted == 1;
        }
        QVERIFY2(dot_as_twin + twin_as_dot > 0, "the network told the twins apart");
        const int t = dot_as_twin >= twin_as_dot ? 1 : 3, p = 4 - t;
        std::vector<std::size_t> expected;
        for (std::size_t i = 0; i < samples.size(); ++i)
            if (samples[i].label == t && samples[i].predicted == p) expected.push_back(i);
        std::stable_sort(expected.begin(), expected.end(),
                         [&](std::size_t a, std::size_t b) { return samples[a].loss > samples[b].loss; });

        ui::ConfusionMatrixView* matrix = panel()->matrix_view();
        QTest::mouseClick(matrix, Qt::LeftButton, {}, matrix->cell_rect(t, p).center());
        QCOMPARE(panel()->gallery()->shown(), expected);
        QCOMPARE(
            matrix->cell_text(t, p),
            QString("%1 taken for %2: %3 of 30").arg(shape_class_names[t], shape_class_names[p]).arg(expected.size()));

        QSignalSpy insight(results_.get(), &app::ResultsController::insightShown);
        QListView* view = panel()->gallery()->view();
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, panel()->gallery()->tile_rect(0).center());
        QVERIFY2(insight.count() > 0 || insight.wait(shapes_run_timeout_ms), "no occlusion map and saliency");
        QCOMPARE(insight.last().at(0).value<std::size_t>(), expected.front());
    }

    // A stroke drawn in Try It gets exactly the probabilities `backprop predict` gives for the
    // 28x28 image the network received, saved as PNG; the drawing is centred by its centre of mass,
    // and left where it was with No centring.
    void aDrawnStrokeMatchesBackpropPredictAndIsCentred() {
        show_tab(try_it());
        wait_until_idle();  // the predictor is ready
        // A short bar in the top-left corner of the canvas.
        draw({{40, 40}, {40, 60}, {40, 80}, {40, 100}});
        const std::vector<float> shown = try_it()->bars()->probabilities();
        QCOMPARE(static_cast<int>(shown.size()), 4);
        const QString saved = folder_.filePath("received.png");
        QString error;
        QVERIFY2(try_it()->save_received_image(saved, &error), qPrintable(error));
        const nlohmann::json predicted =
            run_cli_json({"predict", QString::fromStdString(run()->weights().string()), "--json", saved});
        const auto& probabilities = predicted.at("probabilities");
        for (std::size_t c = 0; c < 4; ++c)
            QVERIFY2(std::abs(probabilities[c].get<float>() - shown[c]) < 1e-5f,
                     qPrintable(QString("class %1: %2 in Try It, %3 from backprop predict")
                                    .arg(c)
                                    .arg(shown[c])
                                    .arg(probabilities[c].get<float>())));

        // The image received: its centre of mass at the centre, though the stroke was in a corner.
        const auto centre_of = [](const QString& file) {
            const QImage image = QImage(file).convertToFormat(QImage::Format_Grayscale8);
            std::vector<float> values;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x) values.push_back(image.constScanLine(y)[x] / 255.0f);
            return session::centre_of_mass(values, image.height(), image.width());
        };
        const auto [row, column] = centre_of(saved);
        QVERIFY2(std::abs(row - 14.0) <= 1.0 && std::abs(column - 14.0) <= 1.0,
                 qPrintable(QString("centre of mass at (%1, %2)").arg(row).arg(column)));

        // No centring: the same drawing stays in the corner.
        QSignalSpy predicted_again(results_.get(), &app::ResultsController::predictionShown);
        try_it()->no_centring_box()->click();
        QVERIFY2(predicted_again.wait(shapes_run_timeout_ms), "no prediction after No centring");
        QVERIFY(try_it()->save_received_image(saved, &error));
        const auto [raw_row, raw_column] = centre_of(saved);
        QVERIFY2(raw_row < 10 && raw_column < 6,
                 qPrintable(QString("centre of mass at (%1, %2)").arg(raw_row).arg(raw_column)));
    }

    // A run chosen in Try It is the Results tab's too, and the other way round.
    void aRunChosenInOneTabIsChosenInTheOther() {
        // A second run of the same project, recorded by the command line.
        QProcess train;
        train.start(BACKPROP_CLI, {"train", folder_.filePath("shapes.json"), "--epochs", "1"});
        QVERIFY2(train.waitForFinished(shapes_run_timeout_ms), "backprop train did not end");
        QVERIFY2(train.exitCode() == 0, train.readAllStandardOutput() + train.readAllStandardError());
        QVERIFY(window_->open_project(folder_.filePath("shapes.json")));
        const QStringList ids = window_->dashboard()->run_list()->run_ids();
        QCOMPARE(ids.size(), 2);
        show_tab(try_it());
        QCOMPARE(try_it()->current_run(), ids.back());  // the newest by default
        QCOMPARE(panel()->current_run(), ids.back());
        QSignalSpy shown(results_.get(), &app::ResultsController::runShown);
        try_it()->run_chooser()->setCurrentIndex(0);
        emit try_it()->run_chooser()->activated(0);
        QVERIFY(shown.count() > 0 || shown.wait(60000));
        QCOMPARE(results_->run(), ids.front());
        QCOMPARE(panel()->current_run(), ids.front());
        QCOMPARE(panel()->run_chooser()->currentText(), QString("Run 1"));
        wait_until_idle();
        // The second run goes, so that the other tests find one.
        session::delete_run(window_->dashboard()->run_list()->run(ids.back())->folder);
    }

    // No export replaces what the run kept, the project file or the image the learner gave: each is
    // refused with what the file is, and the file stays as it was.
    void noExportReplacesTheRunsFilesTheProjectOrTheImageGiven() {
        show_evaluated_results();
        wait_until_idle();
        const fs::path weights = run()->weights();
        const std::string weights_before = bps::test::read_text(weights);
        const std::string project_before = bps::test::read_text(here("shapes.json"));
        QAction* gallery_csv = nullptr;
        for (QAction* action : panel()->export_button()->menu()->actions())
            if (action->text().startsWith("Gallery as CSV")) gallery_csv = action;
        QVERIFY(gallery_csv);
        QSignalSpy exported(panel(), &ui::ResultsPanel::exported);
        for (const fs::path& target : {weights, here("shapes.json"), run()->folder / "samples.bin"}) {
            panel()->ask_save_path = [&](const QString&, const QString&, const QString&) {
                return QString::fromStdString(target.string());
            };
            gallery_csv->trigger();
            QCOMPARE(exported.count(), 1);
            const QString message = exported.takeFirst().at(0).toString();
            QVERIFY2(message.contains("save under another name"), qPrintable(message));
            QVERIFY2(message.contains(QString::fromStdString(target.filename().string())), qPrintable(message));
        }
        QVERIFY(bps::test::read_text(weights) == weights_before);
        QVERIFY(bps::test::read_text(here("shapes.json")) == project_before);
        // Somewhere else, the export is written.
        const fs::path elsewhere = here("gallery.csv");
        panel()->ask_save_path = [&](const QString&, const QString&, const QString&) {
            return QString::fromStdString(elsewhere.string());
        };
        gallery_csv->trigger();
        QCOMPARE(exported.count(), 1);
        QVERIFY(fs::exists(elsewhere));

        // Try It: the image file given is an input; Save image… refuses it, and the run's files.
        window_->panels()->setCurrentWidget(try_it());  // the run is chosen already
        wait_until_idle();
        const fs::path image = here("my-dot.png");
        std::vector<std::uint8_t> pixels(56 * 56, 0);
        for (int y = 20; y < 36; ++y)
            for (int x = 20; x < 36; ++x) pixels[static_cast<std::size_t>(y * 56 + x)] = 230;
        QVERIFY(test::write_gray_png(image, 56, pixels));
        const std::string image_before = bps::test::read_text(image);
        QSignalSpy predicted(results_.get(), &app::ResultsController::predictionShown);
        emit try_it()->imageFileChosen(QString::fromStdString(image.string()));
        QVERIFY2(predicted.wait(shapes_run_timeout_ms), "no prediction for the image file");
        QString error;
        QVERIFY(!try_it()->save_received_image(QString::fromStdString(image.string()), &error));
        QVERIFY2(error.contains("the image file you gave"), qPrintable(error));
        QVERIFY(!try_it()->export_png(QString::fromStdString(weights.string()), &error));
        QVERIFY2(error.contains("weights.h5 of the run"), qPrintable(error));
        QVERIFY(bps::test::read_text(image) == image_before);
        QVERIFY(bps::test::read_text(weights) == weights_before);
        QVERIFY2(try_it()->save_received_image(folder_.filePath("received-28.png"), &error), qPrintable(error));
        QCOMPARE(QImage(folder_.filePath("received-28.png")).size(), QSize(28, 28));
    }

    // A run whose weights file is gone says which file, in both tabs.
    void aRunWhoseWeightsAreGoneSaysWhichFile() {
        const fs::path weights = run()->weights();
        const fs::path kept = here("kept-weights.h5");
        fs::copy_file(weights, kept, fs::copy_options::overwrite_existing);
        std::ofstream(weights, std::ios::trunc) << "not HDF5 at all";
        show_tab(try_it());
        wait_until_idle();
        const QString file = QString::fromStdString(weights.string());
        QVERIFY2(try_it()->status_label()->text().contains(file), qPrintable(try_it()->status_label()->text()));
        fs::copy_file(kept, weights, fs::copy_options::overwrite_existing);
    }
};

BACKPROP_QT_TEST(ResultsTabTest)
#include "test_results_tab.moc"
