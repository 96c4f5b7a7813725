#include "app/cli/arguments.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

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

std::optional<std::string> Arguments::take_file_option(const std::string& name) {
    std::optional<std::string> file = take_option(name);
    if (file && file->empty()) throw UsageError(name + " needs a file name, not an empty one");
    return file;
}

std::optional<int> Arguments::take_whole_number(const std::string& name, int minimum) {
    const std::optional<std::string> text = take_option(name);
    if (!text) return std::nullopt;
    return parse_whole_number(*text, name, minimum);
}

std::optional<double> Arguments::take_positive_number(const std::string& name) {
    const std::optional<std::string> text = take_option(name);
    if (!text) return std::nullopt;
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(*text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text->size() || !(value > 0) || value == HUGE_VAL)
        throw UsageError(name + " needs a number above 0, not '" + *text + "'");
    return value;
}

std::optional<std::uint64_t> Arguments::take_unsigned(const std::string& name) {
    const std::optional<std::string> text = take_option(name);
    if (!text) return std::nullopt;
    const bool digits = !text->empty() && text->size() <= 20 &&
                        std::all_of(text->begin(), text->end(), [](char c) { return c >= '0' && c <= '9'; });
    std::uint64_t value = 0;
    bool fits = digits;
    for (std::size_t i = 0; fits && i < text->size(); ++i) {
        const std::uint64_t digit = static_cast<std::uint64_t>((*text)[i] - '0');
        if (value > (UINT64_MAX - digit) / 10) fits = false;
        value = value * 10 + digit;
    }
    if (!fits) throw UsageError(name + " needs a whole number from 0 to 18446744073709551615, not '" + *text + "'");
    return value;
}

std::vector<std::string> Arguments::take_words() {
    std::vector<std::string> taken, kept;
    for (std::string& word : words_) (word.rfind("--", 0) == 0 ? kept : taken).push_back(std::move(word));
    words_ = std::move(kept);
    return taken;
}

void Arguments::expect_nothing_left() const {
    if (!words_.empty()) throw UsageError("unexpected argument '" + words_.front() + "'");
}

}  // namespace bps::cli
