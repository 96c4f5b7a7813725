#include "engine/session/training_session.h"

#include <exception>

#include "engine/cl/kernel_cache.h"
#include "datasets/feeding.h"
#include "engine/io/network_weights.h"
#include "engine/model/network.h"
#include "engine/ops/runtime.h"
#include "engine/session/project_data.h"
#include "engine/train/schedule.h"

namespace bps::session {

namespace {
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

TrainingSession::TrainingSession(SessionSetup setup, SessionEvents events)
    : setup_(std::move(setup)), events_(std::move(events)) {
    if (!setup_.data) throw std::invalid_argument("a training session needs data");
    if (setup_.report_every < 1) setup_.report_every = 1;
    base_rate_ = setup_.project.training.optimizer.learning_rate;
    worker_ = std::thread([this] { run(); });
}

TrainingSession::~TrainingSession() {
    stop();
    if (worker_.joinable()) worker_.join();
}

void TrainingSession::pause() {
    std::lock_guard lock(mutex_);
    paused_ = true;
}

void TrainingSession::resume() {
    {
        std::lock_guard lock(mutex_);
        paused_ = false;
    }
    changed_.notify_all();
}

void TrainingSession::stop() {
    {
        std::lock_guard lock(mutex_);
        stop_requested_ = true;
    }
    changed_.notify_all();
}

void TrainingSession::set_learning_rate(float rate) {
    std::lock_guard lock(mutex_);
    if (rate > 0) base_rate_ = rate;
}

bool TrainingSession::wait_for(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [this] { return done_; });
}

void TrainingSession::wait() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return done_; });
}

bool TrainingSession::keep_going() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !paused_ || stop_requested_; });
    return !stop_requested_;
}

void TrainingSession::run() {
    try {
        train();
    } catch (const std::exception& error) {
        if (events_.failed) events_.failed(error.what());
    } catch (...) {
        if (events_.failed) events_.failed("training stopped on an unknown error");
    }
    {
        std::lock_guard lock(mutex_);
        done_ = true;
    }
    changed_.notify_all();
}

void TrainingSession::train() {
    const TrainingData& data = *setup_.data;
    const project::TrainingSettings& settings = setup_.project.training;
    const project::DatasetSettings& feeding = setup_.project.dataset;
    // Checked against the data first, so a mismatch is reported with the layer, not by an op.
    project::analyse_project(setup_.project, data.train.shape, static_cast<int>(data.train.class_count()));
    const model::NetworkSpec spec = project_network(setup_.project, data.train.shape);
    if (data.split.train.empty()) throw std::invalid_argument("the training split has no images");

    std::optional<cl::KernelCache> cache;
    if (!setup_.kernel_cache_dir.empty()) cache.emplace(setup_.kernel_cache_dir);
    ops::Runtime runtime(setup_.device, cache ? &*cache : nullptr);
    model::Network network(runtime, spec, settings.batch_size, settings.optimizer, settings.seed);
    if (!setup_.initial_weights.empty())
        io::upload_parameters(runtime, network, setup_.initial_weights, "the starting weights");

    FinishReport finish;
    const Clock::time_point started = Clock::now();
    for (int epoch = 0; epoch < settings.epochs && !finish.stopped; ++epoch) {
        // The order depends only on (seed, epoch): a run can be replayed exactly.
        datasets::BatchIterator batches(
            data.train,
            datasets::epoch_order(data.split.train, settings.seed, static_cast<std::uint64_t>(epoch), feeding.shuffle),
            static_cast<std::size_t>(settings.batch_size), feeding.augmentation,
            settings.seed ^ (0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(epoch + 1)));
        const std::size_t batch_count = batches.batch_count();
        network.clear_totals();
        const Clock::time_point epoch_start = Clock::now();
        std::size_t images = 0;
        datasets::Batch batch;
        for (std::size_t done = 1; batches.next(batch); ++done) {
            if (!keep_going()) {
                finish.stopped = true;
                break;
            }
            float base_rate;
            {
                std::lock_guard lock(mutex_);
                base_rate = base_rate_;
            }
            const double progress =
                static_cast<double>(epoch) + static_cast<double>(done - 1) / static_cast<double>(batch_count);
            const float rate = train::learning_rate_at(settings.schedule, base_rate, progress);
            network.train_step(batch.images, batch.labels, rate);
            images += batch.count();
            if (done % setup_.report_every == 0 || done == batch_count) {
                const model::Network::Totals totals = network.read_totals();  // waits for the device
                BatchReport report;
                report.epoch = epoch;
                report.epochs = settings.epochs;
                report.batch = done;
                report.batches = batch_count;
                report.loss = totals.loss_sum / static_cast<double>(totals.samples);
                report.accuracy = totals.correct / static_cast<double>(totals.samples);
                report.epoch_seconds = seconds_since(epoch_start);
                report.images_per_second = static_cast<double>(images) / std::max(report.epoch_seconds, 1e-9);
                report.learning_rate = rate;
                if (events_.batch_done) events_.batch_done(report);
            }
        }
        if (finish.stopped) break;
        const model::Network::Totals totals = network.read_totals();
        EpochReport report;
        report.epoch = epoch;
        report.epochs = settings.epochs;
        report.train_loss = totals.loss_sum / static_cast<double>(totals.samples);
        report.train_accuracy = totals.correct / static_cast<double>(totals.samples);
        report.seconds = seconds_since(epoch_start);
        report.images_per_second = static_cast<double>(images) / std::max(report.seconds, 1e-9);
        if (!data.split.validation.empty()) report.validation = evaluate(network, data.train, data.split.validation);
        finish.epochs_completed = epoch + 1;
        if (events_.epoch_done) events_.epoch_done(report);
    }
    if (!finish.stopped && setup_.evaluate_test && data.test.size() > 0) finish.test = evaluate(network, data.test);
    finish.weights = io::download_parameters(runtime, network);
    finish.seconds = seconds_since(started);
    if (events_.finished) events_.finished(finish);
}

}  // namespace bps::session
