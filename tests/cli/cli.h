#pragma once
// The `backprop` executable under test, as a quoted command prefix.
#include <string>

namespace bps::test {
// Debian's Python, which has h5py, torch and onnx (the python3 on PATH may be another).
inline const std::string python = "/usr/bin/python3";

inline std::string backprop(const std::string& arguments) {
    return "\"" BACKPROP_CLI "\" " + arguments;
}
}  // namespace bps::test
