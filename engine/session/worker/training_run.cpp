#include "engine/session/worker/training_run.h"

#include <algorithm>
#include <cmath>

#include "datasets/feeding.h"
#include "datasets/image_folder.h"
#include "engine/base/number_text.h"
#include "engine/io/network_weights.h"
#include "engine/ops/metrics.h"
#include "engine/project/project_data.h"
#include "engine/runs/epoch_replay.h"
#include "engine/session/loss_watch.h"
#include "engine/session/watchdog.h"
#include "engine/session/worker/device_training_set.h"
#include "engine/session/worker/evaluation.h"
#include "engine/session/worker/last_finite_weights.h"
#include "engine/session/worker/live_inside.h"
#include "engine/train/schedule.h"

namespace bps::session {

namespace {
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// A batch report whose loss and accuracy are filled in once the totals have been read back.
struct Snapshot {
    BatchReport report;
    std::size_t samples = 0;
    std::size_t trained = 0;  // this run's batches up to the report's
};

// The epoch's totals at the previous report, so that a report can also say what the batches
// since then did.
struct ReportedTotals {
    double loss_sum = 0, correct = 0;
    std::size_t samples = 0;
};

BatchReport completed(Snapshot snapshot, double loss_sum, double correct, ReportedTotals& previous) {
    const double samples = static_cast<double>(std::max<std::size_t>(snapshot.samples, 1));
    snapshot.report.loss = loss_sum / samples;
    snapshot.report.accuracy = correct / samples;
    const std::size_t new_samples = snapshot.samples > previous.samples ? snapshot.samples - previous.samples : 0;
    const double recent = static_cast<double>(std::max<std::size_t>(new_samples, 1));
    snapshot.report.recent_loss = (loss_sum - previous.loss_sum) / recent;
    snapshot.report.recent_accuracy = (correct - previous.correct) / recent;
    previous = ReportedTotals{loss_sum, correct, snapshot.samples};
    return snapshot.report;
}

// "3 values of 'fc1.weight' and 1 of 'fc1.weight.state0'"
std::string non_finite_text(const std::vector<model::Network::NonFiniteValues>& found) {
    std::string text;
    for (std::size_t i = 0; i < found.size(); ++i) {
        if (i > 0) text += i + 1 == found.size() ? " and " : ", ";
        text += std::to_string(found[i].count) + (i == 0 ? (found[i].count == 1 ? " value" : " values") : "") +
                " of '" + found[i].name + "'";
    }
    return text;
}

}  // namespace

std::string divergence_advice(const std::string& what, const std::string& where, float learning_rate) {
    std::string advice = what;
    advice += " ";
    advice += where;
    advice += ", at learning rate ";
    advice += format_rate(learning_rate);
    advice += ": the training diverged. Train again with a lower learning rate (try ";
    advice += format_rate(learning_rate / 10.0);
    advice += "), and check that the inputs are normalised";
    return advice;
}

void TrainingRun::train(JobResult& result) {
    const project::TrainingSettings& settings = project.training;
    if (data.split.train.empty()) throw std::invalid_argument("the training split has no images");

    if (events.stage && !detached) events.stage(StageReport{Stage::preparing, "building the network", 0, 0});
    model::Network network(runtime, project::project_network(project, data.train.shape), settings.batch_size,
                           settings.optimizer, settings.seed);
    if (!starting_weights.empty()) io::upload_parameters(runtime, network, starting_weights, "the starting weights");
    if (resume_at) {
        restore_optimizer_state(network);
        network.set_updates(resume_at->updates);
        result.epochs_completed = resume_at->epoch;
    }
    // Weights or an optimiser state that are not numbers would train on silently where a ReLU
    // hides them from the loss, and be saved again: the file they came from is refused.
    if (!starting_weights.empty() || resume_at) {
        const std::vector<model::Network::NonFiniteValues> found = network.non_finite_values();
        if (!found.empty())
            throw io::WeightsFileError(
                starting_file, "holds NaN or infinite values (" + non_finite_text(found) +
                                   "): a run cannot start from them; start from other weights, or from new ones");
    }

    // Without augmentation, every batch can be gathered on the device from a set kept there.
    std::unique_ptr<DeviceTrainingSet> device_set;
    if (!project.dataset.augmentation.any() &&
        DeviceTrainingSet::wanted(runtime.device(), data.train, data_placement)) {
        if (events.stage && !detached)
            events.stage(StageReport{Stage::preparing, "copying the training images to the device", 0, 0});
        device_set = DeviceTrainingSet::upload(runtime, data.train, settings.batch_size, data_placement);
    }

    // A snapshot at every report (read without blocking, so training does not wait for it): what a
    // divergence or a lost device goes back to is then at most two reports old (the initial
    // weights at first). A failed run's rescued weights are only as useful as they are recent.
    LastFiniteWeights kept(report_interval);
    kept.keep_now(runtime, network, 0);
    // The replay's epoch 0: the weights before training, which `kept` has just read.
    if (!replay_folder.empty() && !resume_at) keep_replay(0, kept.weights(), {});

    // The first step may compile what the driver builds lazily: it gets ten times the bound.
    std::optional<Watchdog> watchdog;
    // `kept` outlives the watchdog, whose end waits for a call in progress.
    if (watchdog_limit.count() > 0 && hung) {
        watchdog.emplace(
            watchdog_limit, watchdog_limit * 10,
            [this, &kept](std::chrono::milliseconds quiet, std::size_t batches) { hung(quiet, batches, kept.copy()); });
    }

    result.training_began = true;
    const Clock::time_point started = Clock::now();
    try {
        run_epochs(network, device_set.get(), kept, watchdog ? &*watchdog : nullptr, result);
    } catch (const DivergenceError&) {
        // The network went back to the last weights known to be finite: those are the ones kept.
        result.weights = kept.weights();
        result.seconds = seconds_since(started);
        throw;
    } catch (...) {
        // Keep what the device can still give back, for the job to save; its error goes on. A
        // step whose update was cut short left weights of no step: the last copy kept is used.
        try {
            if (network.update_interrupted()) {
                result.weights = kept.weights();
                result.kept_after_batches = kept.batches();
            } else {
                result.weights = io::download_parameters(runtime, network);
            }
        } catch (...) {
            result.weights.clear();
        }
        result.seconds = seconds_since(started);
        throw;
    }
    // A stopped run is tested too when asked (not when the job object is gone: nobody would see it).
    const bool test_now = !result.stopped || (test_when_stopped && result.batches_trained > 0 && !detached &&
                                              !(ended_by_watchdog && *ended_by_watchdog));
    if (test_now && data.test.size() > 0) {
        if (events.stage && !detached) events.stage(StageReport{Stage::evaluating, "test images", 0, 0});
        EvaluationWithSamples test = evaluate_with_samples(network, data.test, {}, [&] {
            if (watchdog) watchdog->beat(result.batches_trained);
        });
        result.test = test.overall;
        result.test_samples = std::move(test.samples);
    }
    // The test evaluation changes no parameter: a checkpoint written after the last batch holds them.
    if (checkpointed && checkpointed->updates == network.updates() &&
        checkpointed->batches_trained == result.batches_trained)
        result.weights = std::move(checkpointed->weights);
    else
        result.weights = io::download_parameters(runtime, network);
    checkpointed.reset();
    result.seconds = seconds_since(started);
}

void TrainingRun::run_epochs(model::Network& network, DeviceTrainingSet* device_set, LastFiniteWeights& kept,
                             Watchdog* watchdog, JobResult& result) {
    // No beat before the first step has finished: until then the watchdog allows for compiling.
    const auto beat = [&] {
        if (watchdog && result.batches_trained > 0) watchdog->beat(result.batches_trained);
    };
    const auto send = [this](const auto& event, const auto& value) {
        if (event && !detached) event(value);
    };
    const auto stage = [&](Stage stage, std::string activity = {}) {
        send(events.stage, StageReport{stage, std::move(activity), 0, 0});
    };
    // The epoch's figures so far; a divergence in a paused run starts them again.
    ReportedTotals reported;
    std::size_t images = 0;
    Clock::time_point epoch_start = Clock::now();
    // A training that diverged (session/loss_watch.h, or weights or a validation loss that are not
    // numbers) goes back to the last weights known to be finite, and the run stops, or pauses with
    // the advice. Returns false: the caller's figures are not to be shown.
    const auto diverge = [&](const std::string& advice) {
        result.diverged = advice;
        kept.restore(runtime, network);
        checkpointed.reset();  // the parameters went back: a checkpoint before holds others
        result.kept_after_batches = kept.batches();
        if (on_divergence == OnDivergence::stop) throw DivergenceError(result.diverged);
        network.clear_totals();
        reported = ReportedTotals{};
        images = 0;
        epoch_start = Clock::now();
        control.pause();  // honoured before the next batch, whose paused stage carries the advice
        return false;
    };
    // A diverged loss is never reported. `trained` counts this run's batches up to the report's.
    LossWatch watch(resume_at ? resume_at->epoch : 0);
    const auto report_batch = [&](const BatchReport& report, std::size_t trained) {
        const LossVerdict verdict = watch.check(report);
        if (verdict == LossVerdict::fine) {
            kept.confirm(trained);
            result.diverged.clear();  // trained on after going back: the run recovered
            send(events.batch, report);
            return true;
        }
        return diverge(divergence_advice(
            watch.describe(verdict, report),
            "in epoch " + std::to_string(report.epoch + 1) + ", batch " + std::to_string(report.batch),
            report.learning_rate));
    };
    // Checked on the device before any checkpoint or the final weights are written: a NaN weight
    // behind a ReLU leaves the loss finite, and would be trained on and saved.
    const auto parameters_finite = [&](int epoch, float rate) {
        const std::vector<model::Network::NonFiniteValues> found = network.non_finite_values();
        if (found.empty()) return true;
        return diverge(divergence_advice("the weights became NaN or infinite (" + non_finite_text(found) + ")",
                                         "in epoch " + std::to_string(epoch + 1), rate));
    };
    const auto paused_stage = [&](bool paused) {
        if (watchdog) paused ? watchdog->hold() : watchdog->go_on();
        stage(paused ? Stage::paused : Stage::running, paused ? result.diverged : std::string());
    };
    const project::TrainingSettings& settings = project.training;
    const project::DatasetSettings& feeding = project.dataset;
    // Live snapshots for the Inside view, read between batches without waiting for them.
    const std::atomic<long long> no_interval{0};
    LiveInside live(inside_interval_ms ? *inside_interval_ms : no_interval);

    stage(Stage::running);
    const float project_rate = settings.optimizer.learning_rate;
    const int first_epoch = resume_at ? resume_at->epoch : 0;
    for (int epoch = first_epoch; epoch < settings.epochs && !result.stopped && !result.batch_limit_reached; ++epoch) {
        // The order depends only on (seed, epoch): a run can be replayed exactly.
        datasets::BatchIterator batches(
            data.train,
            datasets::epoch_order(data.split.train, settings.seed, static_cast<std::uint64_t>(epoch), feeding.shuffle),
            static_cast<std::size_t>(settings.batch_size), feeding.augmentation,
            settings.seed ^ (0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(epoch + 1)));
        if (device_set) batches.leave_images_out();
        const std::size_t batch_count = batches.batch_count();
        network.clear_totals();
        reported = ReportedTotals{};
        images = 0;
        epoch_start = Clock::now();
        if (device_set) device_set->load_order(batches.order());
        Clock::time_point last_report = epoch_start;
        ops::AsyncRead totals_read;
        Snapshot in_flight;  // the report waiting for totals_read, when one is pending
        bool pending = false;
        Snapshot latest;
        datasets::Batch batch;
        // A resumed epoch draws the batches already trained without training them, so the ones
        // after are exactly those the interrupted run would have drawn (augmentation included).
        std::size_t skipped = 0;
        if (resume_at && epoch == resume_at->epoch && resume_at->batch >= batch_count)
            throw io::WeightsFileError(resume_file, "has a damaged training state: 'batch' says " +
                                                        std::to_string(resume_at->batch) + " batches of epoch " +
                                                        std::to_string(epoch + 1) + " were trained, but an epoch has " +
                                                        std::to_string(batch_count) + " batches");
        if (resume_at && epoch == resume_at->epoch)
            while (skipped < resume_at->batch && skipped + 1 < batch_count && batches.next(batch)) ++skipped;
        for (std::size_t done = skipped + 1; batches.next(batch); ++done) {
            if (!control.before_batch(paused_stage)) {
                result.stopped = true;
                result.stopped_in_epoch = epoch;
                result.stopped_after_batches = done - 1;
                if (ended_by_watchdog && *ended_by_watchdog) break;
                parameters_finite(epoch, control.learning_rate(project_rate));
                // Nothing trained is lost: the checkpoint says where to go on.
                if (!checkpoint.empty())
                    write_checkpoint(
                        network,
                        CheckpointPosition{epoch, done - 1, network.updates(), control.learning_rate(project_rate)},
                        result);
                break;
            }
            beat();
            const double progress =
                static_cast<double>(epoch) + static_cast<double>(done - 1) / static_cast<double>(batch_count);
            const float rate =
                train::learning_rate_at(settings.schedule, control.learning_rate(project_rate), progress);
            if (device_set) {
                device_set->load_batch(batch.first, batch.count(), network);
                network.train_step_loaded(static_cast<int>(batch.count()), rate);
            } else {
                network.train_step(batch.images, batch.labels, rate);
            }
            images += batch.count();
            // The first step compiles what the driver builds lazily: waited for under the
            // watchdog's longer first bound, once.
            if (watchdog && result.batches_trained == 0) runtime.finish();
            ++result.batches_trained;
            result.batch_limit_reached = batch_limit && result.batches_trained >= *batch_limit;

            latest.report = BatchReport{epoch, settings.epochs, done, batch_count, 0, 0, 0, 0, 0, 0, rate};
            latest.report.epoch_seconds = seconds_since(epoch_start);
            latest.report.images_per_second = static_cast<double>(images) / std::max(latest.report.epoch_seconds, 1e-9);
            latest.samples = images;
            latest.trained = result.batches_trained;
            if (events.inside)
                if (auto snapshot = live.between_batches(
                        runtime, network, result.batches_trained, epoch,
                        static_cast<double>(epoch) + static_cast<double>(done) / static_cast<double>(batch_count),
                        Clock::now()))
                    send(events.inside, std::move(snapshot));
            if (done == batch_count) break;  // the epoch's end reports below, with the epoch
            if (result.batch_limit_reached) {
                // Its last report, then the test evaluation as at the end; the checkpoint says
                // where in the epoch to go on.
                const model::Network::Totals totals = network.read_totals();
                // A quick check's weights are checked only before a checkpoint: its launches are
                // those of its batches (what tests that aim a fault at a launch count on).
                if (report_batch(completed(latest, totals.loss_sum, totals.correct, reported), latest.trained) &&
                    !checkpoint.empty())
                    parameters_finite(epoch, rate);
                if (!checkpoint.empty())
                    write_checkpoint(
                        network,
                        CheckpointPosition{epoch, done, network.updates(), control.learning_rate(project_rate)},
                        result);
                return;
            }
            if (report_interval.count() == 0 || control.stepping()) {
                // Every batch, or a single step of a paused run: worth waiting for.
                const model::Network::Totals totals = network.read_totals();
                report_batch(completed(latest, totals.loss_sum, totals.correct, reported), latest.trained);
                kept.offer(runtime, network, result.batches_trained, Clock::now());
                continue;
            }
            if (pending && totals_read.ready()) {
                const std::vector<float>& totals = totals_read.values();
                pending = false;
                report_batch(completed(in_flight, totals[0], totals[1], reported), in_flight.trained);
            }
            const Clock::time_point now = Clock::now();
            if (!pending && now - last_report >= report_interval) {
                kept.offer(runtime, network, result.batches_trained, now);
                totals_read.start(runtime, network.totals_tensor());
                in_flight = latest;
                pending = true;
                last_report = now;
            }
        }
        if (result.stopped) break;
        // One blocking read per epoch: its last batch report and the epoch's figures.
        const model::Network::Totals totals = network.read_totals();
        // An epoch that diverged at its end has no figures to show: its run went back and stopped or paused.
        bool fine = report_batch(completed(latest, totals.loss_sum, totals.correct, reported), latest.trained) &&
                    parameters_finite(epoch, latest.report.learning_rate);
        kept.offer_now(runtime, network, result.batches_trained);
        // The replay of this epoch, and the epoch's live snapshot, from one read of the weights
        // and the last batch's gradients (the epoch's end waits for the device anyway).
        const bool live_wanted = events.inside && live.wanted();
        if (fine && (!replay_folder.empty() || live_wanted)) {
            std::vector<io::NamedArray> weights = io::download_parameters(runtime, network);
            std::vector<io::NamedArray> gradients = download_gradients(runtime, network);
            if (!replay_folder.empty()) keep_replay(epoch + 1, weights, gradients);
            if (live_wanted)
                send(events.inside, std::make_shared<const InsideSnapshot>(
                                        InsideSnapshot{result.batches_trained, epoch, static_cast<double>(epoch + 1),
                                                       std::move(weights), std::move(gradients)}));
        }
        EpochReport report;
        report.epoch = epoch;
        report.epochs = settings.epochs;
        report.train_loss = totals.loss_sum / static_cast<double>(std::max<std::size_t>(totals.samples, 1));
        report.train_accuracy = totals.correct / static_cast<double>(std::max<std::size_t>(totals.samples, 1));
        report.seconds = seconds_since(epoch_start);
        report.images_per_second = static_cast<double>(images) / std::max(report.seconds, 1e-9);
        if (!data.split.validation.empty()) {
            stage(Stage::evaluating, "validation images");
            EvaluationWithSamples validation = evaluate_with_samples(network, data.train, data.split.validation, beat);
            report.validation = validation.overall;
            if (validation.samples) report.validation_confusion = std::move(validation.samples->confusion);
            // Only a loss that is not a number: a finite one may sit far above the training loss
            // early on without any divergence (session/loss_watch.h).
            if (fine && !std::isfinite(report.validation->loss))
                fine = diverge(
                    divergence_advice(std::string("the validation loss became ") +
                                          (std::isnan(report.validation->loss) ? "NaN (not a number)" : "infinite"),
                                      "after epoch " + std::to_string(epoch + 1), latest.report.learning_rate));
        }
        result.epochs_completed = epoch + 1;
        if (!checkpoint.empty())
            write_checkpoint(network,
                             CheckpointPosition{epoch + 1, 0, network.updates(), control.learning_rate(project_rate)},
                             result);
        if (fine) send(events.epoch, report);
        // Back to what the run is doing: a run stepped through its epoch's end is still paused.
        if (epoch + 1 < settings.epochs && !data.split.validation.empty())
            stage(control.paused() ? Stage::paused : Stage::running, control.paused() ? result.diverged : "");
    }
}

void TrainingRun::write_checkpoint(model::Network& network, const CheckpointPosition& position, JobResult& result) {
    std::vector<io::NamedArray> state;
    for (const model::ParameterView& view : network.optimizer_state())
        state.push_back({view.name, view.dims, runtime.read(view.value)});
    std::vector<io::NamedArray> weights = io::download_parameters(runtime, network);
    checkpointed.reset();
    save_checkpoint(checkpoint, project, card, weights, state, position);
    checkpointed = CheckpointedParameters{std::move(weights), network.updates(), result.batches_trained};
    result.checkpoint_saved_to = checkpoint;
}

void TrainingRun::keep_replay(int epoch, const std::vector<io::NamedArray>& weights,
                              const std::vector<io::NamedArray>& gradients) {
    try {
        write_epoch_replay(replay_folder, make_epoch_replay(project, card, epoch, weights, gradients));
    } catch (const std::exception& error) {
        if (events.note && !detached)
            events.note("the replay of epoch " + std::to_string(epoch) +
                        " could not be kept, so the Inside view cannot show it (training goes on): " + error.what());
    }
}

void TrainingRun::restore_optimizer_state(model::Network& network) {
    const std::vector<model::ParameterView> views = network.optimizer_state();
    const auto problem = [this](const std::string& text) {
        std::string message = "its optimiser state ";
        message += text;
        return io::WeightsFileError(resume_file, message);
    };
    if (views.size() != resume_optimizer_state.size())
        throw problem("has " + std::to_string(resume_optimizer_state.size()) +
                      " arrays but the project's optimiser needs " + std::to_string(views.size()) +
                      "; resume with the optimiser the run was trained with");
    for (std::size_t i = 0; i < views.size(); ++i) {
        const io::NamedArray& saved = resume_optimizer_state[i];
        const std::vector<int>& dims = views[i].dims;
        if (saved.name != views[i].name || saved.dims != dims)
            throw problem("holds '" + saved.name + "' (" + io::dims_text(saved.dims) + ") where the network has '" +
                          views[i].name + "' (" + io::dims_text(dims) + ")");
    }
    for (std::size_t i = 0; i < views.size(); ++i) runtime.write(views[i].value, resume_optimizer_state[i].values);
}

std::unique_ptr<model::Network> network_with_weights(ops::Runtime& runtime, const project::Project& project,
                                                     const datasets::ImageShape& shape, int batch_size,
                                                     const SavedWeights& weights) {
    auto network = std::make_unique<model::Network>(runtime, project::project_network(project, shape), batch_size,
                                                    train::OptimizerSettings{}, 0);
    io::upload_parameters(runtime, *network, weights_for_network(weights, project, shape), weights.file.string());
    return network;
}

}  // namespace bps::session
