#include "ui/devices/comparison_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/base/number_text.h"
#include "ui/devices/comparison_charts.h"
#include "ui/dialog_folder.h"

namespace bps::ui {

namespace {

constexpr int progress_steps = 1000;
constexpr int settings_width = 290;
const QColor wrong_results_colour(190, 30, 30);

QString self_test_text(device::SelfTestState state) {
    switch (state) {
        case device::SelfTestState::passed:
            return QObject::tr("passed");
        case device::SelfTestState::wrong_results:
            return QObject::tr("WRONG RESULTS");
        case device::SelfTestState::not_run:
            break;
    }
    return QObject::tr("not run yet");
}

QString whole(double value) {
    return value > 0 && std::isfinite(value) ? QLocale().toString(std::llround(value)) : QStringLiteral("–");
}
QString decimal(double value, int decimals) {
    return value > 0 && std::isfinite(value) ? QLocale().toString(value, 'f', decimals) : QStringLiteral("–");
}
QString seconds(const std::optional<double>& value) {
    return value ? QLocale().toString(*value, 'f', 2) + QStringLiteral(" s") : QStringLiteral("–");
}
QString percent(const std::optional<double>& fraction) {
    return fraction ? QLocale().toString(*fraction * 100, 'f', 1) + QStringLiteral(" %") : QStringLiteral("–");
}

// "0: pthread-cpu" over "CPU · 2 units · 6.1 GiB · self-test passed".
QString device_item_text(const device::DeviceDescription& device) {
    const std::string_view kind = device::kind_name(device.kind);
    return QStringLiteral("%1: %2\n%3 · %4 units · %5 · self-test %6")
        .arg(QString::number(device.index), QString::fromStdString(device.name),
             QString::fromUtf8(kind.data(), static_cast<qsizetype>(kind.size())), QString::number(device.compute_units),
             QString::fromStdString(session::format_bytes(device.global_memory_bytes)),
             self_test_text(device.self_test));
}

// How far apart the loss curves of the devices are, step for step: 0 where they compute the same
// thing, the size of float rounding where they differ. Nullopt with fewer than two curves.
std::optional<double> curves_agree_within(const std::vector<bench::DeviceComparison>& devices) {
    const std::vector<double>* first = nullptr;
    std::optional<double> largest;
    for (const bench::DeviceComparison& device : devices) {
        if (device.losses.empty()) continue;
        if (!first) {
            first = &device.losses;
            continue;
        }
        double difference = 0;
        for (std::size_t i = 0; i < std::min(first->size(), device.losses.size()); ++i)
            difference = std::max(difference, std::abs((*first)[i] - device.losses[i]));
        largest = std::max(largest.value_or(0), difference);
    }
    return largest;
}

QString problem_text(const bench::DeviceComparison& result) {
    if (!result.error.empty()) return QString::fromStdString(result.error);
    if (result.cancelled) return QObject::tr("cancelled");
    if (!result.start_error.empty())
        return QObject::tr("first batch not timed: %1").arg(QString::fromStdString(result.start_error));
    return {};
}

}  // namespace

ComparisonPanel::ComparisonPanel(std::vector<device::DeviceDescription> devices, QWidget* parent)
    : QWidget(parent),
      devices_(new QListWidget(this)),
      network_(new QComboBox(this)),
      batch_size_(new QSpinBox(this)),
      curve_batches_(new QSpinBox(this)),
      device_figures_(new QCheckBox(tr("Device figures (bandwidth, SGEMM, launch)"), this)),
      first_batch_(new QCheckBox(tr("Cold and warm start"), this)),
      compare_(new QPushButton(tr("Compare"), this)),
      cancel_(new QPushButton(tr("Cancel"), this)),
      progress_(new QProgressBar(this)),
      status_(new QLabel(this)),
      history_(new QComboBox(this)),
      heading_(new QLabel(this)),
      export_(new QPushButton(tr("Export CSV…"), this)),
      table_(new QTableWidget(0, column_count, this)),
      charts_(new ComparisonCharts(this)) {
    setObjectName("comparisonPanel");
    listed_ = devices;
    ask_csv_path = [this] {
        return QFileDialog::getSaveFileName(this, tr("Export Device Comparisons"),
                                            in_dialog_folder(this, tr("device-comparisons.csv")),
                                            tr("CSV files (*.csv)"));
    };

    // ---- the choices, at the left
    auto* settings = new QWidget(this);
    settings->setFixedWidth(settings_width);
    auto* left = new QVBoxLayout(settings);
    left->setContentsMargins(0, 0, 0, 0);
    left->addWidget(new QLabel(tr("<b>Devices to compare</b>"), settings));
    devices_->setObjectName("comparisonDevices");
    devices_->setWordWrap(true);
    for (const device::DeviceDescription& device : devices) {
        auto* item = new QListWidgetItem(devices_);
        item->setText(device_item_text(device));
        item->setData(Qt::UserRole, static_cast<qulonglong>(device.index));
        QString tip = QString::fromStdString(device.platform_name + " " + device.platform_version + ", driver " +
                                             device.driver_version);
        if (!device.self_test_summary.empty())
            tip += QStringLiteral("\n") + tr("Self-test: %1").arg(QString::fromStdString(device.self_test_summary));
        if (!device.skipped.empty()) {
            // A device the start-up crash guard skips stays out until the Devices tab takes it back.
            item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
            tip += QStringLiteral("\n") + QString::fromStdString(device.skipped);
        }
        item->setToolTip(tip);
        if (device.self_test == device::SelfTestState::wrong_results) item->setForeground(wrong_results_colour);
        // Ticked by default: every device that can be used and computes right.
        const bool tick = device.skipped.empty() && device.self_test != device::SelfTestState::wrong_results;
        item->setCheckState(tick ? Qt::Checked : Qt::Unchecked);
    }
    left->addWidget(devices_, 1);

    auto* form = new QFormLayout;
    network_->setObjectName("comparisonNetwork");
    network_->addItem(tr("The current project"), QString::fromLatin1(current_project));
    network_->addItem(tr("Reference MLP (mlp)"), QStringLiteral("mlp"));
    network_->addItem(tr("Reference CNN (cnn)"), QStringLiteral("cnn"));
    network_->addItem(tr("Reference CIFAR CNN (cifar)"), QStringLiteral("cifar"));
    form->addRow(tr("Network:"), network_);
    batch_size_->setRange(1, 4096);
    batch_size_->setValue(64);
    form->addRow(tr("Batch size:"), batch_size_);
    curve_batches_->setRange(1, 100000);
    curve_batches_->setValue(50);
    curve_batches_->setToolTip(tr("How many batches each device trains for the loss curve"));
    form->addRow(tr("Loss curve batches:"), curve_batches_);
    left->addLayout(form);
    device_figures_->setChecked(true);
    first_batch_->setChecked(true);
    first_batch_->setToolTip(
        tr("Starts the backprop command line twice per device, with empty and with filled kernel caches, and "
           "times each start to its first trained batch. A cold start can take half a minute on a CPU."));
    left->addWidget(device_figures_);
    left->addWidget(first_batch_);
    auto* buttons = new QHBoxLayout;
    compare_->setObjectName("compareButton");
    compare_->setDefault(true);
    cancel_->setObjectName("cancelComparisonButton");
    buttons->addWidget(compare_);
    buttons->addWidget(cancel_);
    left->addLayout(buttons);
    progress_->setObjectName("comparisonProgress");
    progress_->setRange(0, progress_steps);
    left->addWidget(progress_);
    status_->setObjectName("comparisonStatus");
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    left->addWidget(status_);

    // ---- the results, at the right
    auto* results = new QWidget(this);
    auto* right = new QVBoxLayout(results);
    right->setContentsMargins(0, 0, 0, 0);
    auto* history_row = new QHBoxLayout;
    history_->setObjectName("comparisonHistory");
    history_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    history_row->addWidget(new QLabel(tr("<b>Results</b>"), results));
    history_row->addWidget(history_, 1);
    export_->setObjectName("exportComparisonsButton");
    export_->setToolTip(tr("Saves every kept comparison as CSV, one row per device"));
    history_row->addWidget(export_);
    right->addLayout(history_row);
    heading_->setObjectName("comparisonHeading");
    heading_->setWordWrap(true);
    heading_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    right->addWidget(heading_);
    table_->setObjectName("comparisonTable");
    table_->setHorizontalHeaderLabels({tr("Device"), tr("Driver"), tr("Self-test"), tr("Images/s"), tr("Step"),
                                       tr("First batch, cold"), tr("warm"), tr("Copy GB/s"), tr("SGEMM GFLOP/s"),
                                       tr("Step GB/s"), tr("Step GFLOP/s"), tr("Of SGEMM rate"), tr("Of bandwidth"),
                                       tr("Memory"), tr("Kernels + GEMMs"), tr("Last loss"), tr("Problem")});
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    auto* splitter = new QSplitter(Qt::Vertical, results);
    splitter->addWidget(table_);
    splitter->addWidget(charts_);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 3);
    right->addWidget(splitter, 1);

    auto* layout = new QHBoxLayout(this);
    layout->addWidget(settings);
    layout->addWidget(results, 1);

    connect(compare_, &QPushButton::clicked, this, [this] {
        if (!running_) emit compareRequested(request());
    });
    connect(cancel_, &QPushButton::clicked, this, [this] {
        if (!running_) return;
        cancel_->setEnabled(false);
        status_->setText(tr("Cancelling after the current step…"));
        emit cancelRequested();
    });
    connect(devices_, &QListWidget::itemChanged, this, &ComparisonPanel::update_compare_button);
    connect(history_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int row) {
        if (!running_ && row >= 0) show_record(history_->itemData(row).toInt());
    });
    connect(export_, &QPushButton::clicked, this, &ComparisonPanel::export_csv);
    set_running(false);
    set_history({}, -1);
    if (devices.empty()) status_->setText(tr("No OpenCL device was found: the Devices tab says why."));
}

ComparisonRequest ComparisonPanel::request() const {
    ComparisonRequest request;
    for (int row = 0; row < devices_->count(); ++row) {
        const QListWidgetItem* item = devices_->item(row);
        if (item->checkState() == Qt::Checked && (item->flags() & Qt::ItemIsEnabled))
            request.devices.push_back(static_cast<std::size_t>(item->data(Qt::UserRole).toULongLong()));
    }
    request.network = network_->currentData().toString();
    request.batch_size = batch_size_->value();
    request.curve_batches = curve_batches_->value();
    request.device_figures = device_figures_->isChecked();
    request.first_batch = first_batch_->isChecked();
    return request;
}

void ComparisonPanel::update_compare_button() {
    compare_->setEnabled(!running_ && !request().devices.empty());
    compare_->setToolTip(request().devices.empty() ? tr("Tick at least one device") : QString());
}

void ComparisonPanel::set_running(bool running) {
    running_ = running;
    for (QWidget* choice : std::initializer_list<QWidget*>{devices_, network_, batch_size_, curve_batches_,
                                                           device_figures_, first_batch_, history_, export_})
        choice->setEnabled(!running);
    cancel_->setEnabled(running);
    progress_->setVisible(running);
    update_compare_button();
    if (!running) return;
    progress_->setValue(0);
    live_.clear();
    status_->setText(tr("Starting…"));
    const ComparisonRequest asked = request();
    heading_->setText(
        tr("Comparing %1, batch size %2, on %3…")
            .arg(asked.network == QLatin1String(current_project) ? tr("the current project") : asked.network)
            .arg(asked.batch_size)
            .arg(QString::fromStdString(session::format_count(asked.devices.size(), "device"))));
    show_devices(live_);
}

void ComparisonPanel::show_progress(const bench::ComparisonProgress& progress) {
    progress_->setValue(static_cast<int>(std::lround(std::clamp(progress.fraction, 0.0, 1.0) * progress_steps)));
    status_->setText(tr("Device %1 of %2 (%3): %4")
                         .arg(progress.device_position + 1)
                         .arg(progress.device_count)
                         .arg(QString::fromStdString(progress.device_name), QString::fromStdString(progress.activity)));
}

void ComparisonPanel::add_device_result(const bench::DeviceComparison& result) {
    // The comparison runs a device's self-test when it had none: the list says how it went.
    for (int row = 0; row < devices_->count(); ++row) {
        QListWidgetItem* item = devices_->item(row);
        if (item->data(Qt::UserRole).toULongLong() != result.device.index || !result.error.empty()) continue;
        const QSignalBlocker quiet(devices_);
        item->setText(device_item_text(result.device));
        if (result.device.self_test == device::SelfTestState::wrong_results) item->setForeground(wrong_results_colour);
    }
    live_.push_back(result);
    show_devices(live_);
}

void ComparisonPanel::set_history(std::vector<bench::ComparisonRecord> records, int shown) {
    records_ = std::move(records);
    const QSignalBlocker quiet(history_);
    history_->clear();
    for (int i = static_cast<int>(records_.size()) - 1; i >= 0; --i)  // newest first
        history_->addItem(QString::fromStdString(records_[static_cast<std::size_t>(i)].title()), i);
    export_->setEnabled(!running_ && !records_.empty());
    if (records_.empty()) {
        heading_->setText(
            tr("Tick the devices to compare and press Compare: the same network trains on each, "
               "one after another."));
        show_devices({});
        return;
    }
    const int row = history_->findData(std::clamp(shown, 0, static_cast<int>(records_.size()) - 1));
    history_->setCurrentIndex(row);
    show_record(history_->itemData(row).toInt());
}

void ComparisonPanel::show_self_test(std::size_t device_index, const device::SelfTestResult& result) {
    if (!result.error.empty()) return;
    for (device::DeviceDescription& device : listed_) {
        if (device.index != device_index) continue;
        device.self_test = result.state();
        device.self_test_summary = result.summary();
        for (int row = 0; row < devices_->count(); ++row) {
            QListWidgetItem* item = devices_->item(row);
            if (item->data(Qt::UserRole).toULongLong() != device_index) continue;
            const QSignalBlocker quiet(devices_);
            item->setText(device_item_text(device));
            if (device.self_test == device::SelfTestState::wrong_results) item->setForeground(wrong_results_colour);
        }
    }
    if (running_)
        show_devices(live_);
    else if (!records_.empty())
        show_record(history_->currentData().toInt());
}

// A comparison that ran before the device's self-test kept "not run": the test that ran since,
// with the same driver, says more.
device::SelfTestState ComparisonPanel::latest_self_test(const device::DeviceDescription& compared) const {
    if (compared.self_test != device::SelfTestState::not_run) return compared.self_test;
    for (const device::DeviceDescription& device : listed_)
        if (device.index == compared.index && device.name == compared.name &&
            device.driver_version == compared.driver_version)
            return device.self_test;
    return compared.self_test;
}

void ComparisonPanel::show_message(const QString& text) {
    status_->setText(text);
}

void ComparisonPanel::show_record(int index) {
    if (index < 0 || index >= static_cast<int>(records_.size())) return;
    const bench::ComparisonRecord& record = records_[static_cast<std::size_t>(index)];
    QString heading = tr("%1: project %2, network %3, batch size %4, loss curve of %5 batches")
                          .arg(QString::fromStdString(record.date), QString::fromStdString(record.project),
                               QString::fromStdString(record.network))
                          .arg(record.batch_size)
                          .arg(record.curve_batches);
    if (const std::optional<double> apart = curves_agree_within(record.devices))
        heading +=
            *apart == 0
                ? tr(". The loss curves are identical on every device.")
                : tr(". The loss curves differ by at most %1 (float rounding).").arg(QString::number(*apart, 'g', 2));
    heading_->setText(heading);
    show_devices(record.devices);
}

void ComparisonPanel::show_devices(const std::vector<bench::DeviceComparison>& devices) {
    table_->setRowCount(static_cast<int>(devices.size()));
    for (int row = 0; row < static_cast<int>(devices.size()); ++row) {
        const bench::DeviceComparison& r = devices[static_cast<std::size_t>(row)];
        const QString cells[column_count] = {
            ComparisonCharts::device_label(r.device),
            QString::fromStdString(r.device.driver_version),
            self_test_text(latest_self_test(r.device)),
            whole(r.images_per_s),
            r.step_ms > 0 ? QString::fromStdString(session::format_milliseconds(r.step_ms)) : QStringLiteral("–"),
            seconds(r.cold_start_s),
            seconds(r.warm_start_s),
            decimal(r.copy_gb_per_s, 1),
            decimal(r.sgemm_gflops_per_s, 1),
            decimal(r.step_gb_per_s, 2),
            decimal(r.step_gflops_per_s, 2),
            percent(r.of_sgemm_peak),
            percent(r.of_bandwidth),
            r.device_bytes ? QString::fromStdString(session::format_bytes(r.device_bytes)) : QStringLiteral("–"),
            r.kernels_per_step ? QStringLiteral("%1 + %2").arg(r.kernels_per_step).arg(r.gemms_per_step)
                               : QStringLiteral("–"),
            r.losses.empty() ? QStringLiteral("–") : QLocale().toString(r.losses.back(), 'f', 4),
            problem_text(r)};
        for (int column = 0; column < column_count; ++column) {
            auto* item = new QTableWidgetItem(cells[column]);
            if (column >= images_column && column < problem_column)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (column == self_test_column && r.device.self_test == device::SelfTestState::wrong_results) {
                item->setForeground(wrong_results_colour);
                item->setToolTip(QString::fromStdString(r.device.self_test_summary));
            }
            if (column == problem_column) item->setToolTip(cells[column]);
            table_->setItem(row, column, item);
        }
    }
    table_->resizeColumnsToContents();
    charts_->show_results(devices);
}

void ComparisonPanel::export_csv() {
    if (records_.empty()) return;
    const QString path = ask_csv_path ? ask_csv_path() : QString();
    if (path.isEmpty()) return;
    QSaveFile file(path);
    const std::string csv = bench::comparison_csv(records_);
    if (!file.open(QIODevice::WriteOnly) || file.write(csv.data(), static_cast<qint64>(csv.size())) < 0 ||
        !file.commit()) {
        status_->setText(tr("%1 could not be saved: %2").arg(path, file.errorString()));
        return;
    }
    status_->setText(
        tr("Saved %1 to %2").arg(QString::fromStdString(session::format_count(records_.size(), "comparison")), path));
}

}  // namespace bps::ui
