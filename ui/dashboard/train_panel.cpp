#include "ui/dashboard/train_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStyle>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <utility>

#include "engine/project/project.h"
#include "ui/document/edit_gesture.h"
#include "ui/document/network_document.h"
#include "ui/document/quiet_setters.h"
#include "ui/editor/fit_width_scroll_area.h"

namespace bps::ui {

namespace {

constexpr int max_epochs = 1000;
constexpr int max_batch_size = 4096;
constexpr int max_validation_percent = 90;
constexpr int max_crop_padding = 32;
constexpr double min_learning_rate = 1e-6;
constexpr double max_learning_rate = 10.0;

// The optimiser box's entries: Nesterov is SGD with a flag, but a learner picks it as a method.
struct OptimiserChoice {
    train::OptimizerKind kind;
    bool nesterov;
    const char* label;
};
const OptimiserChoice optimisers[] = {{train::OptimizerKind::sgd, false, "SGD"},
                                      {train::OptimizerKind::sgd, true, "SGD with Nesterov momentum"},
                                      {train::OptimizerKind::adam, false, "Adam"},
                                      {train::OptimizerKind::adamw, false, "AdamW"}};

int optimiser_index(const train::OptimizerSettings& settings) {
    for (int i = 0; i < static_cast<int>(std::size(optimisers)); ++i) {
        const OptimiserChoice& choice = optimisers[i];
        if (choice.kind == settings.kind &&
            (choice.kind != train::OptimizerKind::sgd || choice.nesterov == settings.nesterov))
            return i;
    }
    return 0;
}

// Batch sizes step through powers of two (32, 64, 128): the sizes devices and courses use.
class BatchSizeSpinBox : public QSpinBox {
public:
    using QSpinBox::QSpinBox;
    void stepBy(int steps) override {
        int size = value();
        for (; steps > 0; --steps) {
            int next = 1;
            while (next <= size) next *= 2;
            size = next;
        }
        for (; steps < 0; ++steps) {
            int next = 1;
            while (next * 2 < size) next *= 2;
            size = next;
        }
        setValue(std::clamp(size, minimum(), maximum()));
    }
};

// Six decimals are needed for small rates, but "0.010000" hides the number in zeros: "0.01".
class CompactSpinBox : public QDoubleSpinBox {
public:
    using QDoubleSpinBox::QDoubleSpinBox;
    QString textFromValue(double value) const override {
        QString text = QDoubleSpinBox::textFromValue(value);
        const QChar point = locale().decimalPoint().front();
        if (!text.contains(point)) return text;
        while (text.endsWith(QLatin1Char('0'))) text.chop(1);
        if (text.endsWith(point)) text.append(QLatin1Char('0'));
        return text;
    }
};

// Learning rates are tried on a log scale: a step goes along 1, 2, 5, 10, 20, ... (about x2 a step).
class RateSpinBox : public CompactSpinBox {
public:
    using CompactSpinBox::CompactSpinBox;
    void stepBy(int steps) override {
        double rate = std::max(value(), min_learning_rate);
        for (; steps > 0; --steps) rate = next_on_ladder(rate, true);
        for (; steps < 0; ++steps) rate = next_on_ladder(rate, false);
        setValue(std::clamp(rate, minimum(), maximum()));
    }

private:
    static double next_on_ladder(double rate, bool up) {
        const double mantissas[] = {1.0, 2.0, 5.0};
        const int decade = static_cast<int>(std::floor(std::log10(rate)));
        // The ladder's values around `rate`, from one decade below to one above.
        double best = up ? max_learning_rate : min_learning_rate;
        for (int d = decade - 1; d <= decade + 1; ++d)
            for (double mantissa : mantissas) {
                const double candidate = mantissa * std::pow(10.0, d);
                if (up && candidate > rate * 1.0001 && candidate < best) best = candidate;
                if (!up && candidate < rate * 0.9999 && candidate > best) best = candidate;
            }
        return best;
    }
};

QGroupBox* group(const QString& title, QWidget* parent, QFormLayout*& form) {
    auto* box = new QGroupBox(title, parent);
    form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    return box;
}

// The groups are separate forms; one label width for all keeps their fields in one column.
void align_labels(QWidget* content) {
    const QList<QFormLayout*> forms = content->findChildren<QFormLayout*>();
    int width = 0;
    for (QFormLayout* form : forms)
        for (int row = 0; row < form->rowCount(); ++row)
            if (QLayoutItem* label = form->itemAt(row, QFormLayout::LabelRole); label && label->widget())
                width = std::max(width, label->widget()->sizeHint().width());
    for (QFormLayout* form : forms)
        for (int row = 0; row < form->rowCount(); ++row)
            if (QLayoutItem* label = form->itemAt(row, QFormLayout::LabelRole); label && label->widget())
                label->widget()->setMinimumWidth(width);
}

QPushButton* run_button(const QString& text, const char* object_name, QStyle::StandardPixmap icon, const QString& tip,
                        QWidget* parent) {
    auto* button = new QPushButton(parent->style()->standardIcon(icon), text, parent);
    button->setObjectName(object_name);
    button->setToolTip(tip);
    return button;
}

QLabel* note_line(const char* object_name, QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setObjectName(object_name);
    label->setWordWrap(true);
    label->hide();
    return label;
}

}  // namespace

TrainPanel::TrainPanel(NetworkDocument* document, std::vector<device::DeviceDescription> devices,
                       std::size_t default_device, QWidget* parent)
    : QWidget(parent),
      document_(document),
      devices_(std::move(devices)),
      default_device_(default_device),
      gestures_(new EditGesture(document, this)) {
    setObjectName("trainPanel");
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    layout->addWidget(build_training());
    layout->addWidget(build_optimiser());
    layout->addWidget(build_schedule());
    layout->addWidget(build_data());
    layout->addWidget(build_device());
    layout->addStretch(1);
    align_labels(content);

    auto* scroll = new FitWidthScrollArea(this);  // the fields narrow instead of scrolling sideways
    scroll->setObjectName("trainDockScroll");
    scroll->setWidget(content);

    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(build_buttons());
    outer->addWidget(scroll, 1);

    connect(document_, &NetworkDocument::changed, this, &TrainPanel::document_changed);
    refresh();
    set_run_state(RunState::idle);
}

QSpinBox* TrainPanel::spin_box(QSpinBox* box, const char* object_name, int minimum, int maximum, const QString& tip) {
    box->setObjectName(object_name);
    box->setRange(minimum, maximum);
    box->setToolTip(tip);
    // Typing "128" is one edit, not three (1, 12, 128).
    box->setKeyboardTracking(false);
    gestures_->watch(box);
    return box;
}

QDoubleSpinBox* TrainPanel::double_spin_box(QDoubleSpinBox* box, const char* object_name, double minimum,
                                            double maximum, int decimals, const QString& tip) {
    box->setObjectName(object_name);
    box->setDecimals(decimals);
    box->setRange(minimum, maximum);
    box->setToolTip(tip);
    box->setKeyboardTracking(false);
    gestures_->watch(box);
    return box;
}

QWidget* TrainPanel::build_buttons() {
    auto* bar = new QWidget(this);
    auto* layout = new QVBoxLayout(bar);
    auto* buttons = new QGridLayout;
    train_ = run_button(tr("Train"), "trainButton", QStyle::SP_MediaPlay,
                        tr("Start training the network with these settings (F5)"), bar);
    pause_ = run_button(tr("Pause"), "pauseButton", QStyle::SP_MediaPause,
                        tr("Stop after the current batch and keep everything as it is (F6)"), bar);
    resume_ = run_button(tr("Resume"), "resumeButton", QStyle::SP_MediaPlay,
                         tr("Go on training from where the run paused (F5)"), bar);
    step_ = run_button(tr("Step"), "stepButton", QStyle::SP_MediaSkipForward,
                       tr("Train exactly one batch, then pause again (F10)"), bar);
    stop_ = run_button(tr("Stop"), "stopButton", QStyle::SP_MediaStop,
                       tr("End the run; the weights of the last batch are kept (Shift+F5)"), bar);
    pause_->setShortcut(QKeySequence(Qt::Key_F6));
    step_->setShortcut(QKeySequence(Qt::Key_F10));
    stop_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    // Train and Resume share F5; set_run_state gives it to the one that is enabled.
    train_->setDefault(true);
    buttons->addWidget(train_, 0, 0, 1, 2);
    buttons->addWidget(stop_, 0, 2, 1, 2);
    buttons->addWidget(pause_, 1, 0);
    buttons->addWidget(resume_, 1, 1);
    buttons->addWidget(step_, 1, 2, 1, 2);
    layout->addLayout(buttons);
    connect(train_, &QPushButton::clicked, this, &TrainPanel::trainRequested);
    connect(pause_, &QPushButton::clicked, this, &TrainPanel::pauseRequested);
    connect(resume_, &QPushButton::clicked, this, &TrainPanel::resumeRequested);
    connect(step_, &QPushButton::clicked, this, &TrainPanel::stepRequested);
    connect(stop_, &QPushButton::clicked, this, &TrainPanel::stopRequested);

    blocked_line_ = note_line("trainBlocked", bar);
    blocked_line_->setStyleSheet("color: #d32f2f;");  // red in light and dark themes alike
    layout->addWidget(blocked_line_);
    locked_line_ = note_line("settingsLocked", bar);
    locked_line_->setText(
        tr("Settings are locked while the run trains; the learning rate applies from the next batch."));
    layout->addWidget(locked_line_);
    return bar;
}

QWidget* TrainPanel::build_training() {
    QFormLayout* form = nullptr;
    QGroupBox* box = group(tr("Training"), this, form);
    epochs_ = spin_box(new QSpinBox(box), "epochs", 1, max_epochs,
                       tr("An epoch is one pass over every training image; more epochs learn more, until the "
                          "network starts to memorise."));
    form->addRow(tr("Epochs"), epochs_);
    batch_size_ = spin_box(new BatchSizeSpinBox(box), "batchSize", 1, max_batch_size,
                           tr("How many images the network sees before each weight update; larger batches give "
                              "smoother steps and use more device memory."));
    form->addRow(tr("Batch size"), batch_size_);
    seed_ = new QLineEdit(box);
    seed_->setObjectName("seed");
    // Any 64-bit seed a project file holds; the text is checked again when it is read.
    seed_->setValidator(new QRegularExpressionValidator(QRegularExpression("[0-9]{1,20}"), seed_));
    seed_->setToolTip(
        tr("The number the random starting weights and the shuffling come from; the same seed "
           "trains the same network again."));
    form->addRow(tr("Seed"), seed_);

    connect(epochs_, &QSpinBox::valueChanged, this, [this](int epochs) {
        edit_training(
            epochs_,
            [epochs](project::TrainingSettings& settings) {
                settings.epochs = epochs;
                // A cosine schedule ends with the run.
                if (settings.schedule.kind == train::ScheduleKind::cosine) settings.schedule.total_epochs = epochs;
            },
            true);
    });
    connect(batch_size_, &QSpinBox::valueChanged, this, [this](int size) {
        edit_training(
            batch_size_, [size](project::TrainingSettings& settings) { settings.batch_size = size; }, true);
    });
    connect(seed_, &QLineEdit::editingFinished, this, &TrainPanel::edit_seed);
    locked_while_running_.insert(locked_while_running_.end(), {epochs_, batch_size_, seed_});
    return box;
}

QWidget* TrainPanel::build_optimiser() {
    QGroupBox* box = group(tr("Optimiser"), this, optimiser_form_);
    optimiser_ = new QComboBox(box);
    optimiser_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);  // narrows with the dock
    optimiser_->setObjectName("optimiser");
    for (int i = 0; i < static_cast<int>(std::size(optimisers)); ++i) optimiser_->addItem(tr(optimisers[i].label), i);
    optimiser_->setToolTip(
        tr("How the weights move against the gradient: SGD takes plain steps, Adam scales each "
           "weight's step by how much its gradient varies."));
    optimiser_form_->addRow(tr("Method"), optimiser_);
    learning_rate_ = double_spin_box(new RateSpinBox(box), "learningRate", min_learning_rate, max_learning_rate, 6,
                                     tr("How far each update moves the weights; too high and the loss jumps "
                                        "around or explodes, too low and learning crawls."));
    optimiser_form_->addRow(tr("Learning rate"), learning_rate_);
    momentum_ = double_spin_box(new CompactSpinBox(box), "momentum", 0.0, 0.999, 3,
                                tr("How much of the previous step carries into the next, like a ball rolling "
                                   "downhill: it smooths noisy gradients and speeds up along valleys."));
    momentum_->setSingleStep(0.01);
    optimiser_form_->addRow(tr("Momentum"), momentum_);
    weight_decay_ = double_spin_box(new CompactSpinBox(box), "weightDecay", 0.0, 1.0, 6,
                                    tr("Pulls every weight a little towards zero at each update, which keeps the "
                                       "network simpler and often helps it generalise."));
    weight_decay_->setSingleStep(0.0001);
    optimiser_form_->addRow(tr("Weight decay"), weight_decay_);

    connect(optimiser_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0) return;
        const OptimiserChoice& choice = optimisers[optimiser_->itemData(index).toInt()];
        edit_training(
            optimiser_,
            [&choice](project::TrainingSettings& settings) {
                settings.optimizer.kind = choice.kind;
                settings.optimizer.nesterov = choice.nesterov;
            },
            false);
    });
    connect(learning_rate_, &QDoubleSpinBox::valueChanged, this, [this](double rate) {
        edit_training(
            learning_rate_,
            [rate](project::TrainingSettings& settings) {
                settings.optimizer.learning_rate = static_cast<float>(rate);
            },
            true);
        if (updating_) return;
        if (run_state_ == RunState::preparing || run_state_ == RunState::running || run_state_ == RunState::paused)
            emit learningRateChanged(rate);
    });
    connect(momentum_, &QDoubleSpinBox::valueChanged, this, [this](double momentum) {
        edit_training(
            momentum_,
            [momentum](project::TrainingSettings& settings) {
                settings.optimizer.momentum = static_cast<float>(momentum);
            },
            true);
    });
    connect(weight_decay_, &QDoubleSpinBox::valueChanged, this, [this](double decay) {
        edit_training(
            weight_decay_,
            [decay](project::TrainingSettings& settings) {
                settings.optimizer.weight_decay = static_cast<float>(decay);
            },
            true);
    });
    locked_while_running_.insert(locked_while_running_.end(), {optimiser_, momentum_, weight_decay_});
    return box;
}

QWidget* TrainPanel::build_schedule() {
    QGroupBox* box = group(tr("Schedule"), this, schedule_form_);
    schedule_ = new QComboBox(box);
    schedule_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);  // narrows with the dock
    schedule_->setObjectName("schedule");
    schedule_->addItem(tr("Constant"), static_cast<int>(train::ScheduleKind::constant));
    schedule_->addItem(tr("Step"), static_cast<int>(train::ScheduleKind::step));
    schedule_->addItem(tr("Cosine"), static_cast<int>(train::ScheduleKind::cosine));
    schedule_->setToolTip(
        tr("How the learning rate changes over the epochs: large steps early to get close, "
           "small steps late to settle."));
    schedule_form_->addRow(tr("Kind"), schedule_);
    step_size_ = spin_box(new QSpinBox(box), "stepSize", 1, max_epochs,
                          tr("Every this many epochs the learning rate is multiplied by the factor below."));
    step_size_->setSuffix(tr(" epochs"));
    schedule_form_->addRow(tr("Every"), step_size_);
    gamma_ = double_spin_box(new CompactSpinBox(box), "gamma", 0.001, 1.0, 3,
                             tr("What the learning rate is multiplied by at each step (0.1 divides it by ten)."));
    gamma_->setSingleStep(0.05);
    schedule_form_->addRow(tr("Multiply by"), gamma_);
    min_rate_ = double_spin_box(new CompactSpinBox(box), "minimumRate", 0.0, max_learning_rate, 6,
                                tr("Where the cosine curve brings the learning rate by the last epoch."));
    min_rate_->setSingleStep(0.0001);
    schedule_form_->addRow(tr("Minimum rate"), min_rate_);

    connect(schedule_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0) return;
        const auto kind = static_cast<train::ScheduleKind>(schedule_->itemData(index).toInt());
        edit_training(
            schedule_,
            [kind](project::TrainingSettings& settings) {
                settings.schedule.kind = kind;
                if (kind == train::ScheduleKind::cosine) settings.schedule.total_epochs = settings.epochs;
            },
            false);
    });
    connect(step_size_, &QSpinBox::valueChanged, this, [this](int epochs) {
        edit_training(
            step_size_, [epochs](project::TrainingSettings& settings) { settings.schedule.step_size = epochs; }, true);
    });
    connect(gamma_, &QDoubleSpinBox::valueChanged, this, [this](double gamma) {
        edit_training(
            gamma_,
            [gamma](project::TrainingSettings& settings) { settings.schedule.gamma = static_cast<float>(gamma); },
            true);
    });
    connect(min_rate_, &QDoubleSpinBox::valueChanged, this, [this](double rate) {
        edit_training(
            min_rate_,
            [rate](project::TrainingSettings& settings) { settings.schedule.min_rate = static_cast<float>(rate); },
            true);
    });
    locked_while_running_.insert(locked_while_running_.end(), {schedule_, step_size_, gamma_, min_rate_});
    return box;
}

QWidget* TrainPanel::build_data() {
    QFormLayout* form = nullptr;
    QGroupBox* box = group(tr("Data"), this, form);
    validation_ = spin_box(new QSpinBox(box), "validationPercent", 0, max_validation_percent,
                           tr("The share of the training images held out to check the network on images it "
                              "never learned from, so you can see when it starts to memorise."));
    validation_->setSuffix(QStringLiteral(" %"));
    form->addRow(tr("Validation"), validation_);
    normalise_ = new QCheckBox(tr("Normalise each channel"), box);
    normalise_->setObjectName("normalise");
    normalise_->setToolTip(
        tr("Shifts and scales the pixels to mean 0 and spread 1 (measured on the training "
           "images), which makes learning faster and steadier."));
    form->addRow(QString(), normalise_);
    random_crop_ = new QCheckBox(tr("Random crop"), box);
    random_crop_->setObjectName("randomCrop");
    random_crop_->setToolTip(
        tr("Pads each image and cuts it back at a random place, so the network learns that "
           "an object a few pixels off is still the same object."));
    form->addRow(tr("Augment"), random_crop_);
    crop_padding_ = spin_box(new QSpinBox(box), "cropPadding", 1, max_crop_padding,
                             tr("How many pixels of zeros surround the image before the random crop."));
    crop_padding_->setSuffix(tr(" px"));
    form->addRow(tr("Crop padding"), crop_padding_);
    flip_ = new QCheckBox(tr("Horizontal flip"), box);
    flip_->setObjectName("horizontalFlip");
    flip_->setToolTip(
        tr("Mirrors half of the images left to right, for pictures where a mirrored object is "
           "still the same kind (not for digits or letters)."));
    form->addRow(QString(), flip_);

    connect(validation_, &QSpinBox::valueChanged, this, [this](int percent) {
        edit_dataset(
            validation_,
            [percent](project::DatasetSettings& settings) { settings.validation_fraction = percent / 100.0; }, true);
    });
    connect(normalise_, &QCheckBox::toggled, this, [this](bool on) {
        edit_dataset(
            normalise_, [on](project::DatasetSettings& settings) { settings.normalize = on; }, false);
    });
    connect(random_crop_, &QCheckBox::toggled, this, [this](bool on) {
        edit_dataset(
            random_crop_, [on](project::DatasetSettings& settings) { settings.augmentation.random_crop = on; }, false);
    });
    connect(crop_padding_, &QSpinBox::valueChanged, this, [this](int pixels) {
        edit_dataset(
            crop_padding_,
            [pixels](project::DatasetSettings& settings) { settings.augmentation.crop_padding = pixels; }, true);
    });
    connect(flip_, &QCheckBox::toggled, this, [this](bool on) {
        edit_dataset(
            flip_, [on](project::DatasetSettings& settings) { settings.augmentation.horizontal_flip = on; }, false);
    });
    locked_while_running_.insert(locked_while_running_.end(), {validation_, normalise_, random_crop_, flip_});
    return box;
}

QWidget* TrainPanel::build_device() {
    QFormLayout* form = nullptr;
    QGroupBox* box = group(tr("Device"), this, form);
    device_ = new QComboBox(box);
    device_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);  // narrows with the dock
    device_->setObjectName("device");
    device_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    device_->setMinimumContentsLength(12);
    form->addRow(tr("Train on"), device_);
    test_when_stopped_ = new QCheckBox(tr("Test when stopped"), box);
    test_when_stopped_->setObjectName("testWhenStopped");
    test_when_stopped_->setChecked(true);
    test_when_stopped_->setToolTip(
        tr("When you stop a run, its weights so far are still tested on the test images, "
           "so the run gets a test accuracy. This takes a moment after Stop."));
    form->addRow(QString(), test_when_stopped_);
    fill_devices();
    connect(device_, &QComboBox::currentIndexChanged, this, &TrainPanel::choose_device);
    return box;
}

void TrainPanel::fill_devices() {
    const QSignalBlocker blocker(device_);
    device_->clear();
    unknown_device_entry_ = -1;
    if (devices_.empty()) {
        device_->addItem(tr("No OpenCL device"), QString());
        device_->setToolTip(tr("No OpenCL device was found on this computer, so there is nothing to train on. ") +
                            QString::fromStdString(device::no_opencl_help()));
        return;
    }
    const std::size_t best = std::min(default_device_, devices_.size() - 1);
    device_->addItem(tr("Best available (%1)").arg(QString::fromStdString(devices_[best].name)), QString());
    for (std::size_t i = 0; i < devices_.size(); ++i) {
        const device::DeviceDescription& description = devices_[i];
        QString text = QString::fromStdString(description.name);
        text += QStringLiteral(" (");
        text += QString::fromUtf8(device::kind_name(description.kind).data(),
                                  static_cast<qsizetype>(device::kind_name(description.kind).size()));
        text += QStringLiteral(")");
        if (i == best) text += tr(" (default)");
        // Skipped by the start-up crash guard: still listed, with why and how to use it again.
        if (!description.skipped.empty()) text += tr(" (skipped)");
        // Its self-test found wrong results: never the default, and chosen only knowingly.
        const bool wrong = description.self_test == device::SelfTestState::wrong_results;
        if (wrong) text += tr(" (wrong results)");
        device_->addItem(text, QString::number(description.index));
        if (!description.skipped.empty())
            device_->setItemData(device_->count() - 1,
                                 tr("Skipped: %1.").arg(QString::fromStdString(description.skipped)), Qt::ToolTipRole);
        else if (wrong)
            device_->setItemData(device_->count() - 1,
                                 QString::fromStdString(device::wrong_results_warning(description)) + ".",
                                 Qt::ToolTipRole);
    }
    device_->setToolTip(
        tr("The OpenCL device the network trains on; the best one is a discrete GPU, then an "
           "integrated GPU, then the processor."));
}

void TrainPanel::document_changed() {
    // An undo, a redo or an edit elsewhere ends a spin box's run: its next step is a new undo step.
    if (!editing_) gestures_->end();
    refresh();
}

void TrainPanel::mark_device_enabled(std::size_t device_index) {
    for (device::DeviceDescription& description : devices_)
        if (description.index == device_index) description.skipped.clear();
    fill_devices();
    refresh();  // chooses the project's device in the new list
}

void TrainPanel::refresh() {
    updating_ = true;
    const project::Project& project = document_->project();
    const project::TrainingSettings& training = project.training;
    set_quietly(epochs_, training.epochs);
    set_quietly(batch_size_, training.batch_size);
    if (!(seed_->hasFocus() && seed_->isModified())) {
        const QSignalBlocker blocker(seed_);
        seed_->setText(QString::number(training.seed));
    }
    select_quietly(optimiser_, optimiser_index(training.optimizer));
    set_quietly(learning_rate_, static_cast<double>(training.optimizer.learning_rate));
    set_quietly(momentum_, static_cast<double>(training.optimizer.momentum));
    set_quietly(weight_decay_, static_cast<double>(training.optimizer.weight_decay));
    select_quietly(schedule_, schedule_->findData(static_cast<int>(training.schedule.kind)));
    set_quietly(step_size_, training.schedule.step_size);
    set_quietly(gamma_, static_cast<double>(training.schedule.gamma));
    set_quietly(min_rate_, static_cast<double>(training.schedule.min_rate));

    const project::DatasetSettings& dataset = project.dataset;
    set_quietly(validation_, static_cast<int>(std::lround(dataset.validation_fraction * 100.0)));
    check_quietly(normalise_, dataset.normalize);
    check_quietly(random_crop_, dataset.augmentation.random_crop);
    set_quietly(crop_padding_, dataset.augmentation.crop_padding);
    check_quietly(flip_, dataset.augmentation.horizontal_flip);
    show_device();
    show_rows();
    apply_lock();
    updating_ = false;
}

void TrainPanel::show_device() {
    if (devices_.empty()) return;
    const QSignalBlocker blocker(device_);
    if (unknown_device_entry_ >= 0) {
        device_->removeItem(unknown_device_entry_);
        unknown_device_entry_ = -1;
    }
    const std::string& request = document_->project().device;
    int entry = 0;  // best available
    if (!request.empty()) {
        try {
            const std::size_t index = device::select_device(devices_, request);
            entry = device_->findData(QString::number(index));
        } catch (const std::exception&) {
            entry = -1;  // named in the project, but this computer has no such device
        }
        if (entry < 0) {
            unknown_device_entry_ = device_->count();
            device_->addItem(tr("%1 (not on this computer)").arg(QString::fromStdString(request)),
                             QString::fromStdString(request));
            entry = unknown_device_entry_;
        }
    }
    device_->setCurrentIndex(entry);
}

void TrainPanel::show_rows() {
    const project::TrainingSettings& training = document_->project().training;
    optimiser_form_->setRowVisible(momentum_, training.optimizer.kind == train::OptimizerKind::sgd);
    const train::ScheduleKind kind = training.schedule.kind;
    schedule_form_->setRowVisible(step_size_, kind == train::ScheduleKind::step);
    schedule_form_->setRowVisible(gamma_, kind == train::ScheduleKind::step);
    schedule_form_->setRowVisible(min_rate_, kind == train::ScheduleKind::cosine);
}

void TrainPanel::set_run_state(RunState state) {
    // A rate stepped before the run started, or before it paused, is its own undo step.
    if (state != run_state_) gestures_->end();
    run_state_ = state;
    const bool idle = state == RunState::idle;
    train_->setEnabled(idle && train_enabled_);
    // Pausing while preparing makes the run wait before its first batch: step through it from the start.
    pause_->setEnabled(state == RunState::preparing || state == RunState::running);
    resume_->setEnabled(state == RunState::paused);
    step_->setEnabled(state == RunState::paused);
    stop_->setEnabled(state == RunState::preparing || state == RunState::running || state == RunState::paused);
    // F5 is Train when idle and Resume when paused: one key, never two buttons holding it.
    train_->setShortcut(idle ? QKeySequence(Qt::Key_F5) : QKeySequence());
    resume_->setShortcut(idle ? QKeySequence() : QKeySequence(Qt::Key_F5));
    locked_line_->setVisible(!idle);
    apply_lock();
}

void TrainPanel::apply_lock() {
    const bool idle = run_state_ == RunState::idle;
    for (QWidget* widget : locked_while_running_) widget->setEnabled(idle);
    crop_padding_->setEnabled(idle && document_->project().dataset.augmentation.random_crop);
    device_->setEnabled(idle && !devices_.empty());
}

void TrainPanel::set_train_enabled(bool enabled, const QString& why) {
    train_enabled_ = enabled;
    train_blocked_why_ = enabled ? QString() : why;
    train_->setToolTip(enabled ? tr("Start training the network with these settings (F5)") : why);
    blocked_line_->setText(train_blocked_why_);
    blocked_line_->setVisible(!enabled && !why.isEmpty());
    set_run_state(run_state_);
}

QWidget* TrainPanel::control(const QString& name) const {
    if (name == "learning_rate") return learning_rate_;
    if (name == "epochs") return epochs_;
    if (name == "batch_size") return batch_size_;
    if (name == "validation_fraction") return validation_;
    if (name == "optimizer") return optimiser_;
    if (name == "augmentation") return random_crop_;
    if (name == "seed") return seed_;
    return nullptr;
}

bool TrainPanel::test_when_stopped() const {
    return test_when_stopped_->isChecked();
}

QString TrainPanel::device_request() const {
    return QString::fromStdString(document_->project().device);
}

template <typename Change>
void TrainPanel::edit_training(QObject* source, Change change, bool merge) {
    if (updating_) return;
    project::TrainingSettings settings = document_->project().training;
    change(settings);
    const int gesture = merge ? gestures_->join(source) : 0;
    if (!merge) gestures_->end();
    editing_ = true;
    const std::optional<std::string> refusal = document_->set_training(settings, gesture);
    editing_ = false;
    if (refusal) refresh();  // the document says why (refused); the widgets show what it kept
}

template <typename Change>
void TrainPanel::edit_dataset(QObject* source, Change change, bool merge) {
    if (updating_) return;
    project::DatasetSettings settings = document_->project().dataset;
    change(settings);
    const int gesture = merge ? gestures_->join(source) : 0;
    if (!merge) gestures_->end();
    editing_ = true;
    const std::optional<std::string> refusal = document_->set_dataset(settings, gesture);
    editing_ = false;
    if (refusal) refresh();
}

void TrainPanel::edit_seed() {
    if (updating_) return;
    bool ok = false;
    const qulonglong seed = seed_->text().toULongLong(&ok);
    seed_->setModified(false);
    if (!ok) {  // empty, or past 2^64: show the project's seed again
        refresh();
        return;
    }
    edit_training(
        seed_, [seed](project::TrainingSettings& settings) { settings.seed = seed; }, false);
}

void TrainPanel::choose_device(int index) {
    if (updating_ || index < 0 || index == unknown_device_entry_) return;
    gestures_->end();
    editing_ = true;
    const std::optional<std::string> refusal = document_->set_device(device_->itemData(index).toString().toStdString());
    editing_ = false;
    if (refusal) refresh();
}

}  // namespace bps::ui
