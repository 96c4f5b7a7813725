// A run's evaluation in its folder: written and read back equal, samples.bin read by numpy as the
// header documents it, a folder from before evaluations were kept, and damaged files refused with
// the file's name.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "engine/runs/run_record.h"
#include "engine/session/run_evaluation.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps;
using namespace bps::session;
using bps::test::TempDir;

namespace {

RunEvaluation three_class_evaluation() {
    const std::vector<float> probabilities = {0.7f,  0.2f, 0.1f,  0.1f,  0.3f,  0.6f,
                                              0.25f, 0.5f, 0.25f, 0.05f, 0.05f, 0.9f};
    const std::vector<int> labels = {0, 1, 1, 2};
    RunEvaluation evaluation;
    evaluation.class_names = {"T-shirt/top", "Trouser", "Pullover"};
    evaluation.test = evaluate_probabilities(probabilities, labels, 3);
    ConfusionMatrix first(3), second(3);
    first.add(0, 1);
    first.add(2, 2);
    second.add(0, 0);
    second.add(2, 2);
    evaluation.validation = {{1, first}, {2, second}};
    return evaluation;
}

void write_bytes(const std::filesystem::path& file, const std::string& bytes) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

std::string read_bytes(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

}  // namespace

TEST_CASE("a run's evaluation is read back as it was written", "[run_evaluation]") {
    TempDir dir("run-evaluation");
    const RunEvaluation written = three_class_evaluation();
    write_run_evaluation(dir.path(), written);
    const std::optional<RunEvaluation> read = read_run_evaluation(dir.path());
    REQUIRE(read);
    CHECK(read->class_names == written.class_names);
    REQUIRE(read->test);
    CHECK(read->test->confusion == written.test->confusion);
    CHECK(read->test->samples.labels == written.test->samples.labels);
    CHECK(read->test->samples.predicted == written.test->samples.predicted);
    CHECK(read->test->samples.losses == written.test->samples.losses);
    CHECK(read->test->samples.probabilities == written.test->samples.probabilities);
    CHECK(read->test->overall.accuracy == Approx(0.75));
    CHECK(read->test->overall.samples == 4);
    REQUIRE(read->validation.size() == 2);
    CHECK(read->validation[1].epoch == 2);
    CHECK(read->validation[1].confusion == written.validation[1].confusion);
}

TEST_CASE("samples.bin is read by numpy with the layout its header documents", "[run_evaluation][python]") {
    TempDir dir("run-evaluation-numpy");
    write_run_evaluation(dir.path(), three_class_evaluation());
    const std::string script =
        "import json, sys, numpy as np\n"
        "folder = sys.argv[1]\n"
        "e = json.load(open(folder + '/evaluation.json'))\n"
        "k = len(e['classes'])\n"
        "head = np.fromfile(folder + '/samples.bin', dtype='<u4', count=4)\n"
        "s = np.fromfile(folder + '/samples.bin', dtype=[('label', '<i4'), ('predicted', '<i4'), ('loss', '<f4'),"
        " ('probabilities', '<f4', (k,))], offset=16)\n"
        "assert open(folder + '/samples.bin', 'rb').read(8) == b'BPSMPL01'\n"
        "assert head[2] == len(s) and head[3] == k\n"
        "m = np.zeros((k, k), dtype=int)\n"
        "for row in s: m[row['label'], row['predicted']] += 1\n"
        "assert (m == np.array(e['test']['confusion'])).all()\n"
        "assert (s['predicted'] == s['probabilities'].argmax(axis=1)).all()\n"
        "assert np.allclose(s['loss'], -np.log(s['probabilities'][np.arange(len(s)), s['label']]))\n"
        "print(len(s), k, s['label'].tolist(), s['predicted'].tolist(), round(float(s['probabilities'][3][2]), 6))\n";
    std::ofstream(dir.path() / "check.py") << script;
    const test::ProcessResult result = test::run_command("/usr/bin/python3 \"" + (dir.path() / "check.py").string() +
                                                         "\" \"" + dir.path().string() + "\"");
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    CHECK(result.output == "4 3 [0, 1, 1, 2] [0, 2, 1, 2] 0.9\n");
}

TEST_CASE("a run folder from before evaluations were kept opens and has no evaluation", "[run_evaluation]") {
    TempDir dir("run-evaluation-old");
    RunRecord record;
    record.folder = dir.path() / "2026-11-20_10-00-00";
    std::filesystem::create_directories(record.folder);
    record.receipt.name = "Run 1";
    record.receipt.outcome = "finished";
    write_run(record);
    CHECK(read_run(record.folder).receipt.name == "Run 1");
    CHECK_FALSE(read_run_evaluation(record.folder));
}

TEST_CASE("a damaged evaluation is refused naming the file", "[run_evaluation]") {
    TempDir dir("run-evaluation-damaged");
    write_run_evaluation(dir.path(), three_class_evaluation());
    const std::filesystem::path samples = dir.path() / "samples.bin", json = dir.path() / "evaluation.json";
    const std::string good_samples = read_bytes(samples), good_json = read_bytes(json);
    SECTION("truncated samples") {
        write_bytes(samples, good_samples.substr(0, good_samples.size() - 3));
        REQUIRE_THROWS_WITH(read_run_evaluation(dir.path()),
                            samples.string() + ": is damaged: 4 samples of 3 classes take 112 bytes, the file has 109");
    }
    SECTION("not a samples file") {
        write_bytes(samples, "PNG....." + good_samples.substr(8));
        REQUIRE_THROWS_WITH(
            read_run_evaluation(dir.path()),
            samples.string() + ": is not a samples file of Backprop Studio (its first bytes are not BPSMPL01)");
    }
    SECTION("samples that do not add up to the matrix") {
        std::string changed = good_samples;
        changed[16] = 2;  // the first sample's label 0 becomes 2
        write_bytes(samples, changed);
        REQUIRE_THROWS_WITH(read_run_evaluation(dir.path()),
                            samples.string() + ": does not match the confusion matrix in evaluation.json");
    }
    SECTION("missing samples") {
        std::filesystem::remove(samples);
        REQUIRE_THROWS_WITH(read_run_evaluation(dir.path()),
                            samples.string() + ": the file does not exist; evaluation.json needs it");
    }
    SECTION("damaged JSON") {
        write_bytes(json, good_json.substr(0, good_json.size() / 2));
        REQUIRE_THROWS_WITH(read_run_evaluation(dir.path()), json.string() + ": is damaged: it is not valid JSON");
    }
    SECTION("a matrix of the wrong size") {
        std::string changed = good_json;
        const std::string classes = "\"Pullover\"";
        changed.replace(changed.find(classes), classes.size(), "\"Pullover\", \"Dress\"");
        write_bytes(json, changed);
        REQUIRE_THROWS_WITH(read_run_evaluation(dir.path()),
                            json.string() + ": the test split's confusion matrix is not a matrix of 4 rows");
    }
    SECTION("a newer format") {
        std::string changed = good_json;
        changed.replace(changed.find("\"version\": 1"), 12, "\"version\": 7");
        write_bytes(json, changed);
        REQUIRE_THROWS_WITH(read_run_evaluation(dir.path()),
                            json.string() +
                                ": was written by a newer Backprop Studio (format version 7); update "
                                "to read it");
    }
}
