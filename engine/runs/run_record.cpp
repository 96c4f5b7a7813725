// The run folder's files.
//
// receipt.json (pretty, small):
//   {"format": "backprop-studio-run", "version": 1, "name": "Run 3", "started_at": "2026-11-23T18:42:15",
//    "seconds": 73.5, "app_version": "...", "project_name": "cnn",
//    "training": {...}, "dataset": {...},   <- exactly the project file's objects (project_json_read.cpp)
//    "device": "...", "platform": "...", "driver": "...",
//    "train_images": 54000, "validation_images": 6000, "test_images": 10000,
//    "outcome": "finished", "problem": "", "epochs_completed": 5,
//    "train_loss": 0.31, "train_accuracy": 0.89,                  <- left out when unknown
//    "validation": {"loss": 0.35, "accuracy": 0.87, "samples": 6000}, "test": {...},  <- the same
//    "weights_file": "weights.h5"}
//
// history.json (one line: a long run has 100,000 batch points):
//   {"format": "backprop-studio-run-history", "version": 1,
//    "batches": [[position, loss, accuracy, learning_rate, images_per_second], ...],
//    "epochs": [[position, train_loss, train_accuracy, validation_loss, validation_accuracy], ...],
//    "markers": [[position, "text"], ...]}
// In a point, null is a number that was not finite (read back as NaN) and false is an unknown
// optional value; unknown values at the end of an epoch point are left out ([position, loss, acc]).
//
// The training and dataset settings are written by project::project_to_json and read back by
// project::parse_project on a minimal project around them: one writer and one reader of those
// words, so a receipt can never spell an optimizer or a schedule differently from a project file,
// and a receipt's settings are checked exactly as a project's are.
#include "engine/runs/run_record.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "engine/base/bounded_text.h"
#include "engine/base/csv_text.h"
#include "engine/io/json_damage.h"

namespace bps::session {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

constexpr const char* receipt_format = "backprop-studio-run";
constexpr const char* history_format = "backprop-studio-run-history";
constexpr int run_format_version = 1;
constexpr const char* receipt_name = "receipt.json";
constexpr const char* history_name = "history.json";

// ---- numbers -----------------------------------------------------------------------------------

// JSON has no NaN or infinity: a diverged run's loss is stored as null.
ordered_json number(double value) {
    if (!std::isfinite(value)) return nullptr;
    return value;
}

ordered_json optional_number(const std::optional<double>& value) {
    if (!value) return false;
    return number(*value);
}

// ---- files -------------------------------------------------------------------------------------

std::string random_suffix() {
    static thread_local std::mt19937_64 draw{std::random_device{}()};
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(draw()));
    return text;
}

// A temporary file beside `file`, then a rename over it: readers see the old file or the new one,
// never half of one.
void write_atomically(const fs::path& file, const std::string& text) {
    fs::path part = file;
    part += ".tmp-" + random_suffix();
    {
        std::ofstream out(part, std::ios::binary | std::ios::trunc);
        if (!out)
            throw RunRecordError(file,
                                 "could not be written; check that the folder exists and that you may write in it");
        out << text;
        out.close();
        if (!out) {
            std::error_code ignored;
            fs::remove(part, ignored);
            throw RunRecordError(file, "could not be written; check that the disk has space");
        }
    }
    std::error_code error;
    fs::rename(part, file, error);
    if (error) {
        std::error_code ignored;
        fs::remove(part, ignored);
        std::string problem = "could not be replaced (";
        problem += error.message();
        problem += "); the old file is unchanged";
        throw RunRecordError(file, problem);
    }
}

std::string read_text(const fs::path& file) {
    std::error_code error;
    if (!fs::exists(file, error)) throw RunRecordError(file, "the file does not exist");
    // A receipt holds a few numbers per reported batch: megabytes for the longest runs.
    constexpr std::uint64_t max_receipt_bytes = std::uint64_t{256} << 20;
    io::BoundedText read = io::read_bounded_text(file, max_receipt_bytes);
    if (read.outcome == io::TextRead::unreadable)
        throw RunRecordError(file, "could not be read; check that you may read it");
    if (read.outcome == io::TextRead::too_large)
        throw RunRecordError(file, "is larger than " + io::size_cap_words(max_receipt_bytes) +
                                       ", far more than any run receipt; is it the right file?");
    return std::move(read.text);
}

ordered_json parse(const std::string& text, const fs::path& file) {
    try {
        return ordered_json::parse(text);
    } catch (const json::parse_error& error) {
        const io::JsonDamage damage = io::json_damage(text, error);
        std::string problem = "is damaged JSON at line ";
        problem += std::to_string(damage.line);
        problem += ", column ";
        problem += std::to_string(damage.column);
        problem += " (";
        problem += damage.what;
        problem += ")";
        throw RunRecordError(file, problem);
    }
}

void check_format(const ordered_json& document, const fs::path& file, const char* format, const char* what) {
    if (!document.is_object() || !document.contains("format")) {
        std::string problem = "not a ";
        problem += what;
        problem += " (no 'format' field)";
        throw RunRecordError(file, problem);
    }
    if (document["format"] != format) {
        std::string problem = "not a ";
        problem += what;
        problem += " (its format is ";
        problem += document["format"].dump();
        problem += ", not \"";
        problem += format;
        problem += "\")";
        throw RunRecordError(file, problem);
    }
    const auto found = document.find("version");
    if (found == document.end() || !found->is_number_integer())
        throw RunRecordError(file, "has no whole-number 'version'");
    const long long version = found->get<long long>();
    if (version > run_format_version) {
        std::string problem = "was written by a newer Backprop Studio (run version ";
        problem += std::to_string(version);
        problem += "); this version reads version ";
        problem += std::to_string(run_format_version);
        throw RunRecordError(file, problem);
    }
}

// Reading one object's fields; a missing field keeps its default, a mistyped one is named.
class Reader {
public:
    Reader(const fs::path& file, const ordered_json& object, std::string path)
        : file_(file), object_(object), path_(std::move(path)) {}

    [[noreturn]] void fail(const std::string& key, const char* expected) const {
        std::string problem = "'";
        problem += path_;
        problem += key;
        problem += "' should be ";
        problem += expected;
        throw RunRecordError(file_, problem);
    }
    const ordered_json* find(const std::string& key) const {
        const auto found = object_.find(key);
        return found == object_.end() ? nullptr : &*found;
    }
    std::string text(const std::string& key, std::string fallback = {}) const {
        const ordered_json* value = find(key);
        if (!value) return fallback;
        if (!value->is_string()) fail(key, "text");
        return value->get<std::string>();
    }
    // null: a number that was not finite.
    double real(const std::string& key, double fallback = 0) const {
        const ordered_json* value = find(key);
        if (!value) return fallback;
        if (value->is_null()) return std::nan("");
        if (!value->is_number()) fail(key, "a number");
        return value->get<double>();
    }
    std::optional<double> optional_real(const std::string& key) const {
        if (!find(key)) return std::nullopt;
        return real(key);
    }
    long long whole(const std::string& key, long long fallback = 0) const {
        const ordered_json* value = find(key);
        if (!value) return fallback;
        if (!value->is_number_integer() || value->get<long long>() < 0) fail(key, "a whole number, 0 or more");
        return value->get<long long>();
    }
    std::optional<Evaluation> evaluation(const std::string& key) const {
        const ordered_json* value = find(key);
        if (!value) return std::nullopt;
        if (!value->is_object()) fail(key, "an object ({\"loss\": ..., \"accuracy\": ..., \"samples\": ...})");
        const Reader fields(file_, *value, path_ + key + ".");
        Evaluation result;
        result.loss = fields.real("loss");
        result.accuracy = fields.real("accuracy");
        result.samples = static_cast<std::size_t>(fields.whole("samples"));
        return result;
    }

private:
    const fs::path& file_;
    const ordered_json& object_;
    std::string path_;
};

// ---- receipt -----------------------------------------------------------------------------------

// The smallest project the project reader accepts, around the settings.
project::Project settings_project(const RunReceipt& receipt) {
    project::Project project;
    project.name = receipt.project_name;
    model::LayerSpec input;
    input.name = "input";
    input.type = model::LayerType::input;
    project.network.layers.push_back(input);
    project.training = receipt.training;
    project.dataset = receipt.dataset;
    return project;
}

ordered_json evaluation_json(const Evaluation& evaluation) {
    return {
        {"loss", number(evaluation.loss)}, {"accuracy", number(evaluation.accuracy)}, {"samples", evaluation.samples}};
}

std::string receipt_json(const RunReceipt& receipt) {
    const ordered_json project = ordered_json::parse(project::project_to_json(settings_project(receipt)));
    ordered_json out = {{"format", receipt_format},
                        {"version", run_format_version},
                        {"name", receipt.name},
                        {"started_at", receipt.started_at},
                        {"seconds", number(receipt.seconds)},
                        {"app_version", receipt.app_version},
                        {"project_name", receipt.project_name},
                        {"training", project["training"]},
                        {"dataset", project["dataset"]},
                        {"device", receipt.device},
                        {"platform", receipt.platform},
                        {"driver", receipt.driver},
                        {"train_images", receipt.train_images},
                        {"validation_images", receipt.validation_images},
                        {"test_images", receipt.test_images},
                        {"outcome", receipt.outcome},
                        {"problem", receipt.problem},
                        {"epochs_completed", receipt.epochs_completed}};
    if (receipt.train_loss) out["train_loss"] = number(*receipt.train_loss);
    if (receipt.train_accuracy) out["train_accuracy"] = number(*receipt.train_accuracy);
    if (receipt.validation) out["validation"] = evaluation_json(*receipt.validation);
    if (receipt.test) out["test"] = evaluation_json(*receipt.test);
    out["weights_file"] = receipt.weights_file;
    return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void read_settings(const ordered_json& document, const fs::path& file, RunReceipt& receipt) {
    ordered_json project = {{"format", "backprop-studio-project"},
                            {"version", project::project_format_version},
                            {"name", receipt.project_name},
                            {"network", {{"nodes", ordered_json::array({{{"name", "input"}, {"type", "Input"}}})}}}};
    for (const char* key : {"dataset", "training"})
        if (document.contains(key)) project[key] = document[key];
    try {
        const project::Project settings = project::parse_project(project.dump(), "");
        receipt.training = settings.training;
        receipt.dataset = settings.dataset;
    } catch (const project::ProjectError& error) {
        // what() is ": problem" for the empty source; the receipt is the file to name.
        std::string problem = error.what();
        if (problem.rfind(": ", 0) == 0) problem.erase(0, 2);
        throw RunRecordError(file, problem);
    }
}

RunReceipt read_receipt(const fs::path& file) {
    const ordered_json document = parse(read_text(file), file);
    check_format(document, file, receipt_format, "run receipt");
    const Reader top(file, document, "");
    RunReceipt receipt;
    receipt.name = top.text("name");
    receipt.started_at = top.text("started_at");
    receipt.seconds = top.real("seconds");
    receipt.app_version = top.text("app_version");
    receipt.project_name = top.text("project_name");
    read_settings(document, file, receipt);
    receipt.device = top.text("device");
    receipt.platform = top.text("platform");
    receipt.driver = top.text("driver");
    receipt.train_images = static_cast<std::size_t>(top.whole("train_images"));
    receipt.validation_images = static_cast<std::size_t>(top.whole("validation_images"));
    receipt.test_images = static_cast<std::size_t>(top.whole("test_images"));
    receipt.outcome = top.text("outcome");
    receipt.problem = top.text("problem");
    receipt.epochs_completed = static_cast<int>(top.whole("epochs_completed"));
    receipt.train_loss = top.optional_real("train_loss");
    receipt.train_accuracy = top.optional_real("train_accuracy");
    receipt.validation = top.evaluation("validation");
    receipt.test = top.evaluation("test");
    receipt.weights_file = top.text("weights_file");
    return receipt;
}

// ---- history -----------------------------------------------------------------------------------

std::string history_json(const RunHistory& history) {
    ordered_json batches = ordered_json::array();
    for (const BatchPoint& point : history.batches)
        batches.push_back({number(point.position), number(point.loss), number(point.accuracy),
                           number(point.learning_rate), number(point.images_per_second)});
    ordered_json epochs = ordered_json::array();
    for (const EpochPoint& point : history.epochs) {
        ordered_json row = {number(point.position), number(point.train_loss), number(point.train_accuracy)};
        if (point.validation_loss || point.validation_accuracy) {
            row.push_back(optional_number(point.validation_loss));
            row.push_back(optional_number(point.validation_accuracy));
        }
        epochs.push_back(std::move(row));
    }
    ordered_json markers = ordered_json::array();
    for (const RunMarker& marker : history.markers) markers.push_back({number(marker.position), marker.text});
    const ordered_json out = {{"format", history_format},
                              {"version", run_format_version},
                              {"batches", std::move(batches)},
                              {"epochs", std::move(epochs)},
                              {"markers", std::move(markers)}};
    return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// One point: an array of at least `least` and at most `most` values.
class Point {
public:
    Point(const fs::path& file, const ordered_json& row, std::string where, std::size_t least, std::size_t most)
        : file_(file), row_(row), where_(std::move(where)) {
        if (!row.is_array() || row.size() < least || row.size() > most) {
            std::string problem = where_;
            problem += " should be a list of ";
            problem += std::to_string(least);
            if (most != least) {
                problem += " to ";
                problem += std::to_string(most);
            }
            problem += " values";
            throw RunRecordError(file_, problem);
        }
    }
    double real(std::size_t index) const {
        const ordered_json& value = row_[index];
        if (value.is_null()) return std::nan("");
        if (!value.is_number()) fail(index, "a number or null");
        return value.get<double>();
    }
    std::optional<double> optional_real(std::size_t index) const {
        if (index >= row_.size() || row_[index].is_boolean()) return std::nullopt;
        return real(index);
    }
    std::string text(std::size_t index) const {
        if (!row_[index].is_string()) fail(index, "text");
        return row_[index].get<std::string>();
    }

private:
    [[noreturn]] void fail(std::size_t index, const char* expected) const {
        std::string problem = where_;
        problem += "[";
        problem += std::to_string(index);
        problem += "] should be ";
        problem += expected;
        throw RunRecordError(file_, problem);
    }
    const fs::path& file_;
    const ordered_json& row_;
    std::string where_;
};

const ordered_json& list(const ordered_json& document, const char* key, const fs::path& file) {
    static const ordered_json empty = ordered_json::array();
    const auto found = document.find(key);
    if (found == document.end()) return empty;
    if (!found->is_array()) {
        std::string problem = "'";
        problem += key;
        problem += "' should be a list";
        throw RunRecordError(file, problem);
    }
    return *found;
}

std::string where(const char* key, std::size_t index) {
    std::string text = key;
    text += "[";
    text += std::to_string(index);
    text += "]";
    return text;
}

RunHistory read_history(const fs::path& file) {
    const ordered_json document = parse(read_text(file), file);
    check_format(document, file, history_format, "run history");
    RunHistory history;
    const ordered_json& batches = list(document, "batches", file);
    history.batches.reserve(batches.size());
    for (std::size_t i = 0; i < batches.size(); ++i) {
        const Point point(file, batches[i], where("batches", i), 5, 5);
        history.batches.push_back({point.real(0), point.real(1), point.real(2), point.real(3), point.real(4)});
    }
    const ordered_json& epochs = list(document, "epochs", file);
    for (std::size_t i = 0; i < epochs.size(); ++i) {
        const Point point(file, epochs[i], where("epochs", i), 3, 5);
        EpochPoint epoch;
        epoch.position = point.real(0);
        epoch.train_loss = point.real(1);
        epoch.train_accuracy = point.real(2);
        epoch.validation_loss = point.optional_real(3);
        epoch.validation_accuracy = point.optional_real(4);
        history.epochs.push_back(epoch);
    }
    const ordered_json& markers = list(document, "markers", file);
    for (std::size_t i = 0; i < markers.size(); ++i) {
        const Point point(file, markers[i], where("markers", i), 2, 2);
        history.markers.push_back({point.real(0), point.text(1)});
    }
    return history;
}

// ---- CSV ---------------------------------------------------------------------------------------

void append_number(std::string& out, double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", value);
    out += text;
}

void append_optional(std::string& out, const std::optional<double>& value) {
    if (value) append_number(out, *value);
}

// Characters that Windows, macOS or Linux refuse in a folder name.
std::string folder_name_for(const std::string& started_at) {
    std::string name;
    for (char c : started_at) {
        if (c == 'T')
            name += '_';
        else if (c == ':' || c == '/' || c == '\\' || c == '<' || c == '>' || c == '"' || c == '|' || c == '?' ||
                 c == '*' || static_cast<unsigned char>(c) < 0x20)
            name += '-';
        else
            name += c;
    }
    while (!name.empty() && (name.back() == '.' || name.back() == ' ')) name.pop_back();
    return name.empty() ? std::string("run") : name;
}

}  // namespace

RunRecordError::RunRecordError(const std::filesystem::path& file, const std::string& problem)
    : std::runtime_error(file.string() + ": " + problem), file_(file) {}

std::filesystem::path RunRecord::weights() const {
    if (receipt.weights_file.empty()) return {};
    return folder / receipt.weights_file;
}

std::filesystem::path runs_folder_for(const std::filesystem::path& project_file) {
    fs::path folder = project_file.parent_path();
    fs::path name = project_file.stem();
    name += ".runs";
    return folder / name;
}

std::filesystem::path create_run_folder(const std::filesystem::path& runs_folder, const std::string& started_at) {
    std::error_code error;
    fs::create_directories(runs_folder, error);
    if (error || !fs::is_directory(runs_folder)) {
        std::string problem = "could not be created (";
        problem += error ? error.message() : std::string("a file of that name is in the way");
        problem += ")";
        throw RunRecordError(runs_folder, problem);
    }
    const std::string base = folder_name_for(started_at);
    for (int attempt = 1; attempt < 10000; ++attempt) {
        std::string name = base;
        if (attempt > 1) {
            name += "-";
            name += std::to_string(attempt);
        }
        const fs::path folder = runs_folder / name;
        // create_directory is false (without an error) when the name is taken: try the next one.
        if (fs::create_directory(folder, error)) return folder;
        if (error) {
            std::string problem = "could not be created (";
            problem += error.message();
            problem += ")";
            throw RunRecordError(folder, problem);
        }
    }
    throw RunRecordError(runs_folder / base, "could not be created: every numbered name is taken");
}

void write_run(const RunRecord& record) {
    write_atomically(record.folder / receipt_name, receipt_json(record.receipt));
    write_atomically(record.folder / history_name, history_json(record.history));
}

RunRecord read_run(const std::filesystem::path& folder) {
    RunRecord record;
    record.folder = folder;
    record.receipt = read_receipt(folder / receipt_name);
    record.history = read_history(folder / history_name);
    return record;
}

std::vector<RunRecord> list_runs(const std::filesystem::path& runs_folder, std::vector<std::string>* problems) {
    std::vector<RunRecord> runs;
    std::error_code error;
    if (!fs::exists(runs_folder, error)) return runs;
    fs::directory_iterator entries(runs_folder, error);
    if (error) {
        if (problems) {
            std::string problem = runs_folder.string();
            problem += ": could not be read (";
            problem += error.message();
            problem += ")";
            problems->push_back(problem);
        }
        return runs;
    }
    for (const fs::directory_entry& entry : entries) {
        std::error_code ignored;
        if (!entry.is_directory(ignored)) continue;  // stray files (a temporary left by a crash) are not runs
        try {
            runs.push_back(read_run(entry.path()));
        } catch (const RunRecordError& damaged) {
            if (problems) problems->push_back(damaged.what());
        }
    }
    std::sort(runs.begin(), runs.end(), [](const RunRecord& a, const RunRecord& b) {
        if (a.receipt.started_at != b.receipt.started_at) return a.receipt.started_at < b.receipt.started_at;
        return a.id() < b.id();
    });
    return runs;
}

void rename_run(const std::filesystem::path& folder, const std::string& name) {
    // Edit the document as read, so fields this version does not know survive.
    const fs::path file = folder / receipt_name;
    ordered_json document = parse(read_text(file), file);
    check_format(document, file, receipt_format, "run receipt");
    document["name"] = name;
    write_atomically(file, document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

void delete_run(const std::filesystem::path& folder) {
    std::error_code error;
    // remove_all on a wrong path would be a disaster: only a folder holding a receipt is a run.
    if (!fs::is_directory(folder, error) || !fs::exists(folder / receipt_name, error))
        throw RunRecordError(folder, "is not a run folder (it has no receipt.json); nothing was deleted");
    fs::remove_all(folder, error);
    if (error) {
        std::string problem = "could not be deleted (";
        problem += error.message();
        problem += ")";
        throw RunRecordError(folder, problem);
    }
}

std::string history_csv(const std::string& run_name, const RunHistory& history) {
    const std::string run = csv_field(run_name);
    std::string out =
        "run,kind,epoch,loss,accuracy,learning_rate,images_per_second,validation_loss,validation_accuracy\n";
    for (const BatchPoint& point : history.batches) {
        out += run;
        out += ",batch,";
        append_number(out, point.position);
        out += ',';
        append_number(out, point.loss);
        out += ',';
        append_number(out, point.accuracy);
        out += ',';
        append_number(out, point.learning_rate);
        out += ',';
        append_number(out, point.images_per_second);
        out += ",,\n";
    }
    for (const EpochPoint& point : history.epochs) {
        out += run;
        out += ",epoch,";
        append_number(out, point.position);
        out += ',';
        append_number(out, point.train_loss);
        out += ',';
        append_number(out, point.train_accuracy);
        out += ",,,";
        append_optional(out, point.validation_loss);
        out += ',';
        append_optional(out, point.validation_accuracy);
        out += '\n';
    }
    return out;
}

}  // namespace bps::session
