// The sanity checks: their messages on figures a fake runner gives, and the device runner
// training for real on a small image folder (the first loss of a network that starts from a fair
// guess is ln(classes); eight images are learnt by heart).
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "engine/course/checker.h"
#include "engine/course/sanity_runner.h"
#include "tests/engine/course/course_fixtures.h"
#include "tests/support/image_writer.h"
#include "tests/support/temp_dir.h"
#include "tests/support/two_class_images.h"

using namespace bps;
using namespace bps::course;
using bps::test::course_check;
using bps::test::course_exercise;
using bps::test::course_input;
using bps::test::course_mlp;
using bps::test::TempDir;

namespace {

// Gives the figures it was set up with and remembers what it was asked.
class FakeRunner : public SanityRunner {
public:
    FirstLoss first{2.31, 10};
    Overfit overfit{1.0, 20};
    std::string problem;  // thrown when not empty
    int images = 0, epochs = 0, batch_size = 0;

    FirstLoss first_batch_loss(const project::Project&) override {
        if (!problem.empty()) throw std::runtime_error(problem);
        return first;
    }
    Overfit overfit_subset(const project::Project&, int images_asked, int epochs_asked, int batch_asked) override {
        if (!problem.empty()) throw std::runtime_error(problem);
        images = images_asked;
        epochs = epochs_asked;
        batch_size = batch_asked;
        return overfit;
    }
};

CheckResult sanity(const Check& check, SanityRunner* runner, const project::Project& project = course_mlp()) {
    CheckInput input = course_input(project);
    input.sanity = runner;
    const CheckReport report = check_exercise(course_exercise({check}), input);
    REQUIRE(report.checks.size() == 1);
    return report.checks.front();
}

}  // namespace

TEST_CASE("first_loss: near ln(classes), else the advice and the output node", "[course-sanity]") {
    const Check check = course_check(CheckKind::sanity, "first_loss");
    FakeRunner runner;
    const CheckResult fair = sanity(check, &runner);
    CHECK(fair.status == CheckStatus::passed);
    CHECK(fair.message == "The first loss is 2.31, near ln(10) = 2.30: the network starts from a fair guess.");

    runner.first.loss = 7.91;
    const CheckResult far = sanity(check, &runner);
    CHECK(far.status == CheckStatus::failed);
    CHECK(far.message ==
          "Expected a first loss near ln(10) = 2.30 (within 0.3); found 7.91. A first loss far from ln(classes) means "
          "the outputs are not a fair guess at the start: check the initialisers and the last layer.");
    CHECK(far.expected == "near ln(10) = 2.30 (within 0.3)");
    CHECK(far.found == "7.91");
    CHECK(far.node == "fc2");

    Check wide = check;
    wide.value = 6;
    CHECK(sanity(wide, &runner).status == CheckStatus::passed);

    runner.first.loss = std::nan("");
    CHECK(sanity(check, &runner).status == CheckStatus::failed);
}

TEST_CASE("overfit_subset: every image of the subset, within the epochs", "[course-sanity]") {
    Check check = course_check(CheckKind::sanity, "overfit_subset");
    check.images = 50;
    check.epochs = 20;
    check.batch_size = 10;
    FakeRunner runner;
    const CheckResult learnt = sanity(check, &runner);
    CHECK(learnt.status == CheckStatus::passed);
    CHECK(learnt.message == "The network learnt all 50 images by heart in 20 epochs: it can learn.");
    CHECK(runner.images == 50);
    CHECK(runner.epochs == 20);
    CHECK(runner.batch_size == 10);

    runner.overfit.accuracy = 0.86;
    const CheckResult short_of = sanity(check, &runner);
    CHECK(short_of.status == CheckStatus::failed);
    CHECK(short_of.message ==
          "Expected 100% training accuracy on 50 images within 20 epochs; found 86.0%. A network that cannot learn 50 "
          "images by heart has a bug or too little capacity: check the learning rate and the layers.");
    CHECK(short_of.point_at == "control:learning_rate");
}

TEST_CASE("sanity checks without a device, with a runner that fails, and on a network that does not build",
          "[course-sanity]") {
    const Check check = course_check(CheckKind::sanity, "first_loss");
    const CheckResult no_device = sanity(check, nullptr);
    CHECK(no_device.status == CheckStatus::missing);
    CHECK(no_device.message == "Needs a device: Check trains a few batches for this.");

    FakeRunner runner;
    runner.problem = "no OpenCL platform is installed";
    const CheckResult failing = sanity(course_check(CheckKind::sanity, "overfit_subset"), &runner);
    CHECK(failing.status == CheckStatus::failed);
    CHECK(failing.message == "no OpenCL platform is installed");

    project::Project broken = course_mlp();
    broken.network.layers.erase(broken.network.layers.begin() + 1);
    runner.problem.clear();
    const CheckResult unbuilt = sanity(check, &runner, broken);
    CHECK(unbuilt.status == CheckStatus::failed);
    CHECK(unbuilt.node == "fc1");
}

namespace {

// `per_class` 8x8 grayscale images of each of 4 classes: a bright quadrant (the class's) with noise.
void write_quadrant_folder(const std::filesystem::path& folder, int per_class) {
    std::mt19937 generator(3);
    std::uniform_int_distribution<int> noise(0, 60);
    for (int label = 0; label < 4; ++label) {
        const std::filesystem::path class_folder = folder / ("quadrant" + std::to_string(label));
        std::filesystem::create_directories(class_folder);
        for (int i = 0; i < per_class; ++i) {
            std::vector<std::uint8_t> pixels;
            for (int y = 0; y < 8; ++y)
                for (int x = 0; x < 8; ++x) {
                    const bool bright = (x / 4) == (label % 2) && (y / 4) == (label / 2);
                    pixels.push_back(static_cast<std::uint8_t>(noise(generator) + (bright ? 180 : 0)));
                }
            bps::test::write_test_png(class_folder / ("image" + std::to_string(i) + ".png"), 8, 8, 1, pixels);
        }
    }
}

project::Project quadrant_project(const std::filesystem::path& folder, train::Initializer output) {
    project::Project project;
    project.name = "quadrants";
    project.dataset.name.clear();
    project.dataset.folder = folder.string();
    project.dataset.height = 8;
    project.dataset.width = 8;
    project.dataset.channels = 1;
    project.dataset.validation_fraction = 0.25;
    project.network.layers = {model::input_layer(), model::flatten("flatten"), model::dense("fc1", 32),
                              model::activation("relu", model::Activation::relu), model::dense("out", 4, output)};
    project.training.batch_size = 8;
    project.training.optimizer.learning_rate = 0.05f;
    return project;
}

}  // namespace

TEST_CASE("the device runner trains for real: a fair first loss, and eight images learnt by heart", "[course-sanity]") {
    TempDir folder("course-sanity");
    write_quadrant_folder(folder.path() / "images", 6);
    DeviceSanityRunner runner("", nullptr, std::chrono::seconds(300));

    // An output layer that starts at zero gives every class the same score: the loss is ln(4).
    const SanityRunner::FirstLoss fair =
        runner.first_batch_loss(quadrant_project(folder.path() / "images", train::Initializer::zeros));
    CHECK(fair.classes == 4);
    CHECK(fair.loss == Approx(std::log(4.0)).margin(1e-4));

    // A usual start is not that exact, but near it; through the checker, the check passes.
    const project::Project project = quadrant_project(folder.path() / "images", train::Initializer::glorot_uniform);
    CheckInput input = course_input(project);
    input.sanity = &runner;
    Check first_loss = course_check(CheckKind::sanity, "first_loss");
    first_loss.value = 0.7;
    Check overfit = course_check(CheckKind::sanity, "overfit_subset");
    overfit.images = 8;
    overfit.epochs = 30;
    overfit.batch_size = 4;
    const CheckReport report = check_exercise(course_exercise({first_loss, overfit}, "folder"), input);
    REQUIRE(report.checks.size() == 2);
    INFO(report.checks[0].message);
    CHECK(report.checks[0].status == CheckStatus::passed);
    INFO(report.checks[1].message);
    CHECK(report.checks[1].status == CheckStatus::passed);
    CHECK(report.checks[1].message == "The network learnt all 8 images by heart in 30 epochs: it can learn.");

    const SanityRunner::Overfit learnt = runner.overfit_subset(project, 8, 30, 4);
    CHECK(learnt.accuracy == 1.0);
    CHECK(learnt.epochs == 30);
}

TEST_CASE("the device runner refuses a project it cannot train, with the job's message", "[course-sanity]") {
    TempDir folder("course-sanity-missing");
    DeviceSanityRunner runner("", nullptr, std::chrono::seconds(60));
    const project::Project project = quadrant_project(folder.path() / "nowhere", train::Initializer::zeros);
    CHECK_THROWS_WITH(runner.first_batch_loss(project), Catch::Contains("nowhere"));
}

TEST_CASE("the device runner trains on the data it was given, without reading the project's dataset",
          "[course-sanity]") {
    // The project names Fashion-MNIST, which the runner never reads: the halves are given.
    project::Project project = bps::test::two_class_project();
    project.network.layers.back().initializer = train::Initializer::zeros;
    DeviceSanityRunner runner("", bps::test::two_class_data(), std::chrono::seconds(300));
    const SanityRunner::FirstLoss first = runner.first_batch_loss(project);
    CHECK(first.classes == 2);
    CHECK(first.loss == Approx(std::log(2.0)).margin(1e-4));
}
