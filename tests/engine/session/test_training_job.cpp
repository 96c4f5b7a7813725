// The training job on its worker thread: it learns, replays exactly with the same seed, honours
// pause, resume, step, stop and a new learning rate at batch boundaries in any order, keeps the
// weights on a stop, reports every stage, sends metric reports on a timer, and turns every
// problem into a structured failure. Every wait is bounded and synchronised by the job's own
// events (handshakes), never by sleeping.
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <condition_variable>
#include <future>
#include <limits>
#include <mutex>
#include <random>
#include <regex>
#include <set>

#include "engine/cl/cache_location.h"
#include "engine/cl/fault_injection.h"
#include "engine/cl/process_identity.h"
#include "engine/io/network_weights.h"
#include "engine/model/network.h"
#include "engine/ops/runtime.h"
#include "engine/runs/saved_weights.h"
#include "engine/session/training_job.h"
#include "engine/session/worker/evaluation.h"
#include "kernels/embedded_kernels.h"
#include "tests/engine/test_device.h"
#include "tests/support/temp_dir.h"
#include "tests/support/two_class_images.h"

using namespace bps;
using namespace bps::session;
using bps::test::TempDir;

namespace {
project::Project small_project(int output_units = 2) {
    return test::two_class_project(output_units);
}

std::shared_ptr<const TrainingData> small_data() {
    return test::two_class_data();
}

// Everything a job sent, recorded under a lock; the test thread waits on it with a bound.
struct Recorder {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<StageReport> stages;
    std::vector<BatchReport> batches;
    std::vector<EpochReport> epochs;
    std::optional<JobResult> result;
    std::optional<JobFailure> failure;
    std::function<void(const BatchReport&)> on_batch;  // runs on the worker, without the lock
    std::function<void(const StageReport&)> on_stage;

    template <typename Value>
    void add(std::vector<Value>& to, const Value& value) {
        {
            std::lock_guard lock(mutex);
            to.push_back(value);
        }
        changed.notify_all();
    }

    JobEvents events() {
        JobEvents events;
        events.stage = [this](const StageReport& report) {
            add(stages, report);
            if (on_stage) on_stage(report);
        };
        events.batch = [this](const BatchReport& report) {
            add(batches, report);
            if (on_batch) on_batch(report);
        };
        events.epoch = [this](const EpochReport& report) { add(epochs, report); };
        events.finished = [this](const JobResult& done) {
            {
                std::lock_guard lock(mutex);
                result = done;
            }
            changed.notify_all();
        };
        events.failed = [this](const JobFailure& problem) {
            {
                std::lock_guard lock(mutex);
                failure = problem;
            }
            changed.notify_all();
        };
        return events;
    }

    // Waits (at most two minutes: cold kernel caches on a busy machine) until `done` holds.
    template <typename Done>
    bool wait_until(Done done) {
        std::unique_lock lock(mutex);
        return changed.wait_for(lock, std::chrono::minutes(2), [&] { return done(); });
    }
    bool ended() const { return result.has_value() || failure.has_value(); }
    // The handshake before steering a paused run: the job itself said it is paused.
    bool wait_until_paused() {
        return wait_until([&] { return !stages.empty() && stages.back().stage == Stage::paused; });
    }
    std::size_t batch_count() {
        std::lock_guard lock(mutex);
        return batches.size();
    }
    std::vector<Stage> stage_sequence() {
        std::lock_guard lock(mutex);
        std::vector<Stage> sequence;
        for (const StageReport& report : stages)
            if (sequence.empty() || sequence.back() != report.stage) sequence.push_back(report.stage);
        return sequence;
    }
};

JobSetup setup_of(project::Project project, std::chrono::milliseconds report_interval = std::chrono::milliseconds(0)) {
    JobSetup setup;
    setup.project = std::move(project);
    setup.source = "halves.json";
    setup.data = small_data();
    setup.report_interval = report_interval;
    return setup;
}

// The job's handle for callbacks that steer it: set once the job exists.
struct Handle {
    std::promise<TrainingJob*> promise;
    std::shared_future<TrainingJob*> future = promise.get_future().share();
    TrainingJob& get() const {
        REQUIRE(future.wait_for(std::chrono::minutes(2)) == std::future_status::ready);
        return *future.get();
    }
};

void run_to_end(Recorder& recorder, JobSetup setup) {
    TrainingJob job(std::move(setup), recorder.events());
    REQUIRE(recorder.wait_until([&] { return recorder.ended(); }));
    REQUIRE(job.wait_for(std::chrono::minutes(1)));
}

// The device-use marks (cl/device_use_mark.h) that this process holds now, in any device's folder.
std::set<std::filesystem::path> marks_of_this_process() {
    const std::string prefix = "in-use-" + std::to_string(cl::current_process_id()) + "-";
    std::set<std::filesystem::path> marks;
    std::error_code error;
    for (std::filesystem::recursive_directory_iterator entry(cl::cache_root() / "kernels", error), end;
         !error && entry != end; entry.increment(error))
        if (entry->path().filename().string().rfind(prefix, 0) == 0) marks.insert(entry->path());
    return marks;
}

// The small data with no validation and no test split: every kernel a run launches belongs to a
// training step or to preparing the run, so the launches of two and of three batches differ by
// one step (what the fault tests aim at).
std::shared_ptr<const TrainingData> training_only_data() {
    auto data = std::make_shared<TrainingData>(*small_data());
    data->split.train.insert(data->split.train.end(), data->split.validation.begin(), data->split.validation.end());
    data->split.validation.clear();
    data->test = datasets::Dataset{};
    return data;
}

// A run of `batches` batches on `data` with a fault armed that never fires: the kernel launches
// it made (counted from before the job started) and its weights.
std::pair<std::uint64_t, std::vector<io::NamedArray>> counted_run(std::shared_ptr<const TrainingData> data,
                                                                  std::size_t batches) {
    test::ensure_self_tested();  // not counted among the launches of this job
    cl::arm_fault({cl::FaultPoint::enqueue, std::numeric_limits<std::uint64_t>::max(), CL_OUT_OF_RESOURCES});
    Recorder run;
    JobSetup setup = setup_of(small_project());
    setup.data = std::move(data);
    setup.batch_limit = batches;
    run_to_end(run, std::move(setup));
    REQUIRE(run.result);
    return {cl::counted_calls(), run.result->weights};
}
// The batch count N and the file F of a failure message ending "; the weights as they were after N
// batches of this run, WHICH, are saved in F (W is written only by a run that ends well)", where W
// is the file the run was to save to. F is beside W, named for what it holds (`what`) and N.
std::pair<std::size_t, std::string> kept_weights_named(const std::string& message, const std::string& which,
                                                       const std::filesystem::path& wanted, const std::string& what) {
    const std::regex pattern("; the weights as they were after ([0-9]+) batch(es)? of this run, " + which +
                             ", are saved in (.*) \\((.*) is written only by a run that ends well\\)$");
    std::smatch match;
    REQUIRE(std::regex_search(message, match, pattern));
    const std::size_t batches = std::stoul(match[1].str());
    CHECK(match[4].str() == wanted.string());
    CHECK(match[3].str() ==
          (wanted.parent_path() / (wanted.stem().string() + "." + what + "-after-" + std::to_string(batches) +
                                   (batches == 1 ? "-batch" : "-batches") + ".h5"))
              .string());
    CHECK_FALSE(std::filesystem::exists(wanted));  // a failed run never writes the file it was to save to
    return {batches, match[3].str()};
}

// The failure's weights and those read back from its file are, value for value, the expected ones.
void check_same_weights(const std::vector<io::NamedArray>& failure, const std::vector<io::NamedArray>& from_file,
                        const std::vector<io::NamedArray>& expected) {
    REQUIRE(failure.size() == expected.size());
    REQUIRE(from_file.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        INFO(expected[i].name);
        CHECK(failure[i].values == expected[i].values);
        CHECK(from_file[i].values == expected[i].values);
    }
}
}  // namespace

TEST_CASE("a job trains, validates each epoch, evaluates the test split and reports every stage", "[job]") {
    Recorder run;
    run_to_end(run, setup_of(small_project()));
    REQUIRE_FALSE(run.failure);
    REQUIRE(run.result);
    CHECK_FALSE(run.result->stopped);
    CHECK(run.result->training_began);
    CHECK(run.result->epochs_completed == 3);
    // 192 training images in batches of 16, every batch reported.
    REQUIRE(run.batches.size() == 36);
    CHECK(run.batches[0].batch == 1);
    CHECK(run.batches[11].batch == 12);
    CHECK(run.batches[11].batches == 12);
    REQUIRE(run.epochs.size() == 3);
    for (const EpochReport& epoch : run.epochs) {
        REQUIRE(epoch.validation);
        CHECK(epoch.validation->samples == 64);
        CHECK(epoch.images_per_second > 0);
    }
    // The epoch's figures are the last batch report's running means.
    CHECK(run.epochs[2].train_loss == Approx(run.batches[35].loss));
    CHECK(run.epochs[2].train_loss < run.epochs[0].train_loss);
    REQUIRE(run.result->test);
    CHECK(run.result->test->samples == 128);
    CHECK(run.result->test->accuracy > 0.9);
    CHECK(run.result->weights.size() == 4);
    CHECK(run.result->class_names == std::vector<std::string>{"right", "left"});

    // preparing, then running and validating in turn, the test split, finished.
    CHECK(run.stage_sequence() == std::vector<Stage>{Stage::preparing, Stage::running, Stage::evaluating,
                                                     Stage::running, Stage::evaluating, Stage::running,
                                                     Stage::evaluating, Stage::finished});
    // Opening the device has its words; building kernels is counted from the start: 0..N of the
    // engine's programs, each out of N.
    std::vector<std::size_t> built;
    bool opening = false;
    for (const StageReport& stage : run.stages) {
        opening = opening || (stage.activity == "opening the device" && built.empty());
        if (stage.activity != "building kernels") continue;
        CHECK(stage.total == kernels::embedded_sources().size());
        built.push_back(stage.done);
    }
    CHECK(opening);
    const std::size_t programs = kernels::embedded_sources().size();
    REQUIRE(built.size() == programs + 1);
    CHECK(built.front() == 0);
    CHECK(built.back() == programs);
    CHECK(run.stages.back().stage == Stage::finished);
}

TEST_CASE("a job keeps every test image's result and each epoch's validation confusion matrix", "[job]") {
    Recorder run;
    run_to_end(run, setup_of(small_project()));
    REQUIRE(run.result);
    REQUIRE(run.result->test_samples);
    const SampleEvaluation& test = *run.result->test_samples;
    // The same figures as the job's test evaluation, image by image.
    CHECK(test.overall.samples == run.result->test->samples);
    CHECK(test.overall.accuracy == Approx(run.result->test->accuracy));
    CHECK(test.overall.loss == Approx(run.result->test->loss).epsilon(1e-5));
    REQUIRE(test.samples.size() == 128);
    CHECK(test.confusion.total() == 128);
    // The test images alternate between the classes, in the split's order.
    for (std::size_t i = 0; i < test.samples.size(); ++i) {
        CHECK(test.samples.labels[i] == static_cast<int>(i % 2));
        const std::span<const float> p = test.samples.probabilities_of(i);
        CHECK(p[0] + p[1] == Approx(1.0f).margin(1e-6));
        CHECK(test.samples.predicted[i] == (p[1] > p[0] ? 1 : 0));
        // The device's loss from the logits is -ln of the label's probability.
        CHECK(test.samples.losses[i] ==
              Approx(-std::log(p[static_cast<std::size_t>(test.samples.labels[i])])).epsilon(1e-4).margin(1e-6));
    }
    REQUIRE(run.epochs.size() == 3);
    for (const EpochReport& epoch : run.epochs) {
        REQUIRE(epoch.validation_confusion);
        CHECK(epoch.validation_confusion->total() == 64);
        CHECK(static_cast<double>(epoch.validation_confusion->correct()) / 64.0 == Approx(epoch.validation->accuracy));
    }
}

TEST_CASE("reports come on a timer, and at the end of every epoch", "[job]") {
    // An interval longer than the run: only the epochs' own reports remain, each for the last batch.
    Recorder run;
    run_to_end(run, setup_of(small_project(), std::chrono::hours(1)));
    REQUIRE(run.result);
    REQUIRE(run.batches.size() == 3);
    for (int epoch = 0; epoch < 3; ++epoch) {
        CHECK(run.batches[static_cast<std::size_t>(epoch)].epoch == epoch);
        CHECK(run.batches[static_cast<std::size_t>(epoch)].batch == 12);
        CHECK(run.batches[static_cast<std::size_t>(epoch)].loss ==
              Approx(run.epochs[static_cast<std::size_t>(epoch)].train_loss));
    }
    // A timer report agrees with the every-batch figures of the same run: it is read back later,
    // but counts exactly the batches it names.
    Recorder every;
    run_to_end(every, setup_of(small_project()));
    Recorder timed;
    run_to_end(timed, setup_of(small_project(), std::chrono::milliseconds(1)));
    REQUIRE(timed.result);
    REQUIRE(timed.batches.size() >= 3);
    for (const BatchReport& report : timed.batches) {
        const BatchReport& same = every.batches[static_cast<std::size_t>(report.epoch) * 12 + report.batch - 1];
        CHECK(report.loss == Approx(same.loss).epsilon(1e-6));
        CHECK(report.accuracy == Approx(same.accuracy));
    }
}

TEST_CASE("the same seed replays the same loss curve and another seed does not", "[job]") {
    Recorder first, second, third;
    run_to_end(first, setup_of(small_project()));
    run_to_end(second, setup_of(small_project()));
    project::Project other = small_project();
    other.training.seed = 8;
    run_to_end(third, setup_of(other));
    REQUIRE(first.batches.size() == 36);
    REQUIRE(second.batches.size() == 36);
    REQUIRE(third.batches.size() == 36);
    bool differs = false;
    for (std::size_t i = 0; i < first.batches.size(); ++i) {
        CHECK(first.batches[i].loss == second.batches[i].loss);
        differs = differs || first.batches[i].loss != third.batches[i].loss;
    }
    CHECK(differs);
    REQUIRE(first.result);
    REQUIRE(second.result);
    CHECK(first.result->weights[0].values == second.result->weights[0].values);
}

TEST_CASE("batches gathered from a set kept on the device train exactly as batches from the host", "[job]") {
    Recorder host, device;
    JobSetup on_host = setup_of(small_project()), on_device = setup_of(small_project());
    on_host.data_placement = DataPlacement::host;
    on_device.data_placement = DataPlacement::device;
    run_to_end(host, std::move(on_host));
    run_to_end(device, std::move(on_device));
    REQUIRE(host.result);
    REQUIRE(device.result);
    REQUIRE(host.batches.size() == 36);
    REQUIRE(device.batches.size() == host.batches.size());
    for (std::size_t i = 0; i < host.batches.size(); ++i) {
        INFO("batch report " << i);
        CHECK(device.batches[i].loss == host.batches[i].loss);
        CHECK(device.batches[i].accuracy == host.batches[i].accuracy);
    }
    REQUIRE(device.result->weights.size() == host.result->weights.size());
    for (std::size_t i = 0; i < host.result->weights.size(); ++i)
        CHECK(device.result->weights[i].values == host.result->weights[i].values);
    REQUIRE(host.result->test);
    REQUIRE(device.result->test);
    CHECK(device.result->test->accuracy == host.result->test->accuracy);
    // The device run said it was copying the set; the host run had nothing to copy.
    const auto copied = [](const Recorder& recorder) {
        return std::any_of(recorder.stages.begin(), recorder.stages.end(), [](const StageReport& report) {
            return report.activity == "copying the training images to the device";
        });
    };
    CHECK(copied(device));
    CHECK_FALSE(copied(host));
}

TEST_CASE("stop ends at a batch boundary and keeps the weights trained so far, and stop while paused stops", "[job]") {
    // Run A stops itself after batch 3; run B pauses after batch 3, waits until the job says it is
    // paused, then stops. Both trained exactly three batches, so their weights are identical.
    Recorder stopped;
    {
        Handle handle;
        stopped.on_batch = [&handle](const BatchReport& report) {
            if (report.batch == 3) handle.get().stop();
        };
        TrainingJob job(setup_of(small_project()), stopped.events());
        handle.promise.set_value(&job);
        REQUIRE(stopped.wait_until([&] { return stopped.ended(); }));
    }
    REQUIRE(stopped.result);
    CHECK(stopped.result->stopped);
    CHECK(stopped.result->training_began);
    CHECK(stopped.result->epochs_completed == 0);
    CHECK(stopped.batches.size() == 3);
    CHECK(stopped.epochs.empty());
    CHECK_FALSE(stopped.result->test);

    Recorder paused;
    Handle handle;
    paused.on_batch = [&handle](const BatchReport& report) {
        if (report.epoch == 0 && report.batch == 3) handle.get().pause();
    };
    TrainingJob job(setup_of(small_project()), paused.events());
    handle.promise.set_value(&job);
    INFO("the job never said it was paused");
    REQUIRE(paused.wait_until_paused());
    CHECK(paused.batch_count() == 3);
    job.stop();
    REQUIRE(paused.wait_until([&] { return paused.ended(); }));
    REQUIRE(paused.result);
    CHECK(paused.result->stopped);
    CHECK(paused.batches.size() == 3);  // nothing ran while paused
    REQUIRE(paused.result->weights.size() == stopped.result->weights.size());
    for (std::size_t i = 0; i < paused.result->weights.size(); ++i)
        CHECK(paused.result->weights[i].values == stopped.result->weights[i].values);
}

// The studio's Stop keeps the weights trained so far and, asked to, tests them: a stopped run
// gets a test accuracy, the same as evaluating its saved weights, and says where it stopped.
TEST_CASE("a job that has ended holds no mark on its device, so the next start takes nothing for a crash", "[job]") {
    // A process that ends once its job has (a test, a command) left the mark behind before: the next
    // start took it for a crash and emptied PoCL's cache under the processes using it then.
    const std::set<std::filesystem::path> before = marks_of_this_process();  // other jobs' of this process
    Recorder run;
    std::mutex seen_mutex;
    std::set<std::filesystem::path> while_training;
    run.on_batch = [&](const BatchReport& report) {
        if (report.batch != 1) return;
        std::lock_guard lock(seen_mutex);
        while_training = marks_of_this_process();
    };
    run_to_end(run, setup_of(small_project()));
    REQUIRE(run.result);
    std::lock_guard lock(seen_mutex);
    std::vector<std::filesystem::path> of_this_job;
    for (const std::filesystem::path& mark : while_training)
        if (!before.count(mark)) of_this_job.push_back(mark);
    REQUIRE(of_this_job.size() == 1);  // the job marked its device while it trained
    CHECK_FALSE(std::filesystem::exists(of_this_job.front()));
}

TEST_CASE("a run stopped with test_when_stopped tests the weights it kept", "[job]") {
    TempDir dir("job-test-when-stopped");
    Recorder stopped;
    {
        Handle handle;
        stopped.on_batch = [&handle](const BatchReport& report) {
            if (report.epoch == 1 && report.batch == 3) handle.get().stop();
        };
        JobSetup setup = setup_of(small_project());
        setup.test_when_stopped = true;
        setup.save_weights = dir.path() / "stopped.h5";
        TrainingJob job(std::move(setup), stopped.events());
        handle.promise.set_value(&job);
        REQUIRE(stopped.wait_until([&] { return stopped.ended(); }));
    }
    REQUIRE(stopped.result);
    CHECK(stopped.result->stopped);
    CHECK(stopped.result->epochs_completed == 1);
    CHECK(stopped.result->stopped_in_epoch == 1);
    CHECK(stopped.result->stopped_after_batches == 3);
    CHECK(stopped.batches.size() == 12 + 3);
    const std::vector<Stage> sequence = stopped.stage_sequence();
    CHECK(std::find(sequence.begin(), sequence.end(), Stage::evaluating) != sequence.end());
    REQUIRE(stopped.result->test);
    CHECK(stopped.result->test_samples);

    Recorder evaluated;
    JobSetup evaluation = setup_of(small_project());
    evaluation.task = JobTask::evaluate;
    evaluation.weights = dir.path() / "stopped.h5";
    run_to_end(evaluated, std::move(evaluation));
    REQUIRE(evaluated.result);
    REQUIRE(evaluated.result->test);
    CHECK(stopped.result->test->samples == evaluated.result->test->samples);
    CHECK(stopped.result->test->accuracy == evaluated.result->test->accuracy);
    CHECK(stopped.result->test->loss == Approx(evaluated.result->test->loss).epsilon(1e-6));
}

TEST_CASE("resume after a pause goes on to the end", "[job]") {
    Recorder run;
    Handle handle;
    std::atomic<bool> paused_once = false;
    run.on_batch = [&](const BatchReport& report) {
        if (report.batch == 2 && !paused_once.exchange(true)) handle.get().pause();
    };
    TrainingJob job(setup_of(small_project()), run.events());
    handle.promise.set_value(&job);
    // The handshake: resume only once the job has said that it is paused.
    INFO("the job never said it was paused");
    REQUIRE(run.wait_until_paused());
    job.resume();
    REQUIRE(run.wait_until([&] { return run.ended(); }));
    REQUIRE(run.result);
    CHECK_FALSE(run.result->stopped);
    CHECK(run.batches.size() == 36);
    const std::vector<Stage> sequence = run.stage_sequence();
    const auto paused = std::find(sequence.begin(), sequence.end(), Stage::paused);
    REQUIRE(paused != sequence.end());
    CHECK(*(paused + 1) == Stage::running);
}

TEST_CASE("resume with nothing paused and step while running do nothing in a job", "[job]") {
    Recorder run;
    Handle handle;
    run.on_batch = [&](const BatchReport& report) {
        if (report.epoch == 0 && report.batch == 1) {
            handle.get().resume();
            handle.get().step();
        }
    };
    TrainingJob job(setup_of(small_project()), run.events());
    handle.promise.set_value(&job);
    REQUIRE(run.wait_until([&] { return run.ended(); }));
    REQUIRE(run.result);
    CHECK(run.batches.size() == 36);
    const std::vector<Stage> sequence = run.stage_sequence();
    CHECK(std::find(sequence.begin(), sequence.end(), Stage::paused) == sequence.end());
}

TEST_CASE("step runs exactly one batch of a paused run", "[job]") {
    Recorder run;
    Handle handle;
    run.on_batch = [&](const BatchReport& report) {
        if (report.epoch == 0 && report.batch == 2) handle.get().pause();
    };
    TrainingJob job(setup_of(small_project()), run.events());
    handle.promise.set_value(&job);
    INFO("the job never said it was paused");
    REQUIRE(run.wait_until_paused());
    CHECK(run.batch_count() == 2);
    job.step();
    REQUIRE(run.wait_until([&] { return run.batches.size() >= 3; }));
    job.step();
    REQUIRE(run.wait_until([&] { return run.batches.size() >= 4; }));
    job.stop();
    REQUIRE(run.wait_until([&] { return run.ended(); }));
    REQUIRE(run.result);
    CHECK(run.result->stopped);
    // Two steps, two batches, and the run stayed paused between and after them.
    REQUIRE(run.batches.size() == 4);
    CHECK(run.batches[2].batch == 3);
    CHECK(run.batches[3].batch == 4);
    const std::vector<Stage> sequence = run.stage_sequence();
    CHECK(std::count(sequence.begin(), sequence.end(), Stage::paused) == 1);
    CHECK(sequence.back() == Stage::finished);
}

TEST_CASE("a step across the end of an epoch validates and stays paused", "[job]") {
    Recorder run;
    Handle handle;
    run.on_batch = [&](const BatchReport& report) {
        if (report.epoch == 0 && report.batch == 11) handle.get().pause();
    };
    TrainingJob job(setup_of(small_project()), run.events());
    handle.promise.set_value(&job);
    INFO("the job never said it was paused");
    REQUIRE(run.wait_until_paused());
    job.step();  // batch 12: the epoch ends and is validated
    REQUIRE(run.wait_until(
        [&] { return run.epochs.size() == 1 && !run.stages.empty() && run.stages.back().stage != Stage::evaluating; }));
    CHECK(run.stages.back().stage == Stage::paused);
    job.step();  // the first batch of epoch 2
    REQUIRE(run.wait_until([&] { return run.batches.size() == 13; }));
    job.stop();
    REQUIRE(run.wait_until([&] { return run.ended(); }));
    REQUIRE(run.result);
    CHECK(run.batches[12].epoch == 1);
    CHECK(run.batches[12].batch == 1);
    CHECK(run.batches.size() == 13);
}

TEST_CASE("a new learning rate applies from the next batch", "[job]") {
    Recorder run;
    Handle handle;
    run.on_batch = [&](const BatchReport& report) {
        if (report.epoch == 0 && report.batch == 2) handle.get().set_learning_rate(0.125f);
    };
    TrainingJob job(setup_of(small_project()), run.events());
    handle.promise.set_value(&job);
    REQUIRE(run.wait_until([&] { return run.ended(); }));
    REQUIRE(run.batches.size() == 36);
    CHECK(run.batches[0].learning_rate == 0.05f);
    CHECK(run.batches[1].learning_rate == 0.05f);
    CHECK(run.batches[2].learning_rate == 0.125f);
    CHECK(run.batches[35].learning_rate == 0.125f);
}

TEST_CASE("a stop while preparing ends the job before training, with nothing trained or saved", "[job]") {
    TempDir dir("job-stop-preparing");
    Recorder run;
    Handle handle;
    run.on_stage = [&](const StageReport& stage) {
        if (stage.activity == "building kernels") handle.get().stop();
    };
    JobSetup setup = setup_of(small_project());
    setup.save_weights = dir.path() / "w.h5";
    TrainingJob job(std::move(setup), run.events());
    handle.promise.set_value(&job);
    REQUIRE(run.wait_until([&] { return run.ended(); }));
    REQUIRE(run.result);
    CHECK_FALSE(run.result->training_began);
    CHECK(run.batches.empty());
    CHECK(run.result->weights.empty());
    CHECK_FALSE(std::filesystem::exists(dir.path() / "w.h5"));
}

TEST_CASE("destroying a job whose worker is busy does not wait for it", "[job]") {
    // The worker is held inside a batch report until the test releases it, after the job object
    // is gone; the destructor must return meanwhile, and the worker then ends on its own.
    std::promise<void> gate;
    std::shared_future<void> released = gate.get_future().share();
    std::promise<void> held;
    std::promise<void> worker_ended;
    auto job = std::make_unique<TrainingJob>(setup_of(small_project()), [&] {
        JobEvents events;
        // Destroyed with the job's state, which the worker keeps until it ends.
        auto ended_signal =
            std::shared_ptr<std::promise<void>>(&worker_ended, [](std::promise<void>* p) { p->set_value(); });
        events.batch = [released, &held, ended_signal,
                        first = std::make_shared<std::atomic<bool>>(true)](const BatchReport&) {
            if (first->exchange(false)) {
                held.set_value();
                released.wait_for(std::chrono::minutes(2));
            }
        };
        return events;
    }());
    REQUIRE(held.get_future().wait_for(std::chrono::minutes(2)) == std::future_status::ready);
    auto destroyed = std::async(std::launch::async, [&job] { job.reset(); });
    INFO("the destructor waited for the busy worker");
    CHECK(destroyed.wait_for(std::chrono::minutes(1)) == std::future_status::ready);
    gate.set_value();
    destroyed.wait();
    INFO("the worker did not end after it was released");
    CHECK(worker_ended.get_future().wait_for(std::chrono::minutes(2)) == std::future_status::ready);
}

TEST_CASE("problems arrive as failures with their kind, message and file", "[job]") {
    TempDir dir("job-failures");
    SECTION("a network that does not fit the data names the layer") {
        Recorder run;
        run_to_end(run, setup_of(small_project(5)));
        REQUIRE(run.failure);
        CHECK(run.failure->kind == FailureKind::project);
        CHECK(run.failure->message == "halves.json: the output 'out' has 5 units but the dataset has 2 classes");
        CHECK(run.failure->layer == "out");
        CHECK(run.failure->file == "halves.json");
        CHECK_FALSE(run.result);
        CHECK(run.batches.empty());
        CHECK(run.stages.back().stage == Stage::failed);
    }
    SECTION("a destination folder that does not exist, before anything runs") {
        Recorder run;
        JobSetup setup = setup_of(small_project());
        setup.save_weights = dir.path() / "missing" / "w.h5";
        run_to_end(run, std::move(setup));
        REQUIRE(run.failure);
        CHECK(run.failure->kind == FailureKind::file);
        CHECK(run.failure->file == (dir.path() / "missing" / "w.h5").string());
        CHECK(run.failure->message == (dir.path() / "missing" / "w.h5").string() + ": the folder '" +
                                          (dir.path() / "missing").string() + "' does not exist");
        CHECK(run.batches.empty());
    }
    SECTION("a device that is not there lists the devices") {
        Recorder run;
        JobSetup setup = setup_of(small_project());
        setup.device_request = "no-such-device-anywhere";
        run_to_end(run, std::move(setup));
        REQUIRE(run.failure);
        CHECK(run.failure->kind == FailureKind::device);
        CHECK_THAT(run.failure->message, Catch::StartsWith("no OpenCL device matches 'no-such-device-anywhere'"));
        CHECK_THAT(run.failure->message, Catch::Contains(test::test_device().name));
    }
    SECTION("weights that cannot be read") {
        Recorder run;
        JobSetup setup = setup_of(small_project());
        setup.task = JobTask::evaluate;
        setup.weights = dir.path() / "absent.h5";
        run_to_end(run, std::move(setup));
        REQUIRE(run.failure);
        CHECK(run.failure->kind == FailureKind::file);
        CHECK(run.failure->file == (dir.path() / "absent.h5").string());
        CHECK_THAT(run.failure->message, Catch::StartsWith((dir.path() / "absent.h5").string() + ": "));
    }
}

TEST_CASE("evaluate and predict through the job agree with the trained weights", "[job]") {
    TempDir dir("job-evaluate");
    Recorder trained;
    JobSetup setup = setup_of(small_project());
    setup.save_weights = dir.path() / "w.h5";
    run_to_end(trained, std::move(setup));
    REQUIRE(trained.result);
    CHECK(trained.result->saved_to == dir.path() / "w.h5");
    REQUIRE(trained.result->test);

    Recorder evaluated;
    JobSetup evaluation = setup_of(small_project());
    evaluation.task = JobTask::evaluate;
    evaluation.weights = dir.path() / "w.h5";
    run_to_end(evaluated, std::move(evaluation));
    REQUIRE(evaluated.result);
    REQUIRE(evaluated.result->test);
    // The same weights, test images and batch size: the same figures.
    CHECK(evaluated.result->test->samples == trained.result->test->samples);
    CHECK(evaluated.result->test->accuracy == trained.result->test->accuracy);
    CHECK(evaluated.result->test->loss == Approx(trained.result->test->loss).epsilon(1e-6));
}

TEST_CASE("evaluation agrees with predicted probabilities computed image by image", "[job]") {
    Recorder run;
    run_to_end(run, setup_of(small_project()));
    REQUIRE(run.result);
    const std::shared_ptr<const TrainingData> data = small_data();
    ops::Runtime runtime(test::test_device());
    model::NetworkSpec spec = small_project().network;
    spec.input = Shape{1, 1, 4, 4};
    model::Network network(runtime, spec, 16, {}, 99);
    io::upload_parameters(runtime, network, run.result->weights, "trained");
    const Evaluation evaluation = evaluate(network, data->test);
    REQUIRE(run.result->test);
    CHECK(evaluation.accuracy == run.result->test->accuracy);
    CHECK(evaluation.loss == Approx(run.result->test->loss).epsilon(1e-6));

    // An independent path: probabilities for every image, argmax and -log p(label) on the host.
    const auto probabilities = predict_probabilities(network, data->test.images, data->test.size());
    REQUIRE(probabilities.size() == 128);
    double loss = 0;
    std::size_t correct = 0;
    for (std::size_t i = 0; i < probabilities.size(); ++i) {
        const std::vector<ClassScore> top = top_classes(probabilities[i], 2);
        REQUIRE(top.size() == 2);
        CHECK(top[0].probability >= top[1].probability);
        CHECK(top[0].probability + top[1].probability == Approx(1.0).epsilon(1e-5));
        correct += top[0].label == data->test.labels[i];
        loss -= std::log(static_cast<double>(probabilities[i][static_cast<std::size_t>(data->test.labels[i])]));
    }
    CHECK(evaluation.accuracy == static_cast<double>(correct) / 128.0);
    CHECK(evaluation.loss == Approx(loss / 128.0).epsilon(1e-4));
}

TEST_CASE("weights from another network are refused with what differs", "[job][weights]") {
    ops::Runtime runtime(test::test_device());
    model::NetworkSpec spec = small_project().network;
    spec.input = Shape{1, 1, 4, 4};
    model::Network network(runtime, spec, 4, {}, 1);
    std::vector<io::NamedArray> arrays = io::download_parameters(runtime, network);
    REQUIRE(arrays.size() == 4);
    CHECK(arrays[0].name == "fc1.weight");
    CHECK(arrays[0].dims == std::vector<int>{8, 16});
    CHECK(arrays[1].dims == std::vector<int>{8});

    SECTION("a round trip restores every value") {
        model::Network other(runtime, spec, 4, {}, 2);
        CHECK(io::download_parameters(runtime, other)[0].values != arrays[0].values);
        io::upload_parameters(runtime, other, arrays, "w.h5");
        for (std::size_t i = 0; i < arrays.size(); ++i)
            CHECK(io::download_parameters(runtime, other)[i].values == arrays[i].values);
    }
    SECTION("a missing array") {
        arrays.erase(arrays.begin() + 1);
        REQUIRE_THROWS_MATCHES(
            io::upload_parameters(runtime, network, arrays, "w.h5"), io::WeightsFileError,
            Catch::Matchers::Message("w.h5: has no array 'fc1.bias'; it was saved from a different network"));
    }
    SECTION("another shape") {
        arrays[2].dims = {2, 4};
        REQUIRE_THROWS_MATCHES(
            io::upload_parameters(runtime, network, arrays, "w.h5"), io::WeightsFileError,
            Catch::Matchers::Message(
                "w.h5: array 'out.weight' is 2x4 but the network needs 2x8; it was saved from a different network"));
    }
    SECTION("an extra array") {
        arrays.push_back({"fc9.weight", {1}, {1.0f}});
        REQUIRE_THROWS_MATCHES(io::upload_parameters(runtime, network, arrays, "w.h5"), io::WeightsFileError,
                               Catch::Matchers::Message("w.h5: holds 'fc9.weight', which this network does not have; "
                                                        "it was saved from a different network"));
    }
}

TEST_CASE("a report also says what the batches since the previous report did, and where it stands in epochs", "[job]") {
    Recorder run;
    run_to_end(run, setup_of(small_project()));
    REQUIRE(run.batches.size() == 36);
    // Every batch reported: the recent figures are each batch's own, recovered from the running
    // means of 16 images per batch.
    for (std::size_t i = 0; i < run.batches.size(); ++i) {
        const BatchReport& report = run.batches[i];
        const double n = static_cast<double>(report.batch);
        const double previous_loss = report.batch == 1 ? 0.0 : run.batches[i - 1].loss * (n - 1);
        const double previous_accuracy = report.batch == 1 ? 0.0 : run.batches[i - 1].accuracy * (n - 1);
        CHECK(report.recent_loss == Approx(report.loss * n - previous_loss).epsilon(1e-4));
        CHECK(report.recent_accuracy == Approx(report.accuracy * n - previous_accuracy).margin(1e-6));
        CHECK(report.position() == Approx(report.epoch + n / 12.0));
    }
    // A batch's accuracy is a count of 16 images.
    CHECK(run.batches[5].recent_accuracy * 16 == Approx(std::round(run.batches[5].recent_accuracy * 16)).margin(1e-6));

    // On a timer, a report covers the batches since the previous one of its epoch.
    Recorder timed;
    run_to_end(timed, setup_of(small_project(), std::chrono::hours(1)));
    REQUIRE(timed.batches.size() == 3);
    for (const BatchReport& report : timed.batches) {
        CHECK(report.recent_loss == Approx(report.loss));  // the only report of its epoch
        CHECK(report.position() == Approx(report.epoch + 1.0));
    }
}

TEST_CASE("a diverging run goes back to its last finite weights, and stops with advice or pauses with it", "[job]") {
    TempDir dir("job-divergence");
    project::Project wild = small_project();
    // The most a run accepts, with a weight decay that turns every step into w -= 10 * (g + w),
    // about w * -9: the loss explodes within a few batches, whatever the data (a weight decay of
    // 10 explodes in the second batch, leaving no batch whose weights could be kept).
    wild.training.optimizer.learning_rate = 10.0f;
    wild.training.optimizer.weight_decay = 1.0f;
    const auto all_finite = [](const Recorder& run) {
        for (const BatchReport& report : run.batches)
            if (!std::isfinite(report.loss) || !std::isfinite(report.recent_loss)) return false;
        return true;
    };
    const auto finite_values = [](const std::vector<io::NamedArray>& arrays) {
        for (const io::NamedArray& array : arrays)
            for (float value : array.values)
                if (!std::isfinite(value)) return false;
        return !arrays.empty();
    };
    const auto weights_from = [&](const std::filesystem::path& file) {
        return weights_for_network(read_saved_weights(file), wild, small_data()->train.shape);
    };
    SECTION("stop (the CLI): a failure of its own kind, with the weights of the last batch known to be finite") {
        Recorder run;
        JobSetup setup = setup_of(wild);
        setup.save_weights = dir.path() / "w.h5";
        run_to_end(run, std::move(setup));
        REQUIRE(run.failure);
        CHECK(run.failure->kind == FailureKind::diverged);
        // Its loss explodes before it overflows: caught while still finite (session/loss_watch.h).
        CHECK_THAT(run.failure->message, Catch::StartsWith("the loss grew to "));
        CHECK_THAT(run.failure->message, Catch::Contains("at learning rate 10:"));
        CHECK_THAT(run.failure->message, Catch::Contains("lower learning rate (try 1)"));
        CHECK_THAT(run.failure->message, Catch::Contains("normalised"));
        CHECK(all_finite(run));
        // Every batch was reported (interval 0): the weights after the last reported batch
        // produced the loss that was not a number, those after the one before it are kept.
        const auto [kept_batches, kept_file] =
            kept_weights_named(run.failure->message, "the last known to be finite", dir.path() / "w.h5", "last-finite");
        REQUIRE(run.batches.size() >= 2);
        CHECK(kept_batches + 1 == run.batches.size());
        REQUIRE(finite_values(run.failure->weights));
        // Exactly the weights of a run of that many batches, in the failure and in the file.
        Recorder shorter;
        JobSetup limited = setup_of(wild);
        limited.batch_limit = kept_batches;
        run_to_end(shorter, std::move(limited));
        REQUIRE(shorter.result);
        check_same_weights(run.failure->weights, weights_from(kept_file), shorter.result->weights);
    }
    SECTION("pause (the studio): the paused stage carries the advice; a stop then saves the finite weights") {
        Recorder run;
        JobSetup setup = setup_of(wild);
        setup.save_weights = dir.path() / "w.h5";
        setup.on_divergence = OnDivergence::pause;
        TrainingJob job(std::move(setup), run.events());
        INFO("the job never paused itself");
        REQUIRE(run.wait_until_paused());
        {
            std::lock_guard lock(run.mutex);
            CHECK_THAT(run.stages.back().activity, Catch::StartsWith("the loss grew to "));
            CHECK_THAT(run.stages.back().activity, Catch::Contains("lower learning rate"));
        }
        job.stop();
        REQUIRE(run.wait_until([&] { return run.ended(); }));
        REQUIRE(run.result);
        CHECK(run.result->stopped);
        CHECK_THAT(run.result->diverged, Catch::StartsWith("the loss grew to "));
        REQUIRE(run.result->kept_after_batches);
        CHECK(*run.result->kept_after_batches + 1 == run.batches.size());
        CHECK(run.result->saved_to == dir.path() / "w.h5");
        CHECK(finite_values(weights_from(dir.path() / "w.h5")));
        CHECK(all_finite(run));
    }
    SECTION("pause, then a lower rate and resume: the run trains on from the finite weights") {
        Recorder run;
        JobSetup setup = setup_of(wild);
        setup.save_weights = dir.path() / "w.h5";
        setup.on_divergence = OnDivergence::pause;
        TrainingJob job(std::move(setup), run.events());
        REQUIRE(run.wait_until_paused());
        // The weights it went back to are one batch short of the explosion: a rate this low keeps
        // them there. Had the run not gone back, every loss after the divergence would be above
        // the limit, then NaN, and no report would come.
        job.set_learning_rate(1e-20f);
        job.resume();
        INFO("no finite report came after the resume");
        REQUIRE(run.wait_until([&] { return !run.batches.empty() && run.batches.back().learning_rate < 1e-10f; }));
        job.stop();
        REQUIRE(run.wait_until([&] { return run.ended(); }));
        REQUIRE(run.result);
        CHECK(all_finite(run));
        CHECK(finite_values(weights_from(dir.path() / "w.h5")));
    }
}

TEST_CASE("a loss that explodes but stays finite is a divergence: the run stops with advice and its finite weights",
          "[job][divergence]") {
    project::Project wild = small_project();
    // As above, the weights grow about 99 times a step; the loss passes 1000 times the first
    // epoch's long before it overflows. Before, only a NaN or infinite loss stopped a run, and a
    // loss that grew to 3.5e20 without overflowing ended "successfully".
    wild.training.optimizer.learning_rate = 10.0f;
    wild.training.optimizer.weight_decay = 10.0f;
    Recorder run;
    run_to_end(run, setup_of(wild));
    REQUIRE(run.failure);
    CHECK(run.failure->kind == FailureKind::diverged);
    CHECK_THAT(run.failure->message,
               Catch::Matches("the loss grew to [0-9.e+]+ an image, more than 1000 times the "
                              "first epoch's [0-9.e+-]+( \\(and above 1000\\))? in epoch 1, batch [0-9]+, at "
                              "learning rate 10: the training diverged\\. .*"));
    // No report above the limit was sent: the lowest of the first epoch's, times 1000.
    REQUIRE_FALSE(run.batches.empty());
    double lowest = run.batches.front().recent_loss;
    for (const BatchReport& report : run.batches) lowest = std::min(lowest, report.recent_loss);
    for (const BatchReport& report : run.batches) CHECK(report.recent_loss <= std::max(1000 * lowest, 1000.0));
    REQUIRE_FALSE(run.failure->weights.empty());
    for (const io::NamedArray& array : run.failure->weights)
        for (float value : array.values) REQUIRE(std::isfinite(value));
}

TEST_CASE(
    "weights that become NaN behind a ReLU are found at the epoch's end: the run stops with the last finite "
    "weights",
    "[job][divergence]") {
    // One training image with a NaN pixel: its gradient makes fc1's weights NaN, but the ReLU
    // after fc1 turns NaN into 0, so every loss stays finite. Before, the run trained on and saved
    // NaN weights (and checkpoints) without a word.
    auto data = std::make_shared<TrainingData>(*small_data());
    const std::size_t pixels = data->train.shape.per_sample();
    data->train.images[data->split.train.front() * pixels + 5] = std::numeric_limits<float>::quiet_NaN();
    TempDir dir("job-nan-weights");
    Recorder run;
    JobSetup setup = setup_of(small_project());
    setup.data = data;
    setup.checkpoint = dir.path() / "c.h5";
    run_to_end(run, std::move(setup));
    REQUIRE(run.failure);
    CHECK(run.failure->kind == FailureKind::diverged);
    CHECK_THAT(run.failure->message, Catch::Matches("the weights became NaN or infinite \\([0-9]+ values of "
                                                    "'fc1\\.weight'.*\\) in epoch 1, at learning rate 0\\.05: "
                                                    "the training diverged\\. .*"));
    for (const BatchReport& report : run.batches) CHECK(std::isfinite(report.recent_loss));  // hidden from the loss
    CHECK(run.epochs.empty());
    CHECK_FALSE(std::filesystem::exists(dir.path() / "c.h5"));  // checked before any checkpoint
    // The snapshots taken after the NaN arrived were never kept, though a finite loss followed them.
    REQUIRE_FALSE(run.failure->weights.empty());
    for (const io::NamedArray& array : run.failure->weights)
        for (float value : array.values) REQUIRE(std::isfinite(value));
}

TEST_CASE("a validation loss that is not a number is a divergence", "[job][divergence]") {
    // No ReLU to hide it: a validation image with a NaN pixel makes the validation loss NaN while
    // training, which never sees that image, goes on well. Before, "validation loss nan" was
    // reported and the run went on.
    project::Project linear = small_project();
    linear.network.layers = {model::input_layer(), model::flatten("flatten"),
                             model::dense("out", 2, train::Initializer::glorot_uniform)};
    auto data = std::make_shared<TrainingData>(*small_data());
    const std::size_t pixels = data->train.shape.per_sample();
    data->train.images[data->split.validation.front() * pixels + 3] = std::numeric_limits<float>::quiet_NaN();
    Recorder run;
    JobSetup setup = setup_of(linear);
    setup.data = data;
    run_to_end(run, std::move(setup));
    REQUIRE(run.failure);
    CHECK(run.failure->kind == FailureKind::diverged);
    CHECK_THAT(run.failure->message,
               Catch::StartsWith("the validation loss became NaN (not a number) after epoch 1, at learning rate 0.05: "
                                 "the training diverged. "));
    CHECK(run.epochs.empty());
}

TEST_CASE("starting weights that are not finite are refused with their file named", "[job][divergence]") {
    TempDir dir("job-nan-start");
    const std::filesystem::path good = dir.path() / "good.h5", bad = dir.path() / "bad.h5";
    Recorder first;
    JobSetup setup = setup_of(small_project());
    setup.save_weights = good;
    setup.batch_limit = 2;
    run_to_end(first, std::move(setup));
    REQUIRE(first.result);
    const SavedWeights saved = read_saved_weights(good);
    std::vector<io::NamedArray> arrays = weights_for_network(saved, small_project(), small_data()->train.shape);
    REQUIRE(arrays.front().name == "fc1.weight");
    arrays.front().values[3] = std::numeric_limits<float>::quiet_NaN();
    save_trained_weights(bad, small_project(), *saved.card, arrays);

    Recorder run;
    JobSetup from_bad = setup_of(small_project());
    from_bad.weights = bad;
    run_to_end(run, std::move(from_bad));
    REQUIRE(run.failure);
    CHECK(run.failure->kind == FailureKind::file);
    CHECK(run.failure->file == bad.string());
    CHECK(run.failure->message == bad.string() +
                                      ": holds NaN or infinite values (1 value of 'fc1.weight'): a run cannot start "
                                      "from them; start from other weights, or from new ones");
    CHECK(run.batches.empty());
}

TEST_CASE("a failure after training keeps the weights trained", "[job]") {
    // The destination's folder is there when the job checks it and gone when the weights are
    // saved: the failure names the file and still holds every trained array.
    TempDir dir("job-failure-keeps-weights");
    const std::filesystem::path folder = dir.path() / "runs";
    std::filesystem::create_directories(folder);
    Recorder run;
    run.on_batch = [&folder](const BatchReport& report) {
        if (report.epoch == 0 && report.batch == 1) std::filesystem::remove_all(folder);
    };
    JobSetup setup = setup_of(small_project());
    setup.save_weights = folder / "w.h5";
    run_to_end(run, std::move(setup));
    REQUIRE(run.failure);
    CHECK(run.failure->kind == FailureKind::file);
    CHECK(run.failure->epochs_completed == 3);
    CHECK(run.failure->weights.size() == 4);
    CHECK(run.failure->saved_to.empty());
}

TEST_CASE("a device fault part-way through training stops after the last completed batch and keeps its weights",
          "[job]") {
    struct Disarmed {
        ~Disarmed() { cl::disarm_fault(); }
    } disarmed;
    TempDir dir("job-device-fault");
    const std::shared_ptr<const TrainingData> data = training_only_data();
    const auto run_batches = [&](std::size_t batches) { return counted_run(data, batches); };
    const auto [two_batch_launches, two_batch_weights] = run_batches(2);
    const auto [three_batch_launches, three_batch_weights] = run_batches(3);
    REQUIRE(three_batch_launches > two_batch_launches);

    // The first launch of the third batch fails, as a driver out of resources would fail it.
    cl::arm_fault({cl::FaultPoint::enqueue, two_batch_launches + 1, CL_OUT_OF_RESOURCES});
    Recorder run;
    JobSetup setup = setup_of(small_project());
    setup.data = data;
    setup.save_weights = dir.path() / "kept.h5";
    run_to_end(run, std::move(setup));
    REQUIRE(run.failure);
    CHECK(run.failure->kind == FailureKind::device);
    CHECK_THAT(run.failure->message,
               Catch::StartsWith("the device '" + test::test_device().name +
                                 "' failed during training, after 2 batches of this run (clEnqueueNDRangeKernel "
                                 "failed with CL_OUT_OF_RESOURCES (-5) for kernel '") &&
                   Catch::Contains("the weights as they were after 2 batches of this run are saved in " +
                                   (dir.path() / "kept.rescued-after-2-batches.h5").string() + " (" +
                                   (dir.path() / "kept.h5").string() + " is written only by a run that ends well)"));
    CHECK_FALSE(std::filesystem::exists(dir.path() / "kept.h5"));
    // Exactly the weights of a run that stopped after two batches, in the job and in the file.
    REQUIRE(run.failure->weights.size() == two_batch_weights.size());
    const SavedWeights saved = read_saved_weights(dir.path() / "kept.rescued-after-2-batches.h5");
    const std::vector<io::NamedArray> from_file = weights_for_network(saved, small_project(), data->train.shape);
    for (std::size_t i = 0; i < two_batch_weights.size(); ++i) {
        INFO(two_batch_weights[i].name);
        CHECK(run.failure->weights[i].values == two_batch_weights[i].values);
        CHECK(from_file[i].values == two_batch_weights[i].values);
        if (i == 0) CHECK(two_batch_weights[i].values != three_batch_weights[i].values);  // the batches count
    }
}

TEST_CASE("a device fault in the middle of a step's update keeps the last weights kept whole, and says so", "[job]") {
    struct Disarmed {
        ~Disarmed() { cl::disarm_fault(); }
    } disarmed;
    TempDir dir("job-update-fault");
    const std::shared_ptr<const TrainingData> data = training_only_data();
    const auto run_batches = [&](std::size_t batches) { return counted_run(data, batches); };
    const std::vector<io::NamedArray> one_batch_weights = run_batches(1).second;
    const std::uint64_t three_batch_launches = run_batches(3).first;

    // The last launch of the third batch is its update (one command for every parameter).
    cl::arm_fault({cl::FaultPoint::enqueue, three_batch_launches, CL_OUT_OF_RESOURCES});
    Recorder run;
    JobSetup setup = setup_of(small_project());
    setup.data = data;
    setup.save_weights = dir.path() / "kept.h5";
    run_to_end(run, std::move(setup));
    REQUIRE(run.failure);
    CHECK(run.failure->kind == FailureKind::device);
    // Every batch is reported (interval 0): the copy taken after batch 1 was proven by batch 2's
    // loss, the one after batch 2 was not yet proven when batch 3 failed.
    CHECK_THAT(run.failure->message,
               Catch::Contains("failed during training, after 2 batches of this run") &&
                   Catch::EndsWith("; the weights as they were after 1 batch of this run, the last kept whole (the "
                                   "failing batch's update did not finish), are saved in " +
                                   (dir.path() / "kept.rescued-after-1-batch.h5").string() + " (" +
                                   (dir.path() / "kept.h5").string() + " is written only by a run that ends well)"));
    REQUIRE(run.failure->weights.size() == one_batch_weights.size());
    const SavedWeights saved = read_saved_weights(dir.path() / "kept.rescued-after-1-batch.h5");
    const std::vector<io::NamedArray> from_file = weights_for_network(saved, small_project(), data->train.shape);
    for (std::size_t i = 0; i < one_batch_weights.size(); ++i) {
        INFO(one_batch_weights[i].name);
        CHECK(run.failure->weights[i].values == one_batch_weights[i].values);
        CHECK(from_file[i].values == one_batch_weights[i].values);
    }
}

TEST_CASE("with reports an hour apart, a fault in a step's update still keeps the weights of a recent epoch's end",
          "[job]") {
    struct Disarmed {
        ~Disarmed() { cl::disarm_fault(); }
    } disarmed;
    TempDir dir("job-update-fault-late");
    const std::shared_ptr<const TrainingData> data = training_only_data();
    const std::size_t per_epoch = data->split.train.size() / 16;  // batches of 16, 3 epochs
    REQUIRE(per_epoch * 16 == data->split.train.size());
    const std::vector<io::NamedArray> one_epoch_weights = counted_run(data, per_epoch).second;
    // The last launch of the second batch of the third epoch is its update.
    const std::uint64_t launches = counted_run(data, 2 * per_epoch + 2).first;
    cl::arm_fault({cl::FaultPoint::enqueue, launches, CL_OUT_OF_RESOURCES});
    Recorder run;
    JobSetup setup = setup_of(small_project(), std::chrono::hours(1));
    setup.data = data;
    setup.save_weights = dir.path() / "kept.h5";
    run_to_end(run, std::move(setup));
    REQUIRE(run.failure);
    INFO(run.failure->message);
    // Reports come only at epochs' ends: the copy taken at the first epoch's end was proven by the
    // second's report. Before, a copy waited for the report interval, so the run kept its starting
    // weights ("after 0 batches") however long it had trained.
    const std::string kept = "kept.rescued-after-" + std::to_string(per_epoch) + "-batches.h5";
    CHECK_THAT(run.failure->message,
               Catch::EndsWith("; the weights as they were after " + std::to_string(per_epoch) +
                               " batches of this run, the last kept whole (the failing batch's update did not finish), "
                               "are saved in " +
                               (dir.path() / kept).string() + " (" + (dir.path() / "kept.h5").string() +
                               " is written only by a run that ends well)"));
    const std::vector<io::NamedArray> from_file =
        weights_for_network(read_saved_weights(dir.path() / kept), small_project(), data->train.shape);
    REQUIRE(from_file.size() == one_epoch_weights.size());
    for (std::size_t i = 0; i < from_file.size(); ++i) CHECK(from_file[i].values == one_epoch_weights[i].values);
}

TEST_CASE("a buffer the device refuses while the network is built gives the memory estimate", "[job]") {
    struct Disarmed {
        ~Disarmed() { cl::disarm_fault(); }
    } disarmed;
    test::ensure_self_tested();  // the first allocation is then the network's
    cl::arm_fault({cl::FaultPoint::allocation, 1, CL_MEM_OBJECT_ALLOCATION_FAILURE});
    Recorder run;
    run_to_end(run, setup_of(small_project()));
    REQUIRE(run.failure);
    CHECK(run.failure->kind == FailureKind::out_of_device_memory);
    CHECK_THAT(run.failure->message,
               Catch::StartsWith("the network does not fit the memory of " + test::test_device().name + " (") &&
                   Catch::Contains("this network needs about ") &&
                   Catch::Contains("clCreateBuffer failed with CL_MEM_OBJECT_ALLOCATION_FAILURE"));
    CHECK_FALSE(run.result);
}

TEST_CASE(
    "a device that stops finishing work ends the run through the watchdog, which saves the last weights "
    "copied from it, and the worker then stays silent",
    "[job]") {
    const test::TempDir dir("watchdog-weights");
    struct Released {
        ~Released() { cl::disarm_fault(); }  // also lets a launch still waiting run
    } released;
    const std::shared_ptr<const TrainingData> data = training_only_data();
    // A run of two batches first: it counts their launches and builds every kernel (CLBlast's
    // too), so the watched run's first steps take no compiling.
    const std::uint64_t two_batch_launches = counted_run(data, 2).first;

    // The third batch's first kernel is enqueued but never runs, as a kernel that never ends.
    cl::arm_fault({cl::FaultPoint::hang, two_batch_launches + 1, cl::hang_status});
    Recorder run;
    JobSetup setup = setup_of(small_project());
    setup.data = data;
    setup.watchdog_limit = std::chrono::seconds(2);
    setup.save_weights = dir.path() / "hung.h5";
    TrainingJob job(std::move(setup), run.events());
    INFO("the watchdog never ended the run");
    REQUIRE(run.wait_until([&] { return run.ended(); }));
    REQUIRE(run.failure);
    CHECK_FALSE(run.result);
    CHECK(run.failure->kind == FailureKind::device);
    CHECK_THAT(run.failure->message,
               Catch::StartsWith("the device '" + test::test_device().name +
                                 "' stopped responding during training: it finished no work for ") &&
                   Catch::Contains(", after 2 batches of this run (a kernel that never ends, or a driver that "
                                   "stopped answering), so the run was ended; "));
    CHECK(run.batch_count() == 2);
    CHECK(run.stage_sequence().back() == Stage::failed);
    CHECK(job.wait_for(std::chrono::seconds(0)));
    CHECK_FALSE(job.wait_for_worker(std::chrono::seconds(0)));  // still inside the driver

    // The device answers again: the worker stops at its next batch and sends nothing more.
    cl::release_hang();
    REQUIRE(job.wait_for_worker(std::chrono::minutes(2)));
    CHECK(run.batch_count() == 2);
    std::lock_guard lock(run.mutex);
    CHECK(run.stages.back().stage == Stage::failed);
    CHECK_FALSE(run.result);

    // The hung device cannot give its weights back: the last copy the run kept on the host is
    // saved, and it is exactly the weights of a run of the batches the message names.
    const auto [kept_batches, kept_file] =
        kept_weights_named(run.failure->message, "the last copied from the device", dir.path() / "hung.h5", "rescued");
    REQUIRE(run.failure->saved_to == kept_file);
    CHECK(kept_batches >= 1);
    CHECK(kept_batches <= 2);
    check_same_weights(run.failure->weights,
                       weights_for_network(read_saved_weights(kept_file), small_project(), data->train.shape),
                       counted_run(data, kept_batches).second);
}
