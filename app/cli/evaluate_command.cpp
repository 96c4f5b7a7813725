// backprop evaluate: a saved network's accuracy and loss on its project's test images, and with
// --confusion which classes it takes for which.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/printable.h"
#include "app/cli/project_argument.h"
#include "app/cli/run_job.h"
#include "engine/base/number_text.h"

namespace bps::cli {

const char* const evaluate_help =
    "usage: backprop evaluate PROJECT --weights FILE [--batch B] [--device INDEX|NAME] [--confusion] [--json]\n"
    "       backprop evaluate WEIGHTS.h5 [--batch B] [--device INDEX|NAME] [--confusion] [--json]\n"
    "\n"
    "Loads weights saved by 'backprop train --save-weights' into the project's network and prints\n"
    "the accuracy and loss on the dataset's test images (an image folder, which has no test split:\n"
    "on all of its images). PROJECT is a project file or a shipped example: mlp, cnn or cifar. A\n"
    "weights file saved by Backprop Studio carries its project: give it alone.\n"
    "\n"
    "  --confusion   also the confusion matrix (rows: the true class, columns: the class predicted),\n"
    "                precision, recall, F1 and support per class, and the most-confused pairs\n"
    "  --json        one JSON object with every figure instead of text\n";

namespace {

// "Sh" for "Shirt": a column heading of at most `width` characters.
std::string heading(const std::string& name, std::size_t width) {
    return name.size() <= width ? name : name.substr(0, width);
}

std::string name_of(const std::vector<std::string>& names, int label) {
    const auto index = static_cast<std::size_t>(label);
    return index < names.size() ? printable(names[index]) : std::to_string(label);
}

void print_confusion(std::ostream& out, const session::SampleEvaluation& evaluation,
                     const std::vector<std::string>& names) {
    const session::ConfusionMatrix& matrix = evaluation.confusion;
    std::size_t row_width = 4;
    for (int c = 0; c < matrix.classes; ++c) row_width = std::max(row_width, name_of(names, c).size());
    std::size_t cell = 5;
    for (std::size_t count : matrix.counts) cell = std::max(cell, std::to_string(count).size() + 1);
    out << "\nconfusion matrix (rows: true class, columns: predicted class)\n" << std::string(row_width + 2, ' ');
    for (int c = 0; c < matrix.classes; ++c)
        out << std::right << std::setw(static_cast<int>(cell)) << heading(name_of(names, c), cell - 1);
    out << "\n";
    for (int t = 0; t < matrix.classes; ++t) {
        out << std::left << std::setw(static_cast<int>(row_width + 2)) << name_of(names, t) << std::right;
        for (int p = 0; p < matrix.classes; ++p) out << std::setw(static_cast<int>(cell)) << matrix.count(t, p);
        out << "\n";
    }
    out << "\n"
        << std::left << std::setw(static_cast<int>(row_width + 2)) << "class" << std::right << std::setw(10)
        << "precision" << std::setw(8) << "recall" << std::setw(8) << "F1" << std::setw(8) << "support"
        << "\n";
    const std::vector<session::ClassFigures> figures = session::class_figures(matrix);
    for (int c = 0; c < matrix.classes; ++c) {
        const session::ClassFigures& f = figures[static_cast<std::size_t>(c)];
        out << std::left << std::setw(static_cast<int>(row_width + 2)) << name_of(names, c) << std::right << std::fixed
            << std::setprecision(3) << std::setw(10) << f.precision << std::setw(8) << f.recall << std::setw(8) << f.f1
            << std::setw(8) << session::format_thousands(f.support) << "\n";
    }
    out << "chance with " << matrix.classes << " classes: " << std::setprecision(3)
        << 1.0 / static_cast<double>(matrix.classes) << "\n";
    const std::vector<session::ConfusedPair> pairs = session::most_confused(matrix, 5);
    if (pairs.empty()) return;
    out << "\nmost confused\n";
    for (const session::ConfusedPair& pair : pairs)
        out << "  " << name_of(names, pair.true_class) << " taken for " << name_of(names, pair.predicted) << ": "
            << session::format_thousands(pair.count) << " of "
            << session::format_thousands(matrix.support(pair.true_class)) << "\n";
}

nlohmann::json confusion_json(const session::SampleEvaluation& evaluation, const std::vector<std::string>& names) {
    const session::ConfusionMatrix& matrix = evaluation.confusion;
    nlohmann::json rows = nlohmann::json::array();
    for (int t = 0; t < matrix.classes; ++t) {
        nlohmann::json row = nlohmann::json::array();
        for (int p = 0; p < matrix.classes; ++p) row.push_back(matrix.count(t, p));
        rows.push_back(row);
    }
    nlohmann::json classes = nlohmann::json::array();
    const std::vector<session::ClassFigures> figures = session::class_figures(matrix);
    for (int c = 0; c < matrix.classes; ++c) {
        const session::ClassFigures& f = figures[static_cast<std::size_t>(c)];
        classes.push_back({{"class", name_of(names, c)},
                           {"precision", f.precision},
                           {"recall", f.recall},
                           {"f1", f.f1},
                           {"support", f.support}});
    }
    nlohmann::json pairs = nlohmann::json::array();
    for (const session::ConfusedPair& pair : session::most_confused(matrix, 10))
        pairs.push_back({{"true", name_of(names, pair.true_class)},
                         {"predicted", name_of(names, pair.predicted)},
                         {"count", pair.count},
                         {"share", pair.share}});
    return {{"confusion", rows}, {"per_class", classes}, {"most_confused", pairs}};
}

}  // namespace

int run_evaluate(Arguments& arguments) {
    const std::optional<std::string> word = arguments.take_word();
    const std::optional<std::string> weights_file = arguments.take_option("--weights");
    const std::optional<int> batch = arguments.take_whole_number("--batch");
    const std::optional<std::string> device_flag = arguments.take_option("--device");
    const bool confusion = arguments.take_flag("--confusion");
    const bool json = arguments.take_flag("--json");
    arguments.expect_nothing_left();
    OpenedProject opened = open_project(word);
    if (!weights_file && opened.weights_file.empty())
        throw UsageError("--weights FILE is needed: the weights to evaluate");
    const std::filesystem::path weights = weights_file ? std::filesystem::path(*weights_file) : opened.weights_file;

    session::JobSetup setup = job_setup(session::JobTask::evaluate, std::move(opened), device_flag);
    setup.batch_size = batch;
    setup.weights = weights;
    session::JobEvents events;
    events.stage = [](const session::StageReport& stage) {
        if (stage.stage == session::Stage::preparing && stage.total == 0 && stage.activity.rfind("reading ", 0) == 0)
            std::cerr << stage.activity << "...\n";
    };
    const session::JobResult done = run_job(std::move(setup), std::move(events));
    if (!done.test) return exit_interrupted;  // Ctrl-C before the evaluation
    const session::Evaluation& result = *done.test;
    const bool whole_folder = done.whole_folder;
    if (json) {
        nlohmann::json report = {{"split", whole_folder ? "folder" : "test"},
                                 {"accuracy", result.accuracy},
                                 {"loss", result.loss},
                                 {"samples", result.samples},
                                 {"classes", done.class_names}};
        if (confusion && done.test_samples) report.update(confusion_json(*done.test_samples, done.class_names));
        std::cout << report.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return exit_ok;
    }
    std::cout << (whole_folder ? "accuracy " : "test accuracy ") << std::fixed << std::setprecision(4)
              << result.accuracy << ", loss " << result.loss << " (" << session::format_thousands(result.samples)
              << (whole_folder ? " images of the folder)\n" : " images)\n");
    if (confusion && done.test_samples) print_confusion(std::cout, *done.test_samples, done.class_names);
    return exit_ok;
}

}  // namespace bps::cli
