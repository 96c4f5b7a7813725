// The run folder: a receipt and a history written, read back, listed, renamed and deleted.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iterator>
#include <system_error>

#include "engine/runs/run_record.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

using namespace bps;
namespace fs = std::filesystem;

namespace {

session::RunReceipt full_receipt() {
    session::RunReceipt receipt;
    receipt.name = "Run 3";
    receipt.started_at = "2026-11-23T18:42:15";
    receipt.seconds = 73.25;
    receipt.app_version = "0.4.1";
    receipt.project_name = "pets";
    receipt.training.epochs = 7;
    receipt.training.batch_size = 32;
    receipt.training.seed = 1234;
    receipt.training.optimizer.kind = train::OptimizerKind::adamw;
    receipt.training.optimizer.learning_rate = 0.003f;
    receipt.training.optimizer.momentum = 0.8f;
    receipt.training.optimizer.nesterov = true;
    receipt.training.optimizer.weight_decay = 0.0005f;
    receipt.training.optimizer.beta1 = 0.85f;
    receipt.training.optimizer.beta2 = 0.995f;
    receipt.training.optimizer.epsilon = 1e-6f;
    receipt.training.schedule.kind = train::ScheduleKind::cosine;
    receipt.training.schedule.step_size = 3;
    receipt.training.schedule.gamma = 0.5f;
    receipt.training.schedule.total_epochs = 7;
    receipt.training.schedule.min_rate = 0.0001f;
    receipt.dataset.name = "";
    receipt.dataset.folder = "/data/pets";
    receipt.dataset.height = 64;
    receipt.dataset.width = 48;
    receipt.dataset.channels = 3;
    receipt.dataset.validation_fraction = 0.2;
    receipt.dataset.normalize = false;
    receipt.dataset.shuffle = false;
    receipt.dataset.augmentation.random_crop = true;
    receipt.dataset.augmentation.crop_padding = 2;
    receipt.dataset.augmentation.horizontal_flip = true;
    receipt.device = "NVIDIA H100";
    receipt.platform = "NVIDIA CUDA";
    receipt.driver = "550.54";
    receipt.train_images = 5400;
    receipt.validation_images = 600;
    receipt.test_images = 1000;
    receipt.outcome = "finished";
    receipt.problem = "";
    receipt.epochs_completed = 7;
    receipt.train_loss = 0.3125;
    receipt.train_accuracy = 0.875;
    receipt.validation = session::Evaluation{0.40625, 0.84375, 600};
    receipt.test = session::Evaluation{0.5, 0.8125, 1000};
    receipt.weights_file = "weights.h5";
    return receipt;
}

session::RunHistory some_history() {
    session::RunHistory history;
    history.batches = {{0.1, 2.25, 0.125, 0.003, 1500.5}, {0.2, std::nan(""), 0.25, 0.003, 1600}};
    session::EpochPoint first;
    first.position = 1;
    first.train_loss = 0.75;
    first.train_accuracy = 0.5;
    session::EpochPoint second;
    second.position = 2;
    second.train_loss = 0.625;
    second.train_accuracy = 0.6;
    second.validation_loss = 0.7;
    second.validation_accuracy = std::nan("");
    session::EpochPoint third;
    third.position = 3;
    third.train_loss = 0.5;
    third.train_accuracy = 0.7;
    third.validation_accuracy = 0.65;  // a loss unknown, an accuracy known
    history.epochs = {first, second, third};
    history.markers = {{1.5, "learning rate 0.01 → 0.003"}, {2.0, "paused"}};
    return history;
}

// NaN is never equal to itself: both NaN, or equal.
bool same(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
}
bool same(const std::optional<double>& a, const std::optional<double>& b) {
    return a.has_value() == b.has_value() && (!a || same(*a, *b));
}

using bps::test::read_text;
using bps::test::write_text;

session::RunRecord record_in(const fs::path& runs, const std::string& started_at, const std::string& name) {
    session::RunRecord record;
    record.folder = session::create_run_folder(runs, started_at);
    record.receipt.name = name;
    record.receipt.started_at = started_at;
    record.receipt.outcome = "finished";
    session::write_run(record);
    return record;
}

}  // namespace

TEST_CASE("every receipt field and every history point survive a write and a read", "[runs]") {
    test::TempDir dir("run-record");
    session::RunRecord record;
    record.folder = dir.path() / "2026-11-23_18-42-15";
    fs::create_directory(record.folder);
    record.receipt = full_receipt();
    record.history = some_history();
    session::write_run(record);

    const session::RunRecord read = session::read_run(record.folder);
    const session::RunReceipt& a = record.receipt;
    const session::RunReceipt& b = read.receipt;
    CHECK(read.id() == "2026-11-23_18-42-15");
    CHECK(b.name == a.name);
    CHECK(b.started_at == a.started_at);
    CHECK(b.seconds == a.seconds);
    CHECK(b.app_version == a.app_version);
    CHECK(b.project_name == a.project_name);
    CHECK(b.training.epochs == 7);
    CHECK(b.training.batch_size == 32);
    CHECK(b.training.seed == 1234);
    CHECK(b.training.optimizer.kind == train::OptimizerKind::adamw);
    CHECK(b.training.optimizer.learning_rate == 0.003f);
    CHECK(b.training.optimizer.momentum == 0.8f);
    CHECK(b.training.optimizer.nesterov);
    CHECK(b.training.optimizer.weight_decay == 0.0005f);
    CHECK(b.training.optimizer.beta1 == 0.85f);
    CHECK(b.training.optimizer.beta2 == 0.995f);
    CHECK(b.training.optimizer.epsilon == 1e-6f);
    CHECK(b.training.schedule.kind == train::ScheduleKind::cosine);
    CHECK(b.training.schedule.step_size == 3);
    CHECK(b.training.schedule.gamma == 0.5f);
    CHECK(b.training.schedule.total_epochs == 7);
    CHECK(b.training.schedule.min_rate == 0.0001f);
    CHECK(b.dataset.name.empty());
    CHECK(b.dataset.folder == "/data/pets");
    CHECK(b.dataset.height == 64);
    CHECK(b.dataset.width == 48);
    CHECK(b.dataset.channels == 3);
    CHECK(b.dataset.validation_fraction == 0.2);
    CHECK_FALSE(b.dataset.normalize);
    CHECK_FALSE(b.dataset.shuffle);
    CHECK(b.dataset.augmentation.random_crop);
    CHECK(b.dataset.augmentation.crop_padding == 2);
    CHECK(b.dataset.augmentation.horizontal_flip);
    CHECK(b.device == a.device);
    CHECK(b.platform == a.platform);
    CHECK(b.driver == a.driver);
    CHECK(b.train_images == 5400);
    CHECK(b.validation_images == 600);
    CHECK(b.test_images == 1000);
    CHECK(b.outcome == "finished");
    CHECK(b.problem.empty());
    CHECK(b.epochs_completed == 7);
    CHECK(b.train_loss == 0.3125);
    CHECK(b.train_accuracy == 0.875);
    REQUIRE(b.validation);
    CHECK(b.validation->loss == 0.40625);
    CHECK(b.validation->accuracy == 0.84375);
    CHECK(b.validation->samples == 600);
    REQUIRE(b.test);
    CHECK(b.test->loss == 0.5);
    CHECK(b.test->accuracy == 0.8125);
    CHECK(b.test->samples == 1000);
    CHECK(b.weights_file == "weights.h5");
    CHECK(read.weights() == record.folder / "weights.h5");

    const std::string receipt_text = read_text(record.folder / "receipt.json");
    CHECK(receipt_text.find("\"format\": \"backprop-studio-run\"") != std::string::npos);
    CHECK(receipt_text.find("\"type\": \"adamw\"") != std::string::npos);
    CHECK(receipt_text.find("\"type\": \"cosine\"") != std::string::npos);

    const session::RunHistory& h = read.history;
    REQUIRE(h.batches.size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        const session::BatchPoint& x = record.history.batches[i];
        const session::BatchPoint& y = h.batches[i];
        CHECK(same(y.position, x.position));
        CHECK(same(y.loss, x.loss));
        CHECK(same(y.accuracy, x.accuracy));
        CHECK(same(y.learning_rate, x.learning_rate));
        CHECK(same(y.images_per_second, x.images_per_second));
    }
    CHECK(std::isnan(h.batches[1].loss));
    REQUIRE(h.epochs.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        const session::EpochPoint& x = record.history.epochs[i];
        const session::EpochPoint& y = h.epochs[i];
        CHECK(same(y.position, x.position));
        CHECK(same(y.train_loss, x.train_loss));
        CHECK(same(y.train_accuracy, x.train_accuracy));
        CHECK(same(y.validation_loss, x.validation_loss));
        CHECK(same(y.validation_accuracy, x.validation_accuracy));
    }
    CHECK_FALSE(h.epochs[0].validation_loss);
    REQUIRE(h.epochs[1].validation_accuracy);
    CHECK(std::isnan(*h.epochs[1].validation_accuracy));
    CHECK_FALSE(h.epochs[2].validation_loss);
    REQUIRE(h.markers.size() == 2);
    CHECK(h.markers[0].position == 1.5);
    CHECK(h.markers[0].text == "learning rate 0.01 → 0.003");
    CHECK(h.markers[1].text == "paused");
}

TEST_CASE("a receipt without the optional figures reads back without them", "[runs]") {
    test::TempDir dir("run-record");
    session::RunRecord record;
    record.folder = dir.path() / "run";
    fs::create_directory(record.folder);
    record.receipt.name = "Run 1";
    record.receipt.outcome = "diverged";
    record.receipt.problem = "the loss became NaN in epoch 2";
    record.receipt.seconds = std::nan("");
    session::write_run(record);

    const session::RunRecord read = session::read_run(record.folder);
    CHECK_FALSE(read.receipt.train_loss);
    CHECK_FALSE(read.receipt.train_accuracy);
    CHECK_FALSE(read.receipt.validation);
    CHECK_FALSE(read.receipt.test);
    CHECK(read.receipt.weights_file.empty());
    CHECK(read.weights().empty());
    CHECK(std::isnan(read.receipt.seconds));
    CHECK(read.receipt.problem == "the loss became NaN in epoch 2");
    CHECK(read.receipt.dataset.name == "fashion-mnist");
    CHECK(read.history.batches.empty());
    CHECK(read.history.epochs.empty());
    CHECK(read.history.markers.empty());
}

TEST_CASE("writing leaves no temporary files beside the receipt", "[runs]") {
    test::TempDir dir("run-record");
    const session::RunRecord record = record_in(dir.path(), "2026-11-23T18:42:15", "Run 1");
    session::write_run(record);
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(record.folder)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    CHECK(names == std::vector<std::string>{"history.json", "receipt.json"});
}

TEST_CASE("run folders are named after their start, with -2 when the name is taken", "[runs]") {
    test::TempDir dir("run-record");
    const fs::path runs = dir.path() / "cnn.runs";
    const fs::path first = session::create_run_folder(runs, "2026-11-23T18:42:15");
    const fs::path second = session::create_run_folder(runs, "2026-11-23T18:42:15");
    const fs::path third = session::create_run_folder(runs, "2026-11-23T18:42:15");
    CHECK(first.filename() == "2026-11-23_18-42-15");
    CHECK(second.filename() == "2026-11-23_18-42-15-2");
    CHECK(third.filename() == "2026-11-23_18-42-15-3");
    CHECK(fs::is_directory(first));
    CHECK(fs::is_directory(second));
    CHECK(fs::is_directory(third));
    CHECK(session::runs_folder_for(dir.path() / "cnn.json") == runs);
}

TEST_CASE("runs are listed oldest first and a damaged one is named in the problems", "[runs]") {
    test::TempDir dir("run-record");
    const fs::path runs = dir.path() / "cnn.runs";
    record_in(runs, "2026-11-23T18:50:00", "later");
    record_in(runs, "2026-11-23T18:42:15", "earlier");
    record_in(runs, "2026-11-23T18:42:15", "earlier, second");
    const fs::path damaged = session::create_run_folder(runs, "2026-11-23T19:00:00");
    write_text(damaged / "receipt.json", "{\"format\": \"backprop-studio-run\", ");
    write_text(runs / "notes.txt", "not a run");

    std::vector<std::string> problems;
    const std::vector<session::RunRecord> listed = session::list_runs(runs, &problems);
    REQUIRE(listed.size() == 3);
    CHECK(listed[0].receipt.name == "earlier");
    CHECK(listed[1].receipt.name == "earlier, second");
    CHECK(listed[2].receipt.name == "later");
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].find((damaged / "receipt.json").string()) != std::string::npos);
    CHECK(problems[0].find("damaged JSON") != std::string::npos);

    CHECK(session::list_runs(dir.path() / "missing.runs").empty());
}

TEST_CASE("renaming a run changes only the receipt's name", "[runs]") {
    test::TempDir dir("run-record");
    session::RunRecord record;
    record.folder = session::create_run_folder(dir.path(), "2026-11-23T18:42:15");
    record.receipt = full_receipt();
    record.history = some_history();
    session::write_run(record);
    const std::string history_before = read_text(record.folder / "history.json");
    // A field a later version added survives the rename.
    std::string text = read_text(record.folder / "receipt.json");
    text.insert(text.rfind('}'), ", \"notes\": \"kept\"");
    write_text(record.folder / "receipt.json", text);

    session::rename_run(record.folder, "Adam, \"fast\"");
    const session::RunRecord read = session::read_run(record.folder);
    CHECK(read.receipt.name == "Adam, \"fast\"");
    CHECK(read.receipt.outcome == "finished");
    CHECK(read.receipt.test->accuracy == 0.8125);
    CHECK(read_text(record.folder / "history.json") == history_before);
    CHECK(read_text(record.folder / "receipt.json").find("\"notes\": \"kept\"") != std::string::npos);
}

TEST_CASE("deleting a run removes its folder", "[runs]") {
    test::TempDir dir("run-record");
    const session::RunRecord record = record_in(dir.path(), "2026-11-23T18:42:15", "Run 1");
    write_text(record.folder / "weights.h5", "weights");
    session::delete_run(record.folder);
    CHECK_FALSE(fs::exists(record.folder));
    CHECK(fs::exists(dir.path()));
}

TEST_CASE("a folder without a receipt is not deleted", "[runs]") {
    test::TempDir dir("run-record");
    const fs::path folder = dir.path() / "precious";
    fs::create_directory(folder);
    write_text(folder / "thesis.txt", "keep");
    CHECK_THROWS_WITH(session::delete_run(folder), Catch::Contains("precious") && Catch::Contains("not a run folder"));
    CHECK(fs::exists(folder / "thesis.txt"));
}

TEST_CASE("read errors name the file and say what is wrong", "[runs]") {
    test::TempDir dir("run-record");
    const session::RunRecord record = record_in(dir.path(), "2026-11-23T18:42:15", "Run 1");
    const fs::path receipt = record.folder / "receipt.json";
    const std::string receipt_path = receipt.string();

    SECTION("damaged JSON gives its line and column") {
        write_text(receipt, "{\n  \"format\": \"backprop-studio-run\",\n    \"version\" 1\n}\n");
        CHECK_THROWS_WITH(session::read_run(record.folder),
                          Catch::Contains(receipt_path) && Catch::Contains("damaged JSON at line 3, column"));
    }
    SECTION("a missing receipt") {
        fs::remove(receipt);
        CHECK_THROWS_WITH(session::read_run(record.folder),
                          Catch::Contains(receipt_path) && Catch::Contains("does not exist"));
    }
    SECTION("a file that is not a receipt") {
        write_text(receipt, "{\"name\": \"Run 1\"}");
        CHECK_THROWS_WITH(session::read_run(record.folder),
                          Catch::Contains(receipt_path) && Catch::Contains("not a run receipt (no 'format' field)"));
    }
    SECTION("a newer version is refused") {
        write_text(receipt, "{\"format\": \"backprop-studio-run\", \"version\": 2}");
        CHECK_THROWS_WITH(session::read_run(record.folder),
                          Catch::Contains(receipt_path) && Catch::Contains("newer Backprop Studio (run version 2)"));
    }
    SECTION("a mistyped field is named") {
        write_text(receipt, "{\"format\": \"backprop-studio-run\", \"version\": 1, \"seconds\": \"long\"}");
        CHECK_THROWS_WITH(session::read_run(record.folder),
                          Catch::Contains(receipt_path) && Catch::Contains("'seconds' should be a number"));
    }
    SECTION("a wrong setting is named as in a project file") {
        write_text(receipt,
                   "{\"format\": \"backprop-studio-run\", \"version\": 1, "
                   "\"training\": {\"optimizer\": {\"type\": \"rmsprop\"}}}");
        CHECK_THROWS_WITH(session::read_run(record.folder),
                          Catch::Contains(receipt_path) && Catch::Contains("training.optimizer.type"));
    }
    SECTION("a damaged history point is named") {
        write_text(record.folder / "history.json",
                   "{\"format\": \"backprop-studio-run-history\", \"version\": 1, \"batches\": [[0.1, 2]]}");
        CHECK_THROWS_WITH(session::read_run(record.folder),
                          Catch::Contains((record.folder / "history.json").string()) && Catch::Contains("batches[0]"));
    }
}

TEST_CASE("the history as CSV has a row per point, empty cells for unknown validation and quoted names", "[runs]") {
    session::RunHistory history;
    history.batches = {{0.5, 1.25, 0.5, 0.01, 1234.5}};
    session::EpochPoint plain;
    plain.position = 1;
    plain.train_loss = 1.0 / 3.0;
    plain.train_accuracy = 0.75;
    session::EpochPoint validated = plain;
    validated.position = 2;
    validated.validation_loss = 0.5;
    validated.validation_accuracy = 0.8;
    history.epochs = {plain, validated};

    const std::string csv = session::history_csv("Adam, \"fast\"", history);
    CHECK(csv ==
          "run,kind,epoch,loss,accuracy,learning_rate,images_per_second,validation_loss,validation_accuracy\n"
          "\"Adam, \"\"fast\"\"\",batch,0.5,1.25,0.5,0.01,1234.5,,\n"
          "\"Adam, \"\"fast\"\"\",epoch,1,0.333333333,0.75,,,,\n"
          "\"Adam, \"\"fast\"\"\",epoch,2,0.333333333,0.75,,,0.5,0.8\n");
    CHECK(session::history_csv("Run 1", {}) ==
          "run,kind,epoch,loss,accuracy,learning_rate,images_per_second,validation_loss,validation_accuracy\n");
    CHECK(session::history_csv("Run 1", history).find("\nRun 1,batch,0.5,") != std::string::npos);
}

TEST_CASE("a run folder that cannot be written gives a RunRecordError naming it", "[runs]") {
    test::TempDir dir("run-record");
    const fs::path locked = dir.path() / "locked";
    fs::create_directory(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec, fs::perm_options::replace);
    // Permissions do not bind an administrator: then there is nothing to check.
    bool writable = false;
    {
        std::ofstream probe(locked / "probe");
        writable = static_cast<bool>(probe);
    }
    if (writable) {
        WARN("running with administrator rights: an unwritable folder cannot be made, check skipped");
    } else {
        session::RunRecord record;
        record.folder = locked;
        CHECK_THROWS_AS(session::write_run(record), session::RunRecordError);
        CHECK_THROWS_WITH(session::write_run(record), Catch::Contains((locked / "receipt.json").string()));
        CHECK_THROWS_WITH(session::create_run_folder(locked / "cnn.runs", "2026-11-23T18:42:15"),
                          Catch::Contains("cnn.runs") && Catch::Contains("could not be created"));
    }
    fs::permissions(locked, fs::perms::owner_all, fs::perm_options::replace);
}
