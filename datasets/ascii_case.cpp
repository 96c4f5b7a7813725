#include "datasets/ascii_case.h"

#include <algorithm>
#include <cctype>

namespace bps::datasets {

std::string ascii_lowercase(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

}  // namespace bps::datasets
