#pragma once
// The file a failed run saved its weights in, as its message names it: "... are saved in R (W is
// written only by a run that ends well)", W being the file the run was to save to.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

namespace bps::test {

inline std::filesystem::path rescue_named(const std::string& output, const std::filesystem::path& wanted) {
    const std::string tail = " (" + wanted.string() + " is written only by a run that ends well)";
    const std::string lead = " are saved in ";
    const std::size_t end = output.find(tail);
    REQUIRE(end != std::string::npos);
    const std::size_t start = output.rfind(lead, end);
    REQUIRE(start != std::string::npos);
    return output.substr(start + lead.size(), end - start - lead.size());
}

}  // namespace bps::test
