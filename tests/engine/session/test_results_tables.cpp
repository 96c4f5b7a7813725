// The results views' tables as CSV, read back by Python's csv module (an
// independent RFC 4180 reader): class names with commas and quotes survive,
// counts and totals are those worked out by hand, and shares have 4 decimals.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/session/results_tables.h"
#include "tests/engine/session/eight_samples.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps;
using namespace bps::session;
using bps::test::eight_samples;

namespace {

using Rows = std::vector<std::vector<std::string>>;

// The rows Python's csv.reader finds in `text`.
Rows read_with_python(const std::string &text) {
    test::TempDir dir("results-csv");
    const std::filesystem::path csv = dir.path() / "table.csv", script = dir.path() / "read.py";
    std::ofstream(csv, std::ios::binary) << text;
    std::ofstream(script) << "import csv, json, sys\n"
                             "print(json.dumps(list(csv.reader(open(sys.argv[1], "
                             "newline='', encoding='utf-8')))))\n";
    const test::ProcessResult read =
        test::run_command_stdout("/usr/bin/python3 \"" + script.string() + "\" \"" + csv.string() + "\"");
    INFO(read.output);
    REQUIRE(read.exit_code == 0);
    return nlohmann::json::parse(read.output).get<Rows>();
}

// RFC 4180's line ends are "\n" here, with one after the last line.
void check_lines(const std::string &text) {
    CHECK(text.find('\r') == std::string::npos);
    REQUIRE_FALSE(text.empty());
    CHECK(text.back() == '\n');
}

double number(const std::string &cell) {
    return std::stod(cell);
}

const std::vector<std::string> names{"T-shirt/top", "Shirt, long", "the \"best\" bag"};

// 8 samples of 3 classes (tests/engine/session/eight_samples.h):
//            pred 0  pred 1  pred 2   support
//   true 0      1       0       1        2
//   true 1      2       1       1        4
//   true 2      1       0       1        2
//   column      4       1       3        8

ConfusionMatrix matrix_of(const SampleResults &samples) {
    ConfusionMatrix matrix(samples.classes);
    for (std::size_t i = 0; i < samples.size(); ++i) matrix.add(samples.labels[i], samples.predicted[i]);
    return matrix;
}

}  // namespace

TEST_CASE("the confusion matrix as CSV has its counts, supports and totals", "[results-tables][python]") {
    const std::string text = confusion_csv(matrix_of(eight_samples()), names);
    check_lines(text);
    // A name with a quote is quoted and its quotes doubled.
    CHECK(text.find("\"the \"\"best\"\" bag\"") != std::string::npos);
    const Rows rows = read_with_python(text);
    CHECK(rows == Rows{{"true \\ predicted", "T-shirt/top", "Shirt, long", "the \"best\" bag", "total"},
                       {"T-shirt/top", "1", "0", "1", "2"},
                       {"Shirt, long", "2", "1", "1", "4"},
                       {"the \"best\" bag", "1", "0", "1", "2"},
                       {"total", "4", "1", "3", "8"}});
}

TEST_CASE("a class without a name is written as its index", "[results-tables][python]") {
    const Rows rows = read_with_python(confusion_csv(matrix_of(eight_samples()), {"first"}));
    REQUIRE(rows.size() == 5);
    CHECK(rows[0] == std::vector<std::string>{"true \\ predicted", "first", "1", "2", "total"});
    CHECK(rows[2][0] == "1");
    CHECK(rows[3][0] == "2");
    const Rows none = read_with_python(confused_pairs_csv({{2, 0, 1, 0.5}}, {}));
    CHECK(none == Rows{{"true", "predicted", "count", "share"}, {"2", "0", "1", "0.5000"}});
}

TEST_CASE(
    "the per-class table as CSV has precision, recall, F1 and support, "
    "accuracy and chance",
    "[results-tables][python]") {
    const std::string text = class_figures_csv(matrix_of(eight_samples()), names);
    check_lines(text);
    const Rows rows = read_with_python(text);
    // Class 0: 1 of the 4 taken for it, 1 of its 2; class 1: its one prediction
    // right, 1 of its 4; class 2: 1 of the 3 taken for it, 1 of its 2. 3 of 8
    // right; chance 1 in 3.
    CHECK(rows == Rows{{"class", "precision", "recall", "f1", "support"},
                       {"T-shirt/top", "0.2500", "0.5000", "0.3333", "2"},
                       {"Shirt, long", "1.0000", "0.2500", "0.4000", "4"},
                       {"the \"best\" bag", "0.3333", "0.5000", "0.4000", "2"},
                       {"accuracy", "", "", "0.3750", "8"},
                       {"chance", "", "", "0.3333", ""}});
}

TEST_CASE("the most-confused pairs as CSV, in the order given", "[results-tables][python]") {
    const ConfusionMatrix matrix = matrix_of(eight_samples());
    const std::vector<ConfusedPair> pairs = most_confused(matrix, 10);
    const std::string text = confused_pairs_csv(pairs, names);
    check_lines(text);
    // (1, 0) twice, then the single confusions by true class: (0, 2), (1, 2), (2,
    // 0).
    CHECK(read_with_python(text) == Rows{{"true", "predicted", "count", "share"},
                                         {"Shirt, long", "T-shirt/top", "2", "0.5000"},
                                         {"T-shirt/top", "the \"best\" bag", "1", "0.5000"},
                                         {"Shirt, long", "the \"best\" bag", "1", "0.2500"},
                                         {"the \"best\" bag", "T-shirt/top", "1", "0.5000"}});
    // As given: reversed, reversed.
    std::vector<ConfusedPair> reversed(pairs.rbegin(), pairs.rend());
    const Rows back = read_with_python(confused_pairs_csv(reversed, names));
    REQUIRE(back.size() == 5);
    CHECK(back[1] == std::vector<std::string>{"the \"best\" bag", "T-shirt/top", "1", "0.5000"});
    CHECK(read_with_python(confused_pairs_csv({}, names)) == Rows{{"true", "predicted", "count", "share"}});
}

TEST_CASE("the samples a gallery shows as CSV, in its order", "[results-tables][python]") {
    const SampleResults samples = eight_samples();
    const std::string text = samples_csv(samples, {3, 1, 7}, names);
    check_lines(text);
    const Rows rows = read_with_python(text);
    REQUIRE(rows.size() == 4);
    CHECK(rows[0] == std::vector<std::string>{"sample", "true", "predicted", "loss", "probability_of_true",
                                              "probability_of_predicted"});
    const struct {
        std::string sample, true_name, predicted_name;
        double loss, of_true, of_predicted;
    } expected[] = {{"3", "Shirt, long", "T-shirt/top", -std::log(0.2), 0.2, 0.5},
                    {"1", "Shirt, long", "T-shirt/top", -std::log(0.3), 0.3, 0.6},
                    {"7", "Shirt, long", "Shirt, long", -std::log(0.9), 0.9, 0.9}};
    for (std::size_t i = 0; i < 3; ++i) {
        const std::vector<std::string> &row = rows[i + 1];
        REQUIRE(row.size() == 6);
        CHECK(row[0] == expected[i].sample);
        CHECK(row[1] == expected[i].true_name);
        CHECK(row[2] == expected[i].predicted_name);
        CHECK(number(row[3]) == Approx(expected[i].loss).margin(1e-4));
        CHECK(number(row[4]) == Approx(expected[i].of_true).margin(1e-4));
        CHECK(number(row[5]) == Approx(expected[i].of_predicted).margin(1e-4));
    }
    CHECK(read_with_python(samples_csv(samples, {}, names)).size() == 1);
    REQUIRE_THROWS_AS(samples_csv(samples, {2, 8}, names), std::out_of_range);
    REQUIRE_THROWS_WITH(samples_csv(samples, {2, 8}, names), Catch::Contains("8"));
}
