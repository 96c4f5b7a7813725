#pragma once
// A course exercise: a folder in tutorials/course/ (or a teacher's own) holding exercise.json,
// its instructions as Markdown (with images beside it), a starter project and a solution project.
// exercise.json is versioned and documented for teachers in tutorials/course/README.md:
//
//     {
//       "format": "backprop-studio-exercise", "version": 1,
//       "id": "fm-01-first-mlp", "title": "Your first network",
//       "track": "fashion-mnist", "order": 1, "dataset": "fashion-mnist",
//       "goal": "Train an MLP above 85% validation accuracy within 5 epochs.",
//       "minutes": 10, "concepts": ["Dense layer", "epoch", "validation accuracy"],
//       "instructions": "instructions.md", "starter": "starter.json", "solution": "solution.json",
//       "seed": 42,
//       "steps": [
//         {"id": "build", "title": "Add a hidden layer",
//          "checks": [{"kind": "structure", "type": "has_layers", "layers": ["Dense", "Dense"],
//                      "pass": "Why it matters, shown when it passes."}],
//          "hints": [{"level": "nudge", "text": "..."},
//                    {"level": "pointer", "text": "...", "point_at": "node:fc1"},
//                    {"level": "near_solution", "text": "..."}]}
//       ]
//     }
//
// Check types by kind (the fields each takes are in the README):
//   structure       has_layers, lacks_layers, layer_order, layer_count, output_width,
//                   max_parameters, max_layer_parameters, training_setting
//   sanity          first_loss, overfit_subset
//   outcome         validation_accuracy, exported_script
//   interpretation  most_confused_pair, least_accurate_class, pick_run
// Nothing here needs Qt or a device.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace bps::course {

constexpr int exercise_format_version = 1;

enum class CheckKind { structure, sanity, outcome, interpretation };
const char* check_kind_name(CheckKind kind);  // "structure", ...

// One check with the fields its type uses; read_exercise refuses a field a type needs and lacks.
struct Check {
    CheckKind kind = CheckKind::structure;
    std::string type;                 // "has_layers", "first_loss", ...
    std::vector<std::string> layers;  // has_layers, lacks_layers, layer_order: layer type names ("Conv2D")
    std::string layer_type;           // layer_count, max_layer_parameters
    std::string setting;              // training_setting: learning_rate, epochs, batch_size, optimizer,
                                      // validation_fraction, random_crop, horizontal_flip, momentum
    std::optional<double> min, max;   // layer_count, training_setting: bounds, inclusive
    std::string equals;               // training_setting: an exact value ("adam", "true")
    std::optional<double> value;      // output_width (units), max_parameters, max_layer_parameters,
                                      // first_loss (tolerance around ln(classes), default 0.3),
                                      // validation_accuracy (at least, a fraction: 0.85)
    std::optional<int> epochs;        // validation_accuracy: within at most this many; overfit_subset
    std::optional<int> images;        // overfit_subset: how many training images (default 50)
    std::optional<int> batch_size;    // overfit_subset (default 10)
    std::string criterion;            // pick_run: overfits, diverged, fastest, best_validation
    std::string pass;                 // shown when it passes: why it matters
    std::string fail;                 // optional advice appended to a failure's message
    // A stretch goal ("70% as a stretch"): reported like any check, never needed to pass.
    bool optional = false;
};

enum class HintLevel { nudge, pointer, near_solution };
const char* hint_level_name(HintLevel level);  // "nudge", "pointer", "near_solution"

struct Hint {
    HintLevel level = HintLevel::nudge;
    std::string text;
    // Where the studio points: "node:NAME", "dock:palette|inspector|train|problems|summary",
    // "tab:network|training|results|try_it|devices|compare|datasets",
    // "control:learning_rate|epochs|batch_size|validation_fraction|optimizer|augmentation|seed".
    // Empty: nowhere.
    std::string point_at;
};

struct Step {
    std::string id;     // unique in the exercise; --answer STEP=VALUE names it
    std::string title;
    std::string text;   // Markdown, short: what to do in this step
    std::vector<Check> checks;
    std::vector<Hint> hints;  // in the order they are revealed
};

struct Exercise {
    std::filesystem::path folder;
    std::string id, title, track, dataset, goal;
    int order = 0;    // within its track
    int minutes = 0;  // estimated
    std::vector<std::string> concepts;
    std::filesystem::path instructions, starter, solution;  // full paths, inside `folder`
    unsigned long long seed = 42;  // outcome checks accept only runs at this seed
    std::vector<Step> steps;
};

// A damaged, missing or ill-formed exercise; what() is "FILE: problem".
class ExerciseError : public std::runtime_error {
public:
    ExerciseError(const std::filesystem::path& file, const std::string& problem);
    const std::filesystem::path& file() const { return file_; }

private:
    std::filesystem::path file_;
};

// Reads FOLDER/exercise.json. Throws ExerciseError naming the file for damaged JSON, another
// format or a newer version, a missing field, an unknown kind, type, level or setting, a check
// missing a field its type needs, duplicate step ids, or an instructions/starter/solution file
// that does not exist.
Exercise read_exercise(const std::filesystem::path& folder);

// Every exercise folder under `root` (each subfolder holding exercise.json), sorted by track
// (fashion-mnist, mnist, cifar10, devices, then others by name) and order. A damaged one is
// skipped and named in `problems`.
std::vector<Exercise> read_course(const std::filesystem::path& root, std::vector<std::string>* problems = nullptr);

// The exercise with this id, or whose folder is this path. Throws ExerciseError listing the ids
// for an unknown one.
Exercise find_exercise(const std::filesystem::path& root, const std::string& id_or_folder);

// Where the course is: $BACKPROP_COURSE_DIR when set; else PROGRAM_DIR/../share/backprop-studio/course
// (installed); else the source tree's tutorials/course (a build tree). Empty when none exists.
std::filesystem::path course_root(const std::filesystem::path& program_dir);

// "Fashion-MNIST", "MNIST", "CIFAR-10", "Devices and export": a track's title.
std::string track_title(const std::string& track);

}  // namespace bps::course
