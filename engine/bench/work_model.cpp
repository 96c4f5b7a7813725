#include "engine/bench/work_model.h"

#include <vector>

#include "engine/model/graph_analysis.h"

namespace bps::bench {

StepWork training_step_work(const model::NetworkSpec& spec, int batch_size) {
    const model::GraphAnalysis graph = model::analyse_graph(spec);
    const double batch = batch_size;
    constexpr double float_bytes = sizeof(float);
    // learns[i]: layer i or a layer before it has trainable parameters, so a gradient reaches it.
    std::vector<bool> learns(graph.layers.size(), false);
    StepWork work;
    for (std::size_t i = 0; i < graph.layers.size(); ++i) {
        const model::LayerAnalysis& layer = graph.layers[i];
        bool upstream_learns = false;
        double input_values = 0;
        for (int from : layer.inputs) {
            upstream_learns = upstream_learns || learns[static_cast<std::size_t>(from)];
            input_values += static_cast<double>(graph.layers[static_cast<std::size_t>(from)].output.per_sample());
        }
        const double parameters = static_cast<double>(layer.trainable_parameters);
        learns[i] = upstream_learns || parameters > 0;
        if (layer.inputs.empty()) continue;  // the input layer: the batch is already there

        work.flops += layer.flops * batch;
        if (parameters > 0) work.flops += layer.flops * batch + 4 * parameters;  // gradient; v = m v - lr g, w += v
        if (upstream_learns) work.flops += layer.flops * batch;

        if (layer.activation_bytes == 0) continue;  // a view: nothing moves
        const double output_values = static_cast<double>(layer.output.per_sample());
        double values = (input_values + output_values) * batch;            // forward
        if (learns[i]) values += (output_values + input_values) * batch;   // backward reads dy and x
        if (upstream_learns) values += input_values * batch + parameters;  // writes dx, reads W for it
        values += parameters;                                              // forward reads W
        if (parameters > 0) values += parameters + 5 * parameters;         // dW; the update
        work.bytes += values * float_bytes;
    }
    return work;
}

StepRates step_rates(const StepWork& work, int batch_size, double images_per_s, double best_gflops_per_s,
                     double copy_gb_per_s) {
    StepRates rates;
    if (batch_size <= 0) return rates;
    const double steps_per_s = images_per_s / batch_size;
    rates.gflops_per_s = work.flops * steps_per_s / 1e9;
    rates.gb_per_s = work.bytes * steps_per_s / 1e9;
    if (best_gflops_per_s > 0) rates.of_sgemm_peak = rates.gflops_per_s / best_gflops_per_s;
    if (copy_gb_per_s > 0) rates.of_bandwidth = rates.gb_per_s / copy_gb_per_s;
    return rates;
}

}  // namespace bps::bench
