#include "ui/inside/inside_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRandomGenerator>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/dialog_folder.h"

namespace bps::ui {

namespace {

// Image files a predictor reads (session::read_image_for), as Try It offers them.
const char* const image_filter = "Images (*.png *.jpg *.jpeg *.bmp *.gif *.pgm *.ppm)";

QWidget* scrolled(QWidget* content, QWidget* parent) {
    auto* area = new QScrollArea(parent);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setWidget(content);
    return area;
}

}  // namespace

InsidePanel::InsidePanel(QWidget* parent) : QWidget(parent) {
    setObjectName("insidePanel");
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(make_source_row());
    layout->addWidget(make_image_row());

    views_ = new QTabWidget(this);
    views_->setObjectName("insideViews");
    views_->addTab(make_activation_page(), tr("Activations"));
    filters_ = new FilterTiles(views_);
    views_->addTab(filters_, tr("Filters"));
    histograms_ = new ParameterHistograms(views_);
    views_->addTab(histograms_, tr("Histograms"));

    figures_ = new LayerFiguresTable(this);
    connect(figures_, &LayerFiguresTable::layerChosen, this, &InsidePanel::choose_layer);

    // The views take the room; the table keeps about six rows in view.
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setObjectName("insideSplit");
    split->addWidget(views_);
    split->addWidget(figures_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    // About six rows of the table in view, the rest to the pictures.
    const int table_height =
        figures_->horizontalHeader()->height() + 6 * figures_->verticalHeader()->defaultSectionSize() + 4;
    split->setSizes({3 * table_height, table_height});
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    set_epochs({}, -1, tr("Choose a run to look inside it."));
}

QWidget* InsidePanel::make_source_row() {
    auto* row = new QWidget(this);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("Run:"), row));
    sources_ = new QComboBox(row);
    sources_->setObjectName("insideRun");
    sources_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    sources_->setToolTip(tr("The run whose network is shown; \"Training now\" follows the run in training, live."));
    connect(sources_, &QComboBox::activated, this,
            [this](int index) { emit sourceChosen(sources_->itemData(index).toString()); });
    layout->addWidget(sources_);
    layout->addSpacing(12);
    layout->addWidget(new QLabel(tr("Epoch:"), row));
    epoch_slider_ = new QSlider(Qt::Horizontal, row);
    epoch_slider_->setObjectName("insideEpoch");
    epoch_slider_->setMinimumWidth(160);
    epoch_slider_->setPageStep(1);
    epoch_slider_->setToolTip(tr("Replays the filters, histograms and activations as they were after each epoch."));
    layout->addWidget(epoch_slider_, 1);
    epoch_label_ = new QLabel(row);
    epoch_label_->setObjectName("insideEpochLabel");
    epoch_label_->setMinimumWidth(epoch_label_->fontMetrics().horizontalAdvance(tr("before training (12 of 12)")));
    layout->addWidget(epoch_label_);
    connect(epoch_slider_, &QSlider::valueChanged, this, [this](int value) {
        if (value >= 0 && static_cast<std::size_t>(value) < epochs_.size())
            epoch_label_->setText(epochs_[static_cast<std::size_t>(value)].label);
        emit epochChosen(value);
    });
    status_ = new QLabel(row);
    status_->setObjectName("insideStatus");
    status_->setWordWrap(true);
    layout->addWidget(status_, 2);
    return row;
}

QWidget* InsidePanel::make_image_row() {
    auto* row = new QWidget(this);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    const char* names[2] = {"insideImage", "insideImageSecond"};
    for (int slot = 0; slot < 2; ++slot) {
        if (slot == 1) {
            compare_ = new QCheckBox(tr("Compare with"), row);
            compare_->setObjectName("insideCompare");
            compare_->setToolTip(tr("Shows a second image's activations beside the first (a sweater against a coat)."));
            connect(compare_, &QCheckBox::toggled, this, [this](bool on) {
                for (QWidget* w : {static_cast<QWidget*>(image_kind_[1]), static_cast<QWidget*>(image_index_[1]),
                                   static_cast<QWidget*>(random_[1])})
                    w->setEnabled(on);
                emit imagesChanged();
            });
            layout->addSpacing(16);
            layout->addWidget(compare_);
        } else {
            layout->addWidget(new QLabel(tr("Image:"), row));
        }
        image_kind_[slot] = new QComboBox(row);
        image_kind_[slot]->setObjectName(QString::fromLatin1(names[slot]) + "Source");
        image_kind_[slot]->addItem(tr("Test image"));
        image_kind_[slot]->addItem(tr("Try It drawing"));
        image_kind_[slot]->addItem(tr("Image file…"));
        connect(image_kind_[slot], &QComboBox::activated, this, [this, slot] { image_source_changed(slot); });
        layout->addWidget(image_kind_[slot]);
        image_index_[slot] = new QSpinBox(row);
        image_index_[slot]->setObjectName(QString::fromLatin1(names[slot]) + "Index");
        image_index_[slot]->setToolTip(tr("Which test image"));
        image_index_[slot]->setValue(slot);
        connect(image_index_[slot], &QSpinBox::valueChanged, this, [this] { emit imagesChanged(); });
        layout->addWidget(image_index_[slot]);
        random_[slot] = new QPushButton(tr("Random"), row);
        random_[slot]->setObjectName(QString::fromLatin1(names[slot]) + "Random");
        connect(random_[slot], &QPushButton::clicked, this, [this, slot] {
            if (test_images_ > 0) image_index_[slot]->setValue(QRandomGenerator::global()->bounded(test_images_));
        });
        layout->addWidget(random_[slot]);
    }
    for (QWidget* w : {static_cast<QWidget*>(image_kind_[1]), static_cast<QWidget*>(image_index_[1]),
                       static_cast<QWidget*>(random_[1])})
        w->setEnabled(false);
    layout->addStretch(1);
    return row;
}

QWidget* InsidePanel::make_activation_page() {
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 4, 0, 0);
    every_layer_ = new QCheckBox(tr("Every layer"), page);
    every_layer_->setObjectName("insideEveryLayer");
    every_layer_->setToolTip(tr("Shows the activations of every layer, from the image to the answer."));
    connect(every_layer_, &QCheckBox::toggled, this, &InsidePanel::show_chosen_layer_maps);
    layout->addWidget(every_layer_, 0, Qt::AlignLeft);  // as wide as its text: a click beside it misses
    maps_area_ = new QWidget(page);
    auto* columns = new QHBoxLayout(maps_area_);
    columns->setContentsMargins(0, 0, 0, 0);
    for (int slot = 0; slot < 2; ++slot) {
        auto* column = new QWidget(maps_area_);
        maps_column_[slot] = new QVBoxLayout(column);
        maps_column_[slot]->setContentsMargins(0, 0, 0, 0);
        chosen_maps_[slot] = new ActivationMaps(column);
        chosen_maps_[slot]->setObjectName(slot == 0 ? "insideActivations" : "insideActivationsSecond");
        maps_column_[slot]->addWidget(chosen_maps_[slot]);
        columns->addWidget(column, 1);
        column->setVisible(slot == 0);
    }
    layout->addWidget(scrolled(maps_area_, page), 1);
    return page;
}

void InsidePanel::set_sources(const QStringList& ids, const QStringList& names, const QString& current) {
    const QSignalBlocker quiet(sources_);
    sources_->clear();
    for (int i = 0; i < ids.size(); ++i) sources_->addItem(names.value(i, ids[i]), ids[i]);
    sources_->setCurrentIndex(std::max(0, static_cast<int>(ids.indexOf(current))));
}

QString InsidePanel::source() const {
    return sources_->currentData().toString();
}

void InsidePanel::set_status(const QString& text, bool problem) {
    status_->setText(text);
    status_->setStyleSheet(problem ? QStringLiteral("color: #b00020;") : QString());
}

void InsidePanel::set_epochs(std::vector<InsideEpoch> epochs, int chosen, const QString& reason) {
    epochs_ = std::move(epochs);
    const QSignalBlocker quiet(epoch_slider_);
    epoch_slider_->setEnabled(epochs_.size() > 1);
    epoch_slider_->setRange(0, std::max(0, static_cast<int>(epochs_.size()) - 1));
    epoch_slider_->setValue(std::max(0, chosen));
    if (epochs_.empty()) {
        epoch_label_->setText(reason);
        epoch_label_->setToolTip(reason);
    } else {
        epoch_label_->setText(epochs_[static_cast<std::size_t>(epoch_slider_->value())].label);
        epoch_label_->setToolTip({});
    }
}

int InsidePanel::chosen_epoch_index() const {
    return epochs_.empty() ? -1 : epoch_slider_->value();
}

bool InsidePanel::at_last_epoch() const {
    return epochs_.empty() || epoch_slider_->value() == epoch_slider_->maximum();
}

void InsidePanel::set_test_images(int count) {
    test_images_ = count;
    for (QSpinBox* index : image_index_) {
        const QSignalBlocker quiet(index);
        index->setRange(0, std::max(0, count - 1));
    }
}

InsideImageChoice InsidePanel::image_choice(int slot) const {
    InsideImageChoice choice;
    choice.kind = static_cast<InsideImageChoice::Kind>(image_kind_[slot]->currentIndex());
    choice.index = image_index_[slot]->value();
    choice.file = image_file_[slot];
    return choice;
}

bool InsidePanel::comparing() const {
    return compare_->isChecked();
}

void InsidePanel::image_source_changed(int slot) {
    const auto kind = static_cast<InsideImageChoice::Kind>(image_kind_[slot]->currentIndex());
    image_index_[slot]->setVisible(kind == InsideImageChoice::Kind::test_image);
    random_[slot]->setVisible(kind == InsideImageChoice::Kind::test_image);
    if (kind == InsideImageChoice::Kind::file) {
        const QString file =
            QFileDialog::getOpenFileName(this, tr("Look inside with an image"), dialog_folder(this), tr(image_filter));
        if (file.isEmpty()) {
            // Nothing chosen: back to what was there.
            const QSignalBlocker quiet(image_kind_[slot]);
            image_kind_[slot]->setCurrentIndex(image_file_[slot].isEmpty() ? 0 : 2);
            image_source_changed(slot);
            return;
        }
        image_file_[slot] = file;
        image_kind_[slot]->setItemText(2, QFileInfo(file).fileName());
    }
    emit imagesChanged();
}

void InsidePanel::show_figures(std::vector<LayerFiguresRow> rows) {
    const bool known = std::any_of(rows.begin(), rows.end(), [this](const auto& row) { return row.layer == layer_; });
    if (!known && !rows.empty()) layer_ = rows.front().layer;
    figures_->set_rows(std::move(rows));
    figures_->select_layer(layer_);
}

void InsidePanel::choose_layer(const QString& layer) {
    if (layer == layer_) return;
    layer_ = layer;
    figures_->select_layer(layer);
    show_chosen_layer_maps();
    emit layerChosen(layer);
}

ActivationMaps* InsidePanel::activations(int slot) const {
    return chosen_maps_[slot];
}

void InsidePanel::show_activations(int slot, InsideImageActivations activations) {
    shown_[slot] = std::move(activations);
    show_chosen_layer_maps();
}

void InsidePanel::clear_activations(const QString& reason) {
    for (int slot = 0; slot < 2; ++slot) shown_[slot] = {};
    show_chosen_layer_maps();
    for (ActivationMaps* maps : chosen_maps_) maps->clear(reason);
}

// The chosen layer's maps in each slot, or every layer's one under another.
void InsidePanel::show_chosen_layer_maps() {
    // A layer whose output is not known (a replayed epoch) comes with its reason and no values.
    const auto put = [](ActivationMaps* maps, const ActivationSet& set) {
        if (set.values.empty())
            maps->clear(set.title);
        else
            maps->set_activations(set);
    };
    const bool every = every_layer_->isChecked();
    for (int slot = 0; slot < 2; ++slot) {
        maps_column_[slot]->parentWidget()->setVisible(slot == 0 || comparing());
        const InsideImageActivations& shown = shown_[slot];
        auto& extra = every_layer_maps_[slot];
        const std::size_t wanted = every && !shown.layers.empty() ? shown.layers.size() - 1 : 0;
        while (extra.size() > wanted) {
            delete extra.back();
            extra.pop_back();
        }
        while (extra.size() < wanted) {
            auto* maps = new ActivationMaps(maps_column_[slot]->parentWidget());
            maps->setObjectName(QStringLiteral("insideLayerMaps%1_%2").arg(slot).arg(extra.size() + 1));
            maps_column_[slot]->insertWidget(static_cast<int>(extra.size()) + 1, maps);
            extra.push_back(maps);
        }
        // One layer: its maps take the page and scroll inside. Every layer: each as tall as its
        // maps, one under another, and the page scrolls.
        const auto fit = [every](ActivationMaps* maps) {
            if (every)
                maps->setFixedHeight(maps->content_height() + 4);
            else {
                maps->setMinimumHeight(0);
                maps->setMaximumHeight(QWIDGETSIZE_MAX);
            }
        };
        if (shown.layers.empty()) {
            fit(chosen_maps_[slot]);
            continue;
        }
        if (every) {
            put(chosen_maps_[slot], shown.layers.front());
            fit(chosen_maps_[slot]);
            for (std::size_t i = 0; i < extra.size(); ++i) {
                put(extra[i], shown.layers[i + 1]);
                fit(extra[i]);
            }
            continue;
        }
        fit(chosen_maps_[slot]);
        const auto found = std::find_if(shown.layers.begin(), shown.layers.end(),
                                        [this](const ActivationSet& set) { return set.layer == layer_; });
        if (found == shown.layers.end())
            chosen_maps_[slot]->clear(tr("%1 has no output for this image.").arg(layer_));
        else
            put(chosen_maps_[slot], *found);
    }
}

void InsidePanel::show_filters(FilterSet filters) {
    filters_->set_filters(std::move(filters));
}

void InsidePanel::clear_filters(const QString& reason) {
    filters_->clear(reason);
}

void InsidePanel::show_histories(std::vector<ParameterHistory> histories, const QString& parameter, int epoch) {
    histograms_->set_histories(std::move(histories), parameter, epoch);
}

void InsidePanel::clear_histories(const QString& reason) {
    histograms_->clear(reason);
}

}  // namespace bps::ui
