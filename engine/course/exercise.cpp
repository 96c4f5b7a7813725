// Reading exercise.json strictly: a teacher's mistake is found when the exercise is read, named
// with its step and check, never later as a check that silently passes or a hint that points
// nowhere. Fields this version does not know are ignored (a newer minor addition still opens);
// values it does not know (a kind, a type, a level, a setting) are refused, because acting on
// them wrongly would mislead the learner.
#include "engine/course/exercise.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "engine/base/bounded_text.h"
#include "engine/io/input_file.h"
#include "engine/io/json_damage.h"
#include "engine/model/network_spec.h"

namespace bps::course {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* exercise_format_tag = "backprop-studio-exercise";
constexpr const char* exercise_file_name = "exercise.json";
// Far more than any exercise (a few KiB); a wrong path (a dataset, /dev/zero) is refused early.
constexpr std::uint64_t max_exercise_bytes = std::uint64_t{1} << 20;

// ---- vocabularies ------------------------------------------------------------------------------

const std::vector<std::string>& kind_types(CheckKind kind) {
    static const std::vector<std::string> structure{"has_layers",           "lacks_layers",    "layer_order",
                                                    "layer_count",          "output_width",    "max_parameters",
                                                    "max_layer_parameters", "training_setting"};
    static const std::vector<std::string> sanity{"first_loss", "overfit_subset"};
    static const std::vector<std::string> outcome{"validation_accuracy", "exported_script"};
    static const std::vector<std::string> interpretation{"most_confused_pair", "least_accurate_class", "pick_run"};
    switch (kind) {
        case CheckKind::structure:
            return structure;
        case CheckKind::sanity:
            return sanity;
        case CheckKind::outcome:
            return outcome;
        case CheckKind::interpretation:
            return interpretation;
    }
    return structure;
}

const std::vector<std::string> check_settings{"learning_rate",       "epochs",      "batch_size",      "optimizer",
                                              "validation_fraction", "random_crop", "horizontal_flip", "momentum"};
const std::vector<std::string> word_settings{"optimizer", "random_crop", "horizontal_flip"};
const std::vector<std::string> pick_criteria{"overfits", "diverged", "fastest", "best_validation"};
const std::vector<std::string> dock_places{"palette", "inspector", "train", "problems", "summary"};
const std::vector<std::string> tab_places{"network", "training", "results", "try_it", "devices", "compare", "datasets"};
const std::vector<std::string> control_places{"learning_rate", "epochs",       "batch_size", "validation_fraction",
                                              "optimizer",     "augmentation", "seed"};

const std::vector<std::string>& layer_type_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> all;
        for (int type = static_cast<int>(model::LayerType::input); type <= static_cast<int>(model::LayerType::concat);
             ++type)
            all.emplace_back(model::layer_type_name(static_cast<model::LayerType>(type)));
        return all;
    }();
    return names;
}

bool known(const std::vector<std::string>& words, const std::string& word) {
    return std::find(words.begin(), words.end(), word) != words.end();
}

// "a, b and c" reads as a list in a message; "a, b, c" keeps the vocabulary easy to copy.
std::string listed(const std::vector<std::string>& words) {
    std::string text;
    for (const std::string& word : words) {
        if (!text.empty()) text += ", ";
        text += word;
    }
    return text;
}

std::string joined_with_bars(const std::vector<std::string>& words) {
    std::string text;
    for (const std::string& word : words) {
        if (!text.empty()) text += '|';
        text += word;
    }
    return text;
}

// A value as it stands in the file, short enough for a message.
std::string shown(const json& value) {
    std::string text = value.dump();
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return text;
}

// 4 rather than 4.0: numbers as a teacher wrote them.
std::string number_text(double value) {
    if (std::abs(value) < 1e15 && value == std::floor(value)) return std::to_string(static_cast<long long>(value));
    return json(value).dump();
}

std::string quoted(const std::string& name) {
    std::string text = "\"";
    text += name;
    text += '"';
    return text;
}

// ---- reading fields ----------------------------------------------------------------------------

// The fields of one JSON object; every problem is an ExerciseError for `file` starting with
// `where` ("step 'build', check 2: "), so a teacher knows which entry to fix.
class Fields {
public:
    Fields(const fs::path& file, const json& object, std::string where)
        : file_(file), object_(object), where_(std::move(where)) {}

    [[noreturn]] void fail(const std::string& problem) const { throw ExerciseError(file_, where_ + problem); }

    bool has(const char* name) const { return object_.contains(name) && !object_[name].is_null(); }

    void require(const char* name, const std::string& why) const {
        if (!has(name)) fail(quoted(name) + " is missing; " + why);
    }

    std::string text(const char* name, const std::string& fallback = "") const {
        if (!has(name)) return fallback;
        const json& value = object_[name];
        if (!value.is_string()) fail(quoted(name) + " must be text, not " + shown(value));
        return value.get<std::string>();
    }

    // Required text, never empty.
    std::string required_text(const char* name, const std::string& why) const {
        require(name, why);
        std::string value = text(name);
        if (value.empty()) fail(quoted(name) + " is empty; " + why);
        return value;
    }

    std::optional<double> number(const char* name) const {
        if (!has(name)) return std::nullopt;
        const json& value = object_[name];
        if (!value.is_number()) fail(quoted(name) + " must be a number, not " + shown(value));
        return value.get<double>();
    }

    std::optional<long long> whole(const char* name, long long least, long long most) const {
        if (!has(name)) return std::nullopt;
        const json& value = object_[name];
        long long number = 0;
        if (value.is_number_unsigned())
            number = static_cast<long long>(
                std::min<std::uint64_t>(value.get<std::uint64_t>(), std::numeric_limits<long long>::max()));
        else if (value.is_number_integer())
            number = value.get<long long>();
        else if (value.is_number_float() && std::abs(value.get<double>()) < 1e15 &&
                 value.get<double>() == std::floor(value.get<double>()))
            number = static_cast<long long>(value.get<double>());  // 10.0 is a whole number too
        else
            fail(quoted(name) + " must be a whole number, not " + shown(value));
        if (number < least || number > most)
            fail(quoted(name) + " is " + std::to_string(number) + "; it must be from " + std::to_string(least) +
                 " to " + std::to_string(most));
        return number;
    }

    bool boolean(const char* name, bool fallback) const {
        if (!has(name)) return fallback;
        const json& value = object_[name];
        if (!value.is_boolean()) fail(quoted(name) + " must be true or false, not " + shown(value));
        return value.get<bool>();
    }

    std::vector<std::string> texts(const char* name) const {
        std::vector<std::string> values;
        if (!has(name)) return values;
        const json& list = object_[name];
        if (!list.is_array()) fail(quoted(name) + " must be a list of text, such as [\"a\", \"b\"]");
        for (const json& item : list) {
            if (!item.is_string()) fail(quoted(name) + " must hold only text, not " + shown(item));
            values.push_back(item.get<std::string>());
        }
        return values;
    }

    // A list of objects (steps, checks, hints); absent is empty.
    const json* objects(const char* name) const {
        if (!has(name)) return nullptr;
        const json& list = object_[name];
        if (!list.is_array()) fail(quoted(name) + " must be a list");
        for (const json& item : list)
            if (!item.is_object()) fail(quoted(name) + " must hold only objects ({...}), not " + shown(item));
        return &list;
    }

private:
    const fs::path& file_;
    const json& object_;
    std::string where_;
};

// ---- checks ------------------------------------------------------------------------------------

CheckKind read_kind(const Fields& fields) {
    const std::string name = fields.required_text("kind", "the kinds are structure, sanity, outcome, interpretation");
    for (const CheckKind kind :
         {CheckKind::structure, CheckKind::sanity, CheckKind::outcome, CheckKind::interpretation})
        if (name == check_kind_name(kind)) return kind;
    fields.fail("kind '" + name + "' is unknown; the kinds are structure, sanity, outcome, interpretation");
}

void read_layer_list(const Fields& fields, Check& check) {
    if (!fields.has("layers"))
        fields.fail(check.type + " needs \"layers\", a list of layer types such as [\"Dense\", \"Dense\"]");
    check.layers = fields.texts("layers");
    if (check.layers.empty())
        fields.fail(check.type + " needs \"layers\" to name at least one layer type, such as [\"Dense\"]");
    for (const std::string& layer : check.layers)
        if (!known(layer_type_names(), layer))
            fields.fail("\"layers\" names '" + layer + "', which is not a layer type; the types are " +
                        listed(layer_type_names()));
}

void read_layer_type(const Fields& fields, Check& check) {
    if (!fields.has("layer_type")) fields.fail(check.type + " needs \"layer_type\", a layer type such as \"Conv2D\"");
    check.layer_type = fields.text("layer_type");
    if (!known(layer_type_names(), check.layer_type))
        fields.fail("\"layer_type\" '" + check.layer_type + "' is not a layer type; the types are " +
                    listed(layer_type_names()));
}

void read_value(const Fields& fields, Check& check, const std::string& what) {
    check.value = fields.number("value");
    if (!check.value) fields.fail(check.type + " needs \"value\", " + what);
    if (*check.value <= 0) fields.fail("\"value\" must be more than 0, not " + number_text(*check.value));
}

void read_bounds(const Fields& fields, Check& check) {
    check.min = fields.number("min");
    check.max = fields.number("max");
    if (check.min && check.max && *check.min > *check.max)
        fields.fail("\"min\" (" + number_text(*check.min) + ") is more than \"max\" (" + number_text(*check.max) + ")");
}

// An exact value may be written as text, a number or true/false; the checker compares text.
std::string read_equals(const Fields& fields, const json& object) {
    if (!fields.has("equals")) return "";
    const json& value = object["equals"];
    if (value.is_string()) return value.get<std::string>();
    if (value.is_boolean() || value.is_number()) return value.dump();
    fields.fail("\"equals\" must be text, a number or true/false, not " + shown(value));
}

int positive_count(const Fields& fields, const char* name, int fallback) {
    const auto value = fields.whole(name, 1, 1'000'000);
    return value ? static_cast<int>(*value) : fallback;
}

void read_type_fields(const Fields& fields, const json& object, Check& check) {
    const std::string& type = check.type;
    if (type == "has_layers" || type == "lacks_layers" || type == "layer_order") {
        read_layer_list(fields, check);
    } else if (type == "layer_count") {
        read_layer_type(fields, check);
        read_bounds(fields, check);
        if (!check.min && !check.max) fields.fail("layer_count needs \"min\" or \"max\" (or both), how many layers");
        if ((check.min && *check.min < 0) || (check.max && *check.max < 0))
            fields.fail("layer_count's \"min\" and \"max\" must be 0 or more");
    } else if (type == "output_width") {
        read_value(fields, check, "the width of the network's output (its units)");
    } else if (type == "max_parameters") {
        read_value(fields, check, "the most parameters the network may have");
    } else if (type == "max_layer_parameters") {
        read_layer_type(fields, check);
        read_value(fields, check, "the most parameters one layer of that type may have");
    } else if (type == "training_setting") {
        if (!fields.has("setting")) fields.fail("training_setting needs \"setting\", one of " + listed(check_settings));
        check.setting = fields.text("setting");
        if (!known(check_settings, check.setting))
            fields.fail("setting '" + check.setting + "' is unknown; the settings are " + listed(check_settings));
        read_bounds(fields, check);
        check.equals = read_equals(fields, object);
        // The optimizer is a name and the augmentations are on or off: no bounds for those.
        if (known(word_settings, check.setting) && (check.min || check.max || !fields.has("equals")))
            fields.fail("setting '" + check.setting + "' takes \"equals\" (" +
                        (check.setting == "optimizer" ? "\"sgd\", \"adam\" or \"adamw\"" : "\"true\" or \"false\"") +
                        "), not \"min\" or \"max\"");
        if (!check.min && !check.max && !fields.has("equals"))
            fields.fail("training_setting needs \"min\", \"max\" or \"equals\", what the setting must be");
    } else if (type == "first_loss") {
        check.value = fields.number("value").value_or(0.3);
        if (*check.value <= 0)
            fields.fail("\"value\" must be more than 0, not " + number_text(*check.value) +
                        "; it is the tolerance around ln(classes)");
    } else if (type == "overfit_subset") {
        check.images = positive_count(fields, "images", 50);
        check.epochs = positive_count(fields, "epochs", 20);
        check.batch_size = positive_count(fields, "batch_size", 10);
    } else if (type == "validation_accuracy") {
        check.value = fields.number("value");
        if (!check.value)
            fields.fail("validation_accuracy needs \"value\", the validation accuracy to reach as a fraction (0.85)");
        if (*check.value <= 0 || *check.value > 1)
            fields.fail("\"value\" is " + number_text(*check.value) +
                        "; validation_accuracy takes a fraction above 0 and at most 1, such as 0.85 for 85%");
        if (!fields.has("epochs"))
            fields.fail("validation_accuracy needs \"epochs\", the most epochs the run may take");
        check.epochs = positive_count(fields, "epochs", 1);
    } else if (type == "pick_run") {
        if (!fields.has("criterion")) fields.fail("pick_run needs \"criterion\", one of " + listed(pick_criteria));
        check.criterion = fields.text("criterion");
        if (!known(pick_criteria, check.criterion))
            fields.fail("criterion '" + check.criterion + "' is unknown; the criteria are " + listed(pick_criteria));
    }
    // exported_script, most_confused_pair and least_accurate_class need nothing more.
}

// "a structure", "an outcome": the kind as a message says it.
std::string a_kind(CheckKind kind) {
    const std::string name = check_kind_name(kind);
    return (name[0] == 'o' || name[0] == 'i' ? "an " : "a ") + name;
}

Check read_check(const fs::path& file, const json& object, const std::string& where) {
    const Fields fields(file, object, where);
    Check check;
    check.kind = read_kind(fields);
    const auto& types = kind_types(check.kind);
    check.type =
        fields.required_text("type", std::string("the ") + check_kind_name(check.kind) + " types are " + listed(types));
    if (!known(types, check.type))
        fields.fail("type '" + check.type + "' is not " + a_kind(check.kind) + " check; the types are " +
                    listed(types));
    read_type_fields(fields, object, check);
    check.pass = fields.text("pass");
    check.fail = fields.text("fail");
    check.optional = fields.boolean("optional", false);
    return check;
}

// ---- hints -------------------------------------------------------------------------------------

bool known_place(const std::string& point_at) {
    const auto colon = point_at.find(':');
    if (colon == std::string::npos) return false;
    const std::string where = point_at.substr(0, colon);
    const std::string what = point_at.substr(colon + 1);
    if (where == "node") return !what.empty();
    if (where == "dock") return known(dock_places, what);
    if (where == "tab") return known(tab_places, what);
    if (where == "control") return known(control_places, what);
    return false;
}

Hint read_hint(const fs::path& file, const json& object, const std::string& where) {
    const Fields fields(file, object, where);
    Hint hint;
    const std::string level = fields.required_text("level", "the levels are nudge, pointer, near_solution");
    bool found = false;
    for (const HintLevel candidate : {HintLevel::nudge, HintLevel::pointer, HintLevel::near_solution})
        if (level == hint_level_name(candidate)) {
            hint.level = candidate;
            found = true;
        }
    if (!found) fields.fail("level '" + level + "' is unknown; the levels are nudge, pointer, near_solution");
    hint.text = fields.required_text("text", "a hint needs its words");
    hint.point_at = fields.text("point_at");
    if (!hint.point_at.empty() && !known_place(hint.point_at))
        fields.fail("point_at '" + hint.point_at +
                    "' is not a place the studio can point at; use node:NAME, dock:" + joined_with_bars(dock_places) +
                    ", tab:" + joined_with_bars(tab_places) + " or control:" + joined_with_bars(control_places));
    return hint;
}

// ---- steps and the exercise --------------------------------------------------------------------

Step read_step(const fs::path& file, const json& object, int number) {
    const Fields numbered(file, object, "step " + std::to_string(number) + ": ");
    Step step;
    step.id = numbered.required_text("id", "each step needs an id, which --answer STEP=VALUE names");
    const std::string where = "step '" + step.id + "', ";
    const Fields fields(file, object, "step '" + step.id + "': ");
    step.title = fields.required_text("title", "each step needs a title");
    step.text = fields.text("text");
    if (const json* checks = fields.objects("checks")) {
        int index = 0;
        for (const json& check : *checks)
            step.checks.push_back(read_check(file, check, where + "check " + std::to_string(++index) + ": "));
    }
    if (const json* hints = fields.objects("hints")) {
        int index = 0;
        for (const json& hint : *hints)
            step.hints.push_back(read_hint(file, hint, where + "hint " + std::to_string(++index) + ": "));
    }
    return step;
}

const std::string required_words =
    "an exercise needs id, title, track, dataset, goal, minutes, instructions, starter, solution and steps";

// A file the exercise names: relative to its folder, inside it, and there.
fs::path exercise_file(const Fields& fields, const fs::path& folder, const char* name) {
    const std::string given = fields.required_text(name, required_words);
    const fs::path relative = fs::path(given).lexically_normal();
    if (relative.is_absolute() || relative.has_root_name() || relative.has_root_directory() || relative.empty() ||
        *relative.begin() == "..")
        fields.fail(quoted(name) + " names '" + given +
                    "', outside the exercise's folder; name a file beside exercise.json");
    const fs::path full = folder / relative;
    if (io::input_kind(full) != io::InputKind::regular)
        fields.fail(quoted(name) + " names '" + given + "', which is not a file in the exercise's folder");
    return full;
}

// An id is also a folder name and a command-line word: no spaces, no slashes, no "..".
bool plain_id(const std::string& id) {
    return !id.empty() && id.front() != '.' && std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
               c == '.';
    });
}

Exercise parse_exercise(const json& document, const fs::path& folder, const fs::path& file) {
    const std::string not_ours = "is not a Backprop Studio exercise (no \"format\": \"backprop-studio-exercise\")";
    if (!document.is_object() || !document.contains("format") || document["format"] != exercise_format_tag)
        throw ExerciseError(file, not_ours);
    const Fields top(file, document, "");
    if (!top.has("version")) top.fail("has no \"version\"; an exercise file says which version of the format it uses");
    const long long version = *top.whole("version", 1, std::numeric_limits<long long>::max());
    if (version > exercise_format_version)
        top.fail("was written for a newer Backprop Studio (exercise version " + std::to_string(version) +
                 "); this version reads version " + std::to_string(exercise_format_version) +
                 " and older: update Backprop Studio to open it");

    Exercise exercise;
    exercise.folder = folder;
    exercise.id = top.required_text("id", required_words);
    if (!plain_id(exercise.id))
        top.fail("\"id\" '" + exercise.id +
                 "' may hold only letters, digits, '-', '_' and '.', and not start with '.'");
    exercise.title = top.required_text("title", required_words);
    exercise.track = top.required_text("track", required_words);
    exercise.dataset = top.required_text("dataset", required_words);
    exercise.goal = top.required_text("goal", required_words);
    top.require("minutes", required_words);
    exercise.minutes = static_cast<int>(*top.whole("minutes", 1, 10'000));
    exercise.order = static_cast<int>(top.whole("order", -1'000'000, 1'000'000).value_or(0));
    exercise.concepts = top.texts("concepts");
    if (top.has("seed")) {
        const long long seed = *top.whole("seed", 0, std::numeric_limits<long long>::max());
        exercise.seed = static_cast<unsigned long long>(seed);
    }
    exercise.instructions = exercise_file(top, folder, "instructions");
    exercise.starter = exercise_file(top, folder, "starter");
    exercise.solution = exercise_file(top, folder, "solution");

    top.require("steps", required_words);
    const json* steps = top.objects("steps");
    if (steps->empty()) top.fail("\"steps\" is empty; an exercise needs at least one step");
    std::set<std::string> ids;
    int number = 0;
    for (const json& object : *steps) {
        Step step = read_step(file, object, ++number);
        if (!ids.insert(step.id).second) top.fail("two steps are called '" + step.id + "'; each step needs its own id");
        exercise.steps.push_back(std::move(step));
    }
    return exercise;
}

json parse_json(const std::string& text, const fs::path& file) {
    try {
        return json::parse(text);
    } catch (const json::parse_error& error) {
        const io::JsonDamage damage = io::json_damage(text, error);
        throw ExerciseError(file, "is not valid JSON (line " + std::to_string(damage.line) + ", column " +
                                      std::to_string(damage.column) + ": " + damage.what + ")");
    }
}

// ---- the course --------------------------------------------------------------------------------

int track_rank(const std::string& track) {
    static const std::array<const char*, 4> tracks{"fashion-mnist", "mnist", "cifar10", "devices"};
    for (std::size_t i = 0; i < tracks.size(); ++i)
        if (track == tracks[i]) return static_cast<int>(i);
    return static_cast<int>(tracks.size());
}

bool holds_exercise(const fs::path& folder) {
    std::error_code error;
    return fs::is_regular_file(folder / exercise_file_name, error);
}

}  // namespace

const char* check_kind_name(CheckKind kind) {
    switch (kind) {
        case CheckKind::structure:
            return "structure";
        case CheckKind::sanity:
            return "sanity";
        case CheckKind::outcome:
            return "outcome";
        case CheckKind::interpretation:
            return "interpretation";
    }
    return "structure";
}

const char* hint_level_name(HintLevel level) {
    switch (level) {
        case HintLevel::nudge:
            return "nudge";
        case HintLevel::pointer:
            return "pointer";
        case HintLevel::near_solution:
            return "near_solution";
    }
    return "nudge";
}

ExerciseError::ExerciseError(const fs::path& file, const std::string& problem)
    : std::runtime_error(file.string() + ": " + problem), file_(file) {}

Exercise read_exercise(const fs::path& folder) {
    const fs::path file = folder / exercise_file_name;
    const io::InputKind kind = io::input_kind(file);
    if (kind == io::InputKind::missing) throw ExerciseError(file, "the file does not exist");
    if (kind == io::InputKind::folder) throw ExerciseError(file, "is a folder, not an exercise file");
    if (kind == io::InputKind::special) throw ExerciseError(file, io::special_file_problem);
    const io::BoundedText read = io::read_bounded_text(file, max_exercise_bytes);
    if (read.outcome == io::TextRead::unreadable)
        throw ExerciseError(file, "could not be read; check that you may read it");
    if (read.outcome == io::TextRead::too_large)
        throw ExerciseError(file, "is larger than " + io::size_cap_words(max_exercise_bytes) +
                                      ", far more than any exercise file; is it the right file?");
    return parse_exercise(parse_json(read.text, file), folder, file);
}

std::vector<Exercise> read_course(const fs::path& root, std::vector<std::string>* problems) {
    std::vector<Exercise> course;
    std::error_code error;
    if (!fs::is_directory(root, error)) {
        if (problems) problems->push_back(root.string() + ": the course folder does not exist");
        return course;
    }
    std::vector<fs::path> folders;
    for (fs::directory_iterator it(root, error), end; !error && it != end; it.increment(error))
        if (it->is_directory(error) && holds_exercise(it->path())) folders.push_back(it->path());
    std::sort(folders.begin(), folders.end());  // the same problems in the same order every time
    for (const fs::path& folder : folders) {
        try {
            Exercise exercise = read_exercise(folder);
            const auto same = std::find_if(course.begin(), course.end(),
                                           [&](const Exercise& other) { return other.id == exercise.id; });
            if (same != course.end()) {
                if (problems)
                    problems->push_back((folder / exercise_file_name).string() + ": its id '" + exercise.id +
                                        "' is already the id of " + (same->folder / exercise_file_name).string() +
                                        "; each exercise needs its own id");
                continue;
            }
            course.push_back(std::move(exercise));
        } catch (const ExerciseError& problem) {
            if (problems) problems->push_back(problem.what());
        }
    }
    std::sort(course.begin(), course.end(), [](const Exercise& a, const Exercise& b) {
        const int rank_a = track_rank(a.track), rank_b = track_rank(b.track);
        if (rank_a != rank_b) return rank_a < rank_b;
        if (a.track != b.track) return a.track < b.track;
        if (a.order != b.order) return a.order < b.order;
        return a.id < b.id;
    });
    return course;
}

Exercise find_exercise(const fs::path& root, const std::string& id_or_folder) {
    // A folder holding exercise.json (a teacher's own, anywhere), or that file itself.
    const fs::path given(id_or_folder);
    if (holds_exercise(given)) return read_exercise(given);
    if (given.filename() == exercise_file_name && io::input_kind(given) == io::InputKind::regular)
        return read_exercise(given.parent_path().empty() ? fs::path(".") : given.parent_path());
    if (root.empty())
        throw ExerciseError(given,
                            "is not an exercise folder, and no course folder was found to look for it by id "
                            "(set BACKPROP_COURSE_DIR to the course's folder)");
    std::error_code error;
    if (!fs::is_directory(root, error))
        throw ExerciseError(
            root, "the course folder does not exist, so exercise '" + id_or_folder + "' cannot be found in it");
    // The course's folders are named by id: a damaged exercise then says what is wrong with it
    // rather than being called unknown.
    if (plain_id(id_or_folder) && holds_exercise(root / id_or_folder)) {
        Exercise exercise = read_exercise(root / id_or_folder);
        if (exercise.id == id_or_folder) return exercise;
    }
    std::vector<Exercise> course = read_course(root);
    for (Exercise& exercise : course)
        if (exercise.id == id_or_folder) return std::move(exercise);
    std::vector<std::string> ids;
    for (const Exercise& exercise : course) ids.push_back(exercise.id);
    if (ids.empty()) throw ExerciseError(root, "no exercise '" + id_or_folder + "': the course holds no exercises");
    throw ExerciseError(root, "no exercise '" + id_or_folder + "'; the exercises are " + listed(ids));
}

fs::path course_root(const fs::path& program_dir) {
    if (const char* variable = std::getenv("BACKPROP_COURSE_DIR");  // NOLINT(concurrency-mt-unsafe): read-only
        variable && *variable)
        return fs::path(variable);  // as given, so that a wrong one is named in the error, not passed over
    std::error_code error;
    if (!program_dir.empty()) {
        // Linux and Windows packages: bin/ beside share/; the macOS bundle: MacOS/ beside Resources/.
        for (const fs::path& installed :
             {program_dir / ".." / "share" / "backprop-studio" / "course", program_dir / ".." / "Resources" / "course"})
            if (fs::is_directory(installed, error)) return installed.lexically_normal();
    }
#ifdef BACKPROP_SOURCE_COURSE_DIR
    const fs::path source(BACKPROP_SOURCE_COURSE_DIR);
    if (fs::is_directory(source, error)) return source;
#endif
    return {};
}

std::string track_title(const std::string& track) {
    if (track == "fashion-mnist") return "Fashion-MNIST";
    if (track == "mnist") return "MNIST";
    if (track == "cifar10") return "CIFAR-10";
    if (track == "devices") return "Devices and export";
    return track;
}

}  // namespace bps::course
