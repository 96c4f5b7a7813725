// backprop course: the course's exercises for a teacher: list them, show one, check a learner's
// project with the studio's own checker (engine/course/checker.h) and validate an exercise folder.
#include "app/cli/course_command.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "app/cli/commands.h"
#include "app/cli/program_path.h"
#include "engine/base/number_text.h"

namespace bps::cli {

const char* const course_help =
    "usage: backprop course list [--json]\n"
    "       backprop course show EXERCISE [--hints] [--solution]\n"
    "       backprop course check EXERCISE PROJECT [--run DIR] [--answer STEP=VALUE]... [--device INDEX|NAME]\n"
    "                             [--no-sanity] [--json]\n"
    "       backprop course validate FOLDER\n"
    "\n"
    "The course's exercises, checked by the same checker as the studio's Check button.\n"
    "  list       the exercises by track: id, title, minutes and dataset (--json: one array)\n"
    "  show       an exercise's goal, concepts, instructions and steps with what each checks;\n"
    "             --hints adds every hint by step and level, --solution the solution project\n"
    "  check      checks PROJECT (a learner's project file) and its newest run, or the run folder\n"
    "             --run DIR; prints every check as PASS, FAIL, TODO or NEED with its message\n"
    "  validate   checks a teacher's exercise folder: exercise.json well formed, the starter and the\n"
    "             solution open, the solution passes its structure checks, the starter fails one;\n"
    "             FOLDER may also be a course folder: every exercise in it is validated\n"
    "EXERCISE is an exercise's id (as 'list' shows it) or its folder.\n"
    "\n"
    "check's options:\n"
    "  --run DIR             the run folder to check (default: PROJECT.runs/'s newest run, if any)\n"
    "  --answer STEP=VALUE   an answer to a step's question, as the studio takes it in its views:\n"
    "                        a pair \"Shirt>T-shirt/top\" (true>predicted), a class name, or a run's\n"
    "                        folder or name; give one --answer per step\n"
    "  --device INDEX|NAME   the OpenCL device of the sanity checks (they train a little)\n"
    "  --no-sanity           skip the sanity checks (they are then reported as needing a device)\n"
    "  --json                one JSON object with every check, its expected and found values\n"
    "  --course DIR          the course folder (every command; default: the one installed with\n"
    "                        Backprop Studio, or $BACKPROP_COURSE_DIR)\n"
    "Exit status: 0 when every check passed (or the folder is valid), 1 when one failed or a file\n"
    "is damaged, 2 for a usage mistake. A teacher grades a class with a loop:\n"
    "  for p in submissions/*.json; do backprop course check fm-01-first-mlp \"$p\" --json > \"$p.grade\"; done\n";

std::filesystem::path course_folder(const std::optional<std::string>& flag) {
    if (!flag) return course::course_root(program_folder());
    if (flag->empty()) throw UsageError("--course needs a folder, not an empty name");
    std::error_code ignored;
    if (!std::filesystem::is_directory(*flag, ignored))
        throw std::runtime_error(*flag + ": there is no such course folder");
    return *flag;
}

course::Exercise open_exercise(const std::filesystem::path& root, const std::string& word) {
    std::error_code ignored;
    if (std::filesystem::is_directory(word, ignored)) return course::read_exercise(word);
    if (root.empty())
        throw std::runtime_error("no course folder was found beside this program, so exercise '" + word +
                                 "' cannot be looked up; give --course DIR, set BACKPROP_COURSE_DIR, or give "
                                 "the exercise's folder");
    return course::find_exercise(root, word);
}

namespace {

std::string number_text(double value) {
    if (std::abs(value) >= 1000 && value == std::floor(value))
        return session::format_thousands(static_cast<std::uint64_t>(std::abs(value)));
    return session::format_exact(value);
}

std::string percent_text(double fraction) {
    std::ostringstream text;
    text << std::round(fraction * 1000) / 10 << "%";
    return text.str();
}

std::string list_text(const std::vector<std::string>& names, const std::string& separator = ", ") {
    std::string text;
    for (const std::string& name : names) {
        if (!text.empty()) text += separator;
        text += name;
    }
    return text;
}

std::string bounds_text(const course::Check& check) {
    if (check.min && check.max) return "between " + number_text(*check.min) + " and " + number_text(*check.max);
    if (check.min) return "at least " + number_text(*check.min);
    if (check.max) return "at most " + number_text(*check.max);
    return "any number of";
}

std::string answer_text(const course::Check& check) {
    if (check.type == "most_confused_pair")
        return "names the most-confused pair, as in the Results tab (--answer STEP=TRUE>PREDICTED)";
    if (check.type == "least_accurate_class") return "names the least accurate class (--answer STEP=CLASS)";
    if (check.type == "pick_run") {
        const std::string which = check.criterion == "overfits"          ? "the run that overfits"
                                  : check.criterion == "diverged"        ? "the run that diverged"
                                  : check.criterion == "fastest"         ? "the fastest run"
                                  : check.criterion == "best_validation" ? "the run of best validation accuracy"
                                                                         : "the run: " + check.criterion;
        return "picks " + which + " in the run list (--answer STEP=RUN)";
    }
    return check.type;
}

}  // namespace

std::string check_description(const course::Check& check) {
    std::string text;
    const std::string& type = check.type;
    if (type == "has_layers")
        text = "has the layers " + list_text(check.layers);
    else if (type == "lacks_layers")
        text = "has no " + list_text(check.layers, " nor ");
    else if (type == "layer_order")
        text = "has " + list_text(check.layers, ", then ") + ", in this order";
    else if (type == "layer_count")
        text = "has " + bounds_text(check) + " " + check.layer_type + " layers";
    else if (type == "output_width")
        text = "ends in " + number_text(check.value.value_or(0)) + " outputs";
    else if (type == "max_parameters")
        text = "has at most " + number_text(check.value.value_or(0)) + " parameters";
    else if (type == "max_layer_parameters")
        text = "has no " + check.layer_type + " layer of more than " + number_text(check.value.value_or(0)) +
               " parameters";
    else if (type == "training_setting")
        text = "trains with " + check.setting + " " +
               (check.equals.empty() ? bounds_text(check) : "set to " + check.equals);
    else if (type == "first_loss")
        text = "the first batch's loss is within " + number_text(check.value.value_or(0.3)) +
               " of ln(classes), before any training";
    else if (type == "overfit_subset")
        text = "overfits " + std::to_string(check.images.value_or(50)) + " training images to 100% within " +
               std::to_string(check.epochs.value_or(20)) + " epochs";
    else if (type == "validation_accuracy")
        text = "reaches at least " + percent_text(check.value.value_or(0)) + " validation accuracy" +
               (check.epochs ? " within " + std::to_string(*check.epochs) + " epochs" : "") +
               ", at the exercise's seed";
    else if (type == "exported_script")
        text = "the trained model was exported as a script";
    else
        text = answer_text(check);
    text = std::string(course::check_kind_name(check.kind)) + ": " + text;
    if (check.optional) text += " (a stretch goal, not needed to pass)";
    return text;
}

int run_course(Arguments& arguments) {
    const std::optional<std::string> flag = arguments.take_option("--course");
    const std::optional<std::string> command = arguments.take_word();
    if (!command || command->rfind("-", 0) == 0)
        throw UsageError("which course command? list, show, check or validate");
    if (*command == "list") return run_course_list(arguments, course_folder(flag));
    if (*command == "show") return run_course_show(arguments, course_folder(flag));
    if (*command == "check") return run_course_check(arguments, course_folder(flag));
    if (*command == "validate") return run_course_validate(arguments);
    throw UsageError("unknown course command '" + *command + "'; the commands are list, show, check and validate");
}

}  // namespace bps::cli
