#pragma once
// What "the same graph" means in the editor's tests: a project's layers, parameters, edges and
// loss, as project JSON, with everything that is not the graph (canvas positions, name and
// description, dataset, training settings, unknown fields) taken from `reference`, so that the
// JSON of `built` equals the reference's exactly when the graphs do.
#include <string>

#include "engine/project/project.h"

namespace bps::test {

inline std::string graph_json(project::Project built, const project::Project& reference) {
    for (std::size_t i = 0; i < built.network.layers.size() && i < reference.network.layers.size(); ++i)
        built.network.layers[i].position = reference.network.layers[i].position;
    built.name = reference.name;
    built.description = reference.description;
    built.document = reference.document;
    built.dataset = reference.dataset;
    built.training = reference.training;
    return project::project_to_json(built);
}

}  // namespace bps::test
