#pragma once
// What the Inside tab draws, made from what a request answered (plain values, on the UI thread):
// the chosen layer's filters as tiles, the table of every layer's figures, and one image's
// activations in every layer. The choices a learner would not make by hand are made here: which
// weights are pictures (a Conv2D kernel; a first layer on colour images in colour; a first Dense
// layer's weights as images of the input) and which layers' outputs a replayed epoch shows exactly.
#include <QString>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/io/weights_file.h"
#include "engine/project/project.h"
#include "engine/runs/inside_figures.h"
#include "engine/runs/model_card.h"
#include "engine/session/predictor.h"
#include "ui/inside/inside_panel.h"

namespace bps::app {

// What a request answers.
struct InsideAnswer {
    project::Project project;
    session::ModelCard card;
    std::shared_ptr<const std::vector<io::NamedArray>> weights;
    std::map<std::string, session::ValueFigures> weight_figures;    // by parameter name
    std::map<std::string, session::ValueFigures> gradient_figures;  // by parameter name, when known
    std::vector<session::LayerOutput> layers;                       // shapes, execution order
    std::vector<std::string> exact_layers;                          // whose outputs are the epoch's
    struct Image {
        QString title;
        std::vector<session::LayerOutput> outputs;  // every layer
    };
    std::vector<Image> images;
    std::vector<int> replay_epochs;  // the run's, for the slider
    int test_images = 0;
    std::vector<ui::ParameterHistory> histories;
    bool live = false;
    std::size_t live_batches = 0;
};

struct FilterPicture {
    std::optional<ui::FilterSet> filters;
    QString reason;  // why there are none
};
FilterPicture filters_of(const InsideAnswer& answer, const QString& layer);

std::vector<ui::LayerFiguresRow> figure_rows(const InsideAnswer& answer);

// Image `image`'s outputs, one set per layer; a layer a replayed epoch cannot show exactly comes
// with no values and its reason as the title.
ui::InsideImageActivations image_activations(const InsideAnswer& answer, std::size_t image);

}  // namespace bps::app
