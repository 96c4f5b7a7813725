#pragma once
// What the course checker's tests check: a small Fashion-MNIST MLP, exercises of one step built
// in memory, and runs with the figures a test needs.
#include <filesystem>
#include <string>
#include <vector>

#include "engine/course/checker.h"
#include "engine/project/project.h"
#include "engine/runs/run_record.h"

namespace bps::test {

// Input, Flatten, Dense 'fc1' (128: 100,480 parameters), ReLU, Dense 'fc2' (10: 1,290).
inline project::Project course_mlp() {
    project::Project project;
    project.name = "fm-mlp";
    project.network.layers = {model::input_layer(), model::flatten("flatten"), model::dense("fc1", 128),
                              model::activation("relu", model::Activation::relu), model::dense("fc2", 10)};
    project.training.epochs = 5;
    project.training.optimizer.learning_rate = 0.05f;
    return project;
}

inline course::Check course_check(course::CheckKind kind, const std::string& type) {
    course::Check check;
    check.kind = kind;
    check.type = type;
    return check;
}

inline course::Exercise course_exercise(std::vector<course::Check> checks,
                                        const std::string& dataset = "fashion-mnist") {
    course::Exercise exercise;
    exercise.id = "fm-test";
    exercise.title = "A test";
    exercise.dataset = dataset;
    exercise.seed = 42;
    course::Step step;
    step.id = "build";
    step.title = "Build";
    step.checks = std::move(checks);
    exercise.steps.push_back(std::move(step));
    return exercise;
}

inline course::CheckInput course_input(const project::Project& project) {
    course::CheckInput input;
    input.project = project;
    input.source = "mlp.json";
    return input;
}

// A run of `project` with these epoch points, named `name`, in mlp.runs/ID.
inline session::RunRecord course_run(const project::Project& project, const std::string& id, const std::string& name,
                                     std::vector<session::EpochPoint> epochs = {}) {
    session::RunRecord run;
    run.folder = std::filesystem::path("mlp.runs") / id;
    run.receipt.name = name;
    run.receipt.started_at = "2026-11-26T10:00:00";
    run.receipt.project_name = project.name;
    run.receipt.training = project.training;
    run.receipt.dataset = project.dataset;
    run.receipt.outcome = "finished";
    run.receipt.epochs_completed = static_cast<int>(epochs.size());
    run.history.epochs = std::move(epochs);
    return run;
}

inline session::EpochPoint course_epoch(int epoch, double train_loss, double train_accuracy, double validation_loss,
                                        double validation_accuracy) {
    session::EpochPoint point;
    point.position = epoch;
    point.train_loss = train_loss;
    point.train_accuracy = train_accuracy;
    point.validation_loss = validation_loss;
    point.validation_accuracy = validation_accuracy;
    return point;
}

}  // namespace bps::test
