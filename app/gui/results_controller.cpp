#include "app/gui/results_controller.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QMetaType>
#include <QStatusBar>
#include <QStringList>
#include <QTabWidget>
#include <algorithm>
#include <mutex>

#include "app/gui/job_queue.h"
#include "app/gui/training_controller.h"
#include "engine/base/number_text.h"
#include "engine/project/project_data.h"
#include "engine/session/drawn_image.h"
#include "engine/session/predictor.h"
#include "engine/session/training_job.h"
#include "ui/dashboard/run_list.h"
#include "ui/dashboard/training_dashboard.h"
#include "ui/document/network_document.h"
#include "ui/main_window/main_window.h"
#include "ui/qt_text.h"
#include "ui/results/confusion_matrix_view.h"
#include "ui/results/results_panel.h"
#include "ui/results/sample_detail.h"
#include "ui/try_it/drawing_canvas.h"
#include "ui/try_it/try_it_panel.h"
#include "ui/try_it/try_it_prediction.h"

namespace bps::app {

namespace {

using ui::text_of;

// What the worker answers with.
struct EvaluationRead {
    std::shared_ptr<const session::RunEvaluation> evaluation;  // null: the run has none yet
};
struct ImagesRead {
    std::shared_ptr<const datasets::Dataset> images;
};
struct PredictorFacts {
    datasets::ImageShape shape;
    QStringList class_names;
    QString device;
};
struct Insight {
    std::size_t sample = 0;
    session::OcclusionMap occlusion;
    session::InputGradient saliency;
};

// The patch hides about a seventh of the image's side (4 px of MNIST's 28), moved by half of it:
// small enough to find a stroke, large enough that one patch changes the answer.
int occlusion_patch(int side) {
    return std::max(2, side / 7);
}

// What decides which images a run was evaluated on: a run of the same data reuses them.
std::string images_key(const project::DatasetSettings& settings) {
    return settings.name + "|" + settings.folder + "|" + std::to_string(settings.channels) + "x" +
           std::to_string(settings.height) + "x" + std::to_string(settings.width);
}

// How messages name a run: its name in quotes.
QString run_name(const session::RunRecord& record) {
    return QStringLiteral("'%1'").arg(text_of(record.receipt.name.empty() ? record.id() : record.receipt.name));
}

// An image folder has no test split: its evaluation takes every image of the folder.
QString test_title(const session::RunRecord& record, const session::RunEvaluation& evaluation) {
    const std::size_t count = evaluation.test ? evaluation.test->samples.size() : 0;
    const QString images = text_of(session::format_thousands(count));
    return record.receipt.dataset.folder.empty() ? QObject::tr("Test images (%1)").arg(images)
                                                 : QObject::tr("All %1 images of the folder").arg(images);
}

}  // namespace

// The predictor of the run chosen last, kept between jobs. Only jobs touch it, one at a time.
struct PredictorSlot {
    std::filesystem::path weights;
    std::optional<session::Predictor> predictor;
    // Where the current job's progress goes; the predictor may call it whenever it builds.
    std::mutex report_mutex;
    JobChannel* channel = nullptr;

    void report(const QString& text) {
        std::lock_guard lock(report_mutex);
        if (channel) channel->report(text);
    }
    session::Predictor& for_weights(const std::filesystem::path& file, JobChannel& job) {
        {
            std::lock_guard lock(report_mutex);
            channel = &job;
        }
        if (predictor && weights == file) return *predictor;
        predictor.reset();
        weights.clear();
        session::PredictorSetup setup;
        setup.building_kernels = [this](std::size_t done, std::size_t total) {
            report(total == 0 ? QObject::tr("Preparing the network: building kernels")
                              : QObject::tr("Preparing the network: building kernels %1 of %2").arg(done).arg(total));
        };
        predictor.emplace(session::Predictor::from_file(file), std::move(setup));
        // One prediction now builds what the first one would (the GEMM kernels for one image), so
        // the first stroke is answered as fast as the others.
        predictor->predict(std::vector<float>(predictor->card().shape.per_sample(), 0.0f));
        weights = file;
        return *predictor;
    }
    void job_ended() {
        std::lock_guard lock(report_mutex);
        channel = nullptr;
    }
};

}  // namespace bps::app

Q_DECLARE_METATYPE(bps::app::EvaluationRead)
Q_DECLARE_METATYPE(bps::app::ImagesRead)
Q_DECLARE_METATYPE(bps::app::PredictorFacts)
Q_DECLARE_METATYPE(bps::app::Insight)
Q_DECLARE_METATYPE(bps::ui::TryItPrediction)

namespace bps::app {

namespace {

// Runs `work` with the slot's predictor for `weights`, telling the slot when the job is over.
template <typename Work>
QVariant with_predictor(PredictorSlot& slot, const std::filesystem::path& weights, JobChannel& channel, Work work) {
    struct EndJob {
        PredictorSlot& slot;
        ~EndJob() { slot.job_ended(); }
    } end{slot};
    return work(slot.for_weights(weights, channel));
}

// The files of a run's folder, and the evaluation's even before Evaluate now writes them.
// A Try It answer: the image as the network received it and, with a predictor, its probabilities.
QVariant answer(session::Predictor* predictor, const std::vector<float>& pixels, const datasets::ImageShape& shape,
                const QString& adjusted, const QString& source, std::optional<int> true_label = {}) {
    ui::TryItPrediction prediction;
    prediction.channels = shape.channels;
    prediction.height = shape.height;
    prediction.width = shape.width;
    prediction.pixels = pixels;
    prediction.adjusted = adjusted;
    prediction.source = source;
    prediction.true_label = true_label;
    if (predictor) prediction.probabilities = predictor->predict(pixels).front();
    return QVariant::fromValue(prediction);
}

}  // namespace

ResultsController::ResultsController(ui::MainWindow* window, TrainingController* training, QObject* parent)
    : QObject(parent),
      window_(window),
      training_(training),
      queue_(new JobQueue(this)),
      predictor_(std::make_shared<PredictorSlot>()) {
    ui::ResultsPanel* results = window_->results_panel();
    ui::TryItPanel* try_it = window_->try_it_panel();
    connect(results, &ui::ResultsPanel::runChosen, this, &ResultsController::choose_run);
    connect(try_it, &ui::TryItPanel::runChosen, this, &ResultsController::choose_run);
    connect(results, &ui::ResultsPanel::evaluateRequested, this, &ResultsController::evaluate);
    connect(results, &ui::ResultsPanel::sampleInsightRequested, this, &ResultsController::request_insight);
    connect(results, &ui::ResultsPanel::exported, window_,
            [this](const QString& message) { window_->statusBar()->showMessage(message, 8000); });
    connect(try_it, &ui::TryItPanel::drawingChanged, this, &ResultsController::predict_drawing);
    connect(try_it, &ui::TryItPanel::imageFileChosen, this, [this](const QString& path) {
        // The learner's image is an input: Save image… must not replace it with the 28x28 one.
        std::vector<ui::KeptFile> kept = kept_files_;
        kept.push_back({std::filesystem::path(path.toStdWString()), tr("the image file you gave")});
        window_->try_it_panel()->set_kept_files(std::move(kept));
        predict_file(path, QFileInfo(path).fileName());
    });
    connect(try_it, &ui::TryItPanel::imagePasted, this, [this](const QImage& image) {
        const QString file = pasted_.filePath(QStringLiteral("pasted-%1.png").arg(++pasted_count_));
        if (!pasted_.isValid() || !image.save(file, "PNG")) {
            window_->try_it_panel()->show_failure(tr("The pasted image could not be kept for reading."));
            return;
        }
        predict_file(file, tr("the pasted image"));
    });
    connect(try_it, &ui::TryItPanel::randomTestImageRequested, this, &ResultsController::predict_test_image);
    // The views follow the run list when they are looked at, and a run that ends.
    connect(window_->panels(), &QTabWidget::currentChanged, this, [this] {
        QWidget* shown = window_->panels()->currentWidget();
        if (shown == window_->results_panel() || shown == window_->try_it_panel()) refresh_runs();
    });
    // A run that ends, another project, runs moved beside a first save: followed at once where the
    // learner looks, else when a view is shown (no images read, no kernels built for nobody).
    const auto follow = [this] {
        QWidget* shown = window_->panels()->currentWidget();
        if (shown == window_->results_panel() || shown == window_->try_it_panel()) refresh_runs();
    };
    connect(training_, &TrainingController::runEnded, this, follow);
    connect(window_->document(), &ui::NetworkDocument::replaced, this, follow);
    connect(window_, &ui::MainWindow::saved, this, follow);
    ui::RunList* runs = window_->dashboard()->run_list();
    connect(runs, &ui::RunList::runRemoved, this, [this] { refresh_runs(); });
    connect(runs, &ui::RunList::runRenamed, this, [this] { refresh_runs(); });
}

ResultsController::~ResultsController() = default;  // the queue's running job ends on its own

void ResultsController::refresh_runs() {
    ui::RunList* runs = window_->dashboard()->run_list();
    const QStringList ids = runs->run_ids();
    const QString chosen = ids.contains(run_) ? run_ : (ids.isEmpty() ? QString() : ids.back());
    show_choosers(chosen);
    // A run chosen again is read again: it may have ended, or been evaluated, since.
    const session::RunRecord* now = chosen.isEmpty() ? nullptr : runs->run(chosen);
    const bool changed = chosen != run_ || !record_ || !now || now->folder != record_->folder ||
                         now->receipt.outcome != record_->receipt.outcome;
    if (changed) choose_run(chosen);
}

void ResultsController::show_choosers(const QString& chosen) {
    ui::RunList* runs = window_->dashboard()->run_list();
    QStringList ids, names;
    for (const QString& id : runs->run_ids()) {
        const session::RunRecord* run = runs->run(id);
        ids << id;
        names << (run && !run->receipt.name.empty() ? text_of(run->receipt.name) : id);
    }
    window_->results_panel()->set_runs(ids, names, chosen);
    window_->try_it_panel()->set_runs(ids, names, chosen);
}

void ResultsController::choose_run(const QString& id) {
    ++generation_;
    queue_->drop_waiting();
    run_ = id;
    show_choosers(id);  // a run chosen in one tab is the other's too
    ui::ResultsPanel* results = window_->results_panel();
    ui::TryItPanel* try_it = window_->try_it_panel();
    results->set_status({});
    try_it->set_status({});
    const session::RunRecord* listed = id.isEmpty() ? nullptr : window_->dashboard()->run_list()->run(id);
    record_ = listed ? std::optional<session::RunRecord>(*listed) : std::nullopt;
    if (!record_) {
        results->show_message(tr("Train a run: its results show here."));
        try_it->show_failure(tr("Train a run first: Try it uses a run's trained network."));
        emit runShown(id);
        return;
    }
    if (id == window_->dashboard()->run_list()->active_run()) {
        results->show_message(
            tr("The run %1 is still training: its results show here when it ends.").arg(run_name(*record_)));
        try_it->show_failure(tr("The run %1 is still training: choose it when it has ended.").arg(run_name(*record_)));
        emit runShown(id);
        return;
    }
    // No export may replace what the run kept, nor the project.
    kept_files_ = ui::run_files(*record_);
    if (!window_->document()->file().empty())
        kept_files_.push_back({window_->document()->file(), tr("the project file")});
    results->set_kept_files(kept_files_);
    try_it->set_kept_files(kept_files_);
    results->show_message(tr("Reading the evaluation of the run %1…").arg(run_name(*record_)));
    // The images before the predictor: the gallery waits for them, Try It can wait a little longer.
    read_evaluation();
    load_images();
    prepare_predictor();
}

void ResultsController::read_evaluation() {
    const unsigned generation = generation_;
    const std::filesystem::path folder = record_->folder;
    queue_->submit(
        "evaluation",
        [folder](JobChannel&) {
            std::optional<session::RunEvaluation> read = session::read_run_evaluation(folder);
            EvaluationRead answer;
            if (read) answer.evaluation = std::make_shared<const session::RunEvaluation>(std::move(*read));
            return QVariant::fromValue(answer);
        },
        [this, generation](const QVariant& result) {
            if (!current(generation)) return;
            const EvaluationRead read = result.value<EvaluationRead>();
            ui::ResultsPanel* results = window_->results_panel();
            const bool has_weights = !record_->weights().empty();
            if (!read.evaluation) {
                results->show_message(
                    has_weights ? tr("The run %1 has no evaluation kept: it ran before evaluations were kept, or "
                                     "ended before its test. Evaluate it now on its test images.")
                                      .arg(run_name(*record_))
                                : tr("The run %1 kept no weights (it ended before any were saved): there is "
                                     "nothing to evaluate.")
                                      .arg(run_name(*record_)),
                    has_weights);
            } else {
                results->show_evaluation(read.evaluation, test_title(*record_, *read.evaluation));
            }
            emit runShown(run_);
        },
        [this, generation](const QString& message) {
            if (!current(generation)) return;
            window_->results_panel()->show_message(message, false, true);
            emit runShown(run_);
        });
}

void ResultsController::load_images() {
    const project::DatasetSettings settings = record_->receipt.dataset;
    const std::string source = images_key(settings);
    ui::ResultsPanel* results = window_->results_panel();
    if (images_ && images_source_ == source) {
        results->set_images(images_);
        return;
    }
    const unsigned generation = generation_;
    queue_->submit(
        "images",
        [settings](JobChannel& channel) {
            ImagesRead read;
            read.images = std::make_shared<const datasets::Dataset>(
                session::load_evaluated_images(settings, [&channel](std::size_t done, std::size_t total) {
                    channel.report(QObject::tr("Reading the images: %1 of %2").arg(done).arg(total));
                }));
            return QVariant::fromValue(read);
        },
        [this, generation, source](const QVariant& result) {
            images_ = result.value<ImagesRead>().images;
            images_source_ = source;
            if (!current(generation)) return;
            window_->results_panel()->set_status({});
            window_->results_panel()->set_images(images_);
        },
        [this, generation](const QString& message) {
            if (current(generation))
                window_->results_panel()->set_status(tr("The images cannot be shown: %1").arg(message), true);
        },
        [this, generation](const QVariant& progress) {
            if (current(generation)) window_->results_panel()->set_status(progress.toString());
        });
}

void ResultsController::prepare_predictor() {
    const std::filesystem::path weights = record_->weights();
    ui::TryItPanel* try_it = window_->try_it_panel();
    if (weights.empty()) {
        try_it->show_failure(tr("The run %1 kept no weights (it ended before any were saved): choose another run.")
                                 .arg(run_name(*record_)));
        return;
    }
    try_it->set_status(tr("Preparing the network of the run %1…").arg(run_name(*record_)));
    const unsigned generation = generation_;
    queue_->submit(
        "predictor",
        [slot = predictor_, weights](JobChannel& channel) {
            return with_predictor(*slot, weights, channel, [](session::Predictor& predictor) {
                PredictorFacts facts;
                facts.shape = predictor.card().shape;
                for (const std::string& name : predictor.card().class_names) facts.class_names << text_of(name);
                facts.device = text_of(predictor.device_name());
                return QVariant::fromValue(facts);
            });
        },
        [this, generation](const QVariant& result) {
            if (!current(generation)) return;
            const PredictorFacts facts = result.value<PredictorFacts>();
            ui::TryItPanel* panel = window_->try_it_panel();
            panel->set_input(facts.shape.channels, facts.shape.height, facts.shape.width, facts.class_names);
            panel->set_status(tr("Ready: the run %1 on %2").arg(run_name(*record_), facts.device));
            // A drawing already there is the new run's to answer.
            if (panel->drawing_offered() && !panel->canvas()->is_empty())
                predict_drawing(panel->canvas()->ink(), !panel->no_centring_box()->isChecked());
        },
        [this, generation](const QString& message) {
            if (!current(generation)) return;
            const QString problem = tr("The run %1 cannot predict: %2").arg(run_name(*record_), message);
            window_->try_it_panel()->show_failure(problem);
            window_->results_panel()->set_status(problem, true);
        },
        [this, generation](const QVariant& progress) {
            if (current(generation)) window_->try_it_panel()->set_status(progress.toString());
        });
}

void ResultsController::evaluate(const QString& id) {
    if (id != run_ || !record_) return;
    const std::filesystem::path weights = record_->weights();
    ui::ResultsPanel* results = window_->results_panel();
    if (weights.empty()) {
        results->set_status(tr("The run %1 kept no weights: there is nothing to evaluate.").arg(run_name(*record_)),
                            true);
        return;
    }
    results->set_evaluating(true);
    results->set_status(tr("Evaluating the run %1…").arg(run_name(*record_)));
    const unsigned generation = generation_;
    const std::filesystem::path folder = record_->folder;
    queue_->submit(
        "evaluate",
        [weights, folder](JobChannel& channel) {
            // The project trained is in the weights file, as the run saved it.
            session::JobSetup setup;
            setup.task = session::JobTask::evaluate;
            setup.project = session::Predictor::from_file(weights).project;
            setup.source = weights.string();
            setup.weights = weights;
            std::optional<session::JobResult> result;
            std::optional<session::JobFailure> failure;
            session::JobEvents events;
            events.stage = [&channel](const session::StageReport& stage) {
                QString text = QObject::tr("Evaluating: %1").arg(text_of(stage.activity));
                if (stage.total > 0) text += QStringLiteral(" %1 of %2").arg(stage.done).arg(stage.total);
                channel.report(text);
            };
            events.finished = [&result](const session::JobResult& r) { result = r; };
            events.failed = [&failure](const session::JobFailure& f) { failure = f; };
            {
                session::TrainingJob job(std::move(setup), std::move(events));
                channel.on_stop([&job] { job.stop(); });
                while (!job.wait_for(std::chrono::seconds(1))) {
                }
                channel.on_stop({});
            }
            if (failure) throw std::runtime_error(failure->message);
            if (!result || !result->test_samples) throw std::runtime_error("the evaluation ended before its images");
            // The validation epochs recorded during training stay; the test split is new.
            session::RunEvaluation kept = session::read_run_evaluation(folder).value_or(session::RunEvaluation{});
            kept.class_names = result->class_names;
            kept.test = std::move(*result->test_samples);
            session::write_run_evaluation(folder, kept);
            // The receipt's test figures too, so the run list shows them.
            session::RunRecord record = session::read_run(folder);
            record.receipt.test = result->test;
            session::write_run(record);
            return QVariant::fromValue(record);
        },
        [this, generation](const QVariant& result) {
            window_->results_panel()->set_evaluating(false);
            window_->results_panel()->set_status({});
            const session::RunRecord evaluated = result.value<session::RunRecord>();
            window_->dashboard()->run_list()->update_run(evaluated);
            if (!current(generation)) return;
            record_ = evaluated;
            read_evaluation();
        },
        [this, generation](const QString& message) {
            window_->results_panel()->set_evaluating(false);
            if (current(generation))
                window_->results_panel()->set_status(tr("The evaluation failed: %1").arg(message), true);
        },
        [this, generation](const QVariant& progress) {
            if (current(generation)) window_->results_panel()->set_status(progress.toString());
        });
}

void ResultsController::request_insight(std::size_t sample) {
    if (!record_ || !images_ || sample >= images_->size()) return;
    const std::filesystem::path weights = record_->weights();
    if (weights.empty()) {
        window_->results_panel()->detail()->show_insight_failed(sample, tr("The run kept no weights."));
        return;
    }
    const auto pixels = images_->image(sample);
    std::vector<float> image(pixels.begin(), pixels.end());
    const int side = std::min(images_->shape.height, images_->shape.width);
    const unsigned generation = generation_;
    queue_->submit(
        "insight",
        [slot = predictor_, weights, image = std::move(image), sample, side](JobChannel& channel) {
            return with_predictor(*slot, weights, channel, [&](session::Predictor& predictor) {
                Insight insight;
                insight.sample = sample;
                const int patch = occlusion_patch(side);
                insight.occlusion = predictor.occlusion(image, patch, std::max(1, patch / 2));
                // The saliency of the class the network chose, the one the occlusion map watches.
                insight.saliency = predictor.input_gradient(image, insight.occlusion.label);
                return QVariant::fromValue(insight);
            });
        },
        [this, generation](const QVariant& result) {
            if (!current(generation)) return;
            const Insight insight = result.value<Insight>();
            window_->results_panel()->detail()->show_insight(insight.sample, insight.occlusion, insight.saliency);
            emit insightShown(insight.sample);
        },
        [this, generation, sample](const QString& message) {
            if (current(generation)) window_->results_panel()->detail()->show_insight_failed(sample, message);
        });
}

void ResultsController::submit_try(Job job) {
    const unsigned generation = generation_;
    const auto shown = [this, generation](const auto& show) {
        if (!current(generation)) return;
        show(window_->try_it_panel());
        emit predictionShown();
    };
    queue_->submit(
        "try", std::move(job),
        [shown](const QVariant& result) {
            shown([&](ui::TryItPanel* panel) { panel->show_prediction(result.value<ui::TryItPrediction>()); });
        },
        [shown](const QString& message) { shown([&](ui::TryItPanel* panel) { panel->show_failure(message); }); });
}

void ResultsController::predict_drawing(const QImage& ink, bool centre) {
    if (!record_ || record_->weights().empty()) return;
    const std::filesystem::path weights = record_->weights();
    submit_try([slot = predictor_, weights, ink = ink.convertToFormat(QImage::Format_Grayscale8),
                centre](JobChannel& channel) {
        return with_predictor(*slot, weights, channel, [&](session::Predictor& predictor) {
            std::vector<float> canvas;
            canvas.reserve(static_cast<std::size_t>(ink.width()) * static_cast<std::size_t>(ink.height()));
            for (int y = 0; y < ink.height(); ++y) {
                const uchar* line = ink.constScanLine(y);
                for (int x = 0; x < ink.width(); ++x) canvas.push_back(static_cast<float>(line[x]) / 255.0f);
            }
            const datasets::ImageShape shape = predictor.card().shape;
            const session::DrawnImage drawn =
                session::prepare_drawing(canvas, ink.height(), ink.width(), shape.height, shape.width, centre);
            // Nothing drawn (the last stroke undone): the image shows, the bars empty.
            return answer(drawn.empty ? nullptr : &predictor, drawn.pixels, {1, drawn.height, drawn.width},
                          text_of(drawn.adjusted), QObject::tr("your drawing"));
        });
    });
}

void ResultsController::predict_file(const QString& path, const QString& source) {
    if (!record_ || record_->weights().empty()) return;
    const std::filesystem::path weights = record_->weights();
    const std::filesystem::path file(path.toStdWString());
    submit_try([slot = predictor_, weights, file, source](JobChannel& channel) {
        return with_predictor(*slot, weights, channel, [&](session::Predictor& predictor) {
            const session::ImageForPredictor read = session::read_image_for(predictor.card(), file);
            const datasets::ImageShape shape = predictor.card().shape;
            return answer(
                &predictor, read.pixels, shape,
                read.adjusted.empty()
                    ? QObject::tr("already %1x%2, as the network's images are").arg(shape.width).arg(shape.height)
                    : text_of(read.adjusted),
                source);
        });
    });
}

void ResultsController::predict_test_image() {
    if (!record_ || record_->weights().empty()) return;
    if (!images_ || images_source_ != images_key(record_->receipt.dataset)) {
        // The images come first; the request is answered once they are read.
        load_images();
        const unsigned generation = generation_;
        queue_->submit(
            "test image", [](JobChannel&) { return QVariant(); },
            [this, generation](const QVariant&) {
                if (current(generation) && images_) predict_test_image();
            });
        return;
    }
    if (images_->size() == 0) {
        window_->try_it_panel()->show_failure(tr("The run's dataset has no test images."));
        return;
    }
    const std::size_t sample = std::uniform_int_distribution<std::size_t>(0, images_->size() - 1)(random_);
    const auto pixels = images_->image(sample);
    std::vector<float> image(pixels.begin(), pixels.end());
    const int label = images_->labels[sample];
    const QString source = tr("test image %1 (true: %2)")
                               .arg(text_of(session::format_thousands(sample)),
                                    text_of(static_cast<std::size_t>(label) < images_->class_names.size()
                                                ? images_->class_names[static_cast<std::size_t>(label)]
                                                : std::to_string(label)));
    const std::filesystem::path weights = record_->weights();
    const datasets::ImageShape shape = images_->shape;
    submit_try([slot = predictor_, weights, image = std::move(image), label, source, shape](JobChannel& channel) {
        return with_predictor(*slot, weights, channel, [&](session::Predictor& predictor) {
            return answer(&predictor, image, shape, QObject::tr("a test image, as the network was evaluated on it"),
                          source, label);
        });
    });
}

}  // namespace bps::app
