#pragma once
// What a network is before any device is involved: the layer graph checked and put in execution
// order, and per layer the output shape, parameter count, FLOPs and activation memory. The
// project editor, `backprop summary` and Network all read the graph through this one analysis,
// so a learner sees the same message whichever of them finds the problem.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/model/graph_report.h"
#include "engine/model/network_spec.h"

namespace bps::model {

// A network that cannot be built: the message names the layer and says what to change, in a
// learner's words ("Dense 'fc1' needs a flat input; add a Flatten before it").
class ModelError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

struct LayerAnalysis {
    LayerSpec spec;
    std::vector<int> inputs;     // indices into GraphAnalysis::layers (always earlier ones)
    Shape output;                // per sample (n = 1)
    std::size_t parameters = 0;  // trainable and non-trainable (BatchNorm's running statistics)
    std::size_t trainable_parameters = 0;
    double flops = 0;                  // forward pass, per sample; a multiply-add counts as 2
    std::size_t activation_bytes = 0;  // this layer's output, per sample (0 for Flatten: it is a view)
};

struct GraphAnalysis {
    std::vector<LayerAnalysis> layers;  // execution (topological) order; the last is the output
    std::size_t parameters() const;
    std::size_t trainable_parameters() const;
    double flops() const;                  // per sample, forward
    std::size_t activation_bytes() const;  // per sample, all outputs together
};

// Checks names, connections, cycles and shapes; throws ModelError with the first problem of
// analyse_graph_report (graph_report.h), which finds them all without throwing.
GraphAnalysis analyse_graph(const NetworkSpec& spec);

// The report of `spec` as an analysis in execution order; throws ModelError with the report's
// first problem when it has any.
GraphAnalysis checked_analysis(const NetworkSpec& spec, const GraphReport& report);

}  // namespace bps::model
