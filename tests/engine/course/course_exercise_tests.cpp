// Reading exercise.json: a good exercise reads back every field; each kind of damage a teacher
// can make is refused with a whole message naming the file, the step and the check.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/course/exercise.h"
#include "tests/support/files.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using bps::course::CheckKind;
using bps::course::Exercise;
using bps::course::ExerciseError;
using bps::course::HintLevel;
using nlohmann::json;

namespace {

using bps::test::write_text;

// A complete exercise with one check of every kind and three hints.
json good_exercise(const std::string& id = "fm-01-first-mlp") {
    json exercise = json::parse(R"({
      "format": "backprop-studio-exercise", "version": 1,
      "id": "ID", "title": "Your first network",
      "track": "fashion-mnist", "order": 1, "dataset": "fashion-mnist",
      "goal": "Train an MLP above 85% validation accuracy within 5 epochs.",
      "minutes": 10, "concepts": ["Dense layer", "epoch"],
      "instructions": "instructions.md", "starter": "starter.json", "solution": "solution.json",
      "seed": 7, "a_field_from_a_newer_version": {"ignored": true},
      "steps": [
        {"id": "build", "title": "Add a hidden layer", "text": "Drag a **Dense** layer.",
         "checks": [
           {"kind": "structure", "type": "has_layers", "layers": ["Dense", "Dense"],
            "pass": "Depth.", "fail": "Add one."},
           {"kind": "structure", "type": "layer_count", "layer_type": "Conv2D", "min": 1, "max": 3},
           {"kind": "structure", "type": "max_layer_parameters", "layer_type": "Dense", "value": 1000},
           {"kind": "structure", "type": "training_setting", "setting": "optimizer", "equals": "adam"},
           {"kind": "structure", "type": "training_setting", "setting": "horizontal_flip", "equals": true}
         ],
         "hints": [{"level": "nudge", "text": "Look at the palette."},
                   {"level": "pointer", "text": "Here.", "point_at": "node:fc1"},
                   {"level": "near_solution", "text": "Dense 128 then Dense 10.", "point_at": "control:epochs"}]},
        {"id": "train", "title": "Train it",
         "checks": [
           {"kind": "sanity", "type": "first_loss"},
           {"kind": "sanity", "type": "overfit_subset", "images": 20},
           {"kind": "outcome", "type": "validation_accuracy", "value": 0.85, "epochs": 5},
           {"kind": "outcome", "type": "validation_accuracy", "value": 0.9, "epochs": 5, "optional": true},
           {"kind": "interpretation", "type": "pick_run", "criterion": "overfits"}
         ]}
      ]
    })");
    exercise["id"] = id;
    return exercise;
}

// Writes an exercise folder: exercise.json and the three files it names.
fs::path write_exercise(const fs::path& folder, const json& exercise) {
    write_text(folder / "exercise.json", exercise.dump(2));
    write_text(folder / "instructions.md", "# Your first network\n");
    write_text(folder / "starter.json", "{}");
    write_text(folder / "solution.json", "{}");
    return folder;
}

// The message read_exercise gives for `exercise` written into a fresh folder.
std::string problem_with(const json& exercise) {
    bps::test::TempDir dir("course-exercise");
    const fs::path folder = write_exercise(dir.path() / "ex", exercise);
    try {
        bps::course::read_exercise(folder);
    } catch (const ExerciseError& error) {
        const std::string prefix = (folder / "exercise.json").string() + ": ";
        const std::string what = error.what();
        REQUIRE(what.rfind(prefix, 0) == 0);  // every message names the file
        CHECK(error.file() == folder / "exercise.json");
        return what.substr(prefix.size());
    }
    FAIL("read_exercise accepted a damaged exercise");
    return "";
}

// good_exercise with the check at steps[step].checks[check] replaced.
json with_check(const json& check, int step = 0, int index = 1) {
    json exercise = good_exercise();
    exercise["steps"][step]["checks"][index] = check;
    return exercise;
}

// `base` with the fields of `extra` added.
json merged(json base, const json& extra) {
    base.update(extra);
    return base;
}

json with_hint(const json& hint, int index = 0) {
    json exercise = good_exercise();
    exercise["steps"][0]["hints"][index] = hint;
    return exercise;
}

}  // namespace

TEST_CASE("a good exercise reads back every field", "[course-exercise]") {
    bps::test::TempDir dir("course-exercise");
    const fs::path folder = write_exercise(dir.path() / "fm-01", good_exercise());
    const Exercise exercise = bps::course::read_exercise(folder);
    CHECK(exercise.folder == folder);
    CHECK(exercise.id == "fm-01-first-mlp");
    CHECK(exercise.title == "Your first network");
    CHECK(exercise.track == "fashion-mnist");
    CHECK(exercise.order == 1);
    CHECK(exercise.dataset == "fashion-mnist");
    CHECK(exercise.goal == "Train an MLP above 85% validation accuracy within 5 epochs.");
    CHECK(exercise.minutes == 10);
    CHECK(exercise.concepts == std::vector<std::string>{"Dense layer", "epoch"});
    CHECK(exercise.instructions == folder / "instructions.md");
    CHECK(exercise.starter == folder / "starter.json");
    CHECK(exercise.solution == folder / "solution.json");
    CHECK(exercise.seed == 7);
    REQUIRE(exercise.steps.size() == 2);

    const auto& build = exercise.steps[0];
    CHECK(build.id == "build");
    CHECK(build.title == "Add a hidden layer");
    CHECK(build.text == "Drag a **Dense** layer.");
    REQUIRE(build.checks.size() == 5);
    CHECK(build.checks[0].kind == CheckKind::structure);
    CHECK(build.checks[0].type == "has_layers");
    CHECK(build.checks[0].layers == std::vector<std::string>{"Dense", "Dense"});
    CHECK(build.checks[0].pass == "Depth.");
    CHECK(build.checks[0].fail == "Add one.");
    CHECK_FALSE(build.checks[0].optional);
    CHECK(build.checks[1].layer_type == "Conv2D");
    CHECK(build.checks[1].min == 1.0);
    CHECK(build.checks[1].max == 3.0);
    CHECK(build.checks[2].type == "max_layer_parameters");
    CHECK(build.checks[2].layer_type == "Dense");
    CHECK(build.checks[2].value == 1000.0);
    CHECK(build.checks[3].setting == "optimizer");
    CHECK(build.checks[3].equals == "adam");
    CHECK_FALSE(build.checks[3].min.has_value());
    CHECK(build.checks[4].equals == "true");  // true/false and numbers are compared as text
    REQUIRE(build.hints.size() == 3);
    CHECK(build.hints[0].level == HintLevel::nudge);
    CHECK(build.hints[0].text == "Look at the palette.");
    CHECK(build.hints[0].point_at.empty());
    CHECK(build.hints[1].level == HintLevel::pointer);
    CHECK(build.hints[1].point_at == "node:fc1");
    CHECK(build.hints[2].level == HintLevel::near_solution);
    CHECK(build.hints[2].point_at == "control:epochs");

    const auto& train = exercise.steps[1];
    CHECK(train.text.empty());
    CHECK(train.hints.empty());
    REQUIRE(train.checks.size() == 5);
    CHECK(train.checks[0].kind == CheckKind::sanity);
    CHECK(train.checks[0].value == 0.3);  // the default tolerance around ln(classes)
    CHECK(train.checks[1].images == 20);
    CHECK(train.checks[1].epochs == 20);  // defaults
    CHECK(train.checks[1].batch_size == 10);
    CHECK(train.checks[2].kind == CheckKind::outcome);
    CHECK(train.checks[2].value == 0.85);
    CHECK(train.checks[2].epochs == 5);
    CHECK_FALSE(train.checks[2].optional);
    CHECK(train.checks[3].optional);
    CHECK(train.checks[4].kind == CheckKind::interpretation);
    CHECK(train.checks[4].criterion == "overfits");
}

TEST_CASE("an exercise's optional fields take their defaults", "[course-exercise]") {
    json exercise = good_exercise();
    for (const char* name : {"order", "seed", "concepts"}) exercise.erase(name);
    bps::test::TempDir dir("course-exercise");
    const Exercise read = bps::course::read_exercise(write_exercise(dir.path() / "ex", exercise));
    CHECK(read.order == 0);
    CHECK(read.seed == 42);
    CHECK(read.concepts.empty());
}

TEST_CASE("the names of kinds, levels and tracks", "[course-exercise]") {
    CHECK(std::string(bps::course::check_kind_name(CheckKind::structure)) == "structure");
    CHECK(std::string(bps::course::check_kind_name(CheckKind::sanity)) == "sanity");
    CHECK(std::string(bps::course::check_kind_name(CheckKind::outcome)) == "outcome");
    CHECK(std::string(bps::course::check_kind_name(CheckKind::interpretation)) == "interpretation");
    CHECK(std::string(bps::course::hint_level_name(HintLevel::nudge)) == "nudge");
    CHECK(std::string(bps::course::hint_level_name(HintLevel::pointer)) == "pointer");
    CHECK(std::string(bps::course::hint_level_name(HintLevel::near_solution)) == "near_solution");
    CHECK(bps::course::track_title("fashion-mnist") == "Fashion-MNIST");
    CHECK(bps::course::track_title("mnist") == "MNIST");
    CHECK(bps::course::track_title("cifar10") == "CIFAR-10");
    CHECK(bps::course::track_title("devices") == "Devices and export");
    CHECK(bps::course::track_title("my-class") == "my-class");
}

TEST_CASE("an exercise file that is not an exercise of this version is refused by name", "[course-exercise]") {
    bps::test::TempDir dir("course-exercise");
    const fs::path folder = dir.path() / "ex";
    write_exercise(folder, good_exercise());
    write_text(folder / "exercise.json", "{\n  \"format\": \"backprop-studio-exercise\",\n}");
    CHECK_THROWS_WITH(bps::course::read_exercise(folder),
                      (folder / "exercise.json").string() +
                          ": is not valid JSON (line 3, column 1: unexpected '}'; expected string literal)");

    CHECK_THROWS_WITH(bps::course::read_exercise(dir.path() / "nothing"),
                      (dir.path() / "nothing" / "exercise.json").string() + ": the file does not exist");

    json other = good_exercise();
    other["format"] = "backprop-studio-project";
    CHECK(problem_with(other) == "is not a Backprop Studio exercise (no \"format\": \"backprop-studio-exercise\")");

    json newer = good_exercise();
    newer["version"] = 2;
    CHECK(problem_with(newer) ==
          "was written for a newer Backprop Studio (exercise version 2); this version reads "
          "version 1 and older: update Backprop Studio to open it");

    json unversioned = good_exercise();
    unversioned.erase("version");
    CHECK(problem_with(unversioned) == "has no \"version\"; an exercise file says which version of the format it uses");
}

TEST_CASE("an exercise missing a field or with a field of the wrong kind is refused", "[course-exercise]") {
    const std::string needs =
        "an exercise needs id, title, track, dataset, goal, minutes, instructions, starter, solution and steps";
    for (const char* name :
         {"id", "title", "track", "dataset", "goal", "minutes", "instructions", "starter", "solution", "steps"}) {
        json exercise = good_exercise();
        exercise.erase(name);
        std::string expected = "\"";  // built with +=: GCC 12 warns wrongly on "text" + std::string
        expected += name;
        expected += "\" is missing; ";
        expected += needs;
        CHECK(problem_with(exercise) == expected);
    }
    json empty_goal = good_exercise();
    empty_goal["goal"] = "";
    CHECK(problem_with(empty_goal) == "\"goal\" is empty; " + needs);

    json wordy = good_exercise();
    wordy["minutes"] = "ten";
    CHECK(problem_with(wordy) == "\"minutes\" must be a whole number, not \"ten\"");

    json spaced = good_exercise();
    spaced["id"] = "my exercise";
    CHECK(problem_with(spaced) ==
          "\"id\" 'my exercise' may hold only letters, digits, '-', '_' and '.', and not start with '.'");

    json no_steps = good_exercise();
    no_steps["steps"] = json::array();
    CHECK(problem_with(no_steps) == "\"steps\" is empty; an exercise needs at least one step");

    json untitled = good_exercise();
    untitled["steps"][1].erase("title");
    CHECK(problem_with(untitled) == "step 'train': \"title\" is missing; each step needs a title");

    json anonymous = good_exercise();
    anonymous["steps"][1].erase("id");
    CHECK(problem_with(anonymous) ==
          "step 2: \"id\" is missing; each step needs an id, which --answer STEP=VALUE names");

    json twice = good_exercise();
    twice["steps"][1]["id"] = "build";
    CHECK(problem_with(twice) == "two steps are called 'build'; each step needs its own id");
}

TEST_CASE("a check of an unknown kind or type is refused with the ones there are", "[course-exercise]") {
    CHECK(
        problem_with(with_check({{"kind", "structur"}, {"type", "has_layers"}})) ==
        "step 'build', check 2: kind 'structur' is unknown; the kinds are structure, sanity, outcome, interpretation");
    CHECK(
        problem_with(with_check({{"kind", "structure"}, {"type", "has_layer"}, {"layers", json::array({"Dense"})}})) ==
        "step 'build', check 2: type 'has_layer' is not a structure check; the types are has_layers, lacks_layers, "
        "layer_order, layer_count, output_width, max_parameters, max_layer_parameters, training_setting");
    // A real type under the wrong kind.
    CHECK(problem_with(with_check({{"kind", "outcome"}, {"type", "first_loss"}}, 1, 0)) ==
          "step 'train', check 1: type 'first_loss' is not an outcome check; the types are validation_accuracy, "
          "exported_script");
    CHECK(problem_with(with_check({{"kind", "sanity"}})) ==
          "step 'build', check 2: \"type\" is missing; the sanity types are first_loss, overfit_subset");
}

TEST_CASE("a check missing a field its type needs is refused", "[course-exercise]") {
    const auto check = [](const json& fields) { return problem_with(with_check(fields)); };
    const json structure{{"kind", "structure"}};
    CHECK(check(merged(structure, {{"type", "has_layers"}})) ==
          "step 'build', check 2: has_layers needs \"layers\", a list of layer types such as [\"Dense\", \"Dense\"]");
    CHECK(check(merged(structure, {{"type", "layer_order"}, {"layers", json::array()}})) ==
          "step 'build', check 2: layer_order needs \"layers\" to name at least one layer type, such as [\"Dense\"]");
    CHECK(check(merged(structure, {{"type", "lacks_layers"}, {"layers", json::array({"Dens"})}})) ==
          "step 'build', check 2: \"layers\" names 'Dens', which is not a layer type; the types are Input, Dense, "
          "Conv2D, MaxPool2D, AvgPool2D, GlobalAveragePooling2D, Flatten, Activation, Dropout, BatchNormalization, "
          "Add, Concatenate");
    CHECK(check(merged(structure, {{"type", "layer_count"}, {"min", 1}})) ==
          "step 'build', check 2: layer_count needs \"layer_type\", a layer type such as \"Conv2D\"");
    CHECK(check(merged(structure, {{"type", "layer_count"}, {"layer_type", "Conv2D"}})) ==
          "step 'build', check 2: layer_count needs \"min\" or \"max\" (or both), how many layers");
    CHECK(check(merged(structure, {{"type", "layer_count"}, {"layer_type", "Conv2D"}, {"min", 4}, {"max", 2}})) ==
          "step 'build', check 2: \"min\" (4) is more than \"max\" (2)");
    CHECK(check(merged(structure, {{"type", "output_width"}})) ==
          "step 'build', check 2: output_width needs \"value\", the width of the network's output (its units)");
    CHECK(check(merged(structure, {{"type", "max_parameters"}, {"value", "many"}})) ==
          "step 'build', check 2: \"value\" must be a number, not \"many\"");
    CHECK(check(merged(structure, {{"type", "max_layer_parameters"}, {"layer_type", "Dense"}})) ==
          "step 'build', check 2: max_layer_parameters needs \"value\", the most parameters one layer of that type "
          "may have");
    CHECK(check(merged(structure, {{"type", "training_setting"}, {"min", 1}})) ==
          "step 'build', check 2: training_setting needs \"setting\", one of learning_rate, epochs, batch_size, "
          "optimizer, validation_fraction, random_crop, horizontal_flip, momentum");
    CHECK(check(merged(structure, {{"type", "training_setting"}, {"setting", "lr"}, {"max", 1}})) ==
          "step 'build', check 2: setting 'lr' is unknown; the settings are learning_rate, epochs, batch_size, "
          "optimizer, validation_fraction, random_crop, horizontal_flip, momentum");
    CHECK(check(merged(structure, {{"type", "training_setting"}, {"setting", "optimizer"}, {"max", 1}})) ==
          "step 'build', check 2: setting 'optimizer' takes \"equals\" (\"sgd\", \"adam\" or \"adamw\"), not \"min\" "
          "or \"max\"");
    CHECK(check(merged(structure, {{"type", "training_setting"}, {"setting", "random_crop"}})) ==
          "step 'build', check 2: setting 'random_crop' takes \"equals\" (\"true\" or \"false\"), not \"min\" or "
          "\"max\"");
    CHECK(check(merged(structure, {{"type", "training_setting"}, {"setting", "epochs"}})) ==
          "step 'build', check 2: training_setting needs \"min\", \"max\" or \"equals\", what the setting must be");

    const json outcome{{"kind", "outcome"}, {"type", "validation_accuracy"}};
    CHECK(check(merged(outcome, {{"epochs", 5}})) ==
          "step 'build', check 2: validation_accuracy needs \"value\", the validation accuracy to reach as a fraction "
          "(0.85)");
    CHECK(check(merged(outcome, {{"value", 85}, {"epochs", 5}})) ==
          "step 'build', check 2: \"value\" is 85; validation_accuracy takes a fraction above 0 and at most 1, such "
          "as 0.85 for 85%");
    CHECK(check(merged(outcome, {{"value", 0.85}})) ==
          "step 'build', check 2: validation_accuracy needs \"epochs\", the most epochs the run may take");
    CHECK(check(merged(outcome, {{"value", 0.85}, {"epochs", 0}})) ==
          "step 'build', check 2: \"epochs\" is 0; it must be from 1 to 1000000");

    CHECK(check({{"kind", "sanity"}, {"type", "overfit_subset"}, {"images", 0}}) ==
          "step 'build', check 2: \"images\" is 0; it must be from 1 to 1000000");
    CHECK(check({{"kind", "interpretation"}, {"type", "pick_run"}}) ==
          "step 'build', check 2: pick_run needs \"criterion\", one of overfits, diverged, fastest, best_validation");
    CHECK(check({{"kind", "interpretation"}, {"type", "pick_run"}, {"criterion", "slowest"}}) ==
          "step 'build', check 2: criterion 'slowest' is unknown; the criteria are overfits, diverged, fastest, "
          "best_validation");

    // The types that need nothing more read as they are.
    bps::test::TempDir dir("course-exercise");
    json plain = good_exercise();
    plain["steps"][1]["checks"] = {{{"kind", "outcome"}, {"type", "exported_script"}},
                                   {{"kind", "interpretation"}, {"type", "most_confused_pair"}},
                                   {{"kind", "interpretation"}, {"type", "least_accurate_class"}}};
    const Exercise read = bps::course::read_exercise(write_exercise(dir.path() / "ex", plain));
    CHECK(read.steps[1].checks.size() == 3);
}

TEST_CASE("a hint of an unknown level or pointing nowhere is refused", "[course-exercise]") {
    CHECK(problem_with(with_hint({{"level", "tip"}, {"text", "Look."}})) ==
          "step 'build', hint 1: level 'tip' is unknown; the levels are nudge, pointer, near_solution");
    CHECK(problem_with(with_hint({{"level", "nudge"}})) ==
          "step 'build', hint 1: \"text\" is missing; a hint needs its words");
    const std::string places =
        " is not a place the studio can point at; use node:NAME, dock:palette|inspector|train|problems|summary, "
        "tab:network|training|results|try_it|devices|compare|datasets or "
        "control:learning_rate|epochs|batch_size|validation_fraction|optimizer|augmentation|seed";
    for (const char* point_at : {"dock:sidebar", "node:", "canvas", "tab:", "control:momentum"}) {
        std::string expected = "step 'build', hint 2: point_at '";
        expected += point_at;
        expected += "'";
        expected += places;
        CHECK(problem_with(with_hint({{"level", "pointer"}, {"text", "Here."}, {"point_at", point_at}}, 1)) ==
              expected);
    }
    for (const char* point_at : {"dock:inspector", "tab:try_it", "control:seed", "node:conv 1"}) {
        bps::test::TempDir dir("course-exercise");
        const Exercise read = bps::course::read_exercise(write_exercise(
            dir.path() / "ex", with_hint({{"level", "pointer"}, {"text", "Here."}, {"point_at", point_at}}, 1)));
        CHECK(read.steps[0].hints[1].point_at == point_at);
    }
}

TEST_CASE("an exercise's files must be there, inside its folder", "[course-exercise]") {
    bps::test::TempDir dir("course-exercise");
    const fs::path folder = write_exercise(dir.path() / "ex", good_exercise());
    fs::remove(folder / "starter.json");
    CHECK_THROWS_WITH(bps::course::read_exercise(folder),
                      (folder / "exercise.json").string() +
                          ": \"starter\" names 'starter.json', which is not a file in the exercise's folder");

    json outside = good_exercise();
    outside["solution"] = "../solution.json";
    CHECK(problem_with(outside) ==
          "\"solution\" names '../solution.json', outside the exercise's folder; name a file beside exercise.json");
    json folder_named = good_exercise();
    folder_named["instructions"] = ".";
    CHECK(problem_with(folder_named) == "\"instructions\" names '.', which is not a file in the exercise's folder");
}

TEST_CASE("the course lists its exercises by track and order, naming the damaged ones", "[course-exercise]") {
    bps::test::TempDir dir("course-exercise");
    const fs::path root = dir.path();
    const auto add = [&](const std::string& folder, const std::string& id, const std::string& track, int order) {
        json exercise = good_exercise(id);
        exercise["track"] = track;
        exercise["order"] = order;
        write_exercise(root / folder, exercise);
    };
    add("a", "dev-01", "devices", 1);
    add("b", "mnist-01", "mnist", 1);
    add("c", "fm-02", "fashion-mnist", 2);
    add("d", "fm-01", "fashion-mnist", 1);
    add("e", "zoo-01", "zoo", 1);
    add("f", "alpha-01", "alpha", 5);
    add("g", "cifar-01", "cifar10", 1);
    add("h", "fm-01b", "fashion-mnist", 1);  // the same order: by id
    add("i", "fm-01", "fashion-mnist", 3);   // an id already taken
    write_exercise(root / "j", good_exercise("broken"));
    write_text(root / "j" / "exercise.json", "{");
    fs::create_directories(root / "notes");  // no exercise.json: not an exercise, not a problem
    write_text(root / "README.md", "# The course\n");

    std::vector<std::string> problems;
    const auto course = bps::course::read_course(root, &problems);
    std::vector<std::string> ids;
    for (const Exercise& exercise : course) ids.push_back(exercise.id);
    CHECK(ids ==
          std::vector<std::string>{"fm-01", "fm-01b", "fm-02", "mnist-01", "cifar-01", "dev-01", "alpha-01", "zoo-01"});
    REQUIRE(problems.size() == 2);
    CHECK(problems[0] == (root / "i" / "exercise.json").string() + ": its id 'fm-01' is already the id of " +
                             (root / "d" / "exercise.json").string() + "; each exercise needs its own id");
    CHECK(problems[1] ==
          (root / "j" / "exercise.json").string() +
              ": is not valid JSON (line 1, column 2: unexpected end of input; expected string literal)");
    CHECK(bps::course::read_course(root).size() == 8);  // problems are optional

    std::vector<std::string> missing;
    CHECK(bps::course::read_course(root / "nowhere", &missing).empty());
    CHECK(missing == std::vector<std::string>{(root / "nowhere").string() + ": the course folder does not exist"});
}

TEST_CASE("an exercise is found by id or by folder", "[course-exercise]") {
    bps::test::TempDir dir("course-exercise");
    const fs::path root = dir.path() / "course";
    write_exercise(root / "one", good_exercise("fm-01-first-mlp"));
    json second = good_exercise("fm-02-learning-rate");
    second["order"] = 2;
    write_exercise(root / "two", second);
    const fs::path own = write_exercise(dir.path() / "teacher" / "mine", good_exercise("my-own"));

    CHECK(bps::course::find_exercise(root, "fm-02-learning-rate").folder == root / "two");
    CHECK(bps::course::find_exercise(root, own.string()).id == "my-own");
    CHECK(bps::course::find_exercise(root, (own / "exercise.json").string()).id == "my-own");
    CHECK(bps::course::find_exercise({}, own.string()).id == "my-own");
    CHECK_THROWS_WITH(bps::course::find_exercise(root, "fm-09"),
                      root.string() + ": no exercise 'fm-09'; the exercises are fm-01-first-mlp, fm-02-learning-rate");
    CHECK_THROWS_WITH(bps::course::find_exercise({}, "fm-09"),
                      "fm-09: is not an exercise folder, and no course folder was found to look for it by id (set "
                      "BACKPROP_COURSE_DIR to the course's folder)");
    CHECK_THROWS_WITH(bps::course::find_exercise(dir.path() / "nowhere", "fm-09"),
                      (dir.path() / "nowhere").string() +
                          ": the course folder does not exist, so exercise 'fm-09' cannot be found in it");
    // A damaged exercise, in a folder named by its id, says what is wrong with it.
    write_exercise(root / "fm-03-broken", good_exercise("fm-03-broken"));
    write_text(root / "fm-03-broken" / "exercise.json", "{");
    CHECK_THROWS_WITH(bps::course::find_exercise(root, "fm-03-broken"),
                      (root / "fm-03-broken" / "exercise.json").string() +
                          ": is not valid JSON (line 1, column 2: unexpected end of input; expected string literal)");
    // A damaged exercise given by folder says what is wrong with it, not that it is unknown.
    write_text(own / "exercise.json", "[]");
    CHECK_THROWS_WITH(bps::course::find_exercise(root, own.string()),
                      (own / "exercise.json").string() +
                          ": is not a Backprop Studio exercise (no \"format\": \"backprop-studio-exercise\")");
}

TEST_CASE("the course is found from the environment, beside the program or in the source tree", "[course-exercise]") {
    bps::test::TempDir dir("course-exercise");
    const fs::path installed = dir.path() / "usr" / "share" / "backprop-studio" / "course";
    fs::create_directories(installed);
    fs::create_directories(dir.path() / "usr" / "bin");
    {
        const bps::test::ScopedEnvironment course("BACKPROP_COURSE_DIR", (dir.path() / "mine").string());
        CHECK(bps::course::course_root(dir.path() / "usr" / "bin") == dir.path() / "mine");
    }
    const bps::test::ScopedEnvironment unset("BACKPROP_COURSE_DIR", std::nullopt);
    CHECK(bps::course::course_root(dir.path() / "usr" / "bin") == installed);
    // Elsewhere: the source tree's tutorials/course when it exists, else nothing.
    const fs::path fallback = bps::course::course_root(dir.path() / "elsewhere");
    if (!fallback.empty()) {
        CHECK(fallback.filename() == "course");
        CHECK(fallback.parent_path().filename() == "tutorials");
        CHECK(fs::is_directory(fallback));
    }
}
