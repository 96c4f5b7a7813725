#include "app/cli/file_clashes.h"

#include "app/cli/arguments.h"
#include "engine/base/same_file.h"

namespace bps::cli {

void refuse_clashing_files(const std::vector<NamedFile>& outputs, const std::vector<NamedFile>& inputs,
                           const std::string& thing) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        if (outputs[i].file.empty()) continue;
        for (const NamedFile& input : inputs)
            if (!input.file.empty() && io::same_file(outputs[i].file, input.file))
                throw UsageError(outputs[i].name + " " + outputs[i].file.string() + " is " + input.name +
                                 " that this command reads; write the " + thing + " under another name");
        for (std::size_t j = 0; j < i; ++j)
            if (!outputs[j].file.empty() && io::same_file(outputs[i].file, outputs[j].file))
                throw UsageError(outputs[j].name + " and " + outputs[i].name + " would both write " +
                                 outputs[i].file.string() + "; give each " + thing + " its own name");
    }
}

}  // namespace bps::cli
