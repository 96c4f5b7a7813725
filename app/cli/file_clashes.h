#pragma once
// What a command reads and what it writes, checked before any work: no output may replace one of
// the command's inputs (the weights a script is made from, the checkpoint a run resumes) nor
// another output of the same command. A mistaken command line must never cost earlier good work.
#include <filesystem>
#include <string>
#include <vector>

namespace bps::cli {

// A file and what it is to the command: an option ("--save-weights") or a role ("the checkpoint").
struct NamedFile {
    std::filesystem::path file;
    std::string name;
};

// Throws UsageError "--pytorch W.h5 is the weights file that this command reads; write the script
// under another name" or "--pytorch and --keras would both write F; give each script its own name".
// Empty paths are ignored. `thing` names what an output holds ("script", "picture", "file").
void refuse_clashing_files(const std::vector<NamedFile>& outputs, const std::vector<NamedFile>& inputs,
                           const std::string& thing);

}  // namespace bps::cli
