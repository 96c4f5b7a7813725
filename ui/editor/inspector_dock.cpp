#include "ui/editor/inspector_dock.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <utility>

#include "datasets/catalogue.h"
#include "engine/base/number_text.h"
#include "ui/document/edit_gesture.h"
#include "ui/document/network_document.h"
#include "ui/document/quiet_setters.h"
#include "ui/editor/fit_width_scroll_area.h"

namespace bps::ui {

namespace {

constexpr int max_units = 65536;
constexpr int max_window = 64;        // kernel, pool and stride sizes: larger is never a course network
constexpr int max_image_side = 4096;  // what the image-folder import accepts
constexpr int max_rate_percent = 95;  // a rate of 1 would drop everything
// Non-ASCII as code points: MSVC reads a source without /utf-8 in the local code page.
const QChar ellipsis(0x2026);

const train::Initializer initializers[] = {train::Initializer::he_uniform,     train::Initializer::he_normal,
                                           train::Initializer::glorot_uniform, train::Initializer::glorot_normal,
                                           train::Initializer::zeros,          train::Initializer::ones};

struct ActivationChoice {
    model::Activation kind;
    const char* label;
};
const ActivationChoice activations[] = {{model::Activation::relu, "ReLU"},
                                        {model::Activation::leaky_relu, "Leaky ReLU"},
                                        {model::Activation::sigmoid, "Sigmoid"},
                                        {model::Activation::tanh, "Tanh"}};

QWidget* form_group(QWidget* parent, QFormLayout*& form) {
    auto* group = new QWidget(parent);
    form = new QFormLayout(group);
    form->setContentsMargins(0, 0, 0, 0);
    return group;
}

QLabel* error_label(const char* object_name, QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setObjectName(object_name);
    label->setWordWrap(true);
    label->setStyleSheet("color: #d32f2f;");  // red in light and dark themes alike
    label->hide();
    return label;
}

void show_error(QLabel* label, const QString& text) {
    label->setText(text);
    label->setVisible(!text.isEmpty());
}

// Two spin boxes side by side: height x width, or the stride's two axes.
QWidget* pair(QWidget* parent, QSpinBox* first, QSpinBox* second) {
    auto* row = new QWidget(parent);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(first);
    layout->addWidget(new QLabel(QString(QChar(0x00D7)), row));
    layout->addWidget(second);
    return row;
}

QString shape_text(const datasets::ImageShape& shape) {
    return QStringLiteral("(%1, %2, %3)").arg(shape.channels).arg(shape.height).arg(shape.width);
}

}  // namespace

InspectorDock::InspectorDock(NetworkDocument* document, QWidget* parent)
    : QDockWidget(tr("Inspector"), parent), document_(document), gestures_(new EditGesture(document, this)) {
    setObjectName("inspectorDock");
    folder_chooser_ = [](QWidget* dialog_parent, const QString& start) {
        return QFileDialog::getExistingDirectory(dialog_parent, tr("Image folder (one subfolder per class)"), start);
    };

    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    placeholder_ = new QLabel(tr("Select a layer to edit it"), content);
    placeholder_->setObjectName("inspectorPlaceholder");
    placeholder_->setAlignment(Qt::AlignCenter);
    placeholder_->setWordWrap(true);
    placeholder_->setEnabled(false);  // greyed: a hint, not content
    layout->addWidget(placeholder_);
    editor_ = build_editor();
    layout->addWidget(editor_);
    layout->addStretch(1);

    auto* scroll = new FitWidthScrollArea(this);
    scroll->setObjectName("inspectorScroll");
    scroll->setWidget(content);
    setWidget(scroll);

    connect(document_, &NetworkDocument::changed, this, &InspectorDock::document_changed);
    refresh();
}

QSpinBox* InspectorDock::spin_box(const char* object_name, int minimum, int maximum) {
    auto* box = new QSpinBox(editor_);
    box->setObjectName(object_name);
    box->setRange(minimum, maximum);
    // Typing "128" is one edit, not three (1, 12, 128).
    box->setKeyboardTracking(false);
    gestures_->watch(box);
    return box;
}

QDoubleSpinBox* InspectorDock::double_spin_box(const char* object_name, double minimum, double maximum, int decimals,
                                               double step) {
    auto* box = new QDoubleSpinBox(editor_);
    box->setObjectName(object_name);
    box->setDecimals(decimals);
    box->setRange(minimum, maximum);
    box->setSingleStep(step);
    box->setKeyboardTracking(false);
    gestures_->watch(box);
    return box;
}

QWidget* InspectorDock::build_editor() {
    editor_ = new QWidget;
    editor_->setObjectName("inspectorEditor");
    auto* layout = new QVBoxLayout(editor_);
    layout->setContentsMargins(0, 0, 0, 0);

    // What every layer has: its type, name, output shape and problems.
    QFormLayout* form = nullptr;
    QWidget* header = form_group(editor_, form);
    type_ = new QLabel(header);
    type_->setObjectName("layerType");
    QFont bold = type_->font();
    bold.setBold(true);
    type_->setFont(bold);
    form->addRow(tr("Type"), type_);
    name_ = new QLineEdit(header);
    name_->setObjectName("layerName");
    form->addRow(tr("Name"), name_);
    name_error_ = error_label("layerNameError", header);
    form->addRow(QString(), name_error_);
    output_ = new QLabel(header);
    output_->setObjectName("layerOutput");
    output_->setWordWrap(true);
    form->addRow(tr("Output"), output_);
    node_problems_ = error_label("layerProblems", header);
    form->addRow(QString(), node_problems_);
    layout->addWidget(header);
    connect(name_, &QLineEdit::editingFinished, this, &InspectorDock::rename);

    // Dense and Conv2D: how many units or filters, and how their weights start.
    units_group_ = form_group(editor_, form);
    units_ = spin_box("units", 1, max_units);
    units_label_ = new QLabel(tr("Units"), units_group_);
    form->addRow(units_label_, units_);
    initializer_ = new QComboBox(units_group_);
    initializer_->setObjectName("initializer");
    for (train::Initializer kind : initializers)
        initializer_->addItem(QString::fromUtf8(train::initializer_name(kind)), static_cast<int>(kind));
    form->addRow(tr("Initializer"), initializer_);
    layout->addWidget(units_group_);
    connect(units_, &QSpinBox::valueChanged, this, [this](int value) {
        edit_layer(
            units_, [value](model::LayerSpec& spec) { return std::exchange(spec.units, value) != value; }, true);
    });
    connect(initializer_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0) return;
        const auto kind = static_cast<train::Initializer>(initializer_->itemData(index).toInt());
        edit_layer(
            initializer_, [kind](model::LayerSpec& spec) { return std::exchange(spec.initializer, kind) != kind; },
            false);
    });

    // Conv2D's window.
    conv_group_ = form_group(editor_, form);
    kernel_h_ = spin_box("kernelHeight", 1, max_window);
    kernel_w_ = spin_box("kernelWidth", 1, max_window);
    stride_h_ = spin_box("strideHeight", 1, max_window);
    stride_w_ = spin_box("strideWidth", 1, max_window);
    form->addRow(tr("Kernel"), pair(conv_group_, kernel_h_, kernel_w_));
    form->addRow(tr("Stride"), pair(conv_group_, stride_h_, stride_w_));
    padding_ = new QComboBox(conv_group_);
    padding_->setObjectName("padding");
    padding_->addItem(tr("valid (no padding)"), static_cast<int>(model::Padding::valid));
    padding_->addItem(tr("same (keeps the size)"), static_cast<int>(model::Padding::same));
    form->addRow(tr("Padding"), padding_);
    layout->addWidget(conv_group_);
    const auto conv_edit = [this](QSpinBox* box, int model::Conv2dGeometry::*field) {
        connect(box, &QSpinBox::valueChanged, this, [this, box, field](int value) {
            edit_layer(
                box, [field, value](model::LayerSpec& spec) { return std::exchange(spec.conv.*field, value) != value; },
                true);
        });
    };
    conv_edit(kernel_h_, &model::Conv2dGeometry::kernel_h);
    conv_edit(kernel_w_, &model::Conv2dGeometry::kernel_w);
    conv_edit(stride_h_, &model::Conv2dGeometry::stride_h);
    conv_edit(stride_w_, &model::Conv2dGeometry::stride_w);
    connect(padding_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0) return;
        const auto padding = static_cast<model::Padding>(padding_->itemData(index).toInt());
        edit_layer(
            padding_,
            [padding](model::LayerSpec& spec) { return std::exchange(spec.conv.padding, padding) != padding; }, false);
    });

    // MaxPool2D and AvgPool2D.
    pool_group_ = form_group(editor_, form);
    pool_h_ = spin_box("poolHeight", 1, max_window);
    pool_w_ = spin_box("poolWidth", 1, max_window);
    pool_stride_h_ = spin_box("poolStrideHeight", 1, max_window);
    pool_stride_w_ = spin_box("poolStrideWidth", 1, max_window);
    form->addRow(tr("Pool size"), pair(pool_group_, pool_h_, pool_w_));
    form->addRow(tr("Stride"), pair(pool_group_, pool_stride_h_, pool_stride_w_));
    layout->addWidget(pool_group_);
    const auto pool_edit = [this](QSpinBox* box, int model::PoolGeometry::*field) {
        connect(box, &QSpinBox::valueChanged, this, [this, box, field](int value) {
            edit_layer(
                box, [field, value](model::LayerSpec& spec) { return std::exchange(spec.pool.*field, value) != value; },
                true);
        });
    };
    pool_edit(pool_h_, &model::PoolGeometry::size_h);
    pool_edit(pool_w_, &model::PoolGeometry::size_w);
    pool_edit(pool_stride_h_, &model::PoolGeometry::stride_h);
    pool_edit(pool_stride_w_, &model::PoolGeometry::stride_w);

    // Dropout: a slider to feel the rate, a spin box to type it; both in percent.
    dropout_group_ = form_group(editor_, form);
    rate_slider_ = new QSlider(Qt::Horizontal, dropout_group_);
    rate_slider_->setObjectName("dropoutSlider");
    rate_slider_->setRange(0, max_rate_percent);
    gestures_->watch(rate_slider_);
    rate_box_ = spin_box("dropoutRate", 0, max_rate_percent);
    rate_box_->setSuffix(QStringLiteral(" %"));
    auto* rate_row = new QWidget(dropout_group_);
    auto* rate_layout = new QHBoxLayout(rate_row);
    rate_layout->setContentsMargins(0, 0, 0, 0);
    rate_layout->addWidget(rate_slider_, 1);
    rate_layout->addWidget(rate_box_);
    form->addRow(tr("Rate"), rate_row);
    layout->addWidget(dropout_group_);
    const auto rate_edit = [this](QObject* source, int percent) {
        const float rate = static_cast<float>(percent) / 100.0f;
        edit_layer(
            source, [rate](model::LayerSpec& spec) { return std::exchange(spec.rate, rate) != rate; }, true);
    };
    // One press of the slider is one gesture, however many values the drag passes.
    connect(rate_slider_, &QSlider::sliderPressed, this, [this] { gestures_->begin(rate_slider_); });
    connect(rate_slider_, &QSlider::sliderReleased, this, [this] { gestures_->end_for(rate_slider_); });
    connect(rate_slider_, &QSlider::valueChanged, this, [this, rate_edit](int percent) {
        set_quietly(rate_box_, percent);
        rate_edit(rate_slider_, percent);
    });
    connect(rate_box_, &QSpinBox::valueChanged, this, [this, rate_edit](int percent) {
        set_quietly(rate_slider_, percent);
        rate_edit(rate_box_, percent);
    });

    // Activation, with Leaky ReLU's slope only when it applies.
    activation_group_ = form_group(editor_, form);
    activation_ = new QComboBox(activation_group_);
    activation_->setObjectName("activationKind");
    for (const ActivationChoice& choice : activations)
        activation_->addItem(tr(choice.label), static_cast<int>(choice.kind));
    form->addRow(tr("Function"), activation_);
    layout->addWidget(activation_group_);
    slope_group_ = form_group(editor_, form);
    slope_ = double_spin_box("leakySlope", 0.0, 1.0, 3, 0.01);
    form->addRow(tr("Negative slope"), slope_);
    layout->addWidget(slope_group_);
    connect(activation_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0) return;
        const auto kind = static_cast<model::Activation>(activation_->itemData(index).toInt());
        edit_layer(
            activation_, [kind](model::LayerSpec& spec) { return std::exchange(spec.activation, kind) != kind; },
            false);
    });
    connect(slope_, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        const auto slope = static_cast<float>(value);
        edit_layer(
            slope_, [slope](model::LayerSpec& spec) { return std::exchange(spec.slope, slope) != slope; }, true);
    });

    // BatchNorm.
    batch_norm_group_ = form_group(editor_, form);
    momentum_ = double_spin_box("batchNormMomentum", 0.0, 0.999, 3, 0.01);
    epsilon_ = double_spin_box("batchNormEpsilon", 0.000001, 1.0, 6, 0.0001);
    form->addRow(tr("Momentum"), momentum_);
    form->addRow(tr("Epsilon"), epsilon_);
    layout->addWidget(batch_norm_group_);
    connect(momentum_, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        const auto momentum = static_cast<float>(value);
        edit_layer(
            momentum_,
            [momentum](model::LayerSpec& spec) { return std::exchange(spec.momentum, momentum) != momentum; }, true);
    });
    connect(epsilon_, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        const auto epsilon = static_cast<float>(value);
        edit_layer(
            epsilon_, [epsilon](model::LayerSpec& spec) { return std::exchange(spec.epsilon, epsilon) != epsilon; },
            true);
    });

    // Input: the project's dataset decides the input shape.
    input_group_ = form_group(editor_, form);
    dataset_ = new QComboBox(input_group_);
    dataset_->setObjectName("dataset");
    for (const datasets::CatalogueEntry& entry : datasets::catalogue())
        dataset_->addItem(QString::fromStdString(entry.title), QString::fromStdString(entry.id));
    folder_index_ = dataset_->count();
    dataset_->addItem(tr("Image folder") + ellipsis);
    form->addRow(tr("Dataset"), dataset_);
    layout->addWidget(input_group_);
    connect(dataset_, &QComboBox::currentIndexChanged, this, &InspectorDock::choose_dataset);

    folder_group_ = form_group(editor_, form);
    folder_ = new QLabel(folder_group_);
    folder_->setObjectName("datasetFolder");
    folder_->setWordWrap(true);
    folder_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    choose_folder_ = new QPushButton(tr("Choose") + ellipsis, folder_group_);
    choose_folder_->setObjectName("chooseDatasetFolder");
    auto* folder_row = new QWidget(folder_group_);
    auto* folder_layout = new QHBoxLayout(folder_row);
    folder_layout->setContentsMargins(0, 0, 0, 0);
    folder_layout->addWidget(folder_, 1);
    folder_layout->addWidget(choose_folder_);
    form->addRow(tr("Folder"), folder_row);
    layout->addWidget(folder_group_);
    connect(choose_folder_, &QPushButton::clicked, this, &InspectorDock::choose_folder);

    // The image size: a catalogue dataset's own (shown, fixed), or what an image folder's
    // images are scaled to.
    QFormLayout* size_form = nullptr;
    image_size_group_ = form_group(editor_, size_form);
    QWidget* size_group = image_size_group_;
    image_height_ = spin_box("imageHeight", 1, max_image_side);
    image_width_ = spin_box("imageWidth", 1, max_image_side);
    size_form->addRow(tr("Height"), image_height_);
    size_form->addRow(tr("Width"), image_width_);
    // The import takes grayscale or RGB, nothing between: a choice of two, not a spin box.
    image_channels_ = new QComboBox(size_group);
    image_channels_->setObjectName("imageChannels");
    image_channels_->addItem(tr("1 (grayscale)"), 1);
    image_channels_->addItem(tr("3 (RGB)"), 3);
    size_form->addRow(tr("Channels"), image_channels_);
    input_shape_ = new QLabel(size_group);
    input_shape_->setObjectName("inputShape");
    size_form->addRow(tr("Input shape"), input_shape_);
    dataset_problem_ = error_label("datasetProblem", size_group);
    size_form->addRow(QString(), dataset_problem_);
    layout->addWidget(size_group);
    connect(image_height_, &QSpinBox::valueChanged, this, &InspectorDock::edit_image_size);
    connect(image_width_, &QSpinBox::valueChanged, this, &InspectorDock::edit_image_size);
    connect(image_channels_, &QComboBox::currentIndexChanged, this, &InspectorDock::edit_image_size);

    no_parameters_ = new QLabel(tr("This layer has no parameters to set."), editor_);
    no_parameters_->setObjectName("noParameters");
    no_parameters_->setWordWrap(true);
    layout->addWidget(no_parameters_);

    edit_error_ = error_label("editError", editor_);
    layout->addWidget(edit_error_);

    // The groups are separate forms (so a type's rows show and hide together); one label width
    // for all keeps their fields in one column.
    const QList<QFormLayout*> forms = editor_->findChildren<QFormLayout*>();
    int label_width = 0;
    for (QFormLayout* group_form : forms)
        for (int row = 0; row < group_form->rowCount(); ++row)
            if (QLayoutItem* label = group_form->itemAt(row, QFormLayout::LabelRole); label && label->widget())
                label_width = std::max(label_width, label->widget()->sizeHint().width());
    for (QFormLayout* group_form : forms)
        for (int row = 0; row < group_form->rowCount(); ++row)
            if (QLayoutItem* label = group_form->itemAt(row, QFormLayout::LabelRole); label && label->widget())
                label->widget()->setMinimumWidth(label_width);
    return editor_;
}

void InspectorDock::show_layer(const QString& name) {
    if (name != shown_) {
        gestures_->end();
        show_error(name_error_, {});
        show_error(edit_error_, {});
    }
    shown_ = name;
    refresh();
}

void InspectorDock::document_changed() {
    // An undo, a redo or an edit elsewhere ends a spin box's run: its next step is a new undo step.
    if (!editing_) gestures_->end();
    refresh();
}

void InspectorDock::refresh() {
    const model::LayerSpec* spec = shown_.isEmpty() ? nullptr : document_->layer(shown_.toStdString());
    if (!spec) {
        shown_.clear();
        editor_->hide();
        placeholder_->show();
        return;
    }
    placeholder_->hide();
    editor_->show();
    show_values(*spec);
}

void InspectorDock::show_values(const model::LayerSpec& spec) {
    using model::LayerType;
    const LayerType type = spec.type;
    type_->setText(QString::fromUtf8(model::layer_type_name(type)));
    // Leave a name being typed alone; anything else shows the document's.
    if (!(name_->hasFocus() && name_->isModified())) {
        const QSignalBlocker blocker(name_);
        name_->setText(QString::fromStdString(spec.name));
    }

    const model::NodeReport* node = document_->node_report(spec.name);
    if (node) {
        QString text = QString::fromStdString(node->output ? node->output->sample_text() : node->shape_text());
        if (node->output && node->parameters > 0)
            text += QStringLiteral(" \u00B7 ") +
                    tr("%1 parameters").arg(QString::fromStdString(session::format_thousands(node->parameters)));
        output_->setText(text);
        QStringList problems;
        for (const std::string& problem : node->problems) problems << QString::fromStdString(problem);
        show_error(node_problems_, problems.join(QLatin1Char('\n')));
    } else {
        output_->clear();
        show_error(node_problems_, {});
    }

    const bool has_units = type == LayerType::dense || type == LayerType::conv2d;
    units_group_->setVisible(has_units);
    conv_group_->setVisible(type == LayerType::conv2d);
    pool_group_->setVisible(type == LayerType::max_pool || type == LayerType::avg_pool);
    dropout_group_->setVisible(type == LayerType::dropout);
    activation_group_->setVisible(type == LayerType::activation);
    slope_group_->setVisible(type == LayerType::activation && spec.activation == model::Activation::leaky_relu);
    batch_norm_group_->setVisible(type == LayerType::batch_norm);
    const bool is_input = type == LayerType::input;
    input_group_->setVisible(is_input);
    folder_group_->setVisible(is_input && !document_->project().dataset.folder.empty());
    image_size_group_->setVisible(is_input);
    no_parameters_->setVisible(type == LayerType::flatten || type == LayerType::global_avg_pool ||
                               type == LayerType::add || type == LayerType::concat);

    units_label_->setText(type == LayerType::conv2d ? tr("Filters") : tr("Units"));
    set_quietly(units_, spec.units);
    select_quietly(initializer_, initializer_->findData(static_cast<int>(spec.initializer)));
    set_quietly(kernel_h_, spec.conv.kernel_h);
    set_quietly(kernel_w_, spec.conv.kernel_w);
    set_quietly(stride_h_, spec.conv.stride_h);
    set_quietly(stride_w_, spec.conv.stride_w);
    select_quietly(padding_, padding_->findData(static_cast<int>(spec.conv.padding)));
    set_quietly(pool_h_, spec.pool.size_h);
    set_quietly(pool_w_, spec.pool.size_w);
    set_quietly(pool_stride_h_, spec.pool.stride_h);
    set_quietly(pool_stride_w_, spec.pool.stride_w);
    const int percent = static_cast<int>(std::lround(spec.rate * 100.0f));
    set_quietly(rate_slider_, percent);
    set_quietly(rate_box_, percent);
    select_quietly(activation_, activation_->findData(static_cast<int>(spec.activation)));
    set_quietly(slope_, static_cast<double>(spec.slope));
    set_quietly(momentum_, static_cast<double>(spec.momentum));
    set_quietly(epsilon_, static_cast<double>(spec.epsilon));
    if (is_input) show_dataset();
}

void InspectorDock::show_dataset() {
    const project::DatasetSettings& settings = document_->project().dataset;
    const bool from_folder = !settings.folder.empty();
    int index = from_folder ? folder_index_ : -1;
    for (int i = 0; !from_folder && i < folder_index_; ++i)
        if (dataset_->itemData(i).toString().compare(QString::fromStdString(settings.name), Qt::CaseInsensitive) == 0)
            index = i;
    select_quietly(dataset_, index);
    folder_->setText(QDir::toNativeSeparators(QString::fromStdString(settings.folder)));

    // A catalogue dataset has its own size; only an image folder's is the learner's to choose.
    const datasets::ImageShape& shape = document_->input_shape();
    set_quietly(image_height_, from_folder ? settings.height : shape.height);
    set_quietly(image_width_, from_folder ? settings.width : shape.width);
    select_quietly(image_channels_, image_channels_->findData(from_folder ? settings.channels : shape.channels));
    image_height_->setEnabled(from_folder);
    image_width_->setEnabled(from_folder);
    image_channels_->setEnabled(from_folder);

    const model::NodeReport* node = document_->node_report(shown_.toStdString());
    input_shape_->setText(node && node->output ? QString::fromStdString(node->output->sample_text())
                                               : shape_text(shape));
    show_error(dataset_problem_, QString::fromStdString(document_->dataset_problem()));
}

void InspectorDock::edit_layer(QObject* source, const std::function<bool(model::LayerSpec&)>& change, bool merge) {
    const model::LayerSpec* current = shown_.isEmpty() ? nullptr : document_->layer(shown_.toStdString());
    if (!current) return;
    model::LayerSpec changed = *current;
    if (!change(changed)) return;
    const int gesture = merge ? gestures_->join(source) : 0;
    if (!merge) gestures_->end();
    editing_ = true;
    const std::optional<std::string> refusal = document_->update_layer(shown_.toStdString(), changed, gesture);
    editing_ = false;
    report_refusal(refusal);
}

void InspectorDock::report_refusal(const std::optional<std::string>& refusal) {
    show_error(edit_error_, refusal ? QString::fromStdString(*refusal) : QString());
    // A refused edit changed nothing: put the widgets back to the document's values.
    if (refusal) refresh();
}

void InspectorDock::rename() {
    if (shown_.isEmpty()) return;
    const QString wanted = name_->text().trimmed();
    if (wanted == shown_) {
        show_error(name_error_, {});
        const QSignalBlocker blocker(name_);
        name_->setText(shown_);  // drops surrounding spaces
        return;
    }
    const QString old = shown_;
    // The document says changed() inside rename_layer; the layer must be found under its new name.
    shown_ = wanted;
    editing_ = true;
    const std::optional<std::string> refusal = document_->rename_layer(old.toStdString(), wanted.toStdString());
    editing_ = false;
    if (refusal) {
        shown_ = old;
        show_error(name_error_, QString::fromStdString(*refusal));
        const QSignalBlocker blocker(name_);
        name_->setText(old);
        name_->setModified(false);
        refresh();
        return;
    }
    show_error(name_error_, {});
    name_->setModified(false);
}

void InspectorDock::choose_dataset(int index) {
    if (index < 0) return;
    if (index == folder_index_) {
        choose_folder();
        return;
    }
    const std::string id = dataset_->itemData(index).toString().toStdString();
    project::DatasetSettings settings = document_->project().dataset;
    if (settings.folder.empty() && settings.name == id) return;
    settings.name = id;
    settings.folder.clear();
    // The file then says the size the data has.
    for (const datasets::CatalogueEntry& entry : datasets::catalogue())
        if (entry.id == id) {
            settings.height = entry.shape.height;
            settings.width = entry.shape.width;
            settings.channels = entry.shape.channels;
        }
    gestures_->end();
    editing_ = true;
    const std::optional<std::string> refusal = document_->set_dataset(settings);
    editing_ = false;
    report_refusal(refusal);
}

void InspectorDock::choose_folder() {
    const project::DatasetSettings& current = document_->project().dataset;
    const QString start = current.folder.empty() ? QDir::homePath() : QString::fromStdString(current.folder);
    const QString folder = folder_chooser_ ? folder_chooser_(this, start) : QString();
    if (folder.isEmpty()) {
        refresh();  // cancelled: the dataset box goes back to the project's dataset
        return;
    }
    project::DatasetSettings settings = current;
    settings.name.clear();
    settings.folder = QDir::fromNativeSeparators(folder).toStdString();
    // A folder's images are scaled to the size the spin boxes show (the previous dataset's).
    settings.height = image_height_->value();
    settings.width = image_width_->value();
    settings.channels = image_channels_->currentData().toInt();
    gestures_->end();
    editing_ = true;
    const std::optional<std::string> refusal = document_->set_dataset(settings);
    editing_ = false;
    report_refusal(refusal);
}

void InspectorDock::edit_image_size() {
    project::DatasetSettings settings = document_->project().dataset;
    if (settings.folder.empty()) return;  // a catalogue dataset's size is its own
    const int height = image_height_->value(), width = image_width_->value();
    const int channels = image_channels_->currentData().toInt();
    if (settings.height == height && settings.width == width && settings.channels == channels) return;
    settings.height = height;
    settings.width = width;
    settings.channels = channels;
    editing_ = true;
    const std::optional<std::string> refusal = document_->set_dataset(settings);
    editing_ = false;
    report_refusal(refusal);
}

}  // namespace bps::ui
