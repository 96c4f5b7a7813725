#pragma once
// A small course for `backprop course` tests: one exercise on the stripes image folder
// (stripes_project.h), whose starter has no hidden layer and whose solution has one, with
// structure, outcome and interpretation checks. Each run of it trains in a second or two.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/stripes_project.h"

namespace bps::test {

// The stripes project of stripes_project.h, without its hidden layer: what a learner starts from.
inline void remove_hidden_layer(nlohmann::json& project) {
    project["network"]["nodes"] = nlohmann::json::parse(R"([
        {"name": "input", "type": "Input"}, {"name": "flatten", "type": "Flatten"},
        {"name": "out", "type": "Dense", "params": {"units": 2, "initializer": "glorot_uniform"}}])");
    project["network"]["edges"] =
        nlohmann::json::parse(R"([{"from": "input", "to": "flatten"}, {"from": "flatten", "to": "out"}])");
}

inline nlohmann::json stripes_exercise() {
    return nlohmann::json::parse(R"({
  "format": "backprop-studio-exercise", "version": 1,
  "id": "stripes-01", "title": "Tell stripes apart", "track": "stripes", "order": 1, "dataset": "folder",
  "goal": "Add a hidden layer and reach 70% validation accuracy within 8 epochs.",
  "minutes": 5, "concepts": ["Dense layer", "validation accuracy"],
  "instructions": "instructions.md", "starter": "starter.json", "solution": "solution.json", "seed": 3,
  "steps": [
    {"id": "hidden", "title": "Add a hidden layer", "text": "Put a Dense layer of 16 units before the output.",
     "checks": [{"kind": "structure", "type": "layer_count", "layer_type": "Dense", "min": 2,
                 "pass": "A hidden layer lets the network combine the pixels."},
                {"kind": "structure", "type": "max_parameters", "value": 2000,
                 "pass": "A small network is enough for stripes."}],
     "hints": [{"level": "nudge", "text": "One Dense layer draws a straight line."},
               {"level": "pointer", "text": "Drag a Dense layer from the palette.", "point_at": "dock:palette"},
               {"level": "near_solution", "text": "Flatten, Dense 16, ReLU, then the output Dense 2."}]},
    {"id": "train", "title": "Train it",
     "checks": [{"kind": "outcome", "type": "validation_accuracy", "value": 0.7, "epochs": 8,
                 "pass": "Validation images were never trained on."}],
     "hints": [{"level": "nudge", "text": "Press Train."}]},
    {"id": "best", "title": "Which run is best?",
     "checks": [{"kind": "interpretation", "type": "pick_run", "criterion": "best_validation",
                 "pass": "The run list compares runs."}],
     "hints": [{"level": "pointer", "text": "Look at the run list.", "point_at": "tab:training"}]}
  ]
})");
}

struct StripesCourse {
    std::filesystem::path root;      // the course folder
    std::filesystem::path exercise;  // its one exercise's folder
    std::filesystem::path images;
};

// DIR/images (24 stripes of each class) and DIR/course/stripes-01/, with `change` applied to
// the exercise's JSON.
template <typename Change>
StripesCourse write_stripes_course(const std::filesystem::path& dir, Change change) {
    StripesCourse course{dir / "course", dir / "course" / "stripes-01", dir / "images"};
    write_stripes(course.images, 24);
    std::filesystem::create_directories(course.exercise);
    const std::filesystem::path solution = write_project(course.exercise, course.images);
    std::filesystem::rename(solution, course.exercise / "solution.json");
    const std::filesystem::path starter = write_project(course.exercise, course.images);
    nlohmann::json project = nlohmann::json::parse(std::ifstream(starter));
    remove_hidden_layer(project);
    std::ofstream(course.exercise / "starter.json") << project.dump(2);
    std::filesystem::remove(starter);
    std::ofstream(course.exercise / "instructions.md")
        << "# Tell stripes apart\n\nRows or columns? A *hidden layer* helps.\n";
    nlohmann::json exercise = stripes_exercise();
    change(exercise);
    std::ofstream(course.exercise / "exercise.json") << exercise.dump(2);
    return course;
}

inline StripesCourse write_stripes_course(const std::filesystem::path& dir) {
    return write_stripes_course(dir, [](nlohmann::json&) {});
}

// A learner's copy of one of the exercise's projects, as DIR/NAME.
inline std::filesystem::path learner_copy(const std::filesystem::path& project, const std::filesystem::path& dir,
                                          const std::string& name) {
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(project, dir / name, std::filesystem::copy_options::overwrite_existing);
    return dir / name;
}

}  // namespace bps::test
