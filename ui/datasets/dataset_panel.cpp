#include "ui/datasets/dataset_panel.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImage>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPixmap>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/datasets/dataset_list_model.h"

namespace bps::ui {

namespace {

constexpr int grid_columns = 8;

// Dataset::pixels gives height x width x channels interleaved, which is QImage's layout.
QImage sample_image(const datasets::Dataset& dataset, std::size_t index) {
    const std::vector<std::uint8_t> pixels = dataset.pixels(index);
    const int width = dataset.shape.width, height = dataset.shape.height, channels = dataset.shape.channels;
    if (channels == 3) return QImage(pixels.data(), width, height, width * 3, QImage::Format_RGB888).copy();
    if (channels == 1) return QImage(pixels.data(), width, height, width, QImage::Format_Grayscale8).copy();
    // Any other channel count: show the first channel, which is better than nothing.
    QImage image(width, height, QImage::Format_Grayscale8);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            image.scanLine(y)[x] =
                pixels[(static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)) *
                       static_cast<std::size_t>(channels)];
    return image;
}

QString class_name(const datasets::Dataset& dataset, std::size_t index) {
    const auto label = static_cast<std::size_t>(dataset.labels[index]);
    if (label < dataset.class_names.size()) return QString::fromStdString(dataset.class_names[label]);
    return QString::number(label);
}

int page_count(const datasets::Dataset& dataset) {
    return std::max(
        1, static_cast<int>((dataset.size() + DatasetPanel::samples_per_page - 1) / DatasetPanel::samples_per_page));
}

}  // namespace

DatasetPanel::DatasetPanel(std::vector<datasets::CatalogueEntry> entries, std::filesystem::path user_root,
                           QWidget* parent)
    : QWidget(parent),
      model_(new DatasetListModel(std::move(entries), std::move(user_root), this)),
      table_(new QTableView(this)),
      details_(new QLabel(this)),
      download_(new QPushButton(tr("Download…"), this)),
      use_for_project_(new QPushButton(tr("Use for this project"), this)),
      refresh_(new QPushButton(tr("Refresh"), this)),
      show_samples_(new QPushButton(tr("Show samples"), this)),
      page_(new QSpinBox(this)),
      next_page_(new QPushButton(tr("Next page"), this)),
      sample_status_(new QLabel(this)),
      thumbnails_(new QWidget),
      grid_(new QGridLayout(thumbnails_)) {
    setObjectName("datasetPanel");
    table_->setObjectName("datasetTable");
    details_->setObjectName("datasetDetails");
    download_->setObjectName("downloadDataset");
    use_for_project_->setObjectName("useDatasetForProject");
    refresh_->setObjectName("refreshDatasets");
    show_samples_->setObjectName("showSamples");
    page_->setObjectName("samplePage");
    next_page_->setObjectName("nextSamplePage");
    sample_status_->setObjectName("sampleStatus");
    thumbnails_->setObjectName("sampleGrid");

    table_->setModel(model_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->resizeColumnsToContents();
    details_->setWordWrap(true);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    sample_status_->setWordWrap(true);
    sample_status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    sample_status_->setText(tr("Select a downloaded dataset and press Show samples to look at its training images."));
    page_->setPrefix(tr("Page "));
    page_->setRange(1, 1);
    grid_->setAlignment(Qt::AlignTop | Qt::AlignLeft);

    auto* catalogue = new QWidget(this);
    auto* catalogue_layout = new QVBoxLayout(catalogue);
    catalogue_layout->setContentsMargins(0, 0, 0, 0);
    catalogue_layout->addWidget(new QLabel(tr("<b>Datasets</b>"), catalogue));
    catalogue_layout->addWidget(table_, 1);
    catalogue_layout->addWidget(details_);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(download_);
    buttons->addWidget(refresh_);
    buttons->addWidget(use_for_project_);
    buttons->addStretch(1);
    buttons->addWidget(show_samples_);
    buttons->addWidget(page_);
    buttons->addWidget(next_page_);
    catalogue_layout->addLayout(buttons);

    auto* browser = new QWidget(this);
    auto* browser_layout = new QVBoxLayout(browser);
    browser_layout->setContentsMargins(0, 0, 0, 0);
    browser_layout->addWidget(sample_status_);
    auto* scroll = new QScrollArea(browser);
    scroll->setWidget(thumbnails_);
    scroll->setWidgetResizable(true);
    browser_layout->addWidget(scroll, 1);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(catalogue);
    splitter->addWidget(browser);
    splitter->setStretchFactor(0, 0);  // the catalogue is a handful of rows; the images get the room
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] { update_controls(); });
    connect(download_, &QPushButton::clicked, this, [this] {
        if (const int row = selected_row(); row >= 0) emit downloadRequested(row);
    });
    connect(use_for_project_, &QPushButton::clicked, this, [this] {
        if (const int row = selected_row(); row >= 0) emit useForProjectRequested(row);
    });
    connect(refresh_, &QPushButton::clicked, this, &DatasetPanel::refresh);
    connect(show_samples_, &QPushButton::clicked, this, &DatasetPanel::show_samples);
    connect(page_, &QSpinBox::valueChanged, this, [this](int page) {
        if (samples_ && !loading_) show_page(page);
    });
    connect(next_page_, &QPushButton::clicked, this, [this] { page_->setValue(page_->value() + 1); });
    if (model_->rowCount() > 0) select_row(0);
    update_controls();
}

int DatasetPanel::selected_row() const {
    const QModelIndexList rows = table_->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : rows.front().row();
}

void DatasetPanel::select_row(int row) {
    table_->selectRow(row);
}

void DatasetPanel::refresh() {
    model_->refresh();
    update_controls();
}

void DatasetPanel::update_controls() {
    const int row = selected_row();
    bool downloadable = false, loadable = false;
    if (row >= 0) {
        const datasets::CatalogueEntry& entry = model_->entry(row);
        const datasets::LocalState& state = model_->state(row);
        downloadable = state.availability != datasets::Availability::ready;
        // Loading unpacks a downloaded archive, so that is as good as ready here.
        loadable = state.availability == datasets::Availability::ready ||
                   state.availability == datasets::Availability::needs_unpacking;
        QString where = loadable ? tr("In %1.") : tr("Downloads into %1.");
        details_->setText(QString::fromStdString(entry.description) + ". " +
                          where.arg(QString::fromStdString(state.folder.string())));
    } else {
        details_->clear();
    }
    download_->setEnabled(downloadable);
    // A dataset not downloaded yet can still be chosen: training says what is missing.
    use_for_project_->setEnabled(row >= 0);
    show_samples_->setEnabled(loadable && !loading_);
    const bool browsing = samples_ && !loading_;
    page_->setEnabled(browsing);
    next_page_->setEnabled(browsing && page_->value() < page_->maximum());
}

void DatasetPanel::show_samples() {
    const int row = selected_row();
    if (row < 0 || loading_) return;
    if (samples_ && samples_row_ == row) {
        page_->setValue(1);
        show_page(1);
        return;
    }
    loading_ = true;
    samples_.reset();
    samples_row_ = -1;
    clear_thumbnails();
    const datasets::CatalogueEntry entry = model_->entry(row);
    sample_status_->setText(tr("Loading %1…").arg(QString::fromStdString(entry.title)));
    update_controls();
    emit samplesRequested(row);
}

void DatasetPanel::show_load_failed(const QString& message) {
    if (!loading_) return;  // not asked for
    loading_ = false;
    sample_status_->setText(tr("Could not load the images: %1").arg(message));
    refresh();  // loading may have found the files damaged or gone
    emit samplesFailed(message);
}

void DatasetPanel::show_loaded_samples(int row, std::shared_ptr<const datasets::Dataset> dataset) {
    if (!loading_) return;  // not asked for
    if (!dataset) {
        show_load_failed(tr("no images arrived"));
        return;
    }
    loading_ = false;
    samples_ = std::move(dataset);
    samples_row_ = row;
    refresh();  // an archive may just have been unpacked
    {
        const QSignalBlocker quiet(page_);  // the page is shown once, below
        page_->setRange(1, page_count(*samples_));
        page_->setValue(1);
    }
    show_page(1);
}

void DatasetPanel::clear_thumbnails() {
    while (QLayoutItem* item = grid_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
}

void DatasetPanel::show_page(int page) {
    clear_thumbnails();
    const datasets::Dataset& dataset = *samples_;
    const std::size_t first = static_cast<std::size_t>(page - 1) * samples_per_page;
    const std::size_t end = std::min(dataset.size(), first + samples_per_page);
    for (std::size_t index = first; index < end; ++index) {
        auto* tile = new QWidget(thumbnails_);
        tile->setObjectName("sampleTile");
        auto* tile_layout = new QVBoxLayout(tile);
        tile_layout->setContentsMargins(2, 2, 2, 2);
        tile_layout->setSpacing(1);
        const QImage image = sample_image(dataset, index);
        auto* picture = new QLabel(tile);
        picture->setObjectName("sampleImage");
        picture->setProperty("sampleIndex", static_cast<qulonglong>(index));
        picture->setPixmap(QPixmap::fromImage(image.scaled(image.width() * thumbnail_scale,
                                                           image.height() * thumbnail_scale, Qt::IgnoreAspectRatio,
                                                           Qt::FastTransformation)));  // nearest neighbour: crisp
        auto* caption = new QLabel(class_name(dataset, index), tile);
        caption->setObjectName("sampleCaption");
        caption->setProperty("sampleIndex", static_cast<qulonglong>(index));
        caption->setAlignment(Qt::AlignHCenter);
        tile_layout->addWidget(picture, 0, Qt::AlignHCenter);
        tile_layout->addWidget(caption);
        const int slot = static_cast<int>(index - first);
        grid_->addWidget(tile, slot / grid_columns, slot % grid_columns);
        tile->show();  // now, not on the next event loop pass: a grab() right after sees the page
    }
    if (dataset.size() == 0)
        sample_status_->setText(
            tr("%1 has no training images.").arg(QString::fromStdString(model_->entry(samples_row_).title)));
    else
        sample_status_->setText(tr("%1: training images %2–%3 of %4")
                                    .arg(QString::fromStdString(model_->entry(samples_row_).title))
                                    .arg(first + 1)
                                    .arg(end)
                                    .arg(dataset.size()));
    update_controls();
    emit samplesShown(page);
}

}  // namespace bps::ui
