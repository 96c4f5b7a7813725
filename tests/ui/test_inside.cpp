// The Inside tab in the real window, on real runs on PoCL: the cnn template on a generated 28x28
// image folder. The filters drawn are the weights file's kernels (read by h5py, an independent
// reader, in Keras's axis order); the activations are those a session::Predictor computes for the
// same test image; the replay at epoch k shows the weights of the checkpoint written after epoch
// k (copied aside as the run went); a run kept before replays says it has none; and while a run
// trains with the tab shown, the live view never blocks the UI thread (a 10 ms timer's longest gap
// stays under 200 ms). Every wait is on a signal or a state, with a bound.
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/gui/inside_controller.h"
#include "app/gui/job_queue.h"
#include "app/gui/training_controller.h"
#include "app/gui/training_runner.h"
#include "datasets/catalogue.h"
#include "engine/base/build_info.h"
#include "engine/project/project_data.h"
#include "engine/runs/epoch_replay.h"
#include "engine/runs/run_record.h"
#include "engine/session/predictor.h"
#include "engine/session/run_recorder.h"
#include "engine/session/training_job.h"
#include "tests/ui/qt_test_class.h"
#include "tests/ui/stall_watch.h"
#include "tests/ui/training_fixtures.h"
#include "ui/dashboard/train_panel.h"
#include "ui/document/network_document.h"
#include "ui/editor/network_scene.h"
#include "ui/inside/inside_panel.h"
#include "ui/main_window/main_window.h"

using namespace bps;
namespace fs = std::filesystem;

namespace {

constexpr int inside_run_timeout_ms = 240000;  // a cold kernel cache on a busy machine
constexpr int view_timeout_ms = 120000;

// The cnn template on 10 classes of 12 generated 28x28 images: 8 batches of 16 an epoch.
project::Project squares_cnn(const fs::path& folder, int epochs) {
    project::Project cnn = project::example_project("cnn");
    cnn.name = "squares";
    cnn.dataset.name.clear();
    cnn.dataset.folder = folder.string();
    cnn.dataset.height = 28;
    cnn.dataset.width = 28;
    cnn.dataset.channels = 1;
    cnn.dataset.validation_fraction = 0;
    cnn.training.epochs = epochs;
    cnn.training.batch_size = 16;
    return cnn;
}

// Trains `project` (saved as `project_file`) as `backprop train` does, into a run folder beside it,
// copying the checkpoint aside after every epoch: the job writes it before the epoch's event, and
// the event runs on the job's thread before the next epoch begins.
fs::path train_run(const project::Project& project, const fs::path& project_file, const fs::path& checkpoints) {
    session::RunReceipt receipt;
    receipt.name = "Run 1";
    receipt.started_at = "2026-11-27T10:00:00";
    receipt.app_version = session::program_version();
    receipt.project_name = project.name;
    receipt.training = project.training;
    receipt.dataset = project.dataset;
    session::RunRecorder recorder(session::runs_folder_for(project_file), receipt);
    session::JobSetup setup;
    setup.project = project;
    setup.project_file = project_file;
    setup.save_weights = recorder.weights_file();
    setup.checkpoint = recorder.checkpoint_file();
    setup.replay_folder = recorder.record().folder;
    setup.report_interval = std::chrono::milliseconds(0);
    fs::create_directories(checkpoints);
    session::JobEvents events;
    events.started = [&](const session::RunFacts& facts) { recorder.started(facts); };
    events.epoch = [&](const session::EpochReport& report) {
        recorder.epoch(report);
        fs::copy_file(recorder.checkpoint_file(), checkpoints / ("after-" + std::to_string(report.epoch + 1) + ".h5"),
                      fs::copy_options::overwrite_existing);
    };
    std::optional<session::JobResult> result;
    events.finished = [&](const session::JobResult& r) {
        recorder.finished(r);
        result = r;
    };
    events.failed = [](const session::JobFailure& failure) { qWarning("the run failed: %s", failure.message.c_str()); };
    {
        session::TrainingJob job(std::move(setup), std::move(events));
        if (!job.wait_for(std::chrono::milliseconds(inside_run_timeout_ms))) return {};
    }
    if (!result) return {};
    recorder.write();
    return recorder.record().folder;
}

// A layer's Keras kernel as h5py reads it from a weights file or checkpoint (kh x kw x in x out).
nlohmann::json keras_kernel(const fs::path& file, const std::string& layer) {
    QProcess python;
    python.start("/usr/bin/python3", {"-c",
                                      "import sys, json, h5py\n"
                                      "with h5py.File(sys.argv[1], 'r') as f:\n"
                                      "    print(json.dumps(f[sys.argv[2]][sys.argv[2]]['kernel:0'][()].tolist()))\n",
                                      QString::fromStdString(file.string()), QString::fromStdString(layer)});
    if (!python.waitForFinished(60000) || python.exitCode() != 0) {
        qWarning("h5py could not read %s: %s", file.string().c_str(), python.readAllStandardError().constData());
        return {};
    }
    return nlohmann::json::parse(python.readAllStandardOutput().toStdString());
}

// The tiles of conv1 against a Keras kernel: tile (filter f, channel c) at (y, x) is kernel[y][x][c][f].
int tiles_differing_from(const ui::FilterTiles& tiles, const nlohmann::json& kernel) {
    int differing = 0;
    for (int y = 0; y < static_cast<int>(kernel.size()); ++y)
        for (int x = 0; x < static_cast<int>(kernel[y].size()); ++x)
            for (int c = 0; c < static_cast<int>(kernel[y][x].size()); ++c)
                for (int f = 0; f < static_cast<int>(kernel[y][x][c].size()); ++f)
                    if (std::abs(tiles.shown_value(f, c, y, x) - kernel[y][x][c][f].get<float>()) > 1e-6f) ++differing;
    return differing;
}

struct Studio {
    explicit Studio(const fs::path& root) {
        ui::StartupFacts facts;
        facts.dataset_catalogue = datasets::catalogue();
        facts.data_root = root / "data";
        facts.recovery_folder = root / "recovery";
        window.emplace(std::move(facts));
        training.emplace(&*window, root / "unsaved-runs");
        inside.emplace(&*window, &*training);
        window->resize(1280, 720);
        window->show();
    }
    ui::InsidePanel* panel() const { return window->inside_panel(); }
    // Shows the Inside tab and waits for its first view.
    bool show_inside() {
        QSignalSpy shown(&*inside, &app::InsideController::viewShown);
        window->panels()->setCurrentWidget(window->inside_panel());
        return shown.wait(view_timeout_ms);
    }
    bool wait_view(const std::function<void()>& act) {
        QSignalSpy shown(&*inside, &app::InsideController::viewShown);
        act();
        return shown.wait(view_timeout_ms);
    }
    std::optional<ui::MainWindow> window;
    std::optional<app::TrainingController> training;
    std::optional<app::InsideController> inside;
};

QString status_of(const ui::InsidePanel* panel) {
    return panel->findChild<QLabel*>("insideStatus")->text();
}

}  // namespace

class InsideTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void aRunsFiltersActivationsAndReplayAreItsFiles() {
        QTemporaryDir folder;
        QVERIFY(folder.isValid());
        const fs::path root = folder.path().toStdString();
        QVERIFY(test::write_square_folder(root / "squares", 10, 12, 28));
        const project::Project project = squares_cnn(root / "squares", 3);
        const fs::path project_file = root / "squares.json";
        project::save_project(project_file, project);
        const fs::path run = train_run(project, project_file, root / "checkpoints");
        QVERIFY2(!run.empty(), "the run did not finish");
        QCOMPARE(session::replay_epochs(run), (std::vector<int>{0, 1, 2, 3}));

        Studio studio(root);
        QVERIFY(studio.window->open_project(QString::fromStdString(project_file.string())));
        QVERIFY2(studio.show_inside(), "the Inside tab showed nothing");
        ui::InsidePanel* panel = studio.panel();
        QCOMPARE(panel->source(), QString::fromStdString(run.filename().string()));
        // Before training, after epochs 1 and 2, and the end (after epoch 3).
        QCOMPARE(panel->epoch_slider()->maximum(), 3);
        QCOMPARE(panel->epoch_slider()->value(), 3);
        QCOMPARE(panel->findChild<QLabel*>("insideEpochLabel")->text(), QString("after epoch 3 (the end)"));

        // The filters are the weights file's, read by h5py.
        panel->choose_layer("conv1");
        const nlohmann::json final_kernel = keras_kernel(run / "weights.h5", "conv1");
        QCOMPARE(final_kernel.size(), std::size_t{3});
        QCOMPARE(tiles_differing_from(*panel->filters(), final_kernel), 0);

        // The activations are the predictor's on the same test image.
        auto* index = panel->findChild<QSpinBox*>("insideImageIndex");
        QVERIFY(studio.wait_view([&] { index->setValue(7); }));
        const datasets::Dataset images = session::load_evaluated_images(project.dataset);
        const auto pixels = images.image(7);
        session::Predictor predictor(session::Predictor::from_file(run / "weights.h5"));
        for (const session::LayerOutput& output :
             predictor.activations(std::vector<float>(pixels.begin(), pixels.end()), {"conv1", "relu2", "fc2"})) {
            panel->choose_layer(QString::fromStdString(output.name));
            const ui::ActivationMaps* maps = panel->activations(0);
            int differing = 0;
            for (int c = 0; c < output.channels; ++c)
                for (int y = 0; y < output.height; ++y)
                    for (int x = 0; x < output.width; ++x) {
                        const float expected =
                            output.values[(static_cast<std::size_t>(c) * output.height + y) * output.width + x];
                        if (std::abs(maps->shown_value(c, y, x) - expected) > 1e-5f * (1 + std::abs(expected)))
                            ++differing;
                    }
            QVERIFY2(differing == 0, qPrintable(QString("%1 values of %2 differ from the predictor's")
                                                    .arg(differing)
                                                    .arg(QString::fromStdString(output.name))));
        }
        // A node chosen on the canvas is the layer looked at.
        studio.window->scene()->select_layers({"conv2"});
        QCOMPARE(panel->chosen_layer(), QString("conv2"));
        QCOMPARE(panel->filters()->filters().layer, QString("conv2"));
        // The layer's figures: its parameters and the share of a ReLU's outputs that are zero.
        panel->choose_layer("conv1");
        const int conv1_row = 1;  // after the input
        QCOMPARE(panel->figures()->cell_text(conv1_row, ui::LayerFiguresTable::layer_column), QString("conv1"));
        QCOMPARE(panel->figures()->cell_text(conv1_row, ui::LayerFiguresTable::parameters_column),
                 QString("32x3x3x1 + 32 = 320"));

        // The replay after epoch 1 shows the checkpoint written after epoch 1.
        QVERIFY(studio.wait_view([&] { panel->epoch_slider()->setValue(1); }));
        QCOMPARE(panel->findChild<QLabel*>("insideEpochLabel")->text(), QString("after epoch 1"));
        const nlohmann::json kernel_1 = keras_kernel(root / "checkpoints" / "after-1.h5", "conv1");
        QCOMPARE(tiles_differing_from(*panel->filters(), kernel_1), 0);
        QVERIFY(tiles_differing_from(*panel->filters(), final_kernel) > 0);  // it moved since
        // Epoch 2's too, and before training the filters differ from both.
        QVERIFY(studio.wait_view([&] { panel->epoch_slider()->setValue(2); }));
        QCOMPARE(tiles_differing_from(*panel->filters(), keras_kernel(root / "checkpoints" / "after-2.h5", "conv1")),
                 0);

        // fc1 reads conv layers' outputs: a replay does not keep it, and says so for an earlier epoch.
        panel->choose_layer("fc1");
        QVERIFY(panel->activations(0)->reason().contains("not known"));

        // A damaged epoch is named when chosen; the others still replay (a studio opened afresh:
        // an epoch once read is kept, as its file never changes).
        {
            std::ofstream damaged(session::epoch_replay_file(run, 1), std::ios::binary | std::ios::trunc);
            damaged << "not a replay";
        }
        {
            Studio again(root);
            QVERIFY(again.window->open_project(QString::fromStdString(project_file.string())));
            QVERIFY(again.show_inside());
            QVERIFY(again.wait_view([&] { again.panel()->epoch_slider()->setValue(1); }));
            QVERIFY2(status_of(again.panel()).contains("epoch-001.h5"), qPrintable(status_of(again.panel())));
            again.panel()->choose_layer("conv1");
            QVERIFY(again.wait_view([&] { again.panel()->epoch_slider()->setValue(2); }));
            QCOMPARE(tiles_differing_from(*again.panel()->filters(),
                                          keras_kernel(root / "checkpoints" / "after-2.h5", "conv1")),
                     0);
        }

        // A run kept before replays existed has none, and says so; its final weights still show.
        fs::remove_all(run / "replay");
        Studio old(root);
        QVERIFY(old.window->open_project(QString::fromStdString(project_file.string())));
        QVERIFY(old.show_inside());
        QCOMPARE(old.panel()->findChild<QLabel*>("insideEpochLabel")->text(),
                 QString("No replay: this run was trained before runs kept one. Shown: its final weights."));
        old.panel()->choose_layer("conv1");
        QCOMPARE(tiles_differing_from(*old.panel()->filters(), final_kernel), 0);
    }

    void theLiveViewNeverBlocksTheUiThread() {
        QTemporaryDir folder;
        QVERIFY(folder.isValid());
        const fs::path root = folder.path().toStdString();
        // 10 classes of 60 images: 38 batches of 16 an epoch, six epochs.
        QVERIFY(test::write_square_folder(root / "squares", 10, 60, 28));
        const fs::path project_file = root / "squares.json";
        project::save_project(project_file, squares_cnn(root / "squares", 6));
        Studio studio(root);
        QVERIFY(QTest::qWaitForWindowExposed(&*studio.window));
        QVERIFY(studio.window->open_project(QString::fromStdString(project_file.string())));
        studio.window->panels()->setCurrentWidget(studio.panel());

        QSignalSpy ended(&*studio.training, &app::TrainingController::runEnded);
        QSignalSpy snapshots(studio.training->runner(), &app::TrainingRunner::insideSnapshot);
        QSignalSpy shown(&*studio.inside, &app::InsideController::viewShown);
        QStringList live_statuses;
        connect(&*studio.inside, &app::InsideController::viewShown, this, [&] {
            if (status_of(studio.panel()).contains("live")) live_statuses << status_of(studio.panel());
        });
        test::StallWatch watch;
        // Train shows the Training tab; the learner goes back to the Inside tab as the run starts.
        connect(studio.training->runner(), &app::TrainingRunner::runStarted, this,
                [&] { studio.window->panels()->setCurrentWidget(studio.panel()); });
        QTest::mouseClick(studio.window->train_panel()->train_button(), Qt::LeftButton);
        QVERIFY2(ended.wait(inside_run_timeout_ms), "the run did not end within 4 minutes");
        watch.stop();
        const qint64 longest = watch.longest();
        qInfo("Inside tab shown while the cnn trained: %lld snapshots, %lld views, %lld live; longest UI gap %lld ms",
              static_cast<long long>(snapshots.size()), static_cast<long long>(shown.size()),
              static_cast<long long>(live_statuses.size()), static_cast<long long>(longest));
        QVERIFY2(!snapshots.isEmpty(), "the run sent no live snapshot while the Inside tab was shown");
        QVERIFY2(!live_statuses.isEmpty(), "no live view was shown");
        QVERIFY2(longest < 200, qPrintable(QString("the UI thread stalled for %1 ms").arg(longest)));
        // The run that ended is the one shown now, from its files.
        const auto record = ended.at(0).at(0).value<session::RunRecord>();
        QCOMPARE(studio.panel()->source(), QString::fromStdString(record.id()));
    }
};

BACKPROP_QT_TEST(InsideTest)
#include "test_inside.moc"
