#pragma once
// Where a JSON text stops being JSON, in the words a learner can act on: the line and column, and
// what nlohmann's parser found there. Shared by every reader of our JSON files (projects, run
// receipts), so they all point at the damage the same way.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace bps::io {

struct JsonDamage {
    std::size_t line = 1, column = 1;  // 1-based
    std::string what;                  // "unexpected '}'; expected string literal"
};

JsonDamage json_damage(std::string_view text, const nlohmann::json::parse_error& error);

}  // namespace bps::io
