// The course checker on crafted projects, runs and evaluations: every kind and type of check,
// passing and failing, with its exact message, the node it names and where it points; the input
// refused before any check; "change the starter first"; the report as JSON and text; and a
// teacher's exercise folder validated.
#include <catch2/catch.hpp>
#include <fstream>

#include "engine/course/checker.h"
#include "engine/runs/code_export.h"
#include "engine/session/run_evaluation.h"
#include "tests/engine/course/course_fixtures.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

using namespace bps;
using namespace bps::course;
using bps::test::course_check;
using bps::test::course_epoch;
using bps::test::course_exercise;
using bps::test::course_input;
using bps::test::course_mlp;
using bps::test::course_run;
using bps::test::TempDir;

namespace {

CheckResult only_result(const Check& check, const CheckInput& input) {
    const CheckReport report = check_exercise(course_exercise({check}), input);
    REQUIRE(report.checks.size() == 1);
    return report.checks.front();
}

CheckResult structure(const Check& check, const project::Project& project) {
    return only_result(check, course_input(project));
}

Check with_layers(const std::string& type, std::vector<std::string> layers) {
    Check check = course_check(CheckKind::structure, type);
    check.layers = std::move(layers);
    return check;
}

using bps::test::write_text;

}  // namespace

TEST_CASE("has_layers names what is missing and lists the network", "[course-checker]") {
    const CheckResult missing = structure(with_layers("has_layers", {"Conv2D"}), course_mlp());
    CHECK(missing.status == CheckStatus::failed);
    CHECK(missing.message ==
          "Expected a Conv2D layer; found none. The network has Input, Flatten, Dense, Activation, Dense.");
    CHECK(missing.expected == "a Conv2D layer");
    CHECK(missing.found == "none");
    CHECK(missing.point_at == "dock:palette");

    const CheckResult too_few = structure(with_layers("has_layers", {"Dense", "Dense", "Dense"}), course_mlp());
    CHECK(too_few.message ==
          "Expected 3 Dense layers; found 2. The network has Input, Flatten, Dense, Activation, Dense.");

    Check two_dense = with_layers("has_layers", {"dense", "Dense"});
    two_dense.pass = "Two Dense layers with a nonlinearity between them can learn curved boundaries.";
    const CheckResult passed = structure(two_dense, course_mlp());
    CHECK(passed.status == CheckStatus::passed);
    CHECK(passed.message == two_dense.pass);
    CHECK(structure(with_layers("has_layers", {"Flatten"}), course_mlp()).message == "The network has Flatten.");
}

TEST_CASE("lacks_layers names the node that is not allowed", "[course-checker]") {
    project::Project project = course_mlp();
    project.network.layers.insert(project.network.layers.begin() + 4, model::dropout("drop1", 0.5f));
    const CheckResult result = structure(with_layers("lacks_layers", {"Dropout"}), project);
    CHECK(result.status == CheckStatus::failed);
    CHECK(result.message == "Dropout 'drop1' is not allowed in this exercise.");
    CHECK(result.node == "drop1");
    CHECK(result.point_at == "node:drop1");
    CHECK(result.expected == "no Dropout");
    CHECK(result.found == "Dropout 'drop1'");

    Check lacks = with_layers("lacks_layers", {"Dropout"});
    lacks.fail = "This exercise shows overfitting without any regularisation.";
    CHECK(structure(lacks, project).message ==
          "Dropout 'drop1' is not allowed in this exercise. This exercise shows overfitting without any "
          "regularisation.");
    CHECK(structure(with_layers("lacks_layers", {"Dropout"}), course_mlp()).status == CheckStatus::passed);
}

TEST_CASE("layer_order finds the types as a subsequence of the execution order", "[course-checker]") {
    CHECK(structure(with_layers("layer_order", {"Flatten", "Dense", "Dense"}), course_mlp()).status ==
          CheckStatus::passed);

    const CheckResult swapped = structure(with_layers("layer_order", {"Dense", "Flatten"}), course_mlp());
    CHECK(swapped.status == CheckStatus::failed);
    CHECK(swapped.message ==
          "Expected the layers Dense, Flatten in this order; found Flatten 'flatten' before Dense 'fc1'. The network "
          "has Input, Flatten, Dense, Activation, Dense.");
    CHECK(swapped.node == "flatten");

    const CheckResult absent = structure(with_layers("layer_order", {"Flatten", "Dense", "Dropout"}), course_mlp());
    CHECK(absent.message ==
          "Expected the layers Flatten, Dense, Dropout in this order; found no Dropout after Dense 'fc1'. The network "
          "has Input, Flatten, Dense, Activation, Dense.");
    CHECK(absent.node == "fc1");

    const CheckResult none = structure(with_layers("layer_order", {"Conv2D", "Dense"}), course_mlp());
    CHECK(none.message ==
          "Expected the layers Conv2D, Dense in this order; found no Conv2D. The network has Input, Flatten, Dense, "
          "Activation, Dense.");
    CHECK(none.node.empty());
}

TEST_CASE("layer_count counts one type between bounds", "[course-checker]") {
    Check at_least = course_check(CheckKind::structure, "layer_count");
    at_least.layer_type = "Dense";
    at_least.min = 3;
    const CheckResult few = structure(at_least, course_mlp());
    CHECK(few.status == CheckStatus::failed);
    CHECK(few.message == "Expected at least 3 Dense layers; found 2 (fc1, fc2).");

    Check at_most = at_least;
    at_most.min.reset();
    at_most.max = 1;
    const CheckResult many = structure(at_most, course_mlp());
    CHECK(many.message == "Expected at most 1 Dense layer; found 2 (fc1, fc2).");
    CHECK(many.node == "fc2");

    Check between = at_least;
    between.min = 1;
    between.max = 2;
    const CheckResult right = structure(between, course_mlp());
    CHECK(right.status == CheckStatus::passed);
    CHECK(right.message == "The network has 2 Dense layers.");
    CHECK(right.expected == "between 1 and 2 Dense layers");
}

TEST_CASE("output_width names the output node and its units", "[course-checker]") {
    Check check = course_check(CheckKind::structure, "output_width");
    check.value = 10;
    project::Project project = course_mlp();
    project.network.layers.back().units = 12;
    const CheckResult wrong = structure(check, project);
    CHECK(wrong.status == CheckStatus::failed);
    CHECK(wrong.message == "Expected 10 outputs, one per class; Dense 'fc2' has 12 units.");
    CHECK(wrong.node == "fc2");
    CHECK(wrong.point_at == "node:fc2");
    CHECK(structure(check, course_mlp()).status == CheckStatus::passed);
    CHECK(structure(check, course_mlp()).message == "The network ends in 10 outputs, one per class.");
}

TEST_CASE("max_parameters counts the network and names its largest layer", "[course-checker]") {
    Check check = course_check(CheckKind::structure, "max_parameters");
    check.value = 100'000;
    const CheckResult result = structure(check, course_mlp());
    CHECK(result.status == CheckStatus::failed);
    CHECK(result.message ==
          "The network has 101,770 parameters; the exercise allows at most 100,000. The largest is Dense 'fc1' with "
          "100,480.");
    CHECK(result.node == "fc1");
    CHECK(result.expected == "at most 100,000 parameters");
    CHECK(result.found == "101,770");
    check.value = 101'770;
    CHECK(structure(check, course_mlp()).status == CheckStatus::passed);
}

TEST_CASE("max_layer_parameters names the largest layer over the limit", "[course-checker]") {
    // Conv2D 'conv1' (128 filters of 3x3: 1,280), global average pooling, Dense 'fc2' (1,290).
    project::Project project = course_mlp();
    project.network.layers = {model::input_layer(), model::conv2d("conv1", 128, 3), model::global_avg_pool("gap"),
                              model::dense("fc2", 10)};
    Check check = course_check(CheckKind::structure, "max_layer_parameters");
    check.value = 1'000;
    const CheckResult any = structure(check, project);
    CHECK(any.status == CheckStatus::failed);
    CHECK(any.message == "Dense 'fc2' has 1,290 parameters; the exercise allows at most 1,000.");
    CHECK(any.node == "fc2");

    check.layer_type = "Conv2D";
    CHECK(structure(check, project).message ==
          "Conv2D 'conv1' has 1,280 parameters; the exercise allows at most 1,000.");
    check.value = 1'280;
    CHECK(structure(check, project).status == CheckStatus::passed);
}

TEST_CASE("training_setting compares a setting with bounds or a value and points at its control", "[course-checker]") {
    Check rate = course_check(CheckKind::structure, "training_setting");
    rate.setting = "learning_rate";
    rate.min = 0.005;
    rate.max = 0.2;
    project::Project project = course_mlp();
    project.training.optimizer.learning_rate = 0.0001f;
    const CheckResult low = structure(rate, project);
    CHECK(low.status == CheckStatus::failed);
    CHECK(low.message == "Expected a learning rate between 0.005 and 0.2; found 0.0001.");
    CHECK(low.point_at == "control:learning_rate");
    CHECK(structure(rate, course_mlp()).status == CheckStatus::passed);

    Check epochs = course_check(CheckKind::structure, "training_setting");
    epochs.setting = "epochs";
    epochs.max = 3;
    CHECK(structure(epochs, course_mlp()).message == "Expected a number of epochs of at most 3; found 5.");

    Check optimizer = course_check(CheckKind::structure, "training_setting");
    optimizer.setting = "optimizer";
    optimizer.equals = "adam";
    const CheckResult sgd = structure(optimizer, course_mlp());
    CHECK(sgd.message == "Expected the optimizer to be adam; found sgd.");
    CHECK(sgd.point_at == "control:optimizer");

    Check flip = course_check(CheckKind::structure, "training_setting");
    flip.setting = "horizontal_flip";
    flip.equals = "true";
    CHECK(structure(flip, course_mlp()).message == "Expected the horizontal flip to be on; found off.");
    project.dataset.augmentation.horizontal_flip = true;
    CHECK(structure(flip, project).status == CheckStatus::passed);
}

TEST_CASE("a network that does not build fails its structure checks with the graph's problem", "[course-checker]") {
    project::Project project = course_mlp();
    project.network.layers.erase(project.network.layers.begin() + 1);  // no Flatten before fc1
    const CheckResult result = structure(with_layers("has_layers", {"Dense"}), project);
    CHECK(result.status == CheckStatus::failed);
    CHECK(result.message == "Dense 'fc1' needs a flat input; add a Flatten before it");
    CHECK(result.node == "fc1");
    CHECK(result.point_at == "node:fc1");
}

TEST_CASE("the starter unchanged is not attempted: change the starter first", "[course-checker]") {
    TempDir folder("course-starter");
    const std::filesystem::path starter_file = folder.path() / "starter.json";
    project::save_project(starter_file, course_mlp());
    Exercise exercise = course_exercise({with_layers("has_layers", {"Conv2D"}), with_layers("has_layers", {"Dense"})});
    exercise.starter = starter_file;

    // The same network, data and training: a new name and moved nodes are no change.
    project::Project same = project::read_project(starter_file);
    same.name = "renamed";
    same.network.layers[2].position = model::CanvasPosition{500, 300};
    CHECK(same_as_starter(same, project::read_project(starter_file)));
    const CheckReport untouched = check_exercise(exercise, course_input(same));
    CHECK_FALSE(untouched.attempted);
    CHECK(untouched.checks[0].status == CheckStatus::not_attempted);
    CHECK(untouched.checks[0].message ==
          "Change the starter first: Expected a Conv2D layer; found none. The network has Input, Flatten, Dense, "
          "Activation, Dense.");
    CHECK(untouched.checks[1].status == CheckStatus::passed);

    project::Project changed = same;
    changed.training.optimizer.learning_rate = 0.1f;
    CHECK_FALSE(same_as_starter(changed, project::read_project(starter_file)));
    const CheckReport tried = check_exercise(exercise, course_input(changed));
    CHECK(tried.attempted);
    CHECK(tried.checks[0].status == CheckStatus::failed);

    project::Project wider = same;
    wider.network.layers[2].units = 64;
    CHECK_FALSE(same_as_starter(wider, project::read_project(starter_file)));
}

TEST_CASE("check_input refuses a project for another dataset", "[course-checker]") {
    const CheckInput input = course_input(course_mlp());
    const Exercise cifar = course_exercise({}, "cifar10");
    CHECK_THROWS_WITH(check_exercise(cifar, input),
                      "mlp.json: this project trains on Fashion-MNIST; exercise 'fm-test' is for CIFAR-10");
    CHECK_THROWS_AS(check_input(cifar, input), CourseError);
    CHECK_THROWS_WITH(check_input(course_exercise({}, "folder"), input),
                      "mlp.json: this project trains on Fashion-MNIST; exercise 'fm-test' is for an image folder");

    project::Project on_folder = course_mlp();
    on_folder.dataset.name.clear();
    on_folder.dataset.folder = "/photos";
    CHECK_NOTHROW(check_input(course_exercise({}, "folder"), course_input(on_folder)));
    CHECK_THROWS_WITH(check_input(course_exercise({}), course_input(on_folder)),
                      "mlp.json: this project trains on an image folder; exercise 'fm-test' is for Fashion-MNIST");
}

TEST_CASE("check_input refuses a run from another project and a run with no evaluation", "[course-checker]") {
    TempDir folder("course-runs");
    const project::Project project = course_mlp();
    session::RunRecord run = course_run(project, "2026-11-26_10-00-00", "Run 1");
    run.folder = folder.path() / "mlp.runs" / "2026-11-26_10-00-00";
    std::filesystem::create_directories(run.folder);
    run.receipt.project_name = "cifar-net";
    session::write_run(run);

    CheckInput input = course_input(project);
    input.run = session::read_run(run.folder);
    const Exercise exercise = course_exercise({course_check(CheckKind::interpretation, "most_confused_pair")});
    CHECK_THROWS_WITH(
        check_exercise(exercise, input),
        run.folder.string() + ": this run is from project 'cifar-net', not from project 'fm-mlp' (mlp.json)");

    run.receipt.project_name = project.name;
    run.receipt.dataset.name = "mnist";
    session::write_run(run);
    input.run = session::read_run(run.folder);
    CHECK_THROWS_WITH(
        check_exercise(exercise, input),
        run.folder.string() + ": this run trained on MNIST, but project 'fm-mlp' (mlp.json) trains on Fashion-MNIST");

    run.receipt.dataset = project.dataset;
    session::write_run(run);
    input.run = session::read_run(run.folder);
    input.evaluation = session::read_run_evaluation(run.folder);
    REQUIRE_FALSE(input.evaluation);
    CHECK_THROWS_WITH(check_exercise(exercise, input),
                      run.folder.string() +
                          " has no evaluation.json: this run ended before its test, or is from an older version; "
                          "train again or use Evaluate now in the Results tab");
    // Checks that need no evaluation take the run as it is.
    CHECK_NOTHROW(check_exercise(course_exercise({with_layers("has_layers", {"Dense"})}), input));

    // An unnamed project's runs carry its file's stem, as the studio records them.
    project::Project unnamed = project;
    unnamed.name.clear();
    CheckInput unnamed_input = course_input(unnamed);
    unnamed_input.run = course_run(project, "2026-11-26_10-00-00", "Run 1");
    unnamed_input.run->receipt.project_name = "mlp";
    CHECK_NOTHROW(check_exercise(course_exercise({with_layers("has_layers", {"Dense"})}), unnamed_input));

    session::RunRecord stranger = course_run(project, "2026-11-26_11-00-00", "Run 2");
    stranger.receipt.project_name = "other";
    input.run.reset();
    input.runs = {stranger};
    CHECK_THROWS_AS(check_exercise(course_exercise({}), input), CourseError);
}

TEST_CASE("validation_accuracy reads the best validation epoch within the limit, never training accuracy",
          "[course-checker]") {
    Check check = course_check(CheckKind::outcome, "validation_accuracy");
    check.value = 0.85;
    check.epochs = 5;
    const project::Project project = course_mlp();
    CheckInput input = course_input(project);

    const CheckResult untrained = only_result(check, input);
    CHECK(untrained.status == CheckStatus::missing);
    CHECK(untrained.message == "Train the project, then Check.");
    CHECK(untrained.point_at == "dock:train");

    // Training accuracy reaches 99%; validation only 86% at epoch 6, past the limit.
    input.run = course_run(project, "2026-11-26_10-00-00", "Run 1",
                           {course_epoch(1, 0.6, 0.80, 0.55, 0.80), course_epoch(2, 0.4, 0.90, 0.50, 0.832),
                            course_epoch(3, 0.3, 0.95, 0.52, 0.83), course_epoch(4, 0.2, 0.97, 0.55, 0.82),
                            course_epoch(5, 0.15, 0.98, 0.58, 0.831), course_epoch(6, 0.1, 0.99, 0.6, 0.86)});
    const CheckResult short_of = only_result(check, input);
    CHECK(short_of.status == CheckStatus::failed);
    CHECK(short_of.message ==
          "Expected at least 85.0% validation accuracy within 5 epochs; found 83.2% (best, epoch 2).");
    CHECK(short_of.expected == "at least 85.0% validation accuracy within 5 epochs");
    CHECK(short_of.found == "83.2% (best, epoch 2)");

    check.epochs = 6;
    const CheckResult reached = only_result(check, input);
    CHECK(reached.status == CheckStatus::passed);
    CHECK(reached.message == "Reached 86.0% validation accuracy at epoch 6.");

    input.run->receipt.training.seed = 7;
    const CheckResult other_seed = only_result(check, input);
    CHECK(other_seed.status == CheckStatus::failed);
    CHECK(other_seed.message ==
          "Expected a run at the exercise's seed 42; Run 1 trained at seed 7. Set the seed back to 42 and train "
          "again.");
    CHECK(other_seed.point_at == "control:seed");

    input.run = course_run(project, "2026-11-26_10-00-00", "Run 1");
    session::EpochPoint no_validation;
    no_validation.position = 1;
    no_validation.train_loss = 0.3;
    no_validation.train_accuracy = 0.95;
    input.run->history.epochs = {no_validation};
    const CheckResult blind = only_result(check, input);
    CHECK(blind.status == CheckStatus::failed);
    CHECK(blind.message ==
          "Expected at least 85.0% validation accuracy within 6 epochs; Run 1 held no validation images: set a "
          "validation fraction and train again.");
    CHECK(blind.point_at == "control:validation_fraction");
}

TEST_CASE("exported_script finds the script export wrote for this project beside its file", "[course-checker]") {
    TempDir folder("course-export");
    const project::Project project = course_mlp();
    const std::filesystem::path file = folder.path() / "mlp.json";
    project::save_project(file, project);
    CheckInput input = course_input(project);
    input.source = file.string();
    Check check = course_check(CheckKind::outcome, "exported_script");

    const CheckResult none = only_result(check, input);
    CHECK(none.status == CheckStatus::failed);
    CHECK(none.message == "Expected a Python script exported from project 'fm-mlp' in " + folder.path().string() +
                              "; found none. Right-click the run in the run list and choose Export for PyTorch…, or "
                              "use backprop export, and save the script beside the project file.");

    // Another project's script does not count.
    session::ModelCard card{
        "fm-mlp", datasets::ImageShape{1, 28, 28}, {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, {}};
    session::ModelCard other_card = card;
    other_card.project = "someone-else";
    project::Project other = project;
    other.name = "someone-else";
    write_text(folder.path() / "other.py", session::pytorch_script(other, other_card, "weights.h5"));
    CHECK(only_result(check, input).status == CheckStatus::failed);

    write_text(folder.path() / "mlp_torch.py", session::pytorch_script(project, card, "weights.h5"));
    const CheckResult found = only_result(check, input);
    CHECK(found.status == CheckStatus::passed);
    CHECK(found.found == "mlp_torch.py");
    check.equals = "keras";
    CHECK(only_result(check, input).status == CheckStatus::failed);
    write_text(folder.path() / "mlp_keras.py", session::keras_script(project, card, "weights.h5"));
    CHECK(only_result(check, input).status == CheckStatus::passed);

    input.source = (folder.path() / "unsaved.json").string();
    const CheckResult unsaved = only_result(check, input);
    CHECK(unsaved.status == CheckStatus::missing);
    CHECK(unsaved.message == "Save the project, then export its trained network beside the project file.");
}

namespace {

// T-shirt/top: 8 right, 1 Trouser, 1 Pullover; Trouser: 9 right, 1 Pullover; Pullover: 4 taken
// for T-shirt/top, 6 right. The most-confused pair is Pullover>T-shirt/top; Pullover's recall is lowest.
CheckInput evaluated_input() {
    const project::Project project = course_mlp();
    CheckInput input = course_input(project);
    input.run = course_run(project, "2026-11-26_10-00-00", "Run 1");
    session::RunEvaluation evaluation;
    evaluation.class_names = {"T-shirt/top", "Trouser", "Pullover"};
    session::SampleEvaluation test;
    test.confusion = session::ConfusionMatrix(3);
    test.confusion.counts = {8, 1, 1, 0, 9, 1, 4, 0, 6};
    evaluation.test = test;
    input.evaluation = evaluation;
    return input;
}

}  // namespace

TEST_CASE("most_confused_pair is answered TRUE>PREDICTED and checked against the run's confusion matrix",
          "[course-checker]") {
    const Check check = course_check(CheckKind::interpretation, "most_confused_pair");
    CheckInput input = evaluated_input();

    const CheckResult unanswered = only_result(check, input);
    CHECK(unanswered.status == CheckStatus::missing);
    CHECK(unanswered.message == "Select the most-confused pair in the Results tab, then Check.");
    CHECK(unanswered.point_at == "tab:results");

    input.answers["build"] = "pullover > t-shirt/top";
    const CheckResult right = only_result(check, input);
    CHECK(right.status == CheckStatus::passed);
    CHECK(right.message == "Pullover taken for T-shirt/top is the most-confused pair: 4 of 10 Pullover images.");
    input.answers["build"] = "2>0";
    CHECK(only_result(check, input).status == CheckStatus::passed);

    input.answers["build"] = "T-shirt/top>Trouser";
    const CheckResult wrong = only_result(check, input);
    CHECK(wrong.status == CheckStatus::failed);
    CHECK(wrong.message ==
          "Expected the most-confused pair; found T-shirt/top taken for Trouser (1 of 10 T-shirt/top images). Another "
          "pair is confused more often: look for the largest count off the diagonal of the confusion matrix.");
    CHECK(wrong.message.find("Pullover") == std::string::npos);

    input.answers["build"] = "Shirt>Coat";
    CHECK(only_result(check, input).message ==
          "Expected a pair of this run's classes; found 'Shirt', which is not one of them (T-shirt/top, Trouser, "
          "Pullover).");
    input.answers["build"] = "Pullover";
    CHECK(only_result(check, input).message == "Expected a pair of classes as TRUE>PREDICTED; found 'Pullover'.");

    CheckInput untrained = course_input(course_mlp());
    CHECK(only_result(check, untrained).message == "Train the project, then Check.");
}

TEST_CASE("least_accurate_class is the class with the lowest recall", "[course-checker]") {
    const Check check = course_check(CheckKind::interpretation, "least_accurate_class");
    CheckInput input = evaluated_input();
    CHECK(only_result(check, input).message == "Select the least accurate class in the Results tab, then Check.");

    input.answers["build"] = "Pullover";
    const CheckResult right = only_result(check, input);
    CHECK(right.status == CheckStatus::passed);
    CHECK(right.message == "Pullover is the least accurate class: 60.0% of its test images were found.");

    input.answers["build"] = "Trouser";
    const CheckResult wrong = only_result(check, input);
    CHECK(wrong.status == CheckStatus::failed);
    CHECK(wrong.message ==
          "Expected the class with the lowest recall; found Trouser, with 90.0% of its images found. Another class is "
          "found less often: compare the confusion matrix's diagonal, row by row.");
    CHECK(wrong.point_at == "tab:results");
}

namespace {

// Run 1 improves then creeps up 0.05 in validation loss; Run 2 overfits (up 0.2 while its
// training loss falls); Run 3 diverged. Run 2 is the fastest, Run 1 the best in validation.
CheckInput three_runs() {
    const project::Project project = course_mlp();
    CheckInput input = course_input(project);
    session::RunRecord first = course_run(project, "2026-11-26_10-00-00", "Run 1",
                                          {course_epoch(1, 1.0, 0.7, 0.5, 0.8), course_epoch(2, 0.6, 0.8, 0.4, 0.85),
                                           course_epoch(3, 0.4, 0.9, 0.45, 0.84)});
    session::RunRecord second = course_run(project, "2026-11-26_10-00-30", "Run 2",
                                           {course_epoch(1, 1.0, 0.6, 0.6, 0.7), course_epoch(2, 0.5, 0.8, 0.5, 0.8),
                                            course_epoch(3, 0.2, 0.95, 0.7, 0.75)});
    session::RunRecord third = course_run(project, "2026-11-26_10-01-00", "Run 3");
    third.receipt.outcome = "diverged";
    third.receipt.problem = "the loss became NaN at batch 3 of epoch 1, at learning rate 5: the training diverged.";
    for (const double speed : {100.0, 300.0, 200.0}) first.history.batches.push_back({0.5, 1.0, 0.5, 0.01, speed});
    for (const double speed : {500.0, 400.0, 450.0}) second.history.batches.push_back({0.5, 1.0, 0.5, 0.01, speed});
    input.runs = {first, second, third};
    return input;
}

Check picking(const std::string& criterion) {
    Check check = course_check(CheckKind::interpretation, "pick_run");
    check.criterion = criterion;
    return check;
}

}  // namespace

TEST_CASE("pick_run: the run that overfits, by name or folder", "[course-checker]") {
    CheckInput input = three_runs();
    const CheckResult unanswered = only_result(picking("overfits"), input);
    CHECK(unanswered.status == CheckStatus::missing);
    CHECK(unanswered.message == "Pick the run that overfits in the run list of the Training tab, then Check.");
    CHECK(unanswered.point_at == "tab:training");

    input.answers["build"] = "Run 2";
    const CheckResult right = only_result(picking("overfits"), input);
    CHECK(right.status == CheckStatus::passed);
    CHECK(right.message == "Right: Run 2 is the run that overfits.");
    input.answers["build"] = "2026-11-26_10-00-30";
    CHECK(only_result(picking("overfits"), input).status == CheckStatus::passed);

    input.answers["build"] = "Run 1";
    const CheckResult wrong = only_result(picking("overfits"), input);
    CHECK(wrong.status == CheckStatus::failed);
    CHECK(wrong.message ==
          "Expected the run that overfits; found Run 1, whose validation loss ends 0.05 above its lowest. Look for "
          "the run whose validation loss climbs while its training loss keeps falling.");
    input.answers["build"] = "Run 9";
    CHECK(only_result(picking("overfits"), input).message ==
          "Expected the run that overfits; found 'Run 9', which is not one of this project's runs.");

    // Validation loss that only falls: nobody overfits yet.
    CheckInput calm = course_input(course_mlp());
    calm.runs = {course_run(course_mlp(), "2026-11-26_10-00-00", "Run 1",
                            {course_epoch(1, 1.0, 0.7, 0.5, 0.8), course_epoch(2, 0.6, 0.8, 0.4, 0.85)})};
    calm.answers["build"] = "Run 1";
    const CheckResult nobody = only_result(picking("overfits"), calm);
    CHECK(nobody.status == CheckStatus::missing);
    CHECK(nobody.message ==
          "None of the runs overfits yet: train longer, with a validation split, until the validation loss rises "
          "while the training loss falls; then pick that run in the Training tab and Check.");
}

TEST_CASE("pick_run: diverged, fastest and best validation", "[course-checker]") {
    CheckInput input = three_runs();
    input.answers["build"] = "Run 3";
    CHECK(only_result(picking("diverged"), input).status == CheckStatus::passed);
    input.answers["build"] = "Run 1";
    CHECK(only_result(picking("diverged"), input).message ==
          "Expected the run that diverged; found Run 1, which did not diverge. Look for a run whose loss shot up or "
          "became NaN.");
    // The studio pauses a diverging run; stopped then, its marker tells.
    input.runs[2].receipt.outcome = "stopped";
    input.runs[2].receipt.problem.clear();
    input.runs[2].history.markers.push_back({0.4, "diverged: paused"});
    input.answers["build"] = "Run 3";
    CHECK(only_result(picking("diverged"), input).status == CheckStatus::passed);

    input.answers["build"] = "Run 2";
    CHECK(only_result(picking("fastest"), input).message == "Right: Run 2 is the fastest run.");
    input.answers["build"] = "Run 1";
    CHECK(only_result(picking("fastest"), input).message ==
          "Expected the fastest run; found Run 1, at 200 images per second. Compare the runs' images per second.");

    input.answers["build"] = "Run 1";
    CHECK(only_result(picking("best_validation"), input).status == CheckStatus::passed);
    input.answers["build"] = "Run 2";
    CHECK(only_result(picking("best_validation"), input).message ==
          "Expected the run with the best validation accuracy; found Run 2, with 80.0% best validation accuracy. "
          "Compare the runs' best validation accuracy, not their training accuracy.");
}

TEST_CASE("a stretch check is reported like any other and never needed to pass", "[course-checker]") {
    Check stretch = with_layers("has_layers", {"Conv2D"});
    stretch.optional = true;
    const CheckReport report =
        check_exercise(course_exercise({with_layers("has_layers", {"Dense"}), stretch}), course_input(course_mlp()));
    REQUIRE(report.checks.size() == 2);
    CHECK(report.checks[1].optional);
    CHECK(report.checks[1].status == CheckStatus::failed);
    CHECK(report.passed());
    CHECK(report.passed_count() == 1);
    CHECK(report.current_step().empty());
    CHECK_FALSE(report.test_accuracy);
    CHECK(report.run.empty());
}

TEST_CASE("the report: passed, counts, current step, JSON and text", "[course-checker]") {
    CheckReport report;
    report.exercise = "fm-test";
    report.run = "2026-11-26_10-00-00";
    report.test_accuracy = 0.873;
    CheckResult built;
    built.step = "build";
    built.status = CheckStatus::passed;
    built.message = "The network has Dense.";
    CheckResult stretch;
    stretch.step = "stretch";
    stretch.kind = CheckKind::outcome;
    stretch.type = "validation_accuracy";
    stretch.status = CheckStatus::failed;
    stretch.optional = true;
    stretch.message = "Expected at least 90.0% validation accuracy within 5 epochs; found 88.0% (best, epoch 5).";
    stretch.expected = "at least 90.0% validation accuracy within 5 epochs";
    stretch.found = "88.0% (best, epoch 5)";
    CheckResult asked;
    asked.step = "read";
    asked.kind = CheckKind::interpretation;
    asked.status = CheckStatus::missing;
    asked.message = "Select the most-confused pair in the Results tab, then Check.";
    asked.point_at = "tab:results";
    report.checks = {built, stretch, asked};

    CHECK_FALSE(report.passed());
    CHECK(report.passed_count() == 1);
    CHECK(report.current_step() == "read");
    CHECK(report_text(report) ==
          "PASS  The network has Dense.\n"
          "FAIL  Expected at least 90.0% validation accuracy within 5 epochs; found 88.0% (best, epoch 5). (stretch "
          "goal)\n"
          "NEED  Select the most-confused pair in the Results tab, then Check.\n"
          "1 of 3 checks passed.\n"
          "Test accuracy: 87.3%.\n");
    const nlohmann::json json = report_json(report);
    CHECK(json["exercise"] == "fm-test");
    CHECK(json["passed"] == false);
    CHECK(json["attempted"] == true);
    CHECK(json["run"] == "2026-11-26_10-00-00");
    CHECK(json["test_accuracy"] == 0.873);
    REQUIRE(json["checks"].size() == 3);
    CHECK(json["checks"][1]["kind"] == "outcome");
    CHECK(json["checks"][1]["type"] == "validation_accuracy");
    CHECK(json["checks"][1]["status"] == "failed");
    CHECK(json["checks"][1]["expected"] == "at least 90.0% validation accuracy within 5 epochs");
    CHECK(json["checks"][1]["found"] == "88.0% (best, epoch 5)");
    CHECK(json["checks"][2]["status"] == "missing");
    CHECK(json["checks"][2]["point_at"] == "tab:results");

    // A stretch goal never holds the exercise back.
    report.checks[2].status = CheckStatus::passed;
    CHECK(report.passed());
    CHECK(report.current_step().empty());
    report.test_accuracy.reset();
    CHECK(report_json(report)["test_accuracy"].is_null());
    CHECK(check_status_name(CheckStatus::not_attempted) == std::string("not_attempted"));
}

namespace {

void write_exercise(const std::filesystem::path& folder, const project::Project& starter,
                    const project::Project& solution) {
    std::filesystem::create_directories(folder);
    project::save_project(folder / "starter.json", starter);
    project::save_project(folder / "solution.json", solution);
    write_text(folder / "instructions.md", "# A hidden layer\n");
    write_text(folder / "exercise.json", R"({
  "format": "backprop-studio-exercise", "version": 1,
  "id": "fm-hidden", "title": "A hidden layer", "track": "fashion-mnist", "order": 1,
  "dataset": "fashion-mnist", "goal": "Add a hidden layer.", "minutes": 5,
  "instructions": "instructions.md", "starter": "starter.json", "solution": "solution.json",
  "steps": [
    {"id": "build", "title": "Add a hidden layer",
     "checks": [{"kind": "structure", "type": "has_layers", "layers": ["Dense", "Dense"]},
                {"kind": "structure", "type": "output_width", "value": 10}]},
    {"id": "train", "title": "Train",
     "checks": [{"kind": "outcome", "type": "validation_accuracy", "value": 0.85, "epochs": 5}]}
  ]
})");
}

project::Project single_layer() {
    project::Project project = course_mlp();
    project.network.layers = {model::input_layer(), model::flatten("flatten"), model::dense("fc2", 10)};
    return project;
}

}  // namespace

TEST_CASE("validate_exercise: the solution passes its structure checks and the starter leaves work",
          "[course-checker]") {
    TempDir folder("course-validate");
    const std::filesystem::path good = folder.path() / "good";
    write_exercise(good, single_layer(), course_mlp());
    const Validation valid = validate_exercise(good);
    INFO((valid.problems.empty() ? std::string() : valid.problems.front()));
    CHECK(valid.ok());
    CHECK(valid.notes.size() == 5);

    // A solution that is the starter: it fails the hidden layer, and leaves nothing to do.
    const std::filesystem::path lazy = folder.path() / "lazy";
    write_exercise(lazy, single_layer(), single_layer());
    const Validation invalid = validate_exercise(lazy);
    CHECK_FALSE(invalid.ok());
    REQUIRE(invalid.problems.size() == 2);
    CHECK(invalid.problems[0] ==
          (lazy / "solution.json").string() +
              ": the solution does not pass step 'build' (has_layers): Change the starter first: Expected 2 Dense "
              "layers; found 1. The network has Input, Flatten, Dense.");
    CHECK(invalid.problems[1] == (lazy / "solution.json").string() +
                                     ": the solution is the starter unchanged; the learner would have nothing to do");

    const std::filesystem::path damaged = folder.path() / "damaged";
    write_exercise(damaged, single_layer(), course_mlp());
    write_text(damaged / "exercise.json", "{");
    const Validation broken = validate_exercise(damaged);
    REQUIRE(broken.problems.size() == 1);
    CHECK(broken.problems[0].rfind((damaged / "exercise.json").string() + ": ", 0) == 0);
}
