// One file format: a network built in the editor and saved by it trains with `backprop train`.
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <random>

#include "engine/project/project.h"
#include "tests/ui/qt_test_class.h"
#include "ui/document/network_document.h"
#include "ui/main_window/project_file_io.h"

namespace {

// Two classes of 8x8 stripes, rows and columns, at random phase: a small MLP tells them apart.
void write_stripes(const QString& folder, int per_class) {
    std::mt19937 random(5);
    for (const QString& kind : {QString("columns"), QString("rows")}) {
        QDir().mkpath(folder + "/" + kind);
        for (int i = 0; i < per_class; ++i) {
            QImage image(8, 8, QImage::Format_Grayscale8);
            const int phase = static_cast<int>(random() % 2);
            const int bright = 150 + static_cast<int>(random() % 100);
            for (int y = 0; y < 8; ++y)
                for (int x = 0; x < 8; ++x) {
                    const int along = kind == "rows" ? y : x;
                    const int value = (along % 2 == phase ? bright : 0) + static_cast<int>(random() % 40);
                    image.setPixel(x, y, qRgb(value, value, value));
                }
            QVERIFY(image.save(folder + "/" + kind + "/" + QString::number(i) + ".png"));
        }
    }
}

}  // namespace

class EditorFileTrainsTest : public QObject {
    Q_OBJECT
private slots:
    void aProjectBuiltAndSavedInTheEditorTrainsWithTheCli() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        write_stripes(dir.filePath("images"), 32);

        bps::ui::NetworkDocument document;
        std::string last;
        for (const char* label : {"Input", "Flatten", "Dense", "ReLU", "Dense"}) {
            std::string added;
            QVERIFY(!document.append_layer(label, last, &added));
            last = added;
        }
        bps::model::LayerSpec fc1 = *document.layer("fc1");
        fc1.units = 16;
        QVERIFY(!document.update_layer("fc1", fc1));
        bps::model::LayerSpec out = *document.layer(last);
        out.units = 2;
        QVERIFY(!document.update_layer(last, out));
        bps::project::DatasetSettings dataset;
        dataset.name.clear();
        dataset.folder = dir.filePath("images").toStdString();
        dataset.height = dataset.width = 8;
        dataset.channels = 1;
        dataset.validation_fraction = 0.25;
        QVERIFY(!document.set_dataset(dataset));
        bps::project::TrainingSettings training = document.project().training;
        training.epochs = 8;
        training.batch_size = 8;
        training.optimizer.learning_rate = 0.05f;
        QVERIFY(!document.set_training(training));
        QVERIFY2(document.report().ok(), document.report().ok() ? "" : document.report().problems[0].message.c_str());

        const std::filesystem::path file = dir.filePath("stripes.json").toStdString();
        const QString failure = bps::ui::save_project_file(document, file);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        QVERIFY(!document.is_modified());

        QProcess train;
        train.setProcessChannelMode(QProcess::MergedChannels);
        train.start(BACKPROP_CLI,
                    {"train", QString::fromStdString(file.string()), "--save-weights", dir.filePath("stripes.h5")});
        // Bounded: a run of a few seconds; past the bound the test fails with what it printed.
        const bool finished = train.waitForFinished(540'000);
        const QString output = QString::fromLocal8Bit(train.readAll());
        QVERIFY2(finished, qPrintable("backprop train did not finish:\n" + output));
        QVERIFY2(train.exitStatus() == QProcess::NormalExit && train.exitCode() == 0, qPrintable(output));
        QVERIFY2(output.contains("48 training, 16 validation, 0 test images"), qPrintable(output));
        QVERIFY2(output.contains("epoch 8/8"), qPrintable(output));
        QVERIFY(QFileInfo::exists(dir.filePath("stripes.h5")));
    }
};

BACKPROP_QT_TEST(EditorFileTrainsTest)
#include "test_editor_file_trains.moc"
