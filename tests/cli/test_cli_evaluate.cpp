// backprop evaluate --confusion: the confusion matrix, per-class figures and most-confused pairs
// of saved weights, as text and as JSON, on the small stripes project.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/cli/cli.h"
#include "tests/cli/stripes_project.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

TEST_CASE("evaluate --confusion gives the matrix, per-class figures and pairs that add up", "[cli][evaluate]") {
    TempDir dir("cli-evaluate-confusion");
    write_stripes(dir.path() / "images", 24);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images");
    const std::filesystem::path weights = dir.path() / "stripes.h5";
    // One epoch: the network is still learning, so some images may be confused.
    const ProcessResult trained =
        run_command(backprop("train " + quote(project) + " --epochs 1 --save-weights " + quote(weights)));
    INFO(trained.output);
    REQUIRE(trained.exit_code == 0);

    const ProcessResult as_json = run_command_stdout(backprop("evaluate " + quote(weights) + " --confusion --json"));
    INFO(as_json.output);
    REQUIRE(as_json.exit_code == 0);
    const nlohmann::json report = nlohmann::json::parse(as_json.output);
    CHECK(report["split"] == "folder");  // an image folder has no test split
    CHECK(report["samples"] == 48);
    CHECK(report["classes"] == nlohmann::json::array({"columns", "rows"}));
    const nlohmann::json& matrix = report["confusion"];
    REQUIRE(matrix.size() == 2);
    const double a = matrix[0][0], b = matrix[0][1], c = matrix[1][0], d = matrix[1][1];
    CHECK(a + b == 24);  // every class's row holds its 24 images
    CHECK(c + d == 24);
    CHECK(report["accuracy"].get<double>() == Approx((a + d) / 48));
    // Per class, worked out from the matrix.
    const nlohmann::json& columns = report["per_class"][0];
    CHECK(columns["class"] == "columns");
    CHECK(columns["support"] == 24);
    CHECK(columns["recall"].get<double>() == Approx(a / 24));
    if (a + c > 0) CHECK(columns["precision"].get<double>() == Approx(a / (a + c)));
    // The pairs are the off-diagonal cells with images, the larger first.
    std::size_t confused = (b > 0 ? 1 : 0) + (c > 0 ? 1 : 0);
    REQUIRE(report["most_confused"].size() == confused);
    if (confused > 0) CHECK(report["most_confused"][0]["count"].get<double>() == std::max(b, c));

    const ProcessResult as_text = run_command_stdout(backprop("evaluate " + quote(weights) + " --confusion"));
    REQUIRE(as_text.exit_code == 0);
    CHECK_THAT(as_text.output, Catch::Contains("confusion matrix (rows: true class, columns: predicted class)"));
    CHECK_THAT(as_text.output, Catch::Contains("chance with 2 classes: 0.500"));
    CHECK_THAT(as_text.output, Catch::Contains("precision  recall      F1 support"));

    const ProcessResult help = run_command(backprop("evaluate --help"));
    CHECK_THAT(help.output, Catch::Contains("--confusion"));
    CHECK_THAT(help.output, Catch::Contains("--json"));
}
