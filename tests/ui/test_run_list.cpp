// The run list under the offscreen platform, on run folders written with session::write_run: the
// rows and their figures, ticks, stable colours, renaming, deleting and exporting on disk.
#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <tuple>

#include "engine/base/number_text.h"
#include "engine/runs/run_record.h"
#include "engine/runs/saved_weights.h"
#include "tests/ui/qt_test_class.h"
#include "ui/dashboard/run_list.h"

using bps::ui::RunList;
namespace session = bps::session;
namespace fs = std::filesystem;

namespace {

fs::path path_of(const QTemporaryDir& dir) {
    return fs::path(dir.path().toStdWString());
}

session::RunRecord write_run(const fs::path& runs, const std::string& started_at, const std::string& name,
                             double validation_accuracy, bool with_weights = false) {
    session::RunRecord record;
    record.folder = session::create_run_folder(runs, started_at);
    record.receipt.name = name;
    record.receipt.started_at = started_at;
    record.receipt.seconds = 185;
    record.receipt.project_name = "cnn";
    record.receipt.device = "Test GPU";
    record.receipt.outcome = "finished";
    record.receipt.epochs_completed = 4;
    record.receipt.validation = session::Evaluation{0.4, validation_accuracy, 600};
    if (with_weights) {
        record.receipt.weights_file = "weights.h5";
        std::ofstream out(record.folder / "weights.h5", std::ios::binary);
        out << "HDF5 weights of " << name << '\0' << "\x01\x02";
    }
    record.history.batches = {{0.5, 1.0, 0.5, 0.01, 1000}};
    session::write_run(record);
    return record;
}

// A run whose weights.h5 is a real weights file: a 1x4x4 input, Flatten, Dense of 3, with its
// project and model card inside, as training writes it.
session::RunRecord write_trained_run(const fs::path& runs, const std::string& name) {
    session::RunRecord record = write_run(runs, "2026-11-23T18:00:00", name, 0.5, true);
    bps::project::Project project;
    project.name = "tiny";
    project.network.layers = {bps::model::input_layer(), bps::model::flatten("flatten"), bps::model::dense("out", 3)};
    session::ModelCard card;
    card.project = "tiny";
    card.shape = bps::datasets::ImageShape{1, 4, 4};
    card.class_names = {"a", "b", "c"};
    std::vector<float> weights(48), bias = {0.1f, -0.2f, 0.05f};
    for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>(i % 7) * 0.1f - 0.3f;
    const std::vector<bps::io::NamedArray> arrays = {{"out.weight", {3, 16}, weights}, {"out.bias", {3}, bias}};
    session::save_trained_weights(record.weights(), project, card, arrays);
    return record;
}

QString id_of(const session::RunRecord& record) {
    return QString::fromStdString(record.id());
}

QByteArray bytes_of(const QString& file) {
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly)) return {};
    return in.readAll();
}

}  // namespace

class RunListTest : public QObject {
    Q_OBJECT
private slots:
    void showFolderListsRunsOldestFirstWithTheirFigures();
    void tickingAndUntickingAnnounceTheTickedRuns();
    void coloursDifferAndStayWhenARunIsRemoved();
    void renamingThroughTheApiAndTheItemChangesTheReceipt();
    void anEmptyNameIsRefused();
    void removeAsksFirstAndDeletesTheFolder();
    void theActiveRunCannotBeRemoved();
    void exportCopiesTheWeightsAndAsksBeforeReplacing();
    void aRunWithoutWeightsCannotBeExported();
    void noExportReplacesARunsFilesOrTheProjectFile();
    void aDamagedRunIsNamedUnderTheList();
    void addRunAndUpdateRunRefreshTheRow();
    void theDeleteKeyDeletesTheSelectedRun();
    void exportingForPytorchWritesAScriptThatRunsWithTheWeightsBesideIt();
    void exportingForKerasAsksBeforeReplacingAndAFailedWriteReplacesNothing();
    void exportingForTrainingWritesScriptsThatLoadTheWeightsBesideThem();
    void exportingAsOnnxWritesAModelThatTheOnnxCheckerAccepts();
    void continueTrainingIsOfferedOnlyForARunWithACheckpoint();
};

void RunListTest::showFolderListsRunsOldestFirstWithTheirFigures() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "cnn.runs";
    const auto later = write_run(runs, "2026-11-23T19:10:00", "Adam", 0.876);
    const auto earlier = write_run(runs, "2026-11-23T18:42:15", "SGD", 0.5);

    RunList list;
    list.show_folder(runs);
    QCOMPARE(list.folder(), runs);
    QCOMPARE(list.run_ids(), QStringList({id_of(earlier), id_of(later)}));
    QTreeWidget* tree = list.tree();
    QCOMPARE(tree->topLevelItemCount(), 2);
    const QTreeWidgetItem* first = tree->topLevelItem(0);
    QCOMPARE(first->text(RunList::run_column), QString("SGD"));
    QCOMPARE(first->text(RunList::started_column), QString("2026-11-23 18:42:15"));
    QCOMPARE(first->text(RunList::outcome_column), QString("finished"));
    QCOMPARE(first->text(RunList::epochs_column), QString("4"));
    QCOMPARE(first->text(RunList::validation_column), QString("50.0 %"));
    QCOMPARE(first->text(RunList::test_column), QString("—"));
    QCOMPARE(first->text(RunList::device_column), QString("Test GPU"));
    QCOMPARE(first->text(RunList::duration_column), QString::fromStdString(session::format_duration(185)));
    QCOMPARE(tree->topLevelItem(1)->text(RunList::validation_column), QString("87.6 %"));
    QVERIFY(list.problems_label()->isHidden());
    // A freshly opened project shows its latest run.
    QCOMPARE(list.ticked_runs(), QStringList({id_of(later)}));
    QVERIFY(list.run(id_of(earlier)) != nullptr);
    QCOMPARE(list.run(id_of(earlier))->receipt.name, std::string("SGD"));
    QVERIFY(list.run("nope") == nullptr);
}

void RunListTest::tickingAndUntickingAnnounceTheTickedRuns() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "cnn.runs";
    const auto a = write_run(runs, "2026-11-23T18:00:00", "a", 0.5);
    const auto b = write_run(runs, "2026-11-23T18:10:00", "b", 0.6);
    const auto c = write_run(runs, "2026-11-23T18:20:00", "c", 0.7);
    RunList list;
    list.show_folder(runs);
    QSignalSpy ticked(&list, &RunList::tickedRunsChanged);

    list.set_ticked(id_of(a), true);
    QCOMPARE(ticked.count(), 1);
    QCOMPARE(ticked.takeFirst().at(0).toStringList(), QStringList({id_of(a), id_of(c)}));

    // Through the item, as a click on the box does.
    list.tree()->topLevelItem(1)->setCheckState(RunList::run_column, Qt::Checked);
    QCOMPARE(ticked.count(), 1);
    QCOMPARE(ticked.takeFirst().at(0).toStringList(), QStringList({id_of(a), id_of(b), id_of(c)}));

    list.set_ticked(id_of(c), false);
    QCOMPARE(ticked.count(), 1);
    QCOMPARE(ticked.takeFirst().at(0).toStringList(), QStringList({id_of(a), id_of(b)}));
    QCOMPARE(list.ticked_runs(), QStringList({id_of(a), id_of(b)}));

    list.set_ticked(id_of(c), false);  // no change, no signal
    QCOMPARE(ticked.count(), 0);
    // Showing the same folder again keeps the ticks.
    list.show_folder(runs);
    QCOMPARE(list.ticked_runs(), QStringList({id_of(a), id_of(b)}));
}

void RunListTest::coloursDifferAndStayWhenARunIsRemoved() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "cnn.runs";
    const auto a = write_run(runs, "2026-11-23T18:00:00", "a", 0.5);
    const auto b = write_run(runs, "2026-11-23T18:10:00", "b", 0.6);
    const auto c = write_run(runs, "2026-11-23T18:20:00", "c", 0.7);
    RunList list;
    list.confirm = [](const QString&) { return true; };
    list.show_folder(runs);
    const QColor colour_a = list.colour_of(id_of(a));
    const QColor colour_b = list.colour_of(id_of(b));
    const QColor colour_c = list.colour_of(id_of(c));
    QVERIFY(colour_a.isValid());
    QVERIFY(colour_a != colour_b);
    QVERIFY(colour_a != colour_c);
    QVERIFY(colour_b != colour_c);

    list.set_ticked(id_of(a), true);
    list.set_ticked(id_of(c), false);
    QString error;
    QVERIFY2(list.remove(id_of(b), &error), qPrintable(error));
    QCOMPARE(list.colour_of(id_of(a)), colour_a);
    QCOMPARE(list.colour_of(id_of(c)), colour_c);
    QVERIFY(!list.colour_of(id_of(b)).isValid());

    // A new run takes the freed colour, not one of a listed run.
    const auto d = write_run(runs, "2026-11-23T18:30:00", "d", 0.8);
    list.add_run(d);
    QCOMPARE(list.colour_of(id_of(d)), colour_b);
    QCOMPARE(list.colour_of(id_of(a)), colour_a);
    QCOMPARE(list.colour_of(id_of(c)), colour_c);
}

void RunListTest::renamingThroughTheApiAndTheItemChangesTheReceipt() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "cnn.runs";
    const auto record = write_run(runs, "2026-11-23T18:00:00", "Run 1", 0.5);
    RunList list;
    list.show_folder(runs);
    QSignalSpy renamed(&list, &RunList::runRenamed);
    QSignalSpy ticked(&list, &RunList::tickedRunsChanged);

    QString error;
    QVERIFY2(list.rename(id_of(record), "Adam, lr 0.003", &error), qPrintable(error));
    QCOMPARE(session::read_run(record.folder).receipt.name, std::string("Adam, lr 0.003"));
    QCOMPARE(list.tree()->topLevelItem(0)->text(RunList::run_column), QString("Adam, lr 0.003"));
    QCOMPARE(renamed.count(), 1);
    QCOMPARE(renamed.at(0).at(0).toString(), id_of(record));
    QCOMPARE(renamed.at(0).at(1).toString(), QString("Adam, lr 0.003"));

    // Editing the name in place ends in setText on the item.
    list.tree()->topLevelItem(0)->setText(RunList::run_column, "Edited");
    QCOMPARE(session::read_run(record.folder).receipt.name, std::string("Edited"));
    QCOMPARE(list.run(id_of(record))->receipt.name, std::string("Edited"));
    QCOMPARE(renamed.count(), 2);
    QCOMPARE(ticked.count(), 0);  // a rename is not a tick
}

void RunListTest::anEmptyNameIsRefused() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "cnn.runs";
    const auto record = write_run(runs, "2026-11-23T18:00:00", "Run 1", 0.5);
    RunList list;
    list.show_folder(runs);
    QSignalSpy problems(&list, &RunList::problem);
    list.tree()->topLevelItem(0)->setText(RunList::run_column, "   ");
    QCOMPARE(list.tree()->topLevelItem(0)->text(RunList::run_column), QString("Run 1"));
    QCOMPARE(session::read_run(record.folder).receipt.name, std::string("Run 1"));
    QCOMPARE(problems.count(), 1);
    QVERIFY(problems.at(0).at(0).toString().contains("needs a name"));
}

void RunListTest::removeAsksFirstAndDeletesTheFolder() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "cnn.runs";
    const auto keep = write_run(runs, "2026-11-23T18:00:00", "keep", 0.5);
    const auto record = write_run(runs, "2026-11-23T18:10:00", "Run 2", 0.5);
    RunList list;
    list.show_folder(runs);
    QSignalSpy removed(&list, &RunList::runRemoved);
    QSignalSpy ticked(&list, &RunList::tickedRunsChanged);
    QStringList questions;
    bool answer = false;
    list.confirm = [&](const QString& question) {
        questions << question;
        return answer;
    };

    QString error;
    QVERIFY(!list.remove(id_of(record), &error));
    QVERIFY(error.isEmpty());
    QCOMPARE(questions.size(), 1);
    QVERIFY(questions.at(0).contains("Run 2"));
    QVERIFY(fs::exists(record.folder));
    QCOMPARE(removed.count(), 0);
    QCOMPARE(list.run_ids().size(), 2);

    answer = true;
    QVERIFY2(list.remove(id_of(record), &error), qPrintable(error));
    QVERIFY(!fs::exists(record.folder));
    QVERIFY(fs::exists(keep.folder));
    QCOMPARE(removed.count(), 1);
    QCOMPARE(removed.at(0).at(0).toString(), id_of(record));
    QCOMPARE(list.run_ids(), QStringList({id_of(keep)}));
    // It was the ticked (latest) run: the overlay loses it.
    QCOMPARE(ticked.count(), 1);
    QCOMPARE(ticked.at(0).at(0).toStringList(), QStringList());

    // The Delete button deletes the selected run, asking first.
    list.select_run(id_of(keep));
    QVERIFY(list.delete_button()->isEnabled());
    list.delete_button()->click();
    QCOMPARE(questions.size(), 3);
    QVERIFY(!fs::exists(keep.folder));
    QVERIFY(list.run_ids().isEmpty());
}

void RunListTest::theActiveRunCannotBeRemoved() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "cnn.runs";
    const auto record = write_run(runs, "2026-11-23T18:00:00", "Training now", 0.5);
    RunList list;
    list.show_folder(runs);
    int asked = 0;
    list.confirm = [&](const QString&) {
        ++asked;
        return true;
    };
    QSignalSpy problems(&list, &RunList::problem);
    list.set_active_run(id_of(record));
    list.select_run(id_of(record));
    QVERIFY(!list.delete_button()->isEnabled());

    QString error;
    QVERIFY(!list.remove(id_of(record), &error));
    QVERIFY(error.contains("Training now"));
    QCOMPARE(asked, 0);
    QVERIFY(fs::exists(record.folder));
    QCOMPARE(problems.count(), 1);
    QCOMPARE(problems.at(0).at(0).toString(), error);

    QMenu* menu = list.context_menu(id_of(record));
    for (QAction* action : menu->actions())
        if (action->text() == "Delete…") QVERIFY(!action->isEnabled());
    delete menu;

    list.set_active_run(QString());
    QVERIFY(list.delete_button()->isEnabled());
    QVERIFY2(list.remove(id_of(record), &error), qPrintable(error));
    QVERIFY(!fs::exists(record.folder));
}

void RunListTest::exportCopiesTheWeightsAndAsksBeforeReplacing() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "cnn.runs";
    const auto record = write_run(runs, "2026-11-23T18:00:00", "Run 1", 0.5, true);
    RunList list;
    list.show_folder(runs);
    const QString source = QString::fromStdWString(record.weights().wstring());
    const QByteArray original = bytes_of(source);
    QVERIFY(original.size() > 10);

    QString error;
    const QString destination = dir.filePath("exported.h5");
    QVERIFY2(list.export_weights(id_of(record), destination, &error), qPrintable(error));
    QCOMPARE(bytes_of(destination), original);

    // An existing file: replaced only when the learner agrees.
    {
        QFile other(destination);
        QVERIFY(other.open(QIODevice::WriteOnly | QIODevice::Truncate));
        other.write("older file");
    }
    list.confirm = [](const QString&) { return false; };
    QVERIFY(!list.export_weights(id_of(record), destination, &error));
    QCOMPARE(bytes_of(destination), QByteArray("older file"));
    list.confirm = [](const QString& question) { return question.contains("exported.h5"); };
    QVERIFY2(list.export_weights(id_of(record), destination, &error), qPrintable(error));
    QCOMPARE(bytes_of(destination), original);

    // Through the button, with the path the dialog would give.
    QString suggested;
    const QString second = dir.filePath("second.h5");
    list.ask_export_path = [&](const QString& offered) {
        suggested = offered;
        return second;
    };
    list.select_run(id_of(record));
    QVERIFY(list.export_button()->isEnabled());
    list.export_button()->click();
    QVERIFY(suggested.endsWith("cnn-Run 1.h5"));
    QCOMPARE(bytes_of(second), original);
}

void RunListTest::noExportReplacesARunsFilesOrTheProjectFile() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "cnn.runs";
    const auto first = write_run(runs, "2026-11-23T18:00:00", "Run 1", 0.5, true);
    const auto second = write_run(runs, "2026-11-23T19:00:00", "Run 2", 0.4, true);
    const QString project = dir.filePath("cnn.json");
    {
        QFile file(project);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"the project\": true}");
    }
    RunList list;
    list.show_folder(runs);
    list.set_project_file(project.toStdString());
    list.confirm = [](const QString&) { return true; };  // a learner who agrees to every replacement
    const QString other_weights = QString::fromStdString(second.weights().string());
    const QByteArray other_bytes = bytes_of(other_weights);
    const QString own_weights = QString::fromStdString(first.weights().string());
    const QString receipt = QString::fromStdString((second.folder / "receipt.json").string());
    const QByteArray receipt_bytes = bytes_of(receipt);

    QString error;
    QVERIFY(!list.export_weights(id_of(first), project, &error));
    QCOMPARE(error, project + " is the project file: save under another name, so that it is kept.");
    QCOMPARE(bytes_of(project), QByteArray("{\"the project\": true}"));
    QVERIFY(!list.export_weights(id_of(first), other_weights, &error));
    QCOMPARE(error, other_weights + " is weights.h5 of the run 'Run 2': save under another name, so that it is kept.");
    QCOMPARE(bytes_of(other_weights), other_bytes);
    QVERIFY(!list.export_weights(id_of(first), own_weights, &error));
    QVERIFY(error.contains("of the run 'Run 1'"));

    // A script: never over the project or a run's file, nor its weights over another run's.
    QVERIFY(!list.export_script(id_of(first), RunList::ScriptKind::pytorch, project, &error));
    QVERIFY(error.startsWith(project + " is the project file"));
    QCOMPARE(bytes_of(project), QByteArray("{\"the project\": true}"));
    QVERIFY(!list.export_script(id_of(first), RunList::ScriptKind::keras, receipt, &error));
    QCOMPARE(bytes_of(receipt), receipt_bytes);
    const QString script_over_other = QString::fromStdString((second.folder / "weights.py").string());
    QVERIFY(!list.export_script(id_of(first), RunList::ScriptKind::pytorch, script_over_other, &error));
    QVERIFY(error.contains("weights.h5 of the run 'Run 2'"));
    QCOMPARE(bytes_of(other_weights), other_bytes);
    QVERIFY(!QFileInfo::exists(script_over_other));
}

void RunListTest::aRunWithoutWeightsCannotBeExported() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "cnn.runs";
    const auto record = write_run(runs, "2026-11-23T18:00:00", "No weights", 0.5);
    RunList list;
    list.show_folder(runs);
    list.select_run(id_of(record));
    QVERIFY(!list.export_button()->isEnabled());
    QSignalSpy problems(&list, &RunList::problem);
    QString error;
    QVERIFY(!list.export_weights(id_of(record), dir.filePath("x.h5"), &error));
    QVERIFY(error.contains("No weights"));
    QCOMPARE(problems.count(), 1);
    QVERIFY(!QFile::exists(dir.filePath("x.h5")));

    QMenu* menu = list.context_menu(id_of(record));
    QStringList enabled;
    for (QAction* action : menu->actions())
        if (!action->isSeparator() && action->isEnabled()) enabled << action->text();
    QCOMPARE(enabled, QStringList({"Rename", "Show in folder", "Delete…"}));
    delete menu;
}

void RunListTest::aDamagedRunIsNamedUnderTheList() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "cnn.runs";
    write_run(runs, "2026-11-23T18:00:00", "fine", 0.5);
    const fs::path damaged = session::create_run_folder(runs, "2026-11-23T18:30:00");
    {
        std::ofstream out(damaged / "receipt.json");
        out << "{ not json";
    }
    RunList list;
    list.show_folder(runs);
    QCOMPARE(list.run_ids().size(), 1);
    QVERIFY(!list.problems_label()->isHidden());
    QVERIFY(list.problems_label()->text().contains(QString::fromStdString(damaged.filename().string())));
    QVERIFY(list.problems_label()->text().contains("receipt.json"));
}

void RunListTest::addRunAndUpdateRunRefreshTheRow() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "cnn.runs";
    const auto old = write_run(runs, "2026-11-23T18:00:00", "old", 0.5);
    RunList list;
    list.show_folder(runs);
    list.set_ticked(id_of(old), false);
    QSignalSpy ticked(&list, &RunList::tickedRunsChanged);

    session::RunRecord started;
    started.folder = session::create_run_folder(runs, "2026-11-23T19:00:00");
    started.receipt.name = "Run 2";
    started.receipt.started_at = "2026-11-23T19:00:00";
    session::write_run(started);
    list.add_run(started);
    list.set_active_run(id_of(started));
    QCOMPARE(list.run_ids(), QStringList({id_of(old), id_of(started)}));
    QCOMPARE(ticked.count(), 1);
    QCOMPARE(ticked.at(0).at(0).toStringList(), QStringList({id_of(started)}));
    const QTreeWidgetItem* row = list.tree()->topLevelItem(1);
    QCOMPARE(row->text(RunList::outcome_column), QString("training"));
    QCOMPARE(row->text(RunList::validation_column), QString("—"));

    session::RunRecord finished = started;
    finished.receipt.outcome = "finished";
    finished.receipt.epochs_completed = 3;
    finished.receipt.validation = session::Evaluation{0.3, 0.9, 600};
    finished.receipt.test = session::Evaluation{0.35, 0.875, 1000};
    list.update_run(finished);
    list.set_active_run(QString());
    QCOMPARE(row->text(RunList::outcome_column), QString("finished"));
    QCOMPARE(row->text(RunList::epochs_column), QString("3"));
    QCOMPARE(row->text(RunList::validation_column), QString("90.0 %"));
    QCOMPARE(row->text(RunList::test_column), QString("87.5 %"));
    QCOMPARE(list.run(id_of(started))->receipt.epochs_completed, 3);
    QCOMPARE(list.run_ids().size(), 2);
}

void RunListTest::theDeleteKeyDeletesTheSelectedRun() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "cnn.runs";
    const auto record = write_run(runs, "2026-11-23T18:00:00", "Run 1", 0.5);
    RunList list;
    int asked = 0;
    list.confirm = [&](const QString&) {
        ++asked;
        return true;
    };
    list.show_folder(runs);
    list.show();
    list.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&list));
    list.select_run(id_of(record));
    list.tree()->setFocus();
    QTest::keyClick(list.tree(), Qt::Key_Delete);
    QCOMPARE(asked, 1);
    QVERIFY(!fs::exists(record.folder));
    QVERIFY(list.run_ids().isEmpty());
}

void RunListTest::exportingForPytorchWritesAScriptThatRunsWithTheWeightsBesideIt() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "runs";
    const auto record = write_trained_run(runs, "Run 1");
    RunList list;
    list.show_folder(runs);
    QString suggested;
    QDir(dir.path()).mkpath("scripts");
    const QString script = dir.filePath("scripts/net.py");
    list.ask_script_path = [&](const QString& offered) {
        suggested = offered;
        return script;
    };
    QSignalSpy problems(&list, &RunList::problem);
    std::unique_ptr<QMenu> menu(list.context_menu(id_of(record)));
    QAction* action = menu->findChild<QAction*>("exportPyTorchAction");
    QVERIFY(action && action->isEnabled());
    action->trigger();
    QCOMPARE(problems.count(), 0);
    QVERIFY(suggested.endsWith("cnn-Run 1_pytorch.py"));
    // The weights go beside the script, under the script's name, and the script loads that file.
    QCOMPARE(bytes_of(dir.filePath("scripts/net.h5")), bytes_of(QString::fromStdWString(record.weights().wstring())));
    QVERIFY(bytes_of(script).contains("WEIGHTS = Path(__file__).resolve().parent / \"net.h5\""));

    QImage image(4, 4, QImage::Format_Grayscale8);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) image.setPixel(x, y, qRgb(40 * x + 10 * y, 40 * x + 10 * y, 40 * x + 10 * y));
    QVERIFY(image.save(dir.filePath("image.png")));
    QProcess python;
    python.start("/usr/bin/python3", {script, "--json", dir.filePath("image.png")});
    QVERIFY(python.waitForFinished(120000));
    QCOMPARE(python.exitCode(), 0);
    const QJsonObject line = QJsonDocument::fromJson(python.readAllStandardOutput()).object();
    const QJsonArray probabilities = line["probabilities"].toArray();
    QCOMPARE(probabilities.size(), 3);
    double sum = 0;
    for (const QJsonValue& p : probabilities) sum += p.toDouble();
    QVERIFY(std::abs(sum - 1.0) < 1e-5);
}

void RunListTest::exportingForKerasAsksBeforeReplacingAndAFailedWriteReplacesNothing() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "runs";
    const auto record = write_trained_run(runs, "Run 1");
    RunList list;
    list.show_folder(runs);
    const QString script = dir.filePath("net.py");
    {
        QFile old(script);
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("my own script");
    }
    QString question;
    list.confirm = [&](const QString& asked) {
        question = asked;
        return false;
    };
    QString error;
    QVERIFY(!list.export_script(id_of(record), RunList::ScriptKind::keras, script, &error));
    QVERIFY(question.contains("net.py"));
    QCOMPARE(bytes_of(script), QByteArray("my own script"));
    QVERIFY(!QFile::exists(dir.filePath("net.h5")));

    list.confirm = [](const QString&) { return true; };
    QVERIFY2(list.export_script(id_of(record), RunList::ScriptKind::keras, script, &error), qPrintable(error));
    QVERIFY(bytes_of(script).contains("model.load_weights(str(WEIGHTS), by_name=True)"));
    QVERIFY(bytes_of(script).contains("layers.Dense(3, name=\"out\")"));

    // A folder where the script should go: the write fails, says so, and nothing is replaced.
    QDir(dir.path()).mkpath("taken.py");
    QVERIFY(!list.export_script(id_of(record), RunList::ScriptKind::keras, dir.filePath("taken.py"), &error));
    QVERIFY2(error.contains("taken.py") && error.contains("Nothing was replaced"), qPrintable(error));
    QVERIFY(QFileInfo(dir.filePath("taken.py")).isDir());
}

void RunListTest::exportingForTrainingWritesScriptsThatLoadTheWeightsBesideThem() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "runs";
    const auto record = write_trained_run(runs, "Run 1");
    RunList list;
    list.show_folder(runs);
    QSignalSpy problems(&list, &RunList::problem);
    for (const auto& [action_name, suffix, file] :
         {std::tuple{"exportPyTorchTrainingAction", "_pytorch_train.py", "train_torch"},
          std::tuple{"exportKerasTrainingAction", "_keras_train.py", "train_keras"}}) {
        const QString script = dir.filePath(QString(file) + ".py");
        QString suggested;
        list.ask_script_path = [&](const QString& offered) {
            suggested = offered;
            return script;
        };
        std::unique_ptr<QMenu> menu(list.context_menu(id_of(record)));
        QAction* action = menu->findChild<QAction*>(action_name);
        QVERIFY2(action && action->isEnabled(), action_name);
        action->trigger();
        QCOMPARE(problems.count(), 0);
        QVERIFY2(suggested.endsWith(QString("cnn-Run 1") + suffix), qPrintable(suggested));
        // The run's weights beside the script under another name than the one it saves.
        const QString weights = dir.filePath(QString(file) + "_start.h5");
        QCOMPARE(bytes_of(weights), bytes_of(QString::fromStdWString(record.weights().wstring())));
        QVERIFY(bytes_of(script).contains(QString("\"%1_start.h5\"").arg(file).toUtf8()));
        QVERIFY(!QFile::exists(dir.filePath(QString(file) + ".h5")));
        QProcess python;
        python.start("/usr/bin/python3", {"-m", "py_compile", script});
        QVERIFY(python.waitForFinished(60000));
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    }
}

void RunListTest::exportingAsOnnxWritesAModelThatTheOnnxCheckerAccepts() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "runs";
    const auto record = write_trained_run(runs, "Run 1");
    RunList list;
    list.show_folder(runs);
    const QString model = dir.filePath("net.onnx");
    QString suggested;
    list.ask_onnx_path = [&](const QString& offered) {
        suggested = offered;
        return model;
    };
    QSignalSpy problems(&list, &RunList::problem);
    std::unique_ptr<QMenu> menu(list.context_menu(id_of(record)));
    QAction* action = menu->findChild<QAction*>("exportOnnxAction");
    QVERIFY(action && action->isEnabled());
    action->trigger();
    QCOMPARE(problems.count(), 0);
    QVERIFY2(suggested.endsWith("cnn-Run 1.onnx"), qPrintable(suggested));
    // Read back by the onnx package: a valid model whose output has one value per class.
    QProcess python;
    python.start("/usr/bin/python3", {"-c",
                                      "import onnx, sys\n"
                                      "model = onnx.load(sys.argv[1])\n"
                                      "onnx.checker.check_model(model, full_check=True)\n"
                                      "print(model.graph.output[0].type.tensor_type.shape.dim[1].dim_value)\n",
                                      model});
    QVERIFY(python.waitForFinished(60000));
    QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    QCOMPARE(python.readAllStandardOutput().trimmed(), QByteArray("3"));

    // Never over the run's own weights; an existing file is replaced only when the learner says so.
    QString error;
    const QString weights = QString::fromStdWString(record.weights().wstring());
    const QByteArray kept_weights = bytes_of(weights);
    QVERIFY(!list.export_onnx(id_of(record), weights, &error));
    QVERIFY2(!error.isEmpty(), "no reason given");
    QCOMPARE(bytes_of(weights), kept_weights);
    const QByteArray first = bytes_of(model);
    {
        QFile mine(model);
        QVERIFY(mine.open(QIODevice::WriteOnly));
        mine.write("my own model");
    }
    QString question;
    list.confirm = [&](const QString& asked) {
        question = asked;
        return false;
    };
    QVERIFY(!list.export_onnx(id_of(record), model, &error));
    QVERIFY(question.contains("net.onnx"));
    QCOMPARE(bytes_of(model), QByteArray("my own model"));
    list.confirm = [](const QString&) { return true; };
    QVERIFY2(list.export_onnx(id_of(record), model, &error), qPrintable(error));
    QCOMPARE(bytes_of(model), first);
}

void RunListTest::continueTrainingIsOfferedOnlyForARunWithACheckpoint() {
    QTemporaryDir dir;
    const fs::path runs = path_of(dir) / "runs";
    const auto plain = write_run(runs, "2026-11-23T18:00:00", "plain", 0.5, true);
    const auto kept = write_run(runs, "2026-11-23T18:10:00", "kept", 0.5, true);
    std::ofstream(kept.folder / "checkpoint.h5") << "a checkpoint";
    RunList list;
    list.show_folder(runs);
    QVERIFY(!list.can_continue(id_of(plain)));
    QVERIFY(list.can_continue(id_of(kept)));
    QSignalSpy asked(&list, &RunList::continueRequested);
    std::unique_ptr<QMenu> plain_menu(list.context_menu(id_of(plain)));
    QVERIFY(!plain_menu->findChild<QAction*>("continueAction")->isEnabled());
    std::unique_ptr<QMenu> menu(list.context_menu(id_of(kept)));
    QAction* action = menu->findChild<QAction*>("continueAction");
    QVERIFY(action->isEnabled());
    action->trigger();
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.front().front().toString(), id_of(kept));
    list.set_active_run(id_of(kept));  // the run being trained cannot be continued
    QVERIFY(!list.can_continue(id_of(kept)));
}

BACKPROP_QT_TEST(RunListTest)
#include "test_run_list.moc"
