// The Train panel under the offscreen platform, driven through a NetworkDocument and a made-up
// pair of devices (a GPU, the default, and a CPU): every field edits the project's settings in
// undo steps of the right size and follows undo, redo and Open; the optimiser and schedule boxes
// map to the engine's kinds and show only their own fields; the device box marks the default and
// keeps a device this computer lacks; the run buttons and the lock follow the run's state, and
// only an active run hears a new learning rate.
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QFocusEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>
#include <cmath>
#include <string>
#include <vector>

#include "engine/device/device_description.h"
#include "engine/project/project.h"
#include "tests/ui/qt_test_class.h"
#include "ui/dashboard/train_panel.h"
#include "ui/document/network_document.h"

using bps::ui::NetworkDocument;
using bps::ui::TrainPanel;
using RunState = bps::ui::TrainPanel::RunState;
namespace device = bps::device;
namespace project = bps::project;
namespace train = bps::train;

namespace {

std::vector<device::DeviceDescription> two_devices() {
    device::DeviceDescription gpu;
    gpu.index = 0;
    gpu.name = "GeForce RTX 3060";
    gpu.platform_name = "NVIDIA CUDA";
    gpu.kind = device::DeviceKind::DiscreteGpu;
    gpu.compute_units = 28;
    device::DeviceDescription cpu;
    cpu.index = 1;
    cpu.name = "pocl-cpu-x86-64";
    cpu.platform_name = "Portable Computing Language";
    cpu.kind = device::DeviceKind::Cpu;
    cpu.compute_units = 2;
    return {gpu, cpu};
}

// The cnn example in a document, with a panel on it.
struct Fixture {
    NetworkDocument document;
    TrainPanel panel;
    Fixture() : panel(&document, two_devices(), 0) {
        document.reset(project::example_project("cnn"));
        panel.resize(360, 900);
    }
    const project::TrainingSettings& training() const { return document.project().training; }
    const project::DatasetSettings& dataset() const { return document.project().dataset; }
    QUndoStack& undo() { return *document.undo_stack(); }
    template <typename T>
    T* field(const char* name) {
        T* widget = panel.findChild<T*>(name);
        if (!widget) qFatal("no widget named %s", name);
        return widget;
    }
};

// A float of the project against a spin box's value, which has 6 decimals.
bool same_rate(double shown, float stored) {
    return std::abs(shown - static_cast<double>(stored)) < 1e-7;
}

QStringList entries(const QComboBox* box) {
    QStringList texts;
    for (int i = 0; i < box->count(); ++i) texts << box->itemText(i);
    return texts;
}

struct ButtonStates {
    bool train, pause, resume, step, stop;
};

ButtonStates button_states(const TrainPanel& panel) {
    return {panel.train_button()->isEnabled(), panel.pause_button()->isEnabled(), panel.resume_button()->isEnabled(),
            panel.step_button()->isEnabled(), panel.stop_button()->isEnabled()};
}

}  // namespace

class TrainPanelTest : public QObject {
    Q_OBJECT
private slots:
    void theFieldsShowTheProjectsSettings() {
        Fixture f;
        QCOMPARE(f.field<QSpinBox>("epochs")->value(), f.training().epochs);
        QCOMPARE(f.field<QSpinBox>("batchSize")->value(), f.training().batch_size);
        QCOMPARE(f.field<QLineEdit>("seed")->text(), QString::number(f.training().seed));
        QVERIFY(same_rate(f.field<QDoubleSpinBox>("learningRate")->value(), f.training().optimizer.learning_rate));
        QCOMPARE(f.field<QSpinBox>("validationPercent")->value(), qRound(f.dataset().validation_fraction * 100.0));
        QCOMPARE(f.field<QCheckBox>("normalise")->isChecked(), f.dataset().normalize);
        // Showing the project sent nothing back.
        QCOMPARE(f.undo().count(), 0);
    }

    void eachTrainingFieldEditsTheDocumentAndUndoRestoresIt() {
        Fixture f;
        const project::TrainingSettings before = f.training();

        f.field<QSpinBox>("epochs")->setValue(7);
        QCOMPARE(f.training().epochs, 7);
        f.field<QSpinBox>("batchSize")->setValue(100);
        QCOMPARE(f.training().batch_size, 100);
        auto* seed = f.field<QLineEdit>("seed");
        seed->setText("18446744073709551615");  // the largest 64-bit seed survives
        QTest::keyClick(seed, Qt::Key_Return);
        QCOMPARE(f.training().seed, std::uint64_t{18446744073709551615ull});
        f.field<QDoubleSpinBox>("learningRate")->setValue(0.0025);
        QCOMPARE(f.training().optimizer.learning_rate, 0.0025f);
        f.field<QDoubleSpinBox>("weightDecay")->setValue(0.0005);
        QCOMPARE(f.training().optimizer.weight_decay, 0.0005f);
        f.field<QComboBox>("optimiser")->setCurrentIndex(0);  // SGD, so momentum shows
        f.field<QDoubleSpinBox>("momentum")->setValue(0.5);
        QCOMPARE(f.training().optimizer.momentum, 0.5f);

        while (f.undo().canUndo()) f.undo().undo();
        QCOMPARE(f.training().epochs, before.epochs);
        QCOMPARE(f.training().batch_size, before.batch_size);
        QCOMPARE(f.training().seed, before.seed);
        QCOMPARE(f.training().optimizer.learning_rate, before.optimizer.learning_rate);
        QCOMPARE(f.training().optimizer.weight_decay, before.optimizer.weight_decay);
        QCOMPARE(f.training().optimizer.momentum, before.optimizer.momentum);
        QCOMPARE(f.training().optimizer.kind, before.optimizer.kind);
        // And the widgets show the restored values.
        QCOMPARE(f.field<QSpinBox>("epochs")->value(), before.epochs);
        QCOMPARE(f.field<QSpinBox>("batchSize")->value(), before.batch_size);
        QCOMPARE(f.field<QLineEdit>("seed")->text(), QString::number(before.seed));
        QVERIFY(same_rate(f.field<QDoubleSpinBox>("learningRate")->value(), before.optimizer.learning_rate));
    }

    void aSeedThatIsNotANumberIsNotSent() {
        Fixture f;
        auto* seed = f.field<QLineEdit>("seed");
        seed->setText("");
        emit seed->editingFinished();
        QCOMPARE(f.undo().count(), 0);
        QCOMPARE(seed->text(), QString::number(f.training().seed));
    }

    void aRunOfSpinBoxStepsIsOneUndoStepAndANewRunAnother() {
        Fixture f;
        auto* batch = f.field<QSpinBox>("batchSize");
        f.document.set_training([&] {
            project::TrainingSettings settings = f.training();
            settings.batch_size = 64;
            return settings;
        }());
        const int steps = f.undo().count();
        // Batch sizes step through powers of two.
        batch->stepBy(1);
        batch->stepBy(1);
        QTest::keyClick(batch, Qt::Key_Up);
        QCOMPARE(f.training().batch_size, 512);
        QCOMPARE(f.undo().count(), steps + 1);
        QTest::keyClick(batch, Qt::Key_Down);
        QCOMPARE(f.training().batch_size, 256);
        QCOMPARE(f.undo().count(), steps + 1);

        // Another field's run is another step.
        auto* epochs = f.field<QSpinBox>("epochs");
        const int first_epochs = epochs->value();
        for (int i = 0; i < 4; ++i) epochs->stepBy(1);
        QCOMPARE(f.training().epochs, first_epochs + 4);
        QCOMPARE(f.undo().count(), steps + 2);

        f.undo().undo();
        QCOMPARE(f.training().epochs, first_epochs);
        QCOMPARE(epochs->value(), first_epochs);
        f.undo().undo();
        QCOMPARE(f.training().batch_size, 64);
        QCOMPARE(batch->value(), 64);
        // After an undo the next step starts a new undo step.
        batch->stepBy(-1);
        QCOMPARE(f.training().batch_size, 32);
        QCOMPARE(f.undo().index(), steps + 1);
    }

    void leavingASpinBoxEndsItsRunOfSteps() {
        Fixture f;
        auto* epochs = f.field<QSpinBox>("epochs");
        const int first = epochs->value();
        epochs->stepBy(1);
        epochs->stepBy(1);
        QCOMPARE(f.undo().count(), 1);
        QFocusEvent leave(QEvent::FocusOut, Qt::TabFocusReason);
        QCoreApplication::sendEvent(epochs, &leave);
        epochs->stepBy(1);
        QCOMPARE(f.undo().count(), 2);
        f.undo().undo();
        QCOMPARE(epochs->value(), f.training().epochs);
        QCOMPARE(f.training().epochs, first + 2);
    }

    void theLearningRateStepsOnALogScaleAsOneUndoStep() {
        Fixture f;
        auto* rate = f.field<QDoubleSpinBox>("learningRate");
        project::TrainingSettings settings = f.training();
        settings.optimizer.learning_rate = 0.001f;
        f.document.set_training(settings);
        QCOMPARE(rate->value(), 0.001);
        const int steps = f.undo().count();
        rate->stepBy(1);
        QCOMPARE(rate->value(), 0.002);
        rate->stepBy(1);
        QCOMPARE(rate->value(), 0.005);
        rate->stepBy(1);
        QCOMPARE(rate->value(), 0.01);
        rate->stepBy(-4);
        QCOMPARE(rate->value(), 0.0005);
        QCOMPARE(f.training().optimizer.learning_rate, 0.0005f);
        QCOMPARE(f.undo().count(), steps + 1);
        QCOMPARE(rate->decimals(), 6);
        QCOMPARE(rate->minimum(), 1e-6);
        QCOMPARE(rate->maximum(), 10.0);
    }

    void theFieldsFollowUndoRedoAndAResetProject() {
        Fixture f;
        auto* epochs = f.field<QSpinBox>("epochs");
        epochs->setValue(12);
        f.field<QCheckBox>("horizontalFlip")->setChecked(true);
        f.undo().undo();
        f.undo().undo();
        f.undo().redo();
        QCOMPARE(epochs->value(), 12);
        QVERIFY(!f.field<QCheckBox>("horizontalFlip")->isChecked());
        f.undo().redo();
        QVERIFY(f.field<QCheckBox>("horizontalFlip")->isChecked());

        project::Project other = project::example_project("mlp");
        other.training.epochs = 33;
        other.training.batch_size = 16;
        other.training.seed = 7;
        other.training.optimizer.kind = train::OptimizerKind::adamw;
        other.training.schedule.kind = train::ScheduleKind::step;
        other.training.schedule.step_size = 5;
        other.training.schedule.gamma = 0.5f;
        other.dataset.validation_fraction = 0.25;
        other.dataset.normalize = false;
        other.dataset.augmentation.random_crop = true;
        other.dataset.augmentation.crop_padding = 2;
        other.device = std::to_string(1);  // "1": GCC 12 misreads assigning a one-letter literal (-Wrestrict)
        f.document.reset(other);
        QCOMPARE(epochs->value(), 33);
        QCOMPARE(f.field<QSpinBox>("batchSize")->value(), 16);
        QCOMPARE(f.field<QLineEdit>("seed")->text(), QString("7"));
        QCOMPARE(f.field<QComboBox>("optimiser")->currentText(), QString("AdamW"));
        QCOMPARE(f.field<QComboBox>("schedule")->currentText(), QString("Step"));
        QCOMPARE(f.field<QSpinBox>("stepSize")->value(), 5);
        QCOMPARE(f.field<QDoubleSpinBox>("gamma")->value(), 0.5);
        QCOMPARE(f.field<QSpinBox>("validationPercent")->value(), 25);
        QVERIFY(!f.field<QCheckBox>("normalise")->isChecked());
        QVERIFY(f.field<QCheckBox>("randomCrop")->isChecked());
        QCOMPARE(f.field<QSpinBox>("cropPadding")->value(), 2);
        QVERIFY(f.field<QSpinBox>("cropPadding")->isEnabled());
        QCOMPARE(f.panel.device_box()->currentIndex(), 2);
        QCOMPARE(f.undo().count(), 0);
    }

    void theOptimiserBoxMapsToTheKindAndNesterovAndShowsMomentumForSgdOnly() {
        Fixture f;
        f.panel.show();
        auto* optimiser = f.field<QComboBox>("optimiser");
        auto* momentum = f.field<QDoubleSpinBox>("momentum");
        QCOMPARE(entries(optimiser), QStringList({"SGD", "SGD with Nesterov momentum", "Adam", "AdamW"}));
        struct Expected {
            train::OptimizerKind kind;
            bool nesterov;
            bool momentum_shown;
        };
        const Expected expected[] = {{train::OptimizerKind::sgd, false, true},
                                     {train::OptimizerKind::sgd, true, true},
                                     {train::OptimizerKind::adam, false, false},
                                     {train::OptimizerKind::adamw, false, false}};
        int nesterov_step = -1;
        for (int i = 0; i < 4; ++i) {
            optimiser->setCurrentIndex(i);
            if (i == 1) nesterov_step = f.undo().index();
            QCOMPARE(f.training().optimizer.kind, expected[i].kind);
            QCOMPARE(f.training().optimizer.nesterov, expected[i].nesterov);
            QCOMPARE(momentum->isVisible(), expected[i].momentum_shown);
        }
        // Nesterov read back from a project selects its entry; each choice was its own step.
        f.undo().setIndex(nesterov_step);
        QCOMPARE(optimiser->currentIndex(), 1);
        QVERIFY(f.training().optimizer.nesterov);
        QVERIFY(momentum->isVisible());
    }

    void theScheduleShowsOnlyItsKindsFieldsAndCosineEndsWithTheRun() {
        Fixture f;
        f.panel.show();
        auto* schedule = f.field<QComboBox>("schedule");
        auto* step_size = f.field<QSpinBox>("stepSize");
        auto* gamma = f.field<QDoubleSpinBox>("gamma");
        auto* min_rate = f.field<QDoubleSpinBox>("minimumRate");
        schedule->setCurrentIndex(schedule->findData(static_cast<int>(train::ScheduleKind::constant)));
        QCOMPARE(f.training().schedule.kind, train::ScheduleKind::constant);
        QVERIFY(!step_size->isVisible() && !gamma->isVisible() && !min_rate->isVisible());

        schedule->setCurrentIndex(schedule->findData(static_cast<int>(train::ScheduleKind::step)));
        QCOMPARE(f.training().schedule.kind, train::ScheduleKind::step);
        QVERIFY(step_size->isVisible() && gamma->isVisible() && !min_rate->isVisible());
        step_size->setValue(3);
        gamma->setValue(0.25);
        QCOMPARE(f.training().schedule.step_size, 3);
        QCOMPARE(f.training().schedule.gamma, 0.25f);

        f.field<QSpinBox>("epochs")->setValue(20);
        schedule->setCurrentIndex(schedule->findData(static_cast<int>(train::ScheduleKind::cosine)));
        QCOMPARE(f.training().schedule.kind, train::ScheduleKind::cosine);
        QCOMPARE(f.training().schedule.total_epochs, 20);
        QVERIFY(!step_size->isVisible() && !gamma->isVisible() && min_rate->isVisible());
        min_rate->setValue(0.0001);
        QCOMPARE(f.training().schedule.min_rate, 0.0001f);
        f.field<QSpinBox>("epochs")->setValue(30);
        QCOMPARE(f.training().schedule.total_epochs, 30);

        // Undoing back to the step schedule shows its fields again.
        f.undo().undo();
        f.undo().undo();
        f.undo().undo();
        QCOMPARE(f.training().schedule.kind, train::ScheduleKind::step);
        QCOMPARE(schedule->currentText(), QString("Step"));
        QVERIFY(step_size->isVisible() && !min_rate->isVisible());
    }

    void theDataFieldsEditTheDatasetSettingsAndUndo() {
        Fixture f;
        const project::DatasetSettings before = f.dataset();
        auto* validation = f.field<QSpinBox>("validationPercent");
        QCOMPARE(validation->maximum(), 90);
        QCOMPARE(validation->suffix(), QString(" %"));
        validation->setValue(20);
        QCOMPARE(f.dataset().validation_fraction, 0.2);
        f.field<QCheckBox>("normalise")->setChecked(!before.normalize);
        QCOMPARE(f.dataset().normalize, !before.normalize);
        auto* padding = f.field<QSpinBox>("cropPadding");
        QVERIFY(!padding->isEnabled());  // no random crop yet
        f.field<QCheckBox>("randomCrop")->setChecked(true);
        QVERIFY(f.dataset().augmentation.random_crop);
        QVERIFY(padding->isEnabled());
        padding->setValue(6);
        QCOMPARE(f.dataset().augmentation.crop_padding, 6);
        f.field<QCheckBox>("horizontalFlip")->setChecked(true);
        QVERIFY(f.dataset().augmentation.horizontal_flip);
        QCOMPARE(f.undo().count(), 5);

        while (f.undo().canUndo()) f.undo().undo();
        QCOMPARE(f.dataset().validation_fraction, before.validation_fraction);
        QCOMPARE(f.dataset().normalize, before.normalize);
        QCOMPARE(f.dataset().augmentation.random_crop, false);
        QCOMPARE(f.dataset().augmentation.crop_padding, before.augmentation.crop_padding);
        QCOMPARE(f.dataset().augmentation.horizontal_flip, false);
        QCOMPARE(validation->value(), qRound(before.validation_fraction * 100.0));
        QVERIFY(!f.field<QCheckBox>("randomCrop")->isChecked());
        QVERIFY(!padding->isEnabled());
    }

    void theDeviceBoxListsEveryDeviceWithTheDefaultMarkedAndSetsTheProjectsDevice() {
        Fixture f;
        QComboBox* box = f.panel.device_box();
        QCOMPARE(entries(box), QStringList({"Best available (GeForce RTX 3060)",
                                            "GeForce RTX 3060 (discrete GPU) (default)", "pocl-cpu-x86-64 (CPU)"}));
        QCOMPARE(box->currentIndex(), 0);
        QCOMPARE(f.panel.device_request(), QString());

        box->setCurrentIndex(2);
        QCOMPARE(f.document.project().device, std::string("1"));
        QCOMPARE(f.panel.device_request(), QString("1"));
        box->setCurrentIndex(0);
        QCOMPARE(f.document.project().device, std::string());
        f.undo().undo();
        QCOMPARE(box->currentIndex(), 2);
        f.undo().undo();
        QCOMPARE(box->currentIndex(), 0);
        QCOMPARE(f.document.project().device, std::string());
    }

    void aProjectsDeviceByNameSelectsItAndAnUnknownOneGetsItsOwnEntry() {
        Fixture f;
        QComboBox* box = f.panel.device_box();
        project::Project named = project::example_project("cnn");
        named.device = "POCL";  // part of a name, any case, as `backprop train --device` takes it
        f.document.reset(named);
        QCOMPARE(box->currentIndex(), 2);
        QCOMPARE(f.panel.device_request(), QString("POCL"));

        project::Project elsewhere = project::example_project("cnn");
        elsewhere.device = "Radeon";
        f.document.reset(elsewhere);
        QCOMPARE(box->count(), 4);
        QCOMPARE(box->currentText(), QString("Radeon (not on this computer)"));
        QCOMPARE(f.panel.device_request(), QString("Radeon"));
        QCOMPARE(f.undo().count(), 0);
        // Choosing a device of this computer replaces it, and the extra entry goes.
        box->setCurrentIndex(1);
        QCOMPARE(f.document.project().device, std::string("0"));
        QCOMPARE(box->count(), 3);
        f.undo().undo();
        QCOMPARE(box->currentText(), QString("Radeon (not on this computer)"));
    }

    void withNoDeviceTheDeviceBoxIsDisabledAndSaysWhy() {
        NetworkDocument document;
        TrainPanel panel(&document, {}, 0);
        QVERIFY(!panel.device_box()->isEnabled());
        QVERIFY(panel.device_box()->toolTip().contains("No OpenCL device"));
        QCOMPARE(panel.device_request(), QString());
    }

    void theButtonsFollowTheRunStateAndAsk() {
        Fixture f;
        const auto check = [&](RunState state, ButtonStates want) {
            f.panel.set_run_state(state);
            const ButtonStates got = button_states(f.panel);
            QCOMPARE(got.train, want.train);
            QCOMPARE(got.pause, want.pause);
            QCOMPARE(got.resume, want.resume);
            QCOMPARE(got.step, want.step);
            QCOMPARE(got.stop, want.stop);
        };
        check(RunState::idle, {true, false, false, false, false});
        check(RunState::preparing, {false, true, false, false, true});
        check(RunState::running, {false, true, false, false, true});
        check(RunState::paused, {false, false, true, true, true});
        check(RunState::stopping, {false, false, false, false, false});

        QCOMPARE(f.panel.pause_button()->shortcut(), QKeySequence(Qt::Key_F6));
        QCOMPARE(f.panel.step_button()->shortcut(), QKeySequence(Qt::Key_F10));
        QCOMPARE(f.panel.stop_button()->shortcut(), QKeySequence(Qt::SHIFT | Qt::Key_F5));
        f.panel.set_run_state(RunState::idle);
        QCOMPARE(f.panel.train_button()->shortcut(), QKeySequence(Qt::Key_F5));
        f.panel.set_run_state(RunState::paused);
        QCOMPARE(f.panel.resume_button()->shortcut(), QKeySequence(Qt::Key_F5));
        QVERIFY(f.panel.train_button()->shortcut().isEmpty());

        QSignalSpy train(&f.panel, &TrainPanel::trainRequested);
        QSignalSpy pause(&f.panel, &TrainPanel::pauseRequested);
        QSignalSpy resume(&f.panel, &TrainPanel::resumeRequested);
        QSignalSpy step(&f.panel, &TrainPanel::stepRequested);
        QSignalSpy stop(&f.panel, &TrainPanel::stopRequested);
        f.panel.set_run_state(RunState::idle);
        QTest::mouseClick(f.panel.train_button(), Qt::LeftButton);
        f.panel.set_run_state(RunState::running);
        QTest::mouseClick(f.panel.pause_button(), Qt::LeftButton);
        f.panel.set_run_state(RunState::paused);
        QTest::mouseClick(f.panel.step_button(), Qt::LeftButton);
        QTest::mouseClick(f.panel.resume_button(), Qt::LeftButton);
        QTest::mouseClick(f.panel.stop_button(), Qt::LeftButton);
        QCOMPARE(train.count(), 1);
        QCOMPARE(pause.count(), 1);
        QCOMPARE(step.count(), 1);
        QCOMPARE(resume.count(), 1);
        QCOMPARE(stop.count(), 1);
        // A disabled button asks nothing.
        QTest::mouseClick(f.panel.train_button(), Qt::LeftButton);
        QCOMPARE(train.count(), 1);
    }

    void whileARunIsActiveOnlyTheLearningRateIsEditable() {
        Fixture f;
        f.panel.show();
        const char* locked[] = {
            "epochs",     "batchSize",   "seed",           "optimiser",   "momentum",          "weightDecay",
            "schedule",   "stepSize",    "gamma",          "minimumRate", "validationPercent", "normalise",
            "randomCrop", "cropPadding", "horizontalFlip", "device"};
        auto* line = f.field<QLabel>("settingsLocked");
        QVERIFY(!line->isVisible());
        for (RunState state : {RunState::preparing, RunState::running, RunState::paused, RunState::stopping}) {
            f.panel.set_run_state(state);
            for (const char* name : locked) {
                auto* widget = f.panel.findChild<QWidget*>(name);
                QVERIFY2(widget, name);
                QVERIFY2(!widget->isEnabled(), name);
                QVERIFY2(!widget->toolTip().isEmpty(), name);  // every setting says what it does
            }
            QVERIFY(f.panel.learning_rate_box()->isEnabled());
            QVERIFY(line->isVisible());
            QCOMPARE(
                line->text(),
                QString("Settings are locked while the run trains; the learning rate applies from the next batch."));
        }
        f.panel.set_run_state(RunState::idle);
        QVERIFY(!line->isVisible());
        QVERIFY(f.field<QSpinBox>("epochs")->isEnabled());
        QVERIFY(f.panel.device_box()->isEnabled());
    }

    void aLearningRateEditReachesTheRunOnlyWhileItIsActive() {
        Fixture f;
        QSignalSpy spy(&f.panel, &TrainPanel::learningRateChanged);
        QDoubleSpinBox* rate = f.panel.learning_rate_box();
        rate->setValue(0.003);
        QCOMPARE(spy.count(), 0);
        QCOMPARE(f.training().optimizer.learning_rate, 0.003f);

        f.panel.set_run_state(RunState::running);
        f.document.set_locked("A run is training this network.");
        const int steps = f.undo().count();
        rate->stepBy(1);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toDouble(), 0.005);
        f.panel.set_run_state(RunState::paused);
        rate->stepBy(1);
        rate->stepBy(1);
        QCOMPARE(spy.count(), 3);
        QCOMPARE(spy.at(2).at(0).toDouble(), 0.02);
        // The document has it too: the run of steps while running is one undo step, and the run
        // pausing started another.
        QCOMPARE(f.training().optimizer.learning_rate, 0.02f);
        QCOMPARE(f.undo().count(), steps + 2);

        f.panel.set_run_state(RunState::idle);
        rate->setValue(0.05);
        QCOMPARE(f.training().optimizer.learning_rate, 0.05f);
        QCOMPARE(spy.count(), 3);
        // A document change (undo) shown in the box is no edit for the run either.
        f.panel.set_run_state(RunState::paused);
        f.document.set_locked({});
        f.undo().undo();
        QCOMPARE(rate->value(), 0.02);
        QCOMPARE(spy.count(), 3);
    }

    void aNetworkWithProblemsCannotBeTrainedAndThePanelSaysWhy() {
        Fixture f;
        f.panel.show();
        const QString why = "Fix the problems in the Problems dock first";
        f.panel.set_train_enabled(false, why);
        QVERIFY(!f.panel.train_button()->isEnabled());
        QCOMPARE(f.panel.train_button()->toolTip(), why);
        auto* line = f.field<QLabel>("trainBlocked");
        QVERIFY(line->isVisible());
        QCOMPARE(line->text(), why);
        // The run state does not re-enable it.
        f.panel.set_run_state(RunState::running);
        f.panel.set_run_state(RunState::idle);
        QVERIFY(!f.panel.train_button()->isEnabled());
        f.panel.set_train_enabled(true, {});
        QVERIFY(f.panel.train_button()->isEnabled());
        QVERIFY(!line->isVisible());
    }

    void thePanelPaintsItsFieldsAndButtons() {
        Fixture f;
        f.panel.show();
        QCoreApplication::processEvents();  // the layouts settle, as in a window's event loop
        const QPixmap idle = f.panel.grab();
        QVERIFY(!idle.isNull());
        const QString folder = qEnvironmentVariable("TRAIN_PANEL_SCREENSHOTS");
        if (folder.isEmpty()) return;
        QVERIFY(idle.save(folder + "/train_panel_idle.png"));
        f.field<QComboBox>("schedule")->setCurrentIndex(2);
        f.panel.set_train_enabled(false, "Fix the problems in the Problems dock first");
        f.panel.set_run_state(RunState::paused);
        QCoreApplication::processEvents();
        QVERIFY(f.panel.grab().save(folder + "/train_panel_paused.png"));
    }
};

BACKPROP_QT_TEST(TrainPanelTest)
#include "test_train_panel.moc"
