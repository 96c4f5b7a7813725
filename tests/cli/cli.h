#pragma once
// The `backprop` executable under test, as a quoted command prefix.
#include <string>

namespace bps::test {
inline std::string backprop(const std::string& arguments) {
    return "\"" BACKPROP_CLI "\" " + arguments;
}
}  // namespace bps::test
