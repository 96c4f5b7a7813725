#include "engine/runs/model_card.h"

#include <nlohmann/json.hpp>

#include "engine/io/weights_file.h"

namespace bps::session {

ModelCard model_card_for(const std::string& project, const datasets::Dataset& train,
                         const datasets::Normalization& normalization) {
    return ModelCard{project, train.shape, train.class_names, normalization};
}

std::string model_card_json(const ModelCard& card) {
    nlohmann::json json;
    json["project"] = card.project;
    json["shape"] = {card.shape.channels, card.shape.height, card.shape.width};
    json["class_names"] = card.class_names;
    json["normalization"] = {{"mean", card.normalization.mean}, {"stddev", card.normalization.stddev}};
    // A class folder's name need not be UTF-8 (file names are bytes on Linux); such bytes become
    // U+FFFD rather than failing the save at the end of a run. Labels are indices, so predictions
    // are unaffected; only the name shown changes.
    return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

ModelCard parse_model_card(const std::string& text, const std::string& source) {
    try {
        const nlohmann::json json = nlohmann::json::parse(text);
        ModelCard card;
        card.project = json.at("project").get<std::string>();
        const std::vector<int> shape = json.at("shape").get<std::vector<int>>();
        if (shape.size() != 3 || shape[0] < 1 || shape[1] < 1 || shape[2] < 1) throw std::invalid_argument("bad shape");
        card.shape = datasets::ImageShape{shape[0], shape[1], shape[2]};
        card.class_names = json.at("class_names").get<std::vector<std::string>>();
        card.normalization.mean = json.at("normalization").at("mean").get<std::vector<float>>();
        card.normalization.stddev = json.at("normalization").at("stddev").get<std::vector<float>>();
        if (card.normalization.mean.size() != card.normalization.stddev.size() ||
            (!card.normalization.mean.empty() &&
             card.normalization.mean.size() != static_cast<std::size_t>(card.shape.channels)))
            throw std::invalid_argument("bad normalisation");
        return card;
    } catch (const std::exception&) {
        throw io::WeightsFileError(source,
                                   "does not say which images and classes it was trained on; save it again with "
                                   "'backprop train --save-weights'");
    }
}

}  // namespace bps::session
