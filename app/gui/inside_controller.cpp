#include "app/gui/inside_controller.h"

#include <QCheckBox>
#include <QMetaType>
#include <QTabWidget>
#include <algorithm>
#include <mutex>
#include <set>

#include "app/gui/inside_pictures.h"
#include "app/gui/job_queue.h"
#include "app/gui/training_controller.h"
#include "app/gui/training_runner.h"
#include "engine/project/project_data.h"
#include "engine/runs/epoch_replay.h"
#include "engine/session/drawn_image.h"
#include "ui/dashboard/run_list.h"
#include "ui/dashboard/training_dashboard.h"
#include "ui/document/network_document.h"
#include "ui/editor/network_scene.h"
#include "ui/main_window/main_window.h"
#include "ui/qt_text.h"
#include "ui/try_it/drawing_canvas.h"
#include "ui/try_it/try_it_panel.h"

Q_DECLARE_METATYPE(bps::app::InsideAnswer)

namespace bps::app {

namespace {

using ui::text_of;

const QString live_id = QStringLiteral("live");

std::vector<float> ink_pixels(const QImage& ink) {
    const QImage grey = ink.convertToFormat(QImage::Format_Grayscale8);
    std::vector<float> canvas;
    canvas.reserve(static_cast<std::size_t>(grey.width()) * static_cast<std::size_t>(grey.height()));
    for (int y = 0; y < grey.height(); ++y) {
        const uchar* line = grey.constScanLine(y);
        for (int x = 0; x < grey.width(); ++x) canvas.push_back(static_cast<float>(line[x]) / 255.0f);
    }
    return canvas;
}

std::map<std::string, session::ValueFigures> figures_of(const std::vector<io::NamedArray>& arrays) {
    std::map<std::string, session::ValueFigures> figures;
    for (const io::NamedArray& array : arrays) figures[array.name] = session::value_figures(array.values);
    return figures;
}

}  // namespace

// The predictor and what was read for it, kept between requests. Only jobs touch it, one at a time.
struct InsideSlot {
    std::string key;  // the weights file, or "live:" and the run's folder
    std::optional<session::Predictor> predictor;
    std::vector<io::NamedArray> final_weights;  // the file's (a finished run)
    std::string images_key;
    std::shared_ptr<const datasets::Dataset> images;
    // The replay's figures, read once per run folder and epoch.
    std::filesystem::path history_folder;
    std::map<int, session::EpochReplay> replays;

    session::Predictor& predictor_for(const InsideWeights& weights) {
        // The run in training (live, or one of its replayed epochs) has no weights file yet.
        const bool live = weights.project && weights.card && weights.snapshot;
        const std::string wanted = live ? "live:" + weights.run_folder.string() : weights.weights_file.string();
        if (predictor && key == wanted) return *predictor;
        predictor.reset();
        key.clear();
        final_weights.clear();
        if (live) {
            session::PredictorSource source{*weights.project, *weights.card, weights.snapshot->weights,
                                            "the run in training"};
            predictor.emplace(std::move(source));
        } else {
            session::PredictorSource source = session::Predictor::from_file(weights.weights_file);
            final_weights = source.weights;
            predictor.emplace(std::move(source));
        }
        key = wanted;
        return *predictor;
    }

    const datasets::Dataset& test_images(const project::DatasetSettings& settings) {
        const std::string wanted = settings.name + "|" + settings.folder + "|" + std::to_string(settings.channels) +
                                   "x" + std::to_string(settings.height) + "x" + std::to_string(settings.width);
        if (!images || images_key != wanted) {
            images = std::make_shared<const datasets::Dataset>(session::load_evaluated_images(settings));
            images_key = wanted;
        }
        return *images;
    }

    const session::EpochReplay& replay(const std::filesystem::path& folder, int epoch) {
        if (folder != history_folder) {
            replays.clear();
            history_folder = folder;
        }
        auto found = replays.find(epoch);
        if (found == replays.end()) found = replays.emplace(epoch, session::read_epoch_replay(folder, epoch)).first;
        return found->second;
    }
};

namespace {

// The image a request names, as the predictor takes it, and how the view titles it.
std::pair<std::vector<float>, QString> resolve_image(InsideSlot& slot, const session::Predictor& predictor,
                                                     const InsideImageRequest& request) {
    const session::ModelCard& card = predictor.card();
    switch (request.choice.kind) {
        case ui::InsideImageChoice::Kind::test_image: {
            const datasets::Dataset& images = slot.test_images(predictor.project().dataset);
            if (images.size() == 0) throw std::runtime_error("the run's dataset has no test images");
            const std::size_t index =
                std::min(static_cast<std::size_t>(std::max(0, request.choice.index)), images.size() - 1);
            const auto pixels = images.image(index);
            const int label = images.labels[index];
            const QString name = static_cast<std::size_t>(label) < images.class_names.size()
                                     ? text_of(images.class_names[static_cast<std::size_t>(label)])
                                     : QString::number(label);
            return {std::vector<float>(pixels.begin(), pixels.end()),
                    QObject::tr("Test image %1: %2").arg(index).arg(name)};
        }
        case ui::InsideImageChoice::Kind::drawing: {
            if (card.shape.channels != 1)
                throw std::runtime_error("a drawing has one channel, and this network takes colour images");
            const session::DrawnImage drawn =
                session::prepare_drawing(ink_pixels(request.ink), request.ink.height(), request.ink.width(),
                                         card.shape.height, card.shape.width, request.centre);
            return {drawn.pixels, QObject::tr("Your drawing in Try It")};
        }
        case ui::InsideImageChoice::Kind::file: {
            const std::filesystem::path file(request.choice.file.toStdWString());
            session::ImageForPredictor read = session::read_image_for(card, file);
            return {std::move(read.pixels), text_of(file.filename().string())};
        }
    }
    return {};
}

// Every weight parameter's figures over the replay's epochs (and now, for a live run).
std::vector<ui::ParameterHistory> histories_of(InsideSlot& slot, const std::filesystem::path& folder,
                                               const std::vector<int>& epochs, const InsideAnswer& now) {
    std::vector<ui::ParameterHistory> histories;
    const auto history_for = [&histories](const std::string& name) -> ui::ParameterHistory& {
        for (ui::ParameterHistory& history : histories)
            if (history.parameter == text_of(name)) return history;
        histories.push_back({text_of(name), {}});
        return histories.back();
    };
    const auto is_weight = [](const std::string& name) { return name.ends_with(".weight"); };
    for (int epoch : epochs) {
        // A damaged epoch leaves a gap in the histograms; choosing it on the slider says what is wrong.
        const session::EpochReplay* replay = nullptr;
        try {
            replay = &slot.replay(folder, epoch);
        } catch (const session::ReplayError&) {
            continue;
        }
        for (const session::ParameterFigures& figures : replay->figures)
            if (is_weight(figures.name))
                history_for(figures.name).epochs.push_back({epoch, figures.weights, figures.gradients});
    }
    if (now.live) {
        const int epoch = epochs.empty() ? 0 : epochs.back() + 1;
        for (const auto& [name, figures] : now.weight_figures) {
            if (!is_weight(name)) continue;
            const auto gradient = now.gradient_figures.find(name);
            history_for(name).epochs.push_back(
                {epoch, figures,
                 gradient == now.gradient_figures.end() ? std::nullopt : std::optional(gradient->second)});
        }
    }
    return histories;
}

InsideAnswer look_inside(InsideSlot& slot, const InsideWeights& weights,
                         const std::vector<InsideImageRequest>& images) {
    session::Predictor& predictor = slot.predictor_for(weights);
    InsideAnswer answer;
    answer.project = predictor.project();
    answer.card = predictor.card();
    answer.layers = predictor.layers();
    for (const session::LayerOutput& layer : answer.layers) answer.exact_layers.push_back(layer.name);
    std::vector<io::NamedArray> chosen;
    std::filesystem::path folder = weights.run_folder;
    switch (weights.kind) {
        case InsideWeights::Kind::final:
            chosen = slot.final_weights;
            folder = weights.weights_file.parent_path();
            break;
        case InsideWeights::Kind::replay: {
            const session::EpochReplay& replay = slot.replay(weights.run_folder, weights.epoch);
            chosen =
                session::replay_weights(slot.final_weights.empty() ? predictor.weights() : slot.final_weights, replay);
            answer.exact_layers = session::replayed_layers(answer.project, answer.card, replay);
            for (const session::ParameterFigures& figures : replay.figures)
                if (figures.gradients) answer.gradient_figures[figures.name] = *figures.gradients;
            break;
        }
        case InsideWeights::Kind::live:
            chosen = weights.snapshot->weights;
            answer.gradient_figures = figures_of(weights.snapshot->gradients);
            answer.live = true;
            answer.live_batches = weights.snapshot->batches;
            break;
    }
    predictor.set_weights(chosen);
    answer.weight_figures = figures_of(chosen);
    answer.weights = std::make_shared<const std::vector<io::NamedArray>>(std::move(chosen));
    for (const InsideImageRequest& request : images) {
        auto [pixels, title] = resolve_image(slot, predictor, request);
        answer.images.push_back({title, predictor.activations(pixels)});
    }
    if (slot.images) answer.test_images = static_cast<int>(slot.images->size());
    answer.replay_epochs = session::replay_epochs(folder);
    // A finished run's last figures of its gradients are its last replay's.
    if (weights.kind == InsideWeights::Kind::final && !answer.replay_epochs.empty()) {
        try {
            for (const session::ParameterFigures& figures : slot.replay(folder, answer.replay_epochs.back()).figures)
                if (figures.gradients) answer.gradient_figures[figures.name] = *figures.gradients;
        } catch (const session::ReplayError&) {
            // The final weights still show; only the gradients' figures are missing.
        }
    }
    answer.histories = histories_of(slot, folder, answer.replay_epochs, answer);
    return answer;
}

}  // namespace

InsideController::InsideController(ui::MainWindow* window, TrainingController* training, QObject* parent)
    : QObject(parent),
      window_(window),
      training_(training),
      queue_(new JobQueue(this)),
      slot_(std::make_shared<InsideSlot>()) {
    qRegisterMetaType<InsideAnswer>();
    ui::InsidePanel* panel = window_->inside_panel();
    connect(panel, &ui::InsidePanel::sourceChosen, this, &InsideController::choose_source);
    connect(panel, &ui::InsidePanel::epochChosen, this, [this] { request_view(); });
    connect(panel, &ui::InsidePanel::imagesChanged, this, [this] { request_view(); });
    connect(panel, &ui::InsidePanel::layerChosen, this, [this] { show_layer(); });
    // A layer chosen on the canvas is the layer looked at.
    connect(window_->scene(), &ui::NetworkScene::selectionNamesChanged, this, [this](const QStringList& names) {
        if (names.size() == 1) window_->inside_panel()->choose_layer(names.front());
    });
    // The drawing follows Try It's canvas while it is the image looked at.
    connect(window_->try_it_panel(), &ui::TryItPanel::drawingChanged, this, [this] {
        ui::InsidePanel* panel = window_->inside_panel();
        for (int slot = 0; slot < 2; ++slot)
            if (panel->image_choice(slot).kind == ui::InsideImageChoice::Kind::drawing && shown()) request_view();
    });
    connect(window_->panels(), &QTabWidget::currentChanged, this, &InsideController::follow_tab);
    TrainingRunner* runner = training_->runner();
    connect(runner, &TrainingRunner::insideSnapshot, this, &InsideController::snapshot_arrived);
    connect(runner, &TrainingRunner::runStarted, this, [this](const session::RunFacts& facts) {
        live_project_ = window_->document()->project();
        live_card_ = facts.card;
        latest_.reset();
        source_ = live_id;  // a new run is the one to watch
        answer_.reset();
        if (shown()) refresh_sources();
    });
    connect(runner, &TrainingRunner::epochReported, this, [this] {
        if (shown() && source_ == live_id) request_view();  // the slider gains the epoch's replay
    });
    connect(training_, &TrainingController::runEnded, this, [this] {
        live_project_.reset();
        live_card_.reset();
        latest_.reset();
        if (shown()) refresh_sources();
    });
    ui::RunList* runs = window_->dashboard()->run_list();
    connect(runs, &ui::RunList::runRemoved, this, [this] {
        if (shown()) refresh_sources();
    });
    connect(runs, &ui::RunList::runRenamed, this, [this] {
        if (shown()) refresh_sources();
    });
    connect(window_->document(), &ui::NetworkDocument::replaced, this, [this] {
        if (shown()) refresh_sources();
    });
}

InsideController::~InsideController() = default;  // the queue's running job ends on its own

bool InsideController::shown() const {
    return window_->panels()->currentWidget() == window_->inside_panel();
}

void InsideController::follow_tab() {
    // Live snapshots cost the run a little: asked for only while somebody looks.
    training_->runner()->set_inside_interval(shown() ? live_interval : std::chrono::milliseconds(0));
    if (shown()) refresh_sources();
}

void InsideController::refresh_sources() {
    ui::RunList* runs = window_->dashboard()->run_list();
    const QString active = runs->active_run();
    QStringList ids, names;
    if (!active.isEmpty() && live_card_) {
        ids << live_id;
        names << tr("Training now (live)");
    }
    for (const QString& id : runs->run_ids()) {
        if (id == active) continue;
        const session::RunRecord* run = runs->run(id);
        if (!run || run->weights().empty()) continue;  // nothing to look inside
        ids << id;
        names << (!run->receipt.name.empty() ? text_of(run->receipt.name) : id);
    }
    // The one looked at while it is listed, else the run in training, else the newest. A run that
    // starts is looked at live (runStarted chooses it).
    QString chosen = ids.contains(source_)   ? source_
                     : ids.contains(live_id) ? live_id
                     : ids.isEmpty()         ? QString()
                                             : ids.back();
    window_->inside_panel()->set_sources(ids, names, chosen);
    const session::RunRecord* now = chosen.isEmpty() || chosen == live_id ? nullptr : runs->run(chosen);
    const bool changed =
        chosen != source_ ||
        (now && (!record_ || now->folder != record_->folder || now->receipt.outcome != record_->receipt.outcome));
    if (changed || !answer_) choose_source(chosen);
}

void InsideController::choose_source(const QString& id) {
    ++generation_;
    queue_->drop_waiting();
    source_ = id;
    answer_.reset();
    epochs_.clear();
    ui::InsidePanel* panel = window_->inside_panel();
    ui::RunList* runs = window_->dashboard()->run_list();
    const session::RunRecord* listed = id.isEmpty() || id == live_id ? nullptr : runs->run(id);
    record_ = listed ? std::optional<session::RunRecord>(*listed) : std::nullopt;
    panel->set_epochs({}, -1, {});
    if (id.isEmpty()) {
        panel->set_status(tr("Train a run: what its network learned shows here, live while it trains."));
        panel->clear_activations({});
        return;
    }
    panel->set_status(id == live_id ? tr("Waiting for the run's first snapshot…") : tr("Preparing the run's network…"));
    if (id != live_id || latest_) request_view();
}

void InsideController::snapshot_arrived(std::shared_ptr<const session::InsideSnapshot> snapshot) {
    latest_ = std::move(snapshot);
    if (!shown() || source_ != live_id) return;
    if (window_->inside_panel()->at_last_epoch()) request_view();
}

InsideWeights InsideController::weights_for_choice() const {
    InsideWeights weights;
    const int index = window_->inside_panel()->chosen_epoch_index();
    // The replayed epoch chosen, or -1 for the weights now (live) or at the end.
    const int epoch = index >= 0 && static_cast<std::size_t>(index) < epochs_.size()
                          ? epochs_[static_cast<std::size_t>(index)].epoch
                          : -1;
    if (source_ == live_id) {
        const QString active = window_->dashboard()->run_list()->active_run();
        const session::RunRecord* run = window_->dashboard()->run_list()->run(active);
        weights.run_folder = run ? run->folder : std::filesystem::path();
        weights.kind = InsideWeights::Kind::live;
        weights.snapshot = latest_;
        weights.project = live_project_;
        weights.card = live_card_;
        if (epoch >= 0) {
            // A replayed epoch of the run in training: its predictor holds the live network.
            weights.kind = InsideWeights::Kind::replay;
            weights.epoch = epoch;
        }
        return weights;
    }
    weights.weights_file = record_ ? record_->weights() : std::filesystem::path();
    weights.run_folder = record_ ? record_->folder : std::filesystem::path();
    if (epoch >= 0) {
        weights.kind = InsideWeights::Kind::replay;
        weights.epoch = epoch;
    }
    return weights;
}

std::vector<InsideImageRequest> InsideController::image_requests() const {
    ui::InsidePanel* panel = window_->inside_panel();
    std::vector<InsideImageRequest> requests;
    for (int slot = 0; slot < (panel->comparing() ? 2 : 1); ++slot) {
        InsideImageRequest request;
        request.choice = panel->image_choice(slot);
        if (request.choice.kind == ui::InsideImageChoice::Kind::drawing) {
            ui::TryItPanel* try_it = window_->try_it_panel();
            request.ink = try_it->canvas()->ink();
            request.centre = !try_it->no_centring_box()->isChecked();
        }
        requests.push_back(std::move(request));
    }
    return requests;
}

void InsideController::request_view() {
    if (source_.isEmpty() || (source_ == live_id && (!latest_ || !live_card_))) return;
    if (source_ != live_id && (!record_ || record_->weights().empty())) return;
    const unsigned generation = generation_;
    InsideWeights weights = weights_for_choice();
    queue_->submit(
        "view",
        [slot = slot_, weights = std::move(weights), images = image_requests()](JobChannel&) {
            return QVariant::fromValue(look_inside(*slot, weights, images));
        },
        [this, generation](const QVariant& result) {
            if (generation != generation_) return;
            show_answer(result.value<InsideAnswer>());
            emit viewShown();
        },
        [this, generation](const QString& message) {
            if (generation != generation_) return;
            window_->inside_panel()->set_status(tr("The network cannot be shown: %1").arg(message), true);
            emit viewShown();
        });
}

void InsideController::show_answer(const InsideAnswer& answer) {
    ui::InsidePanel* panel = window_->inside_panel();
    const bool was_last = panel->at_last_epoch();
    const int was_index = panel->chosen_epoch_index();
    // The slider: the replayed epochs, then the weights now (live) or at the end.
    std::vector<ui::InsideEpoch> epochs;
    for (int epoch : answer.replay_epochs)
        epochs.push_back({epoch, epoch == 0 ? tr("before training") : tr("after epoch %1").arg(epoch)});
    QString reason;
    if (answer.live) {
        epochs.push_back({-1, tr("now (live, batch %1)").arg(answer.live_batches)});
    } else if (record_) {
        const bool last_is_end = !answer.replay_epochs.empty() &&
                                 answer.replay_epochs.back() == record_->receipt.epochs_completed &&
                                 record_->receipt.outcome == "finished";
        if (last_is_end)
            epochs.back() = {-1, tr("after epoch %1 (the end)").arg(answer.replay_epochs.back())};
        else if (!answer.replay_epochs.empty())
            epochs.push_back({-1, tr("end of training")});
        if (answer.replay_epochs.empty())
            reason = tr("No replay: this run was trained before runs kept one. Shown: its final weights.");
    }
    epochs_ = epochs;
    const int chosen = was_last || was_index < 0 ? static_cast<int>(epochs.size()) - 1
                                                 : std::min(was_index, static_cast<int>(epochs.size()) - 1);
    panel->set_epochs(std::move(epochs), chosen, reason);
    panel->set_test_images(answer.test_images);

    panel->show_figures(figure_rows(answer));
    for (int slot = 0; slot < static_cast<int>(answer.images.size()); ++slot)
        panel->show_activations(slot, image_activations(answer, static_cast<std::size_t>(slot)));
    answer_ = answer;
    const QString where = answer.live ? tr("live, after %1 batches").arg(answer.live_batches)
                          : panel->chosen_epoch_index() >= 0 && !epochs_.empty()
                              ? epochs_[static_cast<std::size_t>(panel->chosen_epoch_index())].label
                              : tr("its final weights");
    panel->set_status(
        tr("%1 on %2: %3").arg(text_of(answer.card.project), text_of(answer.card.shape.to_string()), where));
    show_layer();
}

void InsideController::show_layer() {
    if (!answer_) return;
    ui::InsidePanel* panel = window_->inside_panel();
    const QString layer = panel->chosen_layer();
    FilterPicture picture = filters_of(*answer_, layer);
    if (picture.filters)
        panel->show_filters(std::move(*picture.filters));
    else
        panel->clear_filters(picture.reason);
    // The histograms of the chosen layer's weights, at the epoch shown.
    const int index = panel->chosen_epoch_index();
    int epoch = answer_->replay_epochs.empty() ? 0 : answer_->replay_epochs.back();
    if (index >= 0 && static_cast<std::size_t>(index) < epochs_.size() &&
        epochs_[static_cast<std::size_t>(index)].epoch >= 0)
        epoch = epochs_[static_cast<std::size_t>(index)].epoch;
    else if (answer_->live)
        epoch = answer_->replay_epochs.empty() ? 0 : answer_->replay_epochs.back() + 1;
    if (answer_->histories.empty())
        panel->clear_histories(tr("No histograms: this run kept no replay."));
    else
        panel->show_histories(answer_->histories, layer + ".weight", epoch);
}

}  // namespace bps::app
