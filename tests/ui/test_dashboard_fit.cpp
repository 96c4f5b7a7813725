// Issue 49's Training and Compare Devices tabs as a learner first sees them, under the offscreen
// platform: the four plots share the window evenly at 1280x720 and 1920x1080, with and without a
// run, and the "Press Train" hint fits its plot; a paused run shows no time left, a diverged run's
// stage says so, and another project starts with a clean status; the run list's settings columns,
// their hiding (remembered) and the receipt tooltip; the comparison charts' legends and titles
// inside their charts, and the reason an empty cold/warm chart is empty, said in its place.
#include <qcustomplot.h>

#include <QAction>
#include <QLabel>
#include <QMenu>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <filesystem>
#include <memory>

#include "app/gui/training_controller.h"
#include "datasets/catalogue.h"
#include "engine/runs/run_record.h"
#include "tests/ui/qt_test_class.h"
#include "ui/dashboard/hideable_columns.h"
#include "ui/dashboard/run_list.h"
#include "ui/dashboard/run_status.h"
#include "ui/dashboard/training_curves.h"
#include "ui/dashboard/training_dashboard.h"
#include "ui/devices/comparison_charts.h"
#include "ui/main_window/main_window.h"

using namespace bps;
namespace fs = std::filesystem;

namespace {

constexpr int plot_tolerance_px = 4;

bool inside(const QRect& inner, const QRect& outer) {
    return outer.contains(inner.topLeft()) && outer.contains(inner.bottomRight());
}

QString rect_text(const QRect& rect) {
    return QString("%1,%2 %3x%4").arg(rect.x()).arg(rect.y()).arg(rect.width()).arg(rect.height());
}

session::RunRecord write_run(const fs::path& runs, const std::string& started_at, const std::string& name,
                             const project::TrainingSettings& training) {
    session::RunRecord record;
    record.folder = session::create_run_folder(runs, started_at);
    record.receipt.name = name;
    record.receipt.started_at = started_at;
    record.receipt.project_name = "mlp";
    record.receipt.device = "Test GPU";
    record.receipt.outcome = "finished";
    record.receipt.training = training;
    record.receipt.epochs_completed = training.epochs;
    record.receipt.validation = session::Evaluation{0.4, 0.85, 600};
    session::write_run(record);
    return record;
}

}  // namespace

class DashboardFitTest : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> folder_;

    std::unique_ptr<ui::MainWindow> make_window() {
        ui::StartupFacts facts;
        facts.dataset_catalogue = datasets::catalogue();
        facts.data_root = fs::path(folder_->filePath("data").toStdString());
        facts.recovery_folder = fs::path(folder_->filePath("recovery").toStdString());
        return std::make_unique<ui::MainWindow>(std::move(facts));
    }

    // The four plots' sizes agree within a few pixels, and the hint (when shown) lies in its plot.
    void check_plots(ui::TrainingCurves* curves, const QString& when) {
        const QSize first = curves->loss_plot()->size();
        for (QCustomPlot* plot : {curves->accuracy_plot(), curves->learning_rate_plot(), curves->speed_plot()}) {
            const QSize size = plot->size();
            QVERIFY2(std::abs(size.width() - first.width()) <= plot_tolerance_px &&
                         std::abs(size.height() - first.height()) <= plot_tolerance_px,
                     qPrintable(QString("%1: %2 is %3x%4, the loss plot %5x%6")
                                    .arg(when, plot->objectName())
                                    .arg(size.width())
                                    .arg(size.height())
                                    .arg(first.width())
                                    .arg(first.height())));
        }
        // Their axis areas too: the loss plot's legend row takes no width from it.
        const int axis_width = curves->accuracy_plot()->axisRect()->width();
        QVERIFY2(std::abs(curves->loss_plot()->axisRect()->width() - axis_width) <= 2 * plot_tolerance_px,
                 qPrintable(QString("%1: the loss axes are %2 px wide, the accuracy axes %3")
                                .arg(when)
                                .arg(curves->loss_plot()->axisRect()->width())
                                .arg(axis_width)));
    }

private slots:
    void init() {
        folder_ = std::make_unique<QTemporaryDir>();
        QVERIFY(folder_->isValid());
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, folder_->filePath("settings"));
        QSettings().clear();
    }
    void cleanup() {
        QSettings().clear();
        folder_.reset();
    }

    void theFourPlotsShareTheTabEvenlyWithAndWithoutRuns_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x720") << QSize(1280, 720);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void theFourPlotsShareTheTabEvenlyWithAndWithoutRuns() {
        QFETCH(QSize, size);
        std::unique_ptr<ui::MainWindow> window = make_window();
        window->resize(size);
        window->show();
        window->show_dashboard();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        ui::TrainingCurves* curves = window->dashboard()->curves();
        QCOMPARE(curves->loss_plot()->objectName(), QString("lossPlot"));
        QTRY_VERIFY_WITH_TIMEOUT(curves->loss_plot()->isVisible() && curves->loss_plot()->width() > 200, 5000);
        curves->replot_now();
        check_plots(curves, "no runs");

        // The hint lies inside the loss plot's axes, whole.
        QCPItemText* hint = curves->empty_hint();
        QVERIFY(hint->visible());
        const QRect axes = curves->loss_plot()->axisRect()->rect();
        const QRect hint_rect(hint->topLeft->pixelPosition().toPoint(), hint->bottomRight->pixelPosition().toPoint());
        QVERIFY2(inside(hint_rect, axes), qPrintable(rect_text(hint_rect) + " is not inside " + rect_text(axes)));
        QFont hint_font = hint->font();
        QVERIFY(QFontMetrics(hint_font).horizontalAdvance(hint->text()) <= axes.width());

        // A run's points arrive: still even.
        curves->set_run("run", "Run 1", Qt::blue);
        for (int i = 1; i <= 50; ++i)
            curves->add_batch("run", session::BatchPoint{i / 50.0, 2.0 / i, 0.5 + i / 200.0, 0.01, 1000.0 + i});
        curves->replot_now();
        QVERIFY(!hint->visible());
        check_plots(curves, "a run");
    }

    void aPausedRunShowsNoTimeLeftAndADivergedRunSaysDiverged() {
        ui::RunStatus status;
        session::BatchReport report;
        report.epoch = 0;
        report.epochs = 2;
        report.batch = 10;
        report.batches = 100;
        report.images_per_second = 500;
        status.show_stage({session::Stage::running, {}, 0, 0});
        status.show_batch(report);
        QVERIFY2(status.time_left_text().endsWith(" left"), qPrintable(status.time_left_text()));
        QVERIFY(status.findChild<QLabel*>("runTimeLeft"));

        // Paused: the Steps' reports say where the run is, with no speed and no time left.
        status.show_stage({session::Stage::paused, {}, 0, 0});
        QCOMPARE(status.time_left_text(), QString());
        report.batch = 11;
        report.images_per_second = 0.5;  // the pause counted in: "21 min" left before the fix
        status.show_batch(report);
        QCOMPARE(status.time_left_text(), QString());
        QCOMPARE(status.progress_text(), QString("epoch 1/2 · batch 11/100 · paused"));
        // Resumed: the time left is back.
        status.show_stage({session::Stage::running, {}, 0, 0});
        report.images_per_second = 500;
        status.show_batch(report);
        QVERIFY(status.time_left_text().endsWith(" left"));

        // It diverged and was stopped: the stage says Diverged, not Finished.
        status.show_stage({session::Stage::finished, {}, 0, 0});
        session::JobResult result;
        result.training_began = true;
        result.stopped = true;
        result.diverged = "the loss became NaN in epoch 1, batch 11";
        status.show_finished(result);
        QCOMPARE(status.stage_text(), QString("Diverged"));
        QCOMPARE(status.message_headline(), QString("The run stopped after the training diverged"));
        QCOMPARE(status.time_left_text(), QString());

        status.reset();
        QCOMPARE(status.stage_text(), QString("Press Train to start a run."));
        QCOMPARE(status.message_headline(), QString());
        QCOMPARE(status.progress_text(), QString());
    }

    void anotherProjectStartsWithACleanStatus() {
        std::unique_ptr<ui::MainWindow> window = make_window();
        app::TrainingController controller(window.get(), fs::path(folder_->filePath("unsaved-runs").toStdString()));
        ui::RunStatus* status = window->dashboard()->status();
        session::JobResult result;
        result.training_began = true;
        result.diverged = "the loss became NaN in epoch 1, batch 11";
        status->show_stage({session::Stage::finished, {}, 0, 0});
        status->show_finished(result);
        QCOMPARE(status->stage_text(), QString("Diverged"));
        QVERIFY(!status->message_headline().isEmpty());
        QVERIFY(window->new_project(ui::MainWindow::blank_template));
        QCOMPARE(status->stage_text(), QString("Press Train to start a run."));
        QCOMPARE(status->message_headline(), QString());
    }

    void theRunListShowsEachRunsSettingsInColumnsThatCanBeHidden() {
        const fs::path runs = fs::path(folder_->filePath("mlp.runs").toStdString());
        project::TrainingSettings sgd;
        sgd.epochs = 3;
        sgd.batch_size = 64;
        sgd.optimizer.learning_rate = 0.01f;
        project::TrainingSettings adam;
        adam.epochs = 5;
        adam.batch_size = 128;
        adam.optimizer.kind = train::OptimizerKind::adam;
        adam.optimizer.learning_rate = 0.001f;
        adam.seed = 7;
        write_run(runs, "2026-11-23T18:00:00", "Run 1", sgd);
        write_run(runs, "2026-11-23T19:00:00", "Run 2", adam);

        auto list = std::make_unique<ui::RunList>();
        list->show_folder(runs);
        QTreeWidget* tree = list->tree();
        QCOMPARE(tree->objectName(), QString("runList"));
        QCOMPARE(tree->topLevelItemCount(), 2);
        using ui::RunList;
        const QTreeWidgetItem* first = tree->topLevelItem(0);
        const QTreeWidgetItem* second = tree->topLevelItem(1);
        QCOMPARE(first->text(RunList::learning_rate_column), QString("0.01"));
        QCOMPARE(second->text(RunList::learning_rate_column), QString("0.001"));
        QCOMPARE(first->text(RunList::batch_column), QString("64"));
        QCOMPARE(second->text(RunList::batch_column), QString("128"));
        QCOMPARE(first->text(RunList::optimiser_column), QString("SGD"));
        QCOMPARE(second->text(RunList::optimiser_column), QString("Adam"));
        QCOMPARE(first->text(RunList::planned_epochs_column), QString("3"));
        QCOMPARE(second->text(RunList::planned_epochs_column), QString("5"));
        QCOMPARE(tree->headerItem()->text(RunList::learning_rate_column), QString("Learning rate"));
        // The settings come right after the run's name.
        QCOMPARE(tree->header()->visualIndex(RunList::learning_rate_column), 1);

        // The row's tooltip is the whole receipt.
        const QString tip = second->toolTip(RunList::device_column);
        for (const char* line : {"Run: Run 2", "Optimiser: Adam", "Learning rate: 0.001", "Batch size: 128",
                                 "Epochs: 5 of 5", "Seed: 7", "Device: Test GPU", "Validation: accuracy 85.0 %"})
            QVERIFY2(tip.contains(QString::fromUtf8(line)), qPrintable(line + QString(" is not in:\n") + tip));
        QCOMPARE(first->toolTip(RunList::run_column), first->toolTip(RunList::batch_column));

        // Hidden from the header's menu, and still hidden in the next list (the next start).
        std::unique_ptr<QMenu> menu(list->columns()->menu());
        QAction* batch = menu->findChild<QAction*>("batch");
        QVERIFY(batch);
        QVERIFY(batch->isChecked());
        batch->trigger();
        QVERIFY(tree->isColumnHidden(RunList::batch_column));
        QVERIFY(!tree->isColumnHidden(RunList::optimiser_column));
        QCOMPARE(QSettings().value(RunList::columns_key).toStringList(), QStringList{"batch"});
        menu.reset();  // the list's tree owns it too
        list = std::make_unique<ui::RunList>();
        QVERIFY(list->tree()->isColumnHidden(RunList::batch_column));
        std::unique_ptr<QMenu> again(list->columns()->menu());
        QVERIFY(!again->findChild<QAction*>("batch")->isChecked());
        again->findChild<QAction*>("batch")->trigger();
        QVERIFY(!list->tree()->isColumnHidden(RunList::batch_column));
        QCOMPARE(QSettings().value(RunList::columns_key).toStringList(), QStringList{});
    }

    void theComparisonChartsLegendsAndTitlesLieInsideTheirCharts_data() {
        QTest::addColumn<QSize>("size");
        // The charts' share of the Compare Devices tab at 1280x720 and at 1920x1080.
        QTest::newRow("1280x720") << QSize(690, 480);
        QTest::newRow("1920x1080") << QSize(1300, 820);
    }
    void theComparisonChartsLegendsAndTitlesLieInsideTheirCharts() {
        QFETCH(QSize, size);
        ui::ComparisonCharts charts;
        charts.resize(size);
        bench::DeviceComparison unsaved;
        unsaved.device.index = 0;
        unsaved.device.name = "pthread-skylake-avx512-AMD EPYC";
        unsaved.images_per_s = 900;
        unsaved.copy_gb_per_s = 5;
        unsaved.step_gb_per_s = 1;
        unsaved.sgemm_gflops_per_s = 50;
        unsaved.step_gflops_per_s = 10;
        unsaved.of_sgemm_peak = 0.2;
        unsaved.of_bandwidth = 0.2;
        unsaved.losses = {2.3, 2.1, 1.9};
        unsaved.start_error = "the project has no saved file for the command line to start with";
        charts.show_results({unsaved});
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        for (int i = 0; i < ui::ComparisonCharts::chart_count; ++i) {
            QCustomPlot* plot = charts.plot(static_cast<ui::ComparisonCharts::Chart>(i));
            plot->replot();
            const QRect bounds = plot->rect();
            auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
            QVERIFY(title);
            const QRect title_text = QFontMetrics(title->font()).boundingRect(QRect(), Qt::AlignCenter, title->text());
            QVERIFY2(inside(title->outerRect(), bounds) && title_text.width() <= title->outerRect().width(),
                     qPrintable(title->text() + ": " + rect_text(title->outerRect()) + " in " + rect_text(bounds)));
            for (int item = 0; item < plot->legend->itemCount(); ++item) {
                QCPAbstractLegendItem* entry = plot->legend->item(item);
                QVERIFY2(inside(entry->outerRect(), bounds) &&
                             entry->minimumOuterSizeHint().width() <= entry->outerRect().width(),
                         qPrintable(QString("%1's legend entry %2: %3 in %4, needs %5 px")
                                        .arg(title->text())
                                        .arg(item)
                                        .arg(rect_text(entry->outerRect()), rect_text(bounds))
                                        .arg(entry->minimumOuterSizeHint().width())));
            }
        }

        // No cold or warm time: the reason is said where the chart would be.
        QLabel* reason = charts.chart_reason();
        QVERIFY(reason);
        QCOMPARE(reason->objectName(), QString("comparisonChartReason"));
        QVERIFY(reason->isVisible());
        QCOMPARE(reason->text(), QString("The first batch was not timed: the project has no saved file for the command "
                                         "line to start with."));
        QCustomPlot* first_batch = charts.plot(ui::ComparisonCharts::first_batch);
        QCOMPARE(reason->parentWidget(), first_batch);
        QVERIFY(inside(reason->geometry(), first_batch->rect()));
        QVERIFY(reason->geometry().intersects(first_batch->axisRect()->rect()));

        // Timed: no reason.
        unsaved.cold_start_s = 3.5;
        unsaved.warm_start_s = 1.5;
        charts.show_results({unsaved});
        QVERIFY(!charts.chart_reason());
    }
};

BACKPROP_QT_TEST(DashboardFitTest)
#include "test_dashboard_fit.moc"
