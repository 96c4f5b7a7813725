// A project's graph checked against its dataset, through the one graph analysis every part of the
// program uses.
#include "engine/project/project.h"

namespace bps::project {

model::NetworkSpec project_network(const Project& project, const datasets::ImageShape& input) {
    model::NetworkSpec spec = project.network;
    spec.input = Shape{1, input.channels, input.height, input.width};
    return spec;
}

model::GraphReport project_report(const Project& project, const datasets::ImageShape& input,
                                  std::optional<int> classes) {
    // Only a classifier needs one output per class; a regression's output is whatever it predicts,
    // and the report checks classes for classifiers only.
    return model::analyse_graph_report(project_network(project, input), classes);
}

model::GraphAnalysis analyse_project(const Project& project, const datasets::ImageShape& input, int classes) {
    const model::NetworkSpec spec = project_network(project, input);
    return model::checked_analysis(spec, model::analyse_graph_report(spec, classes));
}

}  // namespace bps::project
