#pragma once
// The one course checker: the studio's Check button and `backprop course check` (a teacher
// grading a class) both call check_exercise, so they never disagree (nbgrader issue 1844).
//
// Messages, in a learner's words:
//   pass           the check's "pass" text: why it matters
//   fail           "Expected …, found … (where)": a structure failure names the node at fault,
//                  "Dense 'fc2' has 1,290 parameters; the exercise allows at most 1,000."
//   not attempted  the project is still the starter: "Change the starter first: …"
//   missing        what is needed first: a run ("Train the project, then Check"), an evaluation,
//                  an answer picked in a view ("Select the most-confused pair in the Results tab")
//                  or a device for the sanity checks
// Nothing here needs Qt; sanity checks train through a SanityRunner (sanity_runner.h).
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/course/exercise.h"
#include "engine/project/project.h"
#include "engine/runs/run_record.h"
#include "engine/session/run_evaluation.h"

namespace bps::course {

enum class CheckStatus { passed, failed, not_attempted, missing };
const char* check_status_name(CheckStatus status);  // "passed", "failed", "not_attempted", "missing"

struct CheckResult {
    std::string step;  // the step's id
    CheckKind kind = CheckKind::structure;
    std::string type;
    CheckStatus status = CheckStatus::missing;
    std::string message;          // complete: see above
    std::string expected, found;  // as text ("at most 1,000 parameters", "1,290"); empty when not applicable
    std::string node;             // the node at fault, or empty
    std::string point_at;         // where to look (Hint::point_at's vocabulary), or empty
    bool optional = false;        // the check's: a stretch goal, never needed to pass
};

struct CheckReport {
    std::string exercise;                 // its id
    bool attempted = true;                // false: the project is still the starter (network, data and training)
    std::string run;                      // the run checked (its folder name), or empty
    std::optional<double> test_accuracy;  // the run's, reported once, at the end; never a threshold
    std::vector<CheckResult> checks;      // in the exercise's order
    bool passed() const;                  // every check passed, optional (stretch) ones aside
    int passed_count() const;
    // The first step with a check that did not pass, or empty when all passed.
    std::string current_step() const;
};

// The sanity checks train a little on a device; the checker asks through this, so tests can
// give figures and the studio can run it on its worker. Each throws std::runtime_error with a
// complete message when the project cannot be trained.
class SanityRunner {
public:
    virtual ~SanityRunner() = default;
    struct FirstLoss {
        double loss = 0;  // the first batch's loss, before any update
        int classes = 0;
    };
    virtual FirstLoss first_batch_loss(const project::Project& project) = 0;
    struct Overfit {
        double accuracy = 0;  // on the subset, after the last epoch
        int epochs = 0;       // trained
    };
    virtual Overfit overfit_subset(const project::Project& project, int images, int epochs, int batch_size) = 0;
};

struct CheckInput {
    project::Project project;
    std::string source;  // how messages name the project: its file
    // The run checked (outcome, interpretation of its evaluation) with its evaluation, if any.
    std::optional<session::RunRecord> run;
    std::optional<session::RunEvaluation> evaluation;
    // The project's runs, for pick_run ("which run overfits?").
    std::vector<session::RunRecord> runs;
    // Interpretation answers by step id: "Shirt>T-shirt/top" (true>predicted), a class name, a
    // run's id or name.
    std::map<std::string, std::string> answers;
    // Null: the sanity checks report `missing` ("needs a device").
    SanityRunner* sanity = nullptr;
};

// Bad input to a check, refused before any check runs; what() names the file.
class CourseError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws CourseError when the project is for another dataset than the exercise ("cnn.json
// trains on CIFAR-10; exercise 'fm-01-first-mlp' is for Fashion-MNIST"), or the run is from
// another project (its receipt's project or dataset differ) or has no evaluation where a check
// needs one.
void check_input(const Exercise& exercise, const CheckInput& input);

// Runs every check of every step (check_input first). Never throws for a failing project.
CheckReport check_exercise(const Exercise& exercise, const CheckInput& input);

// {"exercise", "passed", "attempted", "run", "test_accuracy", "checks": [{"step", "kind",
// "type", "status", "message", "expected", "found", "node", "point_at"}]}
nlohmann::json report_json(const CheckReport& report);
// Lines for a terminal: one per check ("PASS", "FAIL", "TODO", "NEED" and the message), then a
// summary "3 of 5 checks passed." and the test accuracy when known.
std::string report_text(const CheckReport& report);

// The project is the starter unchanged (node positions and names of the project aside).
bool same_as_starter(const project::Project& project, const project::Project& starter);

// A teacher's exercise folder checked: exercise.json well formed, the starter and the solution
// open, the solution passes its structure checks, the starter fails at least one check.
struct Validation {
    std::vector<std::string> problems;  // each names its file
    std::vector<std::string> notes;     // what was checked and passed
    bool ok() const { return problems.empty(); }
};
Validation validate_exercise(const std::filesystem::path& folder);

}  // namespace bps::course
