#include "app/cli/file_clashes.h"

#include "app/cli/arguments.h"

namespace bps::cli {

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
    std::error_code error;
    if (std::filesystem::equivalent(a, b, error)) return true;
    error.clear();
    const std::filesystem::path first = std::filesystem::weakly_canonical(std::filesystem::absolute(a, error), error);
    if (error) return false;
    const std::filesystem::path second = std::filesystem::weakly_canonical(std::filesystem::absolute(b, error), error);
    return !error && first == second;
}

void refuse_clashing_files(const std::vector<NamedFile>& outputs, const std::vector<NamedFile>& inputs,
                           const std::string& thing) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        if (outputs[i].file.empty()) continue;
        for (const NamedFile& input : inputs)
            if (!input.file.empty() && same_file(outputs[i].file, input.file))
                throw UsageError(outputs[i].name + " " + outputs[i].file.string() + " is " + input.name +
                                 " that this command reads; write the " + thing + " under another name");
        for (std::size_t j = 0; j < i; ++j)
            if (!outputs[j].file.empty() && same_file(outputs[i].file, outputs[j].file))
                throw UsageError(outputs[j].name + " and " + outputs[i].name + " would both write " +
                                 outputs[i].file.string() + "; give each " + thing + " its own name");
    }
}

}  // namespace bps::cli
