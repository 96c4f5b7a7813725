#include "engine/session/run_evaluation.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/base/atomic_file.h"
#include "engine/base/bounded_text.h"
#include "engine/runs/run_record.h"

namespace bps::session {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

constexpr const char* evaluation_format = "backprop-studio-run-evaluation";
constexpr int evaluation_version = 1;
constexpr const char* evaluation_name = "evaluation.json";
constexpr const char* samples_name = "samples.bin";
constexpr std::array<char, 8> samples_magic = {'B', 'P', 'S', 'M', 'P', 'L', '0', '1'};
constexpr std::size_t samples_header_bytes = 16;
// Far beyond any dataset's classes or a test split's size: what a damaged header may ask for.
constexpr std::uint32_t largest_class_count = 100000;
constexpr std::uint64_t largest_samples_bytes = std::uint64_t{4} << 30;

void save(const fs::path& file, std::string_view bytes) {
    try {
        io::save_atomically(file, bytes);
    } catch (const io::SaveProblem& problem) {
        throw RunRecordError(file, std::string("could not be written: ") + problem.what());
    }
}

// ---- samples.bin -------------------------------------------------------------------------------

void put_u32(std::string& out, std::uint32_t value) {
    for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<char>((value >> shift) & 0xffu));
}
void put_float(std::string& out, float value) {
    put_u32(out, std::bit_cast<std::uint32_t>(value));
}
std::uint32_t get_u32(const std::string& in, std::size_t at) {
    std::uint32_t value = 0;
    for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<std::uint8_t>(in[at + static_cast<std::size_t>(i)]);
    return value;
}

std::string samples_bytes(const SampleResults& samples) {
    std::string out(samples_magic.begin(), samples_magic.end());
    put_u32(out, static_cast<std::uint32_t>(samples.size()));
    put_u32(out, static_cast<std::uint32_t>(samples.classes));
    for (std::size_t i = 0; i < samples.size(); ++i) {
        put_u32(out, static_cast<std::uint32_t>(samples.labels[i]));
        put_u32(out, static_cast<std::uint32_t>(samples.predicted[i]));
        put_float(out, samples.losses[i]);
        for (float p : samples.probabilities_of(i)) put_float(out, p);
    }
    return out;
}

SampleResults read_samples(const fs::path& file) {
    std::error_code error;
    if (!fs::exists(file, error)) throw RunRecordError(file, "the file does not exist; evaluation.json needs it");
    const std::uintmax_t size = fs::file_size(file, error);
    if (error || size > largest_samples_bytes) throw RunRecordError(file, "cannot be read or is far too large");
    std::string bytes(static_cast<std::size_t>(size), '\0');
    std::ifstream in(file, std::ios::binary);
    if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size())))
        throw RunRecordError(file, "cannot be read");
    if (bytes.size() < samples_header_bytes || !std::equal(samples_magic.begin(), samples_magic.end(), bytes.begin()))
        throw RunRecordError(file, "is not a samples file of Backprop Studio (its first bytes are not BPSMPL01)");
    const std::uint32_t count = get_u32(bytes, 8), classes = get_u32(bytes, 12);
    if (classes < 1 || classes > largest_class_count)
        throw RunRecordError(file, "is damaged: it says " + std::to_string(classes) + " classes");
    const std::uint64_t record = 4 * (3 + std::uint64_t{classes});
    const std::uint64_t expected = samples_header_bytes + record * count;
    if (expected != bytes.size())
        throw RunRecordError(file, "is damaged: " + std::to_string(count) + " samples of " + std::to_string(classes) +
                                       " classes take " + std::to_string(expected) + " bytes, the file has " +
                                       std::to_string(bytes.size()));
    SampleResults samples;
    samples.classes = static_cast<int>(classes);
    std::size_t at = samples_header_bytes;
    for (std::uint32_t i = 0; i < count; ++i) {
        const auto label = static_cast<std::int32_t>(get_u32(bytes, at));
        const auto predicted = static_cast<std::int32_t>(get_u32(bytes, at + 4));
        if (label < 0 || label >= samples.classes || predicted < 0 || predicted >= samples.classes)
            throw RunRecordError(file, "is damaged: sample " + std::to_string(i) + " names a class outside the " +
                                           std::to_string(classes));
        samples.labels.push_back(label);
        samples.predicted.push_back(predicted);
        samples.losses.push_back(std::bit_cast<float>(get_u32(bytes, at + 8)));
        at += 12;
        for (std::uint32_t c = 0; c < classes; ++c, at += 4)
            samples.probabilities.push_back(std::bit_cast<float>(get_u32(bytes, at)));
    }
    return samples;
}

// ---- evaluation.json ---------------------------------------------------------------------------

ordered_json number(double value) {
    if (!std::isfinite(value)) return nullptr;  // JSON has no NaN: a diverged run's loss
    return value;
}

ordered_json matrix_json(const ConfusionMatrix& matrix) {
    ordered_json rows = ordered_json::array();
    for (int t = 0; t < matrix.classes; ++t) {
        ordered_json row = ordered_json::array();
        for (int p = 0; p < matrix.classes; ++p) row.push_back(matrix.count(t, p));
        rows.push_back(row);
    }
    return rows;
}

ConfusionMatrix matrix_of(const json& rows, std::size_t classes, const fs::path& file, const std::string& where) {
    if (!rows.is_array() || rows.size() != classes)
        throw RunRecordError(file, where + " is not a matrix of " + std::to_string(classes) + " rows");
    ConfusionMatrix matrix(static_cast<int>(classes));
    for (std::size_t t = 0; t < classes; ++t) {
        const json& row = rows[t];
        if (!row.is_array() || row.size() != classes)
            throw RunRecordError(file, where + ": row " + std::to_string(t + 1) + " does not have " +
                                           std::to_string(classes) + " counts");
        for (std::size_t p = 0; p < classes; ++p) {
            if (!row[p].is_number_unsigned())
                throw RunRecordError(file,
                                     where + ": row " + std::to_string(t + 1) + " holds a value that is not a count");
            matrix.counts[t * classes + p] = row[p].get<std::size_t>();
        }
    }
    return matrix;
}

std::string evaluation_json(const RunEvaluation& evaluation) {
    ordered_json out;
    out["format"] = evaluation_format;
    out["version"] = evaluation_version;
    out["classes"] = evaluation.class_names;
    if (evaluation.test) {
        const SampleEvaluation& test = *evaluation.test;
        ordered_json split;
        split["samples"] = test.overall.samples;
        split["loss"] = number(test.overall.loss);
        split["accuracy"] = number(test.overall.accuracy);
        split["confusion"] = matrix_json(test.confusion);
        ordered_json classes = ordered_json::array();
        const std::vector<ClassFigures> figures = class_figures(test.confusion);
        for (std::size_t c = 0; c < figures.size(); ++c)
            classes.push_back(
                {{"class", c < evaluation.class_names.size() ? evaluation.class_names[c] : std::to_string(c)},
                 {"precision", figures[c].precision},
                 {"recall", figures[c].recall},
                 {"f1", figures[c].f1},
                 {"support", figures[c].support}});
        split["per_class"] = classes;
        ordered_json pairs = ordered_json::array();
        for (const ConfusedPair& pair : most_confused(test.confusion, 10))
            pairs.push_back({{"true", pair.true_class},
                             {"predicted", pair.predicted},
                             {"count", pair.count},
                             {"share", pair.share}});
        split["most_confused"] = pairs;
        split["samples_file"] = samples_name;
        out["test"] = split;
    }
    ordered_json epochs = ordered_json::array();
    for (const EpochConfusion& epoch : evaluation.validation)
        epochs.push_back({{"epoch", epoch.epoch}, {"confusion", matrix_json(epoch.confusion)}});
    out["validation"] = epochs;
    return out.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

void write_run_evaluation(const fs::path& folder, const RunEvaluation& evaluation) {
    if (evaluation.test) save(folder / samples_name, samples_bytes(evaluation.test->samples));
    save(folder / evaluation_name, evaluation_json(evaluation));
}

std::optional<RunEvaluation> read_run_evaluation(const fs::path& folder) {
    const fs::path file = folder / evaluation_name;
    std::error_code error;
    if (!fs::exists(file, error)) return std::nullopt;
    constexpr std::uint64_t max_bytes = std::uint64_t{64} << 20;
    const io::BoundedText text = io::read_bounded_text(file, max_bytes);
    if (text.outcome == io::TextRead::unreadable) throw RunRecordError(file, "cannot be read");
    if (text.outcome == io::TextRead::too_large)
        throw RunRecordError(file, "is larger than " + io::size_cap_words(max_bytes) + ": not a run's evaluation");
    json document;
    try {
        document = json::parse(text.text);
    } catch (const json::parse_error&) {
        throw RunRecordError(file, "is damaged: it is not valid JSON");
    }
    if (!document.is_object() || document.value("format", "") != evaluation_format)
        throw RunRecordError(file, "is not a run evaluation of Backprop Studio");
    if (!document["version"].is_number_integer() || document["version"].get<int>() > evaluation_version)
        throw RunRecordError(file, "was written by a newer Backprop Studio (format version " +
                                       document["version"].dump() + "); update to read it");
    RunEvaluation evaluation;
    try {
        evaluation.class_names = document.at("classes").get<std::vector<std::string>>();
        const std::size_t classes = evaluation.class_names.size();
        if (classes == 0) throw RunRecordError(file, "names no classes");
        if (document.contains("test")) {
            const json& split = document["test"];
            SampleEvaluation test;
            test.confusion = matrix_of(split.at("confusion"), classes, file, "the test split's confusion matrix");
            test.samples = read_samples(folder / samples_name);
            // The samples must add up to the matrix: otherwise one of the two files was replaced.
            ConfusionMatrix recounted(static_cast<int>(classes));
            if (static_cast<std::size_t>(test.samples.classes) != classes)
                throw RunRecordError(folder / samples_name, "has " + std::to_string(test.samples.classes) +
                                                                " classes where evaluation.json has " +
                                                                std::to_string(classes));
            double loss = 0;
            for (std::size_t i = 0; i < test.samples.size(); ++i) {
                recounted.add(test.samples.labels[i], test.samples.predicted[i]);
                loss += test.samples.losses[i];
            }
            if (recounted != test.confusion)
                throw RunRecordError(folder / samples_name, "does not match the confusion matrix in evaluation.json");
            test.overall.samples = test.samples.size();
            test.overall.accuracy = test.samples.size() == 0 ? 0.0
                                                             : static_cast<double>(recounted.correct()) /
                                                                   static_cast<double>(test.samples.size());
            test.overall.loss = test.samples.size() == 0 ? 0.0 : loss / static_cast<double>(test.samples.size());
            evaluation.test = std::move(test);
        }
        for (const json& epoch : document.value("validation", json::array())) {
            const int number = epoch.at("epoch").get<int>();
            evaluation.validation.push_back(
                {number, matrix_of(epoch.at("confusion"), classes, file,
                                   "epoch " + std::to_string(number) + "'s validation confusion matrix")});
        }
    } catch (const json::exception& problem) {
        throw RunRecordError(file, std::string("is damaged: ") + problem.what());
    }
    return evaluation;
}

}  // namespace bps::session
