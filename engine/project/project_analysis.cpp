// A project's graph checked against its dataset, through the one graph analysis every part of the
// program uses.
#include "engine/project/project.h"

namespace bps::project {

model::GraphAnalysis analyse_project(const Project& project, const datasets::ImageShape& input, int classes) {
    model::NetworkSpec spec = project.network;
    spec.input = Shape{1, input.channels, input.height, input.width};
    model::GraphAnalysis analysis = model::analyse_graph(spec);
    // Only a classifier needs one output per class; a regression's output is whatever it predicts.
    if (spec.loss == model::LossKind::softmax_cross_entropy) model::check_output_classes(analysis, classes);
    return analysis;
}

}  // namespace bps::project
