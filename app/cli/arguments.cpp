#include "cli/arguments.h"

#include <algorithm>
#include <charconv>

namespace bps::cli {

bool Arguments::take_flag(const std::string& name) {
    const auto found = std::find(words_.begin(), words_.end(), name);
    if (found == words_.end()) return false;
    words_.erase(found);
    return true;
}

std::optional<std::string> Arguments::take_option(const std::string& name) {
    for (auto word = words_.begin(); word != words_.end(); ++word) {
        if (*word == name) {
            if (std::next(word) == words_.end()) throw UsageError(name + " needs a value");
            std::string value = *std::next(word);
            words_.erase(word, word + 2);
            return value;
        }
        if (word->rfind(name + "=", 0) == 0) {
            std::string value = word->substr(name.size() + 1);
            words_.erase(word);
            return value;
        }
    }
    return std::nullopt;
}

std::optional<std::string> Arguments::take_word() {
    if (words_.empty()) return std::nullopt;
    std::string word = words_.front();
    words_.erase(words_.begin());
    return word;
}

int parse_whole_number(const std::string& text, const std::string& name, int minimum) {
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size() && value >= minimum) return value;
    if (minimum == 1) throw UsageError(name + " needs a positive whole number, not '" + text + "'");
    throw UsageError(name + " needs a whole number of at least " + std::to_string(minimum) + ", not '" + text + "'");
}

std::optional<int> Arguments::take_whole_number(const std::string& name, int minimum) {
    const std::optional<std::string> text = take_option(name);
    if (!text) return std::nullopt;
    return parse_whole_number(*text, name, minimum);
}

void Arguments::expect_nothing_left() const {
    if (!words_.empty()) throw UsageError("unexpected argument '" + words_.front() + "'");
}

}  // namespace bps::cli
