// The Datasets tab under the offscreen platform: the catalogue table with each state's text,
// the sample browser over a tiny IDX dataset the test writes, and downloads from file:// URLs.
#include <QApplication>
#include <QLabel>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrl>
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/gui/dataset_download.h"
#include "app/gui/dataset_loading.h"
#include "datasets/catalogue.h"
#include "datasets/download.h"
#include "tests/ui/qt_test_class.h"
#include "ui/datasets/dataset_list_model.h"
#include "ui/datasets/dataset_panel.h"
#include "ui/devices/comparison_panel.h"
#include "ui/inside/inside_panel.h"
#include "ui/main_window/main_window.h"
#include "ui/results/results_panel.h"
#include "ui/try_it/try_it_panel.h"

namespace fs = std::filesystem;
using bps::datasets::CatalogueEntry;
using bps::datasets::RemoteFile;
using bps::ui::DatasetListModel;

namespace {

const std::vector<std::string> idx_names = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                                            "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};
const std::vector<std::string> shape_names = {"circle", "square"};
constexpr int side = 4;

void write_file(const fs::path& file, const std::vector<std::uint8_t>& bytes) {
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void append_u32(std::vector<std::uint8_t>& bytes, std::uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<std::uint8_t>(value >> shift));
}

// Uncompressed IDX: the reader tells gzip by its magic bytes, not by the name.
std::vector<std::uint8_t> idx_images(const std::vector<std::vector<std::uint8_t>>& images) {
    std::vector<std::uint8_t> bytes = {0, 0, 0x08, 3};
    append_u32(bytes, static_cast<std::uint32_t>(images.size()));
    append_u32(bytes, side);
    append_u32(bytes, side);
    for (const auto& image : images) bytes.insert(bytes.end(), image.begin(), image.end());
    return bytes;
}

std::vector<std::uint8_t> idx_labels(const std::vector<std::uint8_t>& labels) {
    std::vector<std::uint8_t> bytes = {0, 0, 0x08, 1};
    append_u32(bytes, static_cast<std::uint32_t>(labels.size()));
    bytes.insert(bytes.end(), labels.begin(), labels.end());
    return bytes;
}

struct TinyIdx {
    CatalogueEntry entry;
    std::vector<std::vector<std::uint8_t>> train_images;
    std::vector<std::uint8_t> train_labels;
};

// A ready IDX dataset in root/id: 4x4 images whose pixels differ from image to image, 2 classes.
TinyIdx write_tiny_idx(const fs::path& root, const std::string& id, std::size_t train_count, std::size_t test_count) {
    TinyIdx tiny;
    std::vector<std::vector<std::uint8_t>> test_images;
    std::vector<std::uint8_t> test_labels;
    for (std::size_t i = 0; i < train_count + test_count; ++i) {
        std::vector<std::uint8_t> image;
        for (std::size_t p = 0; p < side * side; ++p)
            image.push_back(static_cast<std::uint8_t>((7 + i * 16 + p * 3) % 256));
        const auto label = static_cast<std::uint8_t>((i / 2 + i) % 2);  // 0 1 1 0 0 1 ...
        (i < train_count ? tiny.train_images : test_images).push_back(image);
        (i < train_count ? tiny.train_labels : test_labels).push_back(label);
    }
    const fs::path folder = root / id;
    write_file(folder / idx_names[0], idx_images(tiny.train_images));
    write_file(folder / idx_names[1], idx_labels(tiny.train_labels));
    write_file(folder / idx_names[2], idx_images(test_images));
    write_file(folder / idx_names[3], idx_labels(test_labels));

    CatalogueEntry& entry = tiny.entry;
    entry.id = id;
    entry.title = "Tiny shapes " + id;
    entry.description = "4x4 test images";
    entry.shape = {1, side, side};
    entry.train_count = train_count;
    entry.test_count = test_count;
    entry.class_names = shape_names;
    entry.class_count = shape_names.size();
    entry.data_files = idx_names;
    for (const std::string& name : idx_names)
        entry.downloads.push_back({name, "file:///nowhere/" + name, fs::file_size(folder / name),
                                   bps::datasets::sha256_of_file(folder / name)});
    return tiny;
}

// Fashion-MNIST's sizes, nothing on disk.
CatalogueEntry absent_entry(const std::string& id) {
    CatalogueEntry entry;
    entry.id = id;
    entry.title = "Absent " + id;
    entry.shape = {1, 28, 28};
    entry.train_count = 60000;
    entry.test_count = 10000;
    entry.class_count = 10;
    const std::uint64_t sizes[4] = {26421880, 29515, 4422102, 5148};  // 30878645 bytes
    for (int i = 0; i < 4; ++i) entry.downloads.push_back({idx_names[static_cast<std::size_t>(i)], "", sizes[i], ""});
    entry.data_files = idx_names;
    return entry;
}

// Bytes that do not repeat in any short period, so a wrong offset changes the checksum.
std::vector<std::uint8_t> varied_bytes(std::size_t count) {
    std::vector<std::uint8_t> bytes(count);
    std::uint32_t state = 2463534242u;
    for (std::uint8_t& byte : bytes) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        byte = static_cast<std::uint8_t>(state >> 24);
    }
    return bytes;
}

// One downloadable file served from the test's own folder.
CatalogueEntry file_url_entry(const std::string& id, const fs::path& source, std::uint64_t size, std::string sha256) {
    CatalogueEntry entry;
    entry.id = id;
    entry.title = "Blob " + id;
    entry.shape = {1, 2, 2};
    const std::string url = QUrl::fromLocalFile(QString::fromStdString(source.string())).toString().toStdString();
    entry.downloads.push_back({source.filename().string(), url, size, std::move(sha256)});
    entry.data_files = {source.filename().string()};
    return entry;
}

QString cell(const QAbstractItemModel* model, int row, int column) {
    return model->index(row, column).data().toString();
}

QList<QLabel*> labels_by_index(const QWidget* parent, const char* name) {
    QList<QLabel*> labels = parent->findChildren<QLabel*>(name);
    std::sort(labels.begin(), labels.end(), [](const QLabel* a, const QLabel* b) {
        return a->property("sampleIndex").toULongLong() < b->property("sampleIndex").toULongLong();
    });
    return labels;
}

}  // namespace

class DatasetPanelTest : public QObject {
    Q_OBJECT

    QTemporaryDir scratch_;
    fs::path root() const { return fs::path(scratch_.path().toStdString()) / "data"; }

private slots:
    void initTestCase() {
        QVERIFY(scratch_.isValid());
        qunsetenv("BACKPROP_DATASET_MIRROR");  // the tests' own file:// URLs must be used
    }

    void theModelDescribesEveryState() {
        const TinyIdx tiny = write_tiny_idx(root(), "tiny", 6, 3);
        CatalogueEntry partial = absent_entry("partial");
        write_file(root() / "partial" / (idx_names[0] + ".part"), std::vector<std::uint8_t>(1'200'000, 0x5a));
        CatalogueEntry packed;
        packed.id = "packed";
        packed.title = "Packed";
        packed.format = bps::datasets::DatasetFormat::cifar10;
        packed.shape = {3, 32, 32};
        packed.train_count = 50000;
        packed.test_count = 10000;
        packed.class_count = 10;
        packed.downloads = {{"packed.tar.gz", "", 1500, ""}};
        packed.data_files = {"packed-bin/data.bin"};
        write_file(root() / "packed" / "packed.tar.gz", std::vector<std::uint8_t>(1500, 0x11));

        const DatasetListModel model({absent_entry("absent"), tiny.entry, partial, packed}, root());
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.columnCount(), static_cast<int>(DatasetListModel::ColumnCount));
        QCOMPARE(cell(&model, 0, DatasetListModel::Title), QString("Absent absent"));
        QCOMPARE(cell(&model, 0, DatasetListModel::Images), QString("60000 + 10000"));
        QCOMPARE(cell(&model, 0, DatasetListModel::ImageSize), QString("1x28x28"));
        QCOMPARE(cell(&model, 0, DatasetListModel::Classes), QString("10"));
        QCOMPARE(cell(&model, 0, DatasetListModel::State), QString("Not downloaded (30.9 MB)"));

        QCOMPARE(cell(&model, 1, DatasetListModel::Title), QString("Tiny shapes tiny"));
        QCOMPARE(cell(&model, 1, DatasetListModel::Images), QString("6 + 3"));
        QCOMPARE(cell(&model, 1, DatasetListModel::ImageSize), QString("1x4x4"));
        QCOMPARE(cell(&model, 1, DatasetListModel::Classes), QString("2"));
        QCOMPARE(cell(&model, 1, DatasetListModel::State), QString("Ready"));

        QCOMPARE(cell(&model, 2, DatasetListModel::State), QString("Partly downloaded (1.2 of 30.9 MB)"));
        QCOMPARE(cell(&model, 3, DatasetListModel::ImageSize), QString("3x32x32"));
        QCOMPARE(cell(&model, 3, DatasetListModel::State), QString("Downloaded, unpacked on first use"));
        QCOMPARE(model.headerData(DatasetListModel::Title, Qt::Horizontal).toString(), QString("Dataset"));
    }

    void refreshSeesFilesThatArrived() {
        const fs::path elsewhere = root() / "staging";
        const TinyIdx staged = write_tiny_idx(elsewhere, "late", 2, 1);
        DatasetListModel model({staged.entry}, root());
        QVERIFY(cell(&model, 0, DatasetListModel::State).startsWith("Not downloaded"));
        fs::rename(elsewhere / "late", root() / "late");
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.refresh();
        QCOMPARE(changed.count(), 1);
        QCOMPARE(cell(&model, 0, DatasetListModel::State), QString("Ready"));
    }

    void theButtonsFollowTheSelectionAndDownloadIsOnlyRequested() {
        const TinyIdx tiny = write_tiny_idx(root(), "buttons", 6, 3);
        bps::ui::DatasetPanel panel({absent_entry("absent"), tiny.entry}, root());
        QSignalSpy requested(&panel, &bps::ui::DatasetPanel::downloadRequested);
        panel.select_row(1);
        QVERIFY(!panel.download_button()->isEnabled());
        QVERIFY(panel.show_samples_button()->isEnabled());
        panel.select_row(0);
        QVERIFY(panel.download_button()->isEnabled());
        QVERIFY(!panel.show_samples_button()->isEnabled());
        panel.download_button()->click();
        QCOMPARE(requested.count(), 1);
        QCOMPARE(requested.front().front().toInt(), 0);
        QVERIFY(!fs::exists(root() / "absent"));  // the panel never downloads
    }

    void showSamplesDrawsEveryTrainingImageWithItsClass() {
        const TinyIdx tiny = write_tiny_idx(root(), "samples", 6, 3);
        bps::ui::DatasetPanel panel({absent_entry("absent"), tiny.entry}, root());
        bps::app::connect_sample_loading(&panel);  // as the studio's main() does
        panel.resize(900, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.select_row(1);
        QSignalSpy shown(&panel, &bps::ui::DatasetPanel::samplesShown);
        QTest::mouseClick(panel.show_samples_button(), Qt::LeftButton);
        QVERIFY(panel.sample_status()->text().startsWith("Loading"));
        QVERIFY(!panel.show_samples_button()->isEnabled());
        QVERIFY(shown.wait(10000));
        QCOMPARE(shown.front().front().toInt(), 1);

        const QList<QLabel*> images = labels_by_index(&panel, "sampleImage");
        const QList<QLabel*> captions = labels_by_index(&panel, "sampleCaption");
        QCOMPARE(images.size(), 6);
        QCOMPARE(captions.size(), 6);
        const int scale = bps::ui::DatasetPanel::thumbnail_scale;
        for (int i = 0; i < 6; ++i) {
            const auto sample = static_cast<std::size_t>(i);
            QCOMPARE(images[i]->property("sampleIndex").toULongLong(), static_cast<qulonglong>(i));
            QVERIFY(images[i]->isVisible());
            QCOMPARE(captions[i]->text(), QString::fromStdString(shape_names[tiny.train_labels[sample]]));
            const QImage image = images[i]->pixmap().toImage();
            QCOMPARE(image.size(), QSize(side * scale, side * scale));
            for (int y = 0; y < side; ++y)
                for (int x = 0; x < side; ++x) {
                    const int expected = tiny.train_images[sample][static_cast<std::size_t>(y * side + x)];
                    // Every pixel of the 3x3 block, corners included: nearest neighbour, no blur.
                    QCOMPARE(qGray(image.pixel(x * scale, y * scale)), expected);
                    QCOMPARE(qGray(image.pixel(x * scale + scale - 1, y * scale + scale - 1)), expected);
                }
        }
        QVERIFY(panel.sample_status()->text().contains("1–6 of 6"));
        QVERIFY(panel.show_samples_button()->isEnabled());
        QVERIFY(!panel.next_page_button()->isEnabled());
    }

    void thePanelOnlyAsksForSamplesAndShowsTheAnswer() {
        const TinyIdx tiny = write_tiny_idx(root(), "asked", 3, 1);
        bps::ui::DatasetPanel panel({tiny.entry}, root());  // no loader: nothing loads by itself
        QSignalSpy requested(&panel, &bps::ui::DatasetPanel::samplesRequested);
        QSignalSpy shown(&panel, &bps::ui::DatasetPanel::samplesShown);
        panel.show_samples();
        QCOMPARE(requested.count(), 1);
        QCOMPARE(requested.front().front().toInt(), 0);
        QVERIFY(panel.sample_status()->text().startsWith("Loading"));
        panel.show_samples();  // still waiting: not asked twice
        QCOMPARE(requested.count(), 1);
        QCoreApplication::processEvents();
        QCOMPARE(shown.count(), 0);

        const auto dataset =
            std::make_shared<const bps::datasets::Dataset>(bps::datasets::load_dataset(tiny.entry, root()).train);
        panel.show_loaded_samples(0, dataset);
        QCOMPARE(shown.count(), 1);
        QCOMPARE(panel.findChildren<QLabel*>("sampleImage").size(), 3);
        QVERIFY(panel.sample_status()->text().contains("1–3 of 3"));
        panel.show_load_failed("a late answer nobody asked for");  // ignored
        QVERIFY(panel.sample_status()->text().contains("1–3 of 3"));
    }

    void destroyingThePanelWhileItLoadsDoesNotWait() {
        const TinyIdx tiny = write_tiny_idx(root(), "abandoned", 6, 3);
        auto* panel = new bps::ui::DatasetPanel({tiny.entry}, root());
        const bps::app::DatasetLoading* loading = bps::app::connect_sample_loading(panel);
        panel->show_samples();
        QVERIFY(loading->running());
        delete panel;  // the loader goes with it; its job ends on its own thread
    }

    void pagesOfThirtyTwo() {
        const TinyIdx tiny = write_tiny_idx(root(), "paged", 35, 2);
        bps::ui::DatasetPanel panel({tiny.entry}, root());
        bps::app::connect_sample_loading(&panel);
        QSignalSpy shown(&panel, &bps::ui::DatasetPanel::samplesShown);
        panel.show_samples();
        QVERIFY(shown.wait(10000));
        QCOMPARE(panel.findChildren<QLabel*>("sampleImage").size(), 32);
        QCOMPARE(panel.page_box()->maximum(), 2);
        QVERIFY(panel.next_page_button()->isEnabled());
        panel.next_page_button()->click();
        QCOMPARE(shown.count(), 2);
        QCOMPARE(shown.back().front().toInt(), 2);
        const QList<QLabel*> captions = labels_by_index(&panel, "sampleCaption");
        QCOMPARE(captions.size(), 3);
        for (int i = 0; i < 3; ++i) {
            const std::size_t sample = 32 + static_cast<std::size_t>(i);
            QCOMPARE(captions[i]->property("sampleIndex").toULongLong(), static_cast<qulonglong>(sample));
            QCOMPARE(captions[i]->text(), QString::fromStdString(shape_names[tiny.train_labels[sample]]));
        }
        QVERIFY(!panel.next_page_button()->isEnabled());
        QVERIFY(panel.sample_status()->text().contains("33–35 of 35"));
    }

    void aDamagedFileIsReportedInsteadOfSamples() {
        TinyIdx tiny = write_tiny_idx(root(), "damaged", 6, 3);
        tiny.entry.downloads[1].sha256 = std::string(64, 'a');  // the file on disk no longer matches
        bps::ui::DatasetPanel panel({tiny.entry}, root());
        bps::app::connect_sample_loading(&panel);
        QSignalSpy failed(&panel, &bps::ui::DatasetPanel::samplesFailed);
        panel.show_samples();
        QVERIFY(failed.wait(10000));
        const QString expected = QString::fromStdString((root() / "damaged" / idx_names[1]).string()) +
                                 ": does not match the catalogue's size and SHA-256";
        QVERIFY2(failed.front().front().toString().startsWith(expected), qPrintable(failed.front().front().toString()));
        QVERIFY(panel.sample_status()->text().contains(expected));
        QVERIFY(panel.findChildren<QLabel*>("sampleImage").isEmpty());
    }

    void aDownloadFromAFileUrlArrivesVerified() {
        const fs::path source = root() / "served" / "blob.bin";
        write_file(source, varied_bytes(300'000));
        const CatalogueEntry entry =
            file_url_entry("blob", source, fs::file_size(source), bps::datasets::sha256_of_file(source));
        bps::app::DatasetDownload download(entry, root());
        QSignalSpy progress(&download, &bps::app::DatasetDownload::progress);
        QSignalSpy finished(&download, &bps::app::DatasetDownload::finished);
        download.start();
        QVERIFY(download.running());
        QVERIFY(finished.wait(10000));
        QVERIFY2(finished.front()[0].toBool(), qPrintable(finished.front()[1].toString()));
        QVERIFY(finished.front()[1].toString().contains(QString::fromStdString((root() / "blob").string())));
        QVERIFY(!download.running());
        const fs::path arrived = root() / "blob" / "blob.bin";
        QVERIFY(fs::exists(arrived));
        QCOMPARE(bps::datasets::sha256_of_file(arrived), entry.downloads[0].sha256);
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.back()[0].toString(), QString("blob.bin"));
        QCOMPARE(progress.back()[1].toLongLong(), static_cast<qint64>(300'000));
        QCOMPARE(progress.back()[2].toLongLong(), static_cast<qint64>(300'000));
        QCOMPARE(finished.count(), 1);
    }

    void aMissingSourceFileFailsWithTheReason() {
        const fs::path source = root() / "served" / "no-such-file.bin";
        const CatalogueEntry entry = file_url_entry("missing-source", source, 1000, std::string(64, '0'));
        bps::app::DatasetDownload download(entry, root());
        QSignalSpy finished(&download, &bps::app::DatasetDownload::finished);
        download.start();
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.front()[0].toBool(), false);
        QVERIFY2(finished.front()[1].toString().contains("could not download"),
                 qPrintable(finished.front()[1].toString()));
        QVERIFY(!fs::exists(root() / "missing-source" / "no-such-file.bin"));
    }

    void cancelStopsAndKeepsThePartFile() {
        const fs::path source = root() / "served" / "big.bin";
        // Large enough that copying it takes far longer than the one queued signal cancel() waits for.
        write_file(source, varied_bytes(50'000'000));
        const CatalogueEntry entry =
            file_url_entry("big", source, fs::file_size(source), bps::datasets::sha256_of_file(source));
        bps::app::DatasetDownload download(entry, root());
        QSignalSpy progress(&download, &bps::app::DatasetDownload::progress);
        QSignalSpy finished(&download, &bps::app::DatasetDownload::finished);
        download.start();
        QVERIFY(progress.wait(10000));
        download.cancel();
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.count(), 1);
        const fs::path final_file = root() / "big" / "big.bin";
        QVERIFY2(!finished.front()[0].toBool(), "the download finished although it was cancelled");
        QVERIFY2(finished.front()[1].toString().contains("stopped"), qPrintable(finished.front()[1].toString()));
        QVERIFY(!fs::exists(final_file));
        QVERIFY(fs::exists(root() / "big" / "big.bin.part"));
        QVERIFY(fs::file_size(root() / "big" / "big.bin.part") < 50'000'000);
    }

    void theDialogReturnsTheOutcomeAndTheBoxShowsIt() {
        const fs::path source = root() / "served" / "dialog.bin";
        write_file(source, varied_bytes(100'000));
        const CatalogueEntry entry =
            file_url_entry("dialog", source, fs::file_size(source), bps::datasets::sha256_of_file(source));
        const bps::app::DownloadOutcome outcome = bps::app::run_download_dialog(nullptr, entry, root());
        QVERIFY2(outcome.ok, qPrintable(outcome.message));
        QVERIFY(fs::exists(root() / "dialog" / "dialog.bin"));
        for (QWidget* widget : QApplication::topLevelWidgets())
            QVERIFY(!qobject_cast<QProgressDialog*>(widget) || !widget->isVisible());

        // The warning shows the whole message; the test closes it as the learner would.
        QString shown_text;
        QMessageBox::Icon shown_icon = QMessageBox::NoIcon;
        QTimer closer;
        QObject::connect(&closer, &QTimer::timeout, [&] {
            for (QWidget* widget : QApplication::topLevelWidgets()) {
                auto* box = qobject_cast<QMessageBox*>(widget);
                if (!box || box->objectName() != "downloadOutcome" || !box->isVisible()) continue;
                shown_text = box->text();
                shown_icon = box->icon();
                box->accept();
            }
        });
        closer.start(10);
        bps::app::show_download_outcome(nullptr, entry, {false, "blob.bin: could not download file:///x: gone"});
        closer.stop();
        QCOMPARE(shown_icon, QMessageBox::Warning);
        QCOMPARE(shown_text, QString("Blob dialog: blob.bin: could not download file:///x: gone"));
    }

    void theMainWindowHasADatasetsTabAfterDevices() {
        bps::ui::StartupFacts facts;
        facts.device_problem = "no devices in this test";
        facts.dataset_catalogue = {absent_entry("absent")};
        facts.data_root = root();
        bps::ui::MainWindow window(std::move(facts));
        // The network editor comes first, its training next, what a run got wrong, the network on
        // the learner's images and what it learned inside, then Devices with their comparison, and
        // Datasets.
        QCOMPARE(window.panels()->tabText(0), QString("Network"));
        QCOMPARE(window.panels()->tabText(1), QString("Training"));
        QCOMPARE(window.panels()->tabText(2), QString("Results"));
        QCOMPARE(window.panels()->widget(2), static_cast<QWidget*>(window.results_panel()));
        QCOMPARE(window.panels()->tabText(3), QString("Try It"));
        QCOMPARE(window.panels()->widget(3), static_cast<QWidget*>(window.try_it_panel()));
        QCOMPARE(window.panels()->tabText(4), QString("Inside"));
        QCOMPARE(window.panels()->widget(4), static_cast<QWidget*>(window.inside_panel()));
        QCOMPARE(window.panels()->tabText(5), QString("Devices"));
        QCOMPARE(window.panels()->tabText(6), QString("Compare Devices"));
        QCOMPARE(window.panels()->widget(6), static_cast<QWidget*>(window.comparison_panel()));
        QCOMPARE(window.panels()->tabText(7), QString("Datasets"));
        QCOMPARE(window.panels()->widget(7), static_cast<QWidget*>(window.dataset_panel()));
        QCOMPARE(window.dataset_panel()->model()->rowCount(), 1);
    }
};

BACKPROP_QT_TEST(DatasetPanelTest)
#include "test_dataset_panel.moc"
