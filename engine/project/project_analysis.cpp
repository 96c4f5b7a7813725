// A project's graph checked against its dataset, through the one graph analysis every part of the
// program uses.
#include "engine/project/project.h"

namespace bps::project {

namespace {
model::NetworkSpec network_on(const Project& project, const datasets::ImageShape& input) {
    model::NetworkSpec spec = project.network;
    spec.input = Shape{1, input.channels, input.height, input.width};
    return spec;
}
}  // namespace

model::GraphReport project_report(const Project& project, const datasets::ImageShape& input,
                                  std::optional<int> classes) {
    // Only a classifier needs one output per class; a regression's output is whatever it predicts,
    // and the report checks classes for classifiers only.
    return model::analyse_graph_report(network_on(project, input), classes);
}

model::GraphAnalysis analyse_project(const Project& project, const datasets::ImageShape& input, int classes) {
    const model::NetworkSpec spec = network_on(project, input);
    return model::checked_analysis(spec, model::analyse_graph_report(spec, classes));
}

}  // namespace bps::project
