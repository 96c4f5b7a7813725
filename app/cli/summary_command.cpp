// backprop summary: the network as a table, like Keras's model.summary(), with what each layer
// costs per image. Needs no device and reads no image.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/printable.h"
#include "app/cli/project_argument.h"
#include "engine/base/number_text.h"

namespace bps::cli {

const char* const summary_help =
    "usage: backprop summary PROJECT\n"
    "\n"
    "Prints the project's network layer by layer: output shape (channels, height, width, without\n"
    "the batch), parameters, forward FLOPs and activation memory per image, then the totals.\n"
    "PROJECT is a project file or a shipped example: mlp, cnn or cifar.\n"
    "A network that cannot work is reported with the layer and what to change.\n";

int run_summary(Arguments& arguments) {
    const std::optional<std::string> word = arguments.take_word();
    arguments.expect_nothing_left();
    const OpenedProject opened = open_project(word);
    const session::DataFacts facts = session::project_data_facts(opened.project.dataset);
    const model::GraphAnalysis analysis = check_project(opened, facts);

    const std::string name = printable(opened.project.name.empty() ? opened.source : opened.project.name);
    std::cout << "Project '" << name << "' on " << facts.title << " (" << facts.shape.to_string() << ", "
              << facts.class_count << " classes)\n\n";
    std::ostringstream table;
    table << std::left << std::setw(34) << "Layer (type)" << std::setw(16) << "Output shape" << std::right
          << std::setw(12) << "Parameters" << std::setw(15) << "FLOPs" << std::setw(12) << "Memory"
          << "\n";
    table << std::string(89, '=') << "\n";
    for (const model::LayerAnalysis& layer : analysis.layers) {
        const std::string title = printable(layer.spec.name) + " (" + model::layer_type_name(layer.spec.type) + ")";
        table << std::left << std::setw(34) << title << std::setw(16) << layer.output.sample_text() << std::right
              << std::setw(12) << session::format_thousands(layer.parameters) << std::setw(15)
              << session::format_flops(layer.flops) << std::setw(12) << session::format_bytes(layer.activation_bytes)
              << "\n";
    }
    table << std::string(89, '=') << "\n";
    std::cout << table.str();
    const std::size_t parameters = analysis.parameters();
    const std::size_t trainable = analysis.trainable_parameters();
    const int batch = opened.project.training.batch_size;
    std::cout << "Total parameters: " << session::format_thousands(parameters) << " ("
              << session::format_bytes(parameters * sizeof(float)) << ")\n"
              << "Trainable parameters: " << session::format_thousands(trainable) << "\n"
              << "Non-trainable parameters: " << session::format_thousands(parameters - trainable) << "\n"
              << "Forward pass per image: " << session::format_flops(analysis.flops()) << "\n"
              << "Activations per image: " << session::format_bytes(analysis.activation_bytes()) << " (a batch of "
              << batch << ": " << session::format_bytes(analysis.activation_bytes() * static_cast<std::size_t>(batch))
              << ")\n";
    return exit_ok;
}

}  // namespace bps::cli
