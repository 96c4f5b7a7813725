#include "engine/session/results_tables.h"

#include <stdexcept>

#include "engine/base/csv_text.h"

namespace bps::session {

namespace {

std::string name_of(const std::vector<std::string>& names, int label) {
    const auto index = static_cast<std::size_t>(label);
    return csv_field(index < names.size() ? names[index] : std::to_string(label));
}

double share(std::size_t part, std::size_t whole) {
    return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

// Appends ",text": building rows with `"," + std::string` trips GCC 12's -Wrestrict false alarm.
void add_cell(std::string& out, const std::string& text) {
    out += ',';
    out += text;
}

}  // namespace

std::string confusion_csv(const ConfusionMatrix& matrix, const std::vector<std::string>& class_names) {
    std::string out = "true \\ predicted";
    for (int p = 0; p < matrix.classes; ++p) add_cell(out, name_of(class_names, p));
    out += ",total\n";
    for (int t = 0; t < matrix.classes; ++t) {
        out += name_of(class_names, t);
        for (int p = 0; p < matrix.classes; ++p) add_cell(out, std::to_string(matrix.count(t, p)));
        add_cell(out, std::to_string(matrix.support(t)));
        out += '\n';
    }
    out += "total";
    for (int p = 0; p < matrix.classes; ++p) add_cell(out, std::to_string(matrix.predicted(p)));
    add_cell(out, std::to_string(matrix.total()));
    out += '\n';
    return out;
}

std::string class_figures_csv(const ConfusionMatrix& matrix, const std::vector<std::string>& class_names) {
    std::string out = "class,precision,recall,f1,support\n";
    const std::vector<ClassFigures> figures = class_figures(matrix);
    for (int c = 0; c < matrix.classes; ++c) {
        const ClassFigures& f = figures[static_cast<std::size_t>(c)];
        out += name_of(class_names, c);
        add_cell(out, csv_fixed(f.precision, 4));
        add_cell(out, csv_fixed(f.recall, 4));
        add_cell(out, csv_fixed(f.f1, 4));
        add_cell(out, std::to_string(f.support));
        out += '\n';
    }
    out += "accuracy,,";
    add_cell(out, csv_fixed(share(matrix.correct(), matrix.total()), 4));
    add_cell(out, std::to_string(matrix.total()));
    out += "\nchance,,";
    add_cell(out, csv_fixed(matrix.classes > 0 ? 1.0 / matrix.classes : 0.0, 4));
    out += ",\n";
    return out;
}

std::string confused_pairs_csv(const std::vector<ConfusedPair>& pairs, const std::vector<std::string>& class_names) {
    std::string out = "true,predicted,count,share\n";
    for (const ConfusedPair& pair : pairs) {
        out += name_of(class_names, pair.true_class);
        add_cell(out, name_of(class_names, pair.predicted));
        add_cell(out, std::to_string(pair.count));
        add_cell(out, csv_fixed(pair.share, 4));
        out += '\n';
    }
    return out;
}

std::string samples_csv(const SampleResults& samples, const std::vector<std::size_t>& shown,
                        const std::vector<std::string>& class_names) {
    std::string out = "sample,true,predicted,loss,probability_of_true,probability_of_predicted\n";
    for (const std::size_t sample : shown) {
        if (sample >= samples.size())
            throw std::out_of_range("sample " + std::to_string(sample) + " is outside the " +
                                    std::to_string(samples.size()) + " samples evaluated");
        const std::span<const float> probabilities = samples.probabilities_of(sample);
        const int label = samples.labels[sample], predicted = samples.predicted[sample];
        out += std::to_string(sample);
        add_cell(out, name_of(class_names, label));
        add_cell(out, name_of(class_names, predicted));
        add_cell(out, csv_fixed(samples.losses[sample], 4));
        add_cell(out, csv_fixed(probabilities[static_cast<std::size_t>(label)], 4));
        add_cell(out, csv_fixed(probabilities[static_cast<std::size_t>(predicted)], 4));
        out += '\n';
    }
    return out;
}

}  // namespace bps::session
