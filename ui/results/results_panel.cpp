#include "ui/results/results_panel.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QMenu>
#include <QPushButton>
#include <QRadioButton>
#include <QSlider>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "engine/base/number_text.h"
#include "ui/dialog_folder.h"
#include "ui/results/class_figures_table.h"
#include "ui/results/confused_pairs_list.h"
#include "ui/results/confusion_matrix_view.h"
#include "ui/results/sample_detail.h"
#include "ui/results/sample_gallery.h"
#include "ui/results/sample_gallery_model.h"

namespace bps::ui {

namespace {

constexpr int message_page = 0, views_page = 1;

}  // namespace

ResultsPanel::ResultsPanel(QWidget* parent)
    : QWidget(parent),
      runs_(new QComboBox(this)),
      split_(new QComboBox(this)),
      epoch_slider_(new QSlider(Qt::Horizontal, this)),
      epoch_label_(new QLabel(this)),
      scale_(new QButtonGroup(this)),
      evaluate_(new QPushButton(tr("Evaluate now"), this)),
      export_(new QToolButton(this)),
      status_(new QLabel(this)),
      pages_(new QStackedWidget(this)),
      message_(new QLabel(this)),
      message_evaluate_(new QPushButton(tr("Evaluate now"), this)),
      matrix_(new ConfusionMatrixView(this)),
      tables_(new QTabWidget(this)),
      table_(new ClassFiguresTable(this)),
      pairs_(new ConfusedPairsList(this)),
      gallery_(new SampleGallery(this)),
      detail_(new SampleDetail(this)) {
    setObjectName("resultsPanel");
    ask_save_path = [this](const QString& title, const QString& suggested, const QString& filter) {
        return QFileDialog::getSaveFileName(this, title, suggested, filter);
    };

    // The bar: which run, which split (and epoch), counts or shares, evaluate, export.
    runs_->setObjectName("resultsRun");
    runs_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    runs_->setMinimumContentsLength(12);
    split_->setObjectName("resultsSplit");
    split_->addItem(tr("Test images"));
    split_->addItem(tr("Validation, epoch by epoch"));
    epoch_slider_->setObjectName("resultsEpoch");
    epoch_slider_->setMinimum(1);
    epoch_slider_->setPageStep(1);
    epoch_slider_->setTickPosition(QSlider::TicksBelow);
    epoch_slider_->setMinimumWidth(120);
    auto* counts = new QRadioButton(tr("Counts"), this);
    auto* shares = new QRadioButton(tr("Share of true class"), this);
    counts->setToolTip(tr("How many images of each true class were taken for each class."));
    shares->setToolTip(tr("The same as a share of the true class's images: each row adds up to 100%."));
    counts->setChecked(true);
    scale_->addButton(counts, static_cast<int>(ConfusionMatrixView::Scale::counts));
    scale_->addButton(shares, static_cast<int>(ConfusionMatrixView::Scale::proportions));
    evaluate_->setToolTip(tr("Evaluate the run's weights on its test images and keep the result in its folder."));
    export_->setText(tr("Export"));
    export_->setPopupMode(QToolButton::InstantPopup);
    build_export_menu();

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Run:"), this));
    bar->addWidget(runs_);
    bar->addSpacing(12);
    bar->addWidget(split_);
    bar->addWidget(epoch_slider_);
    bar->addWidget(epoch_label_);
    bar->addSpacing(12);
    bar->addWidget(counts);
    bar->addWidget(shares);
    bar->addStretch(1);
    bar->addWidget(evaluate_);
    bar->addWidget(export_);

    status_->setObjectName("resultsStatus");
    status_->setWordWrap(true);
    status_->hide();

    // The message page: loading, no evaluation yet, or a problem.
    auto* message_page_widget = new QWidget(this);
    auto* message_layout = new QVBoxLayout(message_page_widget);
    message_->setObjectName("resultsMessage");
    message_->setWordWrap(true);
    message_->setAlignment(Qt::AlignCenter);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    message_layout->addStretch(1);
    message_layout->addWidget(message_);
    message_layout->addWidget(message_evaluate_, 0, Qt::AlignHCenter);
    message_layout->addStretch(2);
    message_evaluate_->hide();

    // The views: the matrix over its tables | the gallery | one image.
    tables_->addTab(pairs_, tr("Most confused"));
    tables_->addTab(table_, tr("Per class"));
    auto* left = new QSplitter(Qt::Vertical, this);
    left->addWidget(matrix_);
    left->addWidget(tables_);
    left->setStretchFactor(0, 3);
    left->setStretchFactor(1, 2);
    left->setChildrenCollapsible(false);
    auto* columns = new QSplitter(Qt::Horizontal, this);
    columns->addWidget(left);
    columns->addWidget(gallery_);
    columns->addWidget(detail_);
    // The gallery gets the room the matrix and one image do not need: two columns of tiles or more.
    columns->setStretchFactor(0, 0);
    columns->setStretchFactor(1, 1);
    columns->setStretchFactor(2, 0);
    columns->setSizes({500, 420, 330});
    columns->setChildrenCollapsible(false);
    pages_->addWidget(message_page_widget);
    pages_->addWidget(columns);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(status_);
    layout->addWidget(pages_, 1);
    show_message(tr("Train a run: its results show here."));

    connect(runs_, &QComboBox::activated, this,
            [this](int index) { emit runChosen(runs_->itemData(index).toString()); });
    connect(split_, &QComboBox::currentIndexChanged, this, [this] { show_split(); });
    connect(epoch_slider_, &QSlider::valueChanged, this, [this] { show_split(); });
    connect(scale_, &QButtonGroup::idClicked, this,
            [this](int id) { matrix_->set_scale(static_cast<ConfusionMatrixView::Scale>(id)); });
    const auto evaluate = [this] {
        if (!current_run().isEmpty()) emit evaluateRequested(current_run());
    };
    connect(evaluate_, &QPushButton::clicked, this, evaluate);
    connect(message_evaluate_, &QPushButton::clicked, this, evaluate);
    // The learner's own picks are remembered as answers (the course's interpretation checks).
    const auto learner_cell = [this](int true_class, int predicted) {
        chosen_cell_ = std::pair(true_class, predicted);
        select_cell(true_class, predicted);
    };
    const auto learner_class = [this](int true_class) {
        chosen_class_ = true_class;
        select_class(true_class);
    };
    connect(matrix_, &ConfusionMatrixView::cellClicked, this, learner_cell);
    connect(matrix_, &ConfusionMatrixView::classClicked, this, learner_class);
    connect(table_, &ClassFiguresTable::classClicked, this, learner_class);
    connect(pairs_, &ConfusedPairsList::pairClicked, this, learner_cell);
    connect(gallery_, &SampleGallery::sampleActivated, this, &ResultsPanel::show_sample);
}

void ResultsPanel::set_runs(const QStringList& ids, const QStringList& names, const QString& current) {
    const QSignalBlocker quiet(runs_);
    runs_->clear();
    for (int i = 0; i < ids.size(); ++i) runs_->addItem(i < names.size() ? names[i] : ids[i], ids[i]);
    runs_->setCurrentIndex(runs_->findData(current));
    runs_->setEnabled(!ids.isEmpty());
}

QString ResultsPanel::current_run() const {
    return runs_->currentData().toString();
}

void ResultsPanel::show_message(const QString& text, bool offer_evaluation, bool problem) {
    evaluation_.reset();
    chosen_sample_.reset();
    samples_.reset();
    message_->setText(text);
    message_->setStyleSheet(problem ? "color: #c62828;" : QString());
    message_evaluate_->setVisible(offer_evaluation);
    evaluate_->setVisible(offer_evaluation);
    pages_->setCurrentIndex(message_page);
    split_->setEnabled(false);
    epoch_slider_->setVisible(false);
    epoch_label_->setVisible(false);
    export_->setEnabled(false);
}

bool ResultsPanel::showing_views() const {
    return pages_->currentIndex() == views_page;
}

void ResultsPanel::show_evaluation(std::shared_ptr<const session::RunEvaluation> evaluation,
                                   const QString& test_title) {
    evaluation_ = std::move(evaluation);
    test_title_ = test_title;
    chosen_cell_.reset();  // picks in another run's evaluation answer nothing about this one
    chosen_class_.reset();
    class_names_.clear();
    for (const std::string& name : evaluation_->class_names) class_names_ << QString::fromStdString(name);
    // The gallery shares the samples without copying 10,000 probability rows.
    samples_ = evaluation_->test
                   ? std::shared_ptr<const session::SampleResults>(evaluation_, &evaluation_->test->samples)
                   : nullptr;
    gallery_->set_samples(samples_, class_names_);
    gallery_->set_images(images_);
    detail_->clear();
    chosen_sample_.reset();
    const bool has_test = evaluation_->test.has_value();
    const bool has_validation = !evaluation_->validation.empty();
    {
        const QSignalBlocker quiet_split(split_);
        const QSignalBlocker quiet_slider(epoch_slider_);
        split_->setItemText(0, has_test ? test_title_ : tr("Test images (not evaluated)"));
        // Item 0 is disabled without a test evaluation; the model is a QStandardItemModel.
        split_->setItemData(0, has_test ? QVariant() : QVariant(0), Qt::UserRole - 1);
        split_->setItemData(1, has_validation ? QVariant() : QVariant(0), Qt::UserRole - 1);
        split_->setCurrentIndex(has_test ? 0 : 1);
        epoch_slider_->setMaximum(std::max<int>(1, static_cast<int>(evaluation_->validation.size())));
        epoch_slider_->setValue(epoch_slider_->maximum());
    }
    split_->setEnabled(has_test && has_validation);
    evaluate_->setVisible(!has_test);
    export_->setEnabled(true);
    pages_->setCurrentIndex(views_page);
    show_split();
}

void ResultsPanel::set_images(std::shared_ptr<const datasets::Dataset> images) {
    images_ = std::move(images);
    gallery_->set_images(images_);
    // The image chosen before the pixels were read shows now.
    if (images_ && samples_ && chosen_sample_) show_sample(*chosen_sample_);
}

void ResultsPanel::set_status(const QString& text, bool problem) {
    status_->setText(text);
    status_->setStyleSheet(problem ? "color: #c62828;" : QString());
    status_->setVisible(!text.isEmpty());
}

void ResultsPanel::set_evaluating(bool evaluating) {
    evaluate_->setEnabled(!evaluating);
    message_evaluate_->setEnabled(!evaluating);
}

void ResultsPanel::set_split(Split split) {
    split_->setCurrentIndex(split == Split::test ? 0 : 1);
}

ResultsPanel::Split ResultsPanel::split() const {
    return split_->currentIndex() == 0 ? Split::test : Split::validation;
}

void ResultsPanel::set_epoch(int epoch) {
    epoch_slider_->setValue(epoch);
}

int ResultsPanel::epoch() const {
    return epoch_slider_->value();
}

const session::ConfusionMatrix* ResultsPanel::shown_matrix() const {
    if (!evaluation_) return nullptr;
    if (split() == Split::test) return evaluation_->test ? &evaluation_->test->confusion : nullptr;
    const int epoch = epoch_slider_->value();
    if (epoch < 1 || epoch > static_cast<int>(evaluation_->validation.size())) return nullptr;
    return &evaluation_->validation[static_cast<std::size_t>(epoch - 1)].confusion;
}

void ResultsPanel::show_split() {
    if (!evaluation_) return;
    const bool validation = split() == Split::validation;
    epoch_slider_->setVisible(validation && evaluation_->validation.size() > 1);
    epoch_label_->setVisible(validation);
    if (validation && !evaluation_->validation.empty()) {
        const auto& shown = evaluation_->validation[static_cast<std::size_t>(epoch_slider_->value() - 1)];
        epoch_label_->setText(tr("after epoch %1 of %2").arg(shown.epoch).arg(evaluation_->validation.size()));
    }
    const session::ConfusionMatrix* matrix = shown_matrix();
    const session::ConfusionMatrix none;
    matrix_->set_matrix(matrix ? *matrix : none, class_names_);
    table_->set_matrix(matrix ? *matrix : none, class_names_);
    pairs_->set_matrix(matrix ? *matrix : none, class_names_);
    if (validation || !samples_) {
        gallery_->set_samples(nullptr, class_names_);
        gallery_->show_note(evaluation_->test
                                ? tr("The validation images are not kept one by one: choose the test images to see "
                                     "them.")
                                : tr("The run has no test evaluation yet: Evaluate now evaluates its weights on the "
                                     "test images (on every image of a folder) and shows them here."));
        return;
    }
    gallery_->set_samples(samples_, class_names_);
    const std::vector<session::ConfusedPair> worst = session::most_confused(*matrix, 1);
    if (worst.empty())
        show_samples({});
    else
        select_cell(worst.front().true_class, worst.front().predicted);
}

QString ResultsPanel::chosen_pair() const {
    if (!chosen_cell_ || !evaluation_) return {};
    return class_name(chosen_cell_->first) + ">" + class_name(chosen_cell_->second);
}

QString ResultsPanel::chosen_class() const {
    return chosen_class_ && evaluation_ ? class_name(*chosen_class_) : QString();
}

void ResultsPanel::select_cell(int true_class, int predicted) {
    matrix_->select_cell(true_class, predicted);
    pairs_->select_pair(true_class, predicted);
    show_samples({true_class, predicted});
}

void ResultsPanel::select_class(int true_class) {
    matrix_->clear_selection();
    pairs_->select_pair(-1, -1);
    show_samples({true_class, std::nullopt});
}

void ResultsPanel::show_samples(const session::SampleFilter& filter) {
    if (split() != Split::test || !samples_) return;
    QString title;
    if (filter.true_class && filter.predicted)
        title = *filter.true_class == *filter.predicted
                    ? tr("%1 recognised").arg(class_name(*filter.true_class))
                    : tr("%1 taken for %2").arg(class_name(*filter.true_class), class_name(*filter.predicted));
    else if (filter.true_class)
        title = tr("Every %1").arg(class_name(*filter.true_class));
    else if (filter.predicted)
        title = tr("Everything taken for %1").arg(class_name(*filter.predicted));
    else
        title = tr("Every test image");
    gallery_->show_selection(filter, title);
    // The first image (the most confidently wrong) shows large at once, with its maps.
    if (!gallery_->shown().empty()) {
        gallery_->view()->setCurrentIndex(gallery_->model()->index(0, 0));
        show_sample(gallery_->shown().front());
    }
}

void ResultsPanel::show_sample(std::size_t sample) {
    if (!samples_ || sample >= samples_->size()) return;
    chosen_sample_ = sample;
    if (!images_ || sample >= images_->size()) {
        detail_->clear();  // it shows once the images are read
        return;
    }
    const int label = samples_->labels[sample];
    const auto probabilities = samples_->probabilities_of(sample);
    const auto pixels = images_->image(sample);
    detail_->show_sample(sample, std::vector<float>(pixels.begin(), pixels.end()), images_->shape.channels,
                         images_->shape.height, images_->shape.width, label,
                         std::vector<float>(probabilities.begin(), probabilities.end()), class_names_);
    emit sampleInsightRequested(sample);
}

QString ResultsPanel::class_name(int label) const {
    return label >= 0 && label < class_names_.size() ? class_names_[label] : QString::number(label);
}

void ResultsPanel::build_export_menu() {
    auto* menu = new QMenu(export_);
    const auto add = [this, menu](const QString& text, const QString& suggested, const QString& filter,
                                  std::function<bool(const QString&, QString*)> write) {
        menu->addAction(text, this,
                        [this, text, suggested, filter, write] { export_to(text, suggested, filter, write); });
    };
    const QString png = tr("PNG images (*.png)"), csv = tr("CSV tables (*.csv)");
    add(tr("Confusion matrix as PNG…"), "confusion-matrix.png", png,
        [this](const QString& path, QString* error) { return matrix_->export_png(path, error); });
    add(tr("Confusion matrix as CSV…"), "confusion-matrix.csv", csv,
        [this](const QString& path, QString* error) { return matrix_->export_csv(path, error); });
    menu->addSeparator();
    add(tr("Per-class table as CSV…"), "per-class.csv", csv,
        [this](const QString& path, QString* error) { return table_->export_csv(path, error); });
    add(tr("Per-class table as PNG…"), "per-class.png", png,
        [this](const QString& path, QString* error) { return table_->export_png(path, error); });
    add(tr("Most-confused pairs as CSV…"), "most-confused.csv", csv,
        [this](const QString& path, QString* error) { return pairs_->export_csv(path, error); });
    menu->addSeparator();
    add(tr("Gallery as PNG…"), "gallery.png", png,
        [this](const QString& path, QString* error) { return gallery_->export_png(path, error); });
    add(tr("Gallery as CSV…"), "gallery.csv", csv,
        [this](const QString& path, QString* error) { return gallery_->export_csv(path, error); });
    add(tr("This image as PNG…"), "image.png", png,
        [this](const QString& path, QString* error) { return detail_->export_png(path, error); });
    export_->setMenu(menu);
}

void ResultsPanel::export_to(const QString& title, const QString& suggested, const QString& filter,
                             const std::function<bool(const QString&, QString*)>& write) {
    // Beside the project, or in Documents for one never saved.
    const QString path = ask_save_path(title, in_dialog_folder(this, suggested), filter);
    if (path.isEmpty()) return;
    QString error;
    if (refuse_kept(path, kept_, &error) && write(path, &error))
        emit exported(tr("Saved %1").arg(path));
    else
        emit exported(error);
}

}  // namespace bps::ui
