#pragma once
// The command line as a list of words, with the flags a command accepts taken off it.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace bps::cli {

// A usage mistake: the CLI prints it with the command's help and exits with status 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// `text` as a whole number >= minimum; UsageError "NAME needs a positive whole number, not 'x'"
// (or "a whole number of at least N").
int parse_whole_number(const std::string& text, const std::string& name, int minimum = 1);

class Arguments {
public:
    explicit Arguments(std::vector<std::string> words) : words_(std::move(words)) {}

    // Removes "--name" and returns whether it was there.
    bool take_flag(const std::string& name);
    // Removes "--name VALUE" or "--name=VALUE" and returns VALUE.
    std::optional<std::string> take_option(const std::string& name);
    // Removes and returns the first remaining word, if any.
    std::optional<std::string> take_word();
    // Removes "--name N" and returns N, a whole number >= minimum (UsageError otherwise).
    std::optional<int> take_whole_number(const std::string& name, int minimum = 1);
    // Throws UsageError naming the first word nobody took.
    void expect_nothing_left() const;

private:
    std::vector<std::string> words_;
};

}  // namespace bps::cli
