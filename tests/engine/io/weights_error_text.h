#pragma once
// What a weights-file action refused with: its WeightsFileError's text, or a sentence saying it
// threw none, so that a test compares messages rather than only the exception's type.
#include <functional>
#include <string>

#include "engine/io/weights_file.h"

namespace bps::test {

inline std::string weights_error_text(const std::function<void()>& action) {
    try {
        action();
    } catch (const io::WeightsFileError& error) {
        return error.what();
    }
    return "(no WeightsFileError was thrown)";
}

}  // namespace bps::test
