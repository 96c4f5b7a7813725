// backprop bench: the time of one training step of a reference network on random data.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/terminal.h"
#include "engine/bench/reference_networks.h"
#include "engine/bench/step_timing.h"
#include "engine/cl/cache_location.h"
#include "engine/cl/device.h"
#include "engine/cl/device_use_mark.h"
#include "engine/cl/kernel_cache.h"
#include "engine/ops/runtime.h"
#include "engine/session/number_text.h"

namespace bps::cli {

const char* const bench_help =
    "usage: backprop bench [--net mlp|cnn|cifar] [--batch N] [--steps N] [--layers] [--device INDEX|NAME]\n"
    "                      [--json]\n"
    "\n"
    "Times the training step of a reference network (shared/bench/REFERENCE.md) on random\n"
    "data: forward with the loss, forward and backward, and the whole step with the SGD update.\n"
    "Each figure is the median over --steps steps (default 10) after 3 warm-up steps; every\n"
    "step waits for the device, so it is the time of one whole batch.\n"
    "\n"
    "  --net     the reference network (default cnn)\n"
    "  --batch   samples per batch (default 64)\n"
    "  --layers  also the forward and backward time of every layer (one step that waits\n"
    "            after each layer, so the parts add up to more than a normal step)\n"
    "  --json    one JSON object instead of the table\n";

int run_bench(Arguments& arguments) {
    const std::string net = arguments.take_option("--net").value_or("cnn");
    bench::StepTimingOptions options;
    options.batch_size = arguments.take_whole_number("--batch").value_or(64);
    options.timed_steps = arguments.take_whole_number("--steps").value_or(10);
    const std::string request = cl::device_request(arguments.take_option("--device"));
    const bool as_json = arguments.take_flag("--json");
    options.per_layer = arguments.take_flag("--layers");
    arguments.expect_nothing_left();
    model::NetworkSpec spec;
    try {
        spec = bench::reference_network(net);
    } catch (const std::invalid_argument& error) {
        throw UsageError(error.what());
    }

    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    const cl::DeviceInfo& device = devices.at(cl::select_device(devices, request));
    cl::DeviceUseMark in_use(cl::cache_root(), device);
    for (const std::string& note : in_use.notes()) print_note(note);
    if (!in_use.skipped().empty()) throw std::runtime_error(in_use.skipped());
    cl::KernelCache cache(cl::kernel_cache_dir());
    ops::Runtime runtime(device, &cache);
    runtime.build_programs({});  // before the timing, so that a crash there is the compiler's
    in_use.built();
    const bench::StepTiming timing = bench::time_training_step(runtime, spec, options);
    for (const std::string& note : runtime.cache_notes()) print_note(note);

    if (as_json) {
        nlohmann::json layers = nlohmann::json::array();
        for (const model::LayerTiming& layer : timing.layers)
            layers.push_back(
                {{"name", layer.name}, {"forward_ms", layer.forward_ms}, {"backward_ms", layer.backward_ms}});
        std::cout << nlohmann::json{{"layers", layers},
                                    {"net", net},
                                    {"device", device.name},
                                    {"batch", options.batch_size},
                                    {"steps", options.timed_steps},
                                    {"forward_ms", timing.forward_ms},
                                    {"forward_backward_ms", timing.forward_backward_ms},
                                    {"step_ms", timing.step_ms},
                                    {"images_per_s", timing.images_per_s},
                                    {"first_step_ms", timing.first_step_ms},
                                    {"device_bytes", timing.device_bytes},
                                    {"kernels_per_step", timing.kernels_per_step},
                                    {"gemms_per_step", timing.gemms_per_step}}
                         .dump()
                  << "\n";
        return exit_ok;
    }
    std::cout << net << ", batch " << options.batch_size << ", on " << device.name << "\n"
              << "  forward + loss             " << session::format_milliseconds(timing.forward_ms) << "\n"
              << "  forward + backward         " << session::format_milliseconds(timing.forward_backward_ms) << "\n"
              << "  whole step (with update)   " << session::format_milliseconds(timing.step_ms) << "  ("
              << static_cast<long long>(timing.images_per_s) << " images/s)\n"
              << "  first step (kernel builds) " << session::format_milliseconds(timing.first_step_ms) << "\n"
              << "  device memory              " << session::format_bytes(timing.device_bytes) << "\n"
              << "  launches per step          " << timing.kernels_per_step << " kernels + " << timing.gemms_per_step
              << " CLBlast GEMMs\n";
    if (options.per_layer) {
        std::cout << "\n  layer                    forward    backward\n";
        for (const model::LayerTiming& layer : timing.layers) {
            std::string name = layer.name;
            name.resize(std::max<std::size_t>(name.size(), 24), ' ');
            std::string forward = session::format_milliseconds(layer.forward_ms);
            forward.resize(std::max<std::size_t>(forward.size(), 10), ' ');
            std::cout << "  " << name << " " << forward << " " << session::format_milliseconds(layer.backward_ms)
                      << "\n";
        }
    }
    return exit_ok;
}

}  // namespace bps::cli
