#pragma once
// A run's evaluation, kept in its folder beside the receipt (run_record.h), so that reopening a
// project shows what a run got wrong without recomputing it:
//
//     evaluation.json  the classes; the test split's figures, confusion matrix, per-class
//                      precision, recall, F1 and support, and most-confused pairs; the
//                      validation split's confusion matrix after every epoch
//     samples.bin      every test sample's label, predicted class, loss and probabilities
//
// samples.bin is little-endian: the 8 bytes "BPSMPL01", the sample count and the class count as
// uint32, then per sample an int32 label, an int32 predicted class, a float32 loss and
// float32 probabilities, one per class. numpy reads it with
//     np.fromfile(f, dtype=[("label", "<i4"), ("predicted", "<i4"), ("loss", "<f4"),
//                           ("probabilities", "<f4", (classes,))], offset=16).
// Both are written atomically; a run folder from before evaluations were kept has neither.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/runs/confusion_matrix.h"
#include "engine/session/sample_evaluation.h"

namespace bps::session {

struct EpochConfusion {
    int epoch = 0;  // 1-based: after the first epoch is 1
    ConfusionMatrix confusion;
};

struct RunEvaluation {
    std::vector<std::string> class_names;
    std::optional<SampleEvaluation> test;  // absent when the run ended before its test
    std::vector<EpochConfusion> validation;
};

// Throws RunRecordError naming the file that cannot be written. Writes samples.bin first, so a
// crash between the two leaves the old evaluation.json or none, never one without its samples.
void write_run_evaluation(const std::filesystem::path& folder, const RunEvaluation& evaluation);

// Nothing when the folder has no evaluation.json (a run from before evaluations were kept, or one
// that ended before its first); RunRecordError naming the file for one that is damaged or does
// not match its samples.
std::optional<RunEvaluation> read_run_evaluation(const std::filesystem::path& folder);

}  // namespace bps::session
