#include "ui/try_it/try_it_panel.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QMimeData>
#include <QPixmap>
#include <QPushButton>
#include <QShortcut>
#include <QSlider>
#include <QStackedWidget>
#include <QTabWidget>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "ui/dialog_folder.h"
#include "ui/results/probability_bars.h"
#include "ui/results/received_image.h"
#include "ui/results/results_export.h"
#include "ui/try_it/drawing_canvas.h"

namespace bps::ui {

namespace {

// MNIST's 28 pixels shown 6 times larger: big enough to see each pixel, small beside the canvas.
constexpr int received_side = 168;

QString first_local_file(const QMimeData* mime) {
    if (!mime || !mime->hasUrls()) return {};
    for (const QUrl& url : mime->urls())
        if (url.isLocalFile()) return url.toLocalFile();
    return {};
}

QString percent_text(float probability) {
    const double percent = double(probability) * 100.0;
    // "87%", but "0.4%" rather than a misleading "0%" for a class the network barely considers.
    if (percent > 0.0 && percent < 1.0) return QString::number(percent, 'f', 1) + QLatin1Char('%');
    return QString::number(std::lround(percent)) + QLatin1Char('%');
}

QLabel* explanation(const QString& text) {
    auto* label = new QLabel(text);
    label->setWordWrap(true);
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    return label;
}

bool fail(QString* error, const QString& message) {
    if (error) *error = message;
    return false;
}

}  // namespace

TryItPanel::TryItPanel(QWidget* parent) : QWidget(parent) {
    setObjectName("tryItPanel");
    setAcceptDrops(true);

    runs_ = new QComboBox;
    runs_->setObjectName("tryItRunChooser");
    runs_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    runs_->setPlaceholderText(tr("No trained run yet"));
    runs_->setToolTip(tr("The trained network to try: any run of the project that kept its weights"));
    connect(runs_, &QComboBox::activated, this,
            [this](int index) { emit runChosen(runs_->itemData(index).toString()); });
    status_ = new QLabel;
    status_->setObjectName("tryItStatus");
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* top = new QHBoxLayout;
    auto* run_label = new QLabel(tr("Run:"));
    run_label->setBuddy(runs_);
    top->addWidget(run_label);
    top->addWidget(runs_);
    top->addSpacing(12);
    top->addWidget(status_, 1);

    inputs_ = new QTabWidget;
    inputs_->setObjectName("tryItInputs");
    inputs_->addTab(make_draw_page(), tr("Draw"));
    inputs_->addTab(make_image_file_page(), tr("Image file"));
    inputs_->addTab(make_test_image_page(), tr("Test image"));

    auto* body = new QHBoxLayout;
    body->addWidget(inputs_, 5);
    body->addWidget(make_received_box(), 0);
    body->addWidget(make_result_box(), 5);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(body, 1);

    // Ctrl+V anywhere in the panel; the editor's Paste works only in its own tab.
    auto* paste_key = new QShortcut(QKeySequence::Paste, this);
    paste_key->setContext(Qt::WidgetWithChildrenShortcut);
    connect(paste_key, &QShortcut::activated, this, &TryItPanel::paste_from_clipboard);

    ask_image_file = [this] {
        return QFileDialog::getOpenFileName(
            this, tr("Open an image"), dialog_folder(this),
            tr("Images (*.png *.jpg *.jpeg *.bmp *.gif *.pgm *.ppm *.pbm *.webp *.tif *.tiff);;All files (*)"));
    };
    ask_save_path = [this] {
        return QFileDialog::getSaveFileName(this, tr("Save the image the network received"),
                                            in_dialog_folder(this, QStringLiteral("received.png")),
                                            tr("PNG images (*.png)"));
    };
    ask_export_path = [this] {
        return QFileDialog::getSaveFileName(this, tr("Export the probabilities"),
                                            in_dialog_folder(this, QStringLiteral("probabilities.png")),
                                            tr("PNG images (*.png)"));
    };
    clear_prediction();
}

QWidget* TryItPanel::make_draw_page() {
    canvas_ = new DrawingCanvas;
    connect(canvas_, &DrawingCanvas::drawingChanged, this, &TryItPanel::emit_drawing);

    pen_width_ = new QSlider(Qt::Horizontal);
    pen_width_->setObjectName("penWidthSlider");
    pen_width_->setRange(4, 40);
    pen_width_->setValue(DrawingCanvas::default_pen_width);
    pen_width_->setToolTip(
        tr("The pen's width, in pixels of the 280x280 canvas (ten canvas pixels make one pixel "
           "of MNIST's 28x28)"));
    pen_width_value_ = new QLabel(QString::number(DrawingCanvas::default_pen_width));
    pen_width_value_->setMinimumWidth(pen_width_value_->fontMetrics().horizontalAdvance(QStringLiteral("00")));
    connect(pen_width_, &QSlider::valueChanged, this, [this](int width) {
        canvas_->set_pen_width(width);
        pen_width_value_->setNum(width);
    });

    undo_ = new QPushButton(tr("Undo stroke"));
    undo_->setObjectName("undoStrokeButton");
    undo_->setToolTip(tr("Removes the last stroke (Ctrl+Z while the canvas has the focus)"));
    connect(undo_, &QPushButton::clicked, canvas_, &DrawingCanvas::undo_stroke);
    clear_ = new QPushButton(tr("Clear"));
    clear_->setObjectName("clearDrawingButton");
    connect(clear_, &QPushButton::clicked, canvas_, &DrawingCanvas::clear);

    no_centring_ = new QCheckBox(tr("No centring"));
    no_centring_->setObjectName("noCentringBox");
    no_centring_->setToolTip(
        tr("Gives the network the whole canvas only scaled down to 28x28, without fitting the drawing into a 20x20 "
           "box and centring it by its centre of mass as MNIST's digits were. A digit drawn small or off-centre is "
           "then often misread: the network only learnt digits that were centred."));
    connect(no_centring_, &QCheckBox::toggled, this, [this] {
        if (!canvas_->is_empty()) emit_drawing();
    });

    auto* pen_row = new QHBoxLayout;
    pen_row->addWidget(new QLabel(tr("Pen width")));
    pen_row->addWidget(pen_width_, 1);
    pen_row->addWidget(pen_width_value_);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(no_centring_);
    buttons->addStretch(1);
    buttons->addWidget(undo_);
    buttons->addWidget(clear_);

    auto* drawing = new QWidget;
    auto* layout = new QVBoxLayout(drawing);
    layout->addWidget(canvas_, 1);
    layout->addLayout(pen_row);
    layout->addLayout(buttons);

    drawing_unavailable_ = explanation(
        tr("Drawing works for one-channel images such as MNIST's; open an image file or take a test image instead."));
    drawing_unavailable_->setObjectName("drawingUnavailable");
    drawing_unavailable_->setAlignment(Qt::AlignCenter);

    draw_stack_ = new QStackedWidget;
    draw_stack_->addWidget(drawing);
    draw_stack_->addWidget(drawing_unavailable_);
    return draw_stack_;
}

QWidget* TryItPanel::make_image_file_page() {
    open_ = new QPushButton(tr("Open…"));
    open_->setObjectName("openImageButton");
    connect(open_, &QPushButton::clicked, this, &TryItPanel::open_image_file);
    paste_ = new QPushButton(tr("Paste"));
    paste_->setObjectName("pasteImageButton");
    paste_->setToolTip(tr("Uses the image on the clipboard (Ctrl+V)"));
    connect(paste_, &QPushButton::clicked, this, &TryItPanel::paste_from_clipboard);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(open_);
    buttons->addWidget(paste_);
    buttons->addStretch(1);

    auto* page = new QWidget;
    auto* layout = new QVBoxLayout(page);
    layout->addWidget(explanation(
        tr("Open an image file, drop one anywhere on this panel, or paste an image with Ctrl+V. It is resized and "
           "converted as the dataset's images are, and the panel says what was done.")));
    layout->addLayout(buttons);
    // The whole panel takes drops; this frame only says so where a learner looks for it.
    auto* drop_zone = new QLabel(tr("Drop an image file here"));
    drop_zone->setObjectName("dropZone");
    drop_zone->setAlignment(Qt::AlignCenter);
    drop_zone->setMinimumHeight(120);
    drop_zone->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    drop_zone->setStyleSheet(QStringLiteral(
        "QLabel#dropZone { border: 2px dashed palette(mid); border-radius: 6px; color: palette(mid); }"));
    layout->addWidget(drop_zone, 1);
    return page;
}

QWidget* TryItPanel::make_test_image_page() {
    random_ = new QPushButton(tr("Random test image"));
    random_->setObjectName("randomTestImageButton");
    connect(random_, &QPushButton::clicked, this, &TryItPanel::randomTestImageRequested);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(random_);
    buttons->addStretch(1);

    auto* page = new QWidget;
    auto* layout = new QVBoxLayout(page);
    layout->addWidget(
        explanation(tr("An image the network never saw while training, drawn at random from the test set, with its "
                       "true class in green on the bars.")));
    layout->addLayout(buttons);
    layout->addStretch(1);
    return page;
}

QWidget* TryItPanel::make_received_box() {
    received_ = new QLabel;
    received_->setObjectName("receivedImage");
    received_->setAlignment(Qt::AlignCenter);
    received_->setStyleSheet(QStringLiteral("QLabel#receivedImage { border: 1px solid palette(mid); }"));
    received_->setToolTip(tr("The image exactly as the network received it, each pixel enlarged"));
    adjusted_ = explanation({});
    adjusted_->setObjectName("adjustedText");
    source_ = explanation({});
    source_->setObjectName("sourceText");
    save_ = new QPushButton(tr("Save image…"));
    save_->setObjectName("saveReceivedImageButton");
    save_->setToolTip(tr("Saves the received image at its own size, as an 8-bit PNG"));
    connect(save_, &QPushButton::clicked, this, &TryItPanel::save_asking);

    auto* box = new QGroupBox(tr("What the network receives"));
    box->setObjectName("receivedBox");
    // As wide as the enlarged image and its frame, so the texts under it wrap to that width.
    box->setFixedWidth(received_side + 40);
    auto* layout = new QVBoxLayout(box);
    layout->addWidget(received_, 0, Qt::AlignHCenter);
    layout->addWidget(adjusted_);
    layout->addWidget(source_);
    layout->addStretch(1);
    layout->addWidget(save_, 0, Qt::AlignLeft);
    return box;
}

QWidget* TryItPanel::make_result_box() {
    top_class_ = new QLabel;
    top_class_->setObjectName("topClass");
    QFont large = top_class_->font();
    large.setPointSizeF(large.pointSizeF() * 1.8);
    large.setBold(true);
    top_class_->setFont(large);
    verdict_ = new QLabel;
    verdict_->setObjectName("verdict");
    bars_ = new ProbabilityBars;
    bars_->setObjectName("tryItBars");
    export_ = new QPushButton(tr("Export PNG…"));
    export_->setObjectName("exportBarsButton");
    export_->setToolTip(tr("Saves the probability bars as a PNG"));
    connect(export_, &QPushButton::clicked, this, &TryItPanel::export_asking);

    auto* box = new QGroupBox(tr("What the network says"));
    box->setObjectName("resultBox");
    auto* layout = new QVBoxLayout(box);
    layout->addWidget(top_class_);
    layout->addWidget(verdict_);
    layout->addWidget(bars_);
    layout->addStretch(1);
    layout->addWidget(export_, 0, Qt::AlignLeft);
    return box;
}

void TryItPanel::set_runs(const QStringList& ids, const QStringList& names, const QString& current) {
    const QSignalBlocker quiet(runs_);
    runs_->clear();
    for (qsizetype i = 0; i < ids.size(); ++i) runs_->addItem(i < names.size() ? names[i] : ids[i], ids[i]);
    runs_->setCurrentIndex(runs_->findData(current));
    runs_->setEnabled(!ids.isEmpty());
}

QString TryItPanel::current_run() const {
    return runs_->currentData().toString();
}

void TryItPanel::set_status(const QString& text) {
    status_->setStyleSheet({});
    status_->setText(text);
}

void TryItPanel::show_failure(const QString& message) {
    status_->setStyleSheet(QStringLiteral("color: #c62828;"));
    status_->setText(message);
}

void TryItPanel::set_input(int channels, int height, int width, const QStringList& class_names) {
    channels_ = channels;
    class_names_ = class_names;
    bars_->set_classes(class_names);
    draw_stack_->setCurrentIndex(drawing_offered() ? 0 : 1);
    if (!drawing_offered() && inputs_->currentIndex() == draw_tab) inputs_->setCurrentIndex(image_file_tab);
    received_->setToolTip(
        tr("The %1x%2 image exactly as the network received it, each pixel enlarged").arg(width).arg(height));
    clear_prediction();
}

void TryItPanel::show_prediction(const TryItPrediction& prediction) {
    prediction_ = prediction;
    show_received_image(received_image(prediction.pixels, prediction.channels, prediction.height, prediction.width));
    adjusted_->setText(prediction.adjusted);
    source_->setText(prediction.source.isEmpty() ? QString() : tr("From %1").arg(prediction.source));
    save_->setEnabled(true);

    bars_->set_probabilities(prediction.probabilities, prediction.true_label);
    export_->setEnabled(!prediction.probabilities.empty());
    const auto& p = prediction.probabilities;
    if (p.empty()) {
        top_class_->clear();
        top_class_->setStyleSheet({});
        verdict_->clear();
        return;
    }
    const int top = int(std::max_element(p.begin(), p.end()) - p.begin());
    const auto name_of = [this](int index) {
        return index < class_names_.size() ? class_names_[index] : tr("class %1").arg(index);
    };
    top_class_->setText(QStringLiteral("%1 — %2").arg(name_of(top), percent_text(p[std::size_t(top)])));
    // In its bar's colour: green when right, red when wrong, the accent colour for a drawing.
    top_class_->setStyleSheet(QStringLiteral("color: %1;").arg(bars_->bar_colour(top).name()));
    if (!prediction.true_label)
        verdict_->clear();
    else if (*prediction.true_label == top)
        verdict_->setText(tr("Right: the true class is %1.").arg(name_of(top)));
    else
        verdict_->setText(tr("Wrong: the true class is %1.").arg(name_of(*prediction.true_label)));
    verdict_->setStyleSheet(top_class_->styleSheet());
}

void TryItPanel::clear_prediction() {
    prediction_.reset();
    show_received_image({});
    adjusted_->setText(tr("Draw, open an image or take a test image: the network's input appears here."));
    source_->clear();
    save_->setEnabled(false);
    bars_->clear();
    export_->setEnabled(false);
    top_class_->setText(tr("No prediction yet"));
    top_class_->setStyleSheet(QStringLiteral("color: palette(mid);"));
    verdict_->clear();
}

void TryItPanel::show_received_image(const QImage& image) {
    if (image.isNull()) {
        received_->setPixmap({});
        received_->setFixedSize(received_side + 2, received_side + 2);
        return;
    }
    // Enlarged by a whole factor, nearest neighbour: each of the network's pixels is a crisp square.
    const int factor = std::max(1, received_side / std::max(image.width(), image.height()));
    const QPixmap enlarged = QPixmap::fromImage(
        image.scaled(image.width() * factor, image.height() * factor, Qt::IgnoreAspectRatio, Qt::FastTransformation));
    received_->setPixmap(enlarged);
    received_->setFixedSize(enlarged.width() + 2, enlarged.height() + 2);
}

bool TryItPanel::save_received_image(const QString& path, QString* error) {
    if (!refuse_kept(path, kept_, error)) return false;
    if (!prediction_)
        return fail(error, tr("There is no received image yet: draw, open an image or take a test image first."));
    const QImage image =
        received_image(prediction_->pixels, prediction_->channels, prediction_->height, prediction_->width);
    if (image.isNull())
        return fail(error, tr("The received image has %1 channels of %2x%3: only grey (1) or RGB (3) images can be "
                              "saved as a PNG.")
                               .arg(prediction_->channels)
                               .arg(prediction_->width)
                               .arg(prediction_->height));
    return save_png(image, path, error);
}

bool TryItPanel::export_png(const QString& path, QString* error) {
    if (!refuse_kept(path, kept_, error)) return false;
    return save_png(bars_->grab().toImage(), path, error);
}

void TryItPanel::emit_drawing() {
    emit drawingChanged(canvas_->ink(), !no_centring_->isChecked());
}

void TryItPanel::open_image_file() {
    const QString path = ask_image_file ? ask_image_file() : QString();
    if (!path.isEmpty()) emit imageFileChosen(path);
}

void TryItPanel::paste_from_clipboard() {
    const QMimeData* mime = QGuiApplication::clipboard()->mimeData();
    if (mime && mime->hasImage()) {
        const QImage image = qvariant_cast<QImage>(mime->imageData());
        if (!image.isNull()) {
            inputs_->setCurrentIndex(image_file_tab);
            emit imagePasted(image);
            return;
        }
    }
    if (const QString path = first_local_file(mime); !path.isEmpty()) {
        inputs_->setCurrentIndex(image_file_tab);
        emit imageFileChosen(path);
        return;
    }
    show_failure(tr("The clipboard holds no image: copy an image, or an image file, first."));
}

void TryItPanel::save_asking() {
    const QString path = ask_save_path ? ask_save_path() : QString();
    if (path.isEmpty()) return;
    QString error;
    if (!save_received_image(path, &error)) show_failure(error);
}

void TryItPanel::export_asking() {
    const QString path = ask_export_path ? ask_export_path() : QString();
    if (path.isEmpty()) return;
    QString error;
    if (!export_png(path, &error)) show_failure(error);
}

void TryItPanel::dragEnterEvent(QDragEnterEvent* event) {
    const QMimeData* mime = event->mimeData();
    if (!first_local_file(mime).isEmpty() || (mime && mime->hasImage())) event->acceptProposedAction();
}

void TryItPanel::dropEvent(QDropEvent* event) {
    const QMimeData* mime = event->mimeData();
    if (const QString path = first_local_file(mime); !path.isEmpty()) {
        inputs_->setCurrentIndex(image_file_tab);
        event->acceptProposedAction();
        emit imageFileChosen(path);
    } else if (mime && mime->hasImage()) {
        inputs_->setCurrentIndex(image_file_tab);
        event->acceptProposedAction();
        emit imagePasted(qvariant_cast<QImage>(mime->imageData()));
    }
}

}  // namespace bps::ui
