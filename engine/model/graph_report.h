#pragma once
// The network editor's view of a graph that may be broken: for every node, in the spec's own
// order, either its output shape and costs or what is wrong with it, with all the problems of the
// graph found at once. It never throws for a problem of the network and is cheap enough to run
// after every edit. analyse_graph (graph_analysis.h) is the same analysis, throwing the first
// problem.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/network_spec.h"
#include "engine/tensor/shape.h"

namespace bps::model {

struct NodeReport {
    // The producing nodes that exist, as indices into GraphReport::nodes (the spec's order); an
    // empty `inputs` list in the spec means the previous node.
    std::vector<int> inputs;
    // Per sample (n = 1). None when the node has a problem of its own that stops its shape, or
    // when input_has_problem.
    std::optional<Shape> output;
    bool input_has_problem = false;  // no shape because a node it reads from has none
    std::size_t parameters = 0;      // as LayerAnalysis; 0 while the shape is unknown
    std::size_t trainable_parameters = 0;
    double flops = 0;
    std::size_t activation_bytes = 0;
    // This node's own problems, in a learner's words, in the order analyse_graph would meet them.
    // A node can have a problem and still a shape ("... is not connected to the output").
    std::vector<std::string> problems;

    bool ok() const { return problems.empty() && output.has_value(); }
    // "(32, 26, 26)", or why there is none: "unknown because its input has a problem".
    std::string shape_text() const;
};

struct GraphProblem {
    std::optional<int> node;  // index into GraphReport::nodes; none for the network as a whole
    std::string message;
};

struct GraphReport {
    std::vector<NodeReport> nodes;  // one per NetworkSpec::layers entry, index-aligned
    // Problems of the network as a whole ("the network has no Input layer"), in order.
    std::vector<std::string> network_problems;
    // Every problem, node or not, in the order they were found; the first is the one
    // analyse_graph throws.
    std::vector<GraphProblem> problems;
    // The nodes that can run, each after its inputs (indices into nodes); with no problems, every
    // node and the last is the output.
    std::vector<int> execution_order;
    std::optional<int> output;  // the node the network ends in, when one can be told

    bool ok() const { return problems.empty(); }
};

// Checks names, connections, cycles, loose nodes and shapes, and, when `classes` is given, that a
// classifier gives one score per class ("the output 'fc2' has 5 units but the dataset has 10
// classes"). Throws nothing for problems of the network.
GraphReport analyse_graph_report(const NetworkSpec& spec, std::optional<int> classes = std::nullopt);

}  // namespace bps::model
