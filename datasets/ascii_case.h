#pragma once
// Lower-casing of the ASCII names the datasets code compares: dataset ids, URL schemes and
// SHA-256 digests, none of which is locale-dependent text.
#include <string>
#include <string_view>

namespace bps::datasets {

std::string ascii_lowercase(std::string_view text);

}  // namespace bps::datasets
