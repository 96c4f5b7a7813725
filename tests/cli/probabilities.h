#pragma once
// Comparing class probabilities printed by two programs (`backprop predict --json`, an exported
// script, an independent reader) as JSON lines {"file": ..., "probabilities": [...]}.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace bps::test {

// Every image's probabilities from JSON lines {"file": ..., "probabilities": [...]}.
inline std::map<std::string, std::vector<double>> probabilities_of(const std::string& output) {
    std::map<std::string, std::vector<double>> by_file;
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        if (line.empty()) continue;
        const nlohmann::json json = nlohmann::json::parse(line);
        by_file[json.at("file").get<std::string>()] = json.at("probabilities").get<std::vector<double>>();
    }
    return by_file;
}

// The largest difference between two programs' probabilities for the same images; every image and
// class must be there in both.
inline double largest_difference(const std::map<std::string, std::vector<double>>& ours,
                                 const std::map<std::string, std::vector<double>>& theirs) {
    REQUIRE(ours.size() == theirs.size());
    double largest = 0;
    for (const auto& [file, row] : ours) {
        REQUIRE(theirs.count(file) == 1);
        REQUIRE(theirs.at(file).size() == row.size());
        for (std::size_t c = 0; c < row.size(); ++c) largest = std::max(largest, std::abs(row[c] - theirs.at(file)[c]));
    }
    return largest;
}

}  // namespace bps::test
