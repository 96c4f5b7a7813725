#pragma once
// The command line as a list of words, with the flags a command accepts taken off it.
#include <cstdint>
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
    // Removes "--name FILE" and returns FILE; an empty name ('') is a UsageError, since it would
    // silently save nothing.
    std::optional<std::string> take_file_option(const std::string& name);
    // Removes "--name N" and returns N, a whole number >= minimum (UsageError otherwise).
    std::optional<int> take_whole_number(const std::string& name, int minimum = 1);
    // Removes "--name X" and returns X, a number above 0 ("0.01", "1e-3"); UsageError otherwise.
    std::optional<double> take_positive_number(const std::string& name);
    // Removes "--name N" and returns N, any whole number from 0 to 2^64-1 (a seed).
    std::optional<std::uint64_t> take_unsigned(const std::string& name);
    // Removes and returns every remaining word that does not start with "--".
    std::vector<std::string> take_words();
    // Throws UsageError naming the first word nobody took.
    void expect_nothing_left() const;

private:
    std::vector<std::string> words_;
};

}  // namespace bps::cli
