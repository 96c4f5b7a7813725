// backprop bench: training throughput of reference networks (or projects) on one device or
// several, with each device's own best figures (bandwidth, SGEMM, launch cost) beside them.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

#include "app/cli/bench_report.h"
#include "app/cli/commands.h"
#include "app/cli/program_path.h"
#include "app/cli/project_argument.h"
#include "app/cli/terminal.h"
#include "engine/bench/first_batch_timing.h"
#include "engine/bench/inspection_timing.h"
#include "engine/bench/reference_networks.h"
#include "engine/cl/cache_location.h"
#include "engine/cl/device.h"
#include "engine/cl/error.h"
#include "engine/cl/kernel_cache.h"
#include "engine/device/device_for_work.h"
#include "engine/ops/runtime.h"
#include "engine/session/number_text.h"

namespace bps::cli {

const char* const bench_help =
    "usage: backprop bench [--device all|D,...] [--nets mlp,cnn,cifar|PROJECT,...] [--batches 64,256]\n"
    "                      [--steps N] [--runs N] [--layers] [--no-first-batch] [--no-device-figures]\n"
    "                      [--inspection] [--json]\n"
    "\n"
    "Trains reference networks (shared/bench/REFERENCE.md) or projects on random data and\n"
    "reports, per device, network and batch size:\n"
    "  images/s             the median of --runs timed runs (default 3) of --steps steps each,\n"
    "                       enqueued back to back as training does, after 3 warm-up steps\n"
    "  step                 one whole step waited for on its own (median)\n"
    "  first batch          from the start of the program to the end of its first training step,\n"
    "                       with empty kernel caches (cold) and with the caches that start filled\n"
    "                       (warm); the program starts itself twice for it, in a temporary folder\n"
    "  memory, launches     the network's device memory; kernels and CLBlast GEMMs per step\n"
    "  GFLOP/s, GB/s        the step's least arithmetic and memory traffic per second, and their\n"
    "                       share of the device's best SGEMM rate and copy bandwidth\n"
    "and per device: buffer copy bandwidth, SGEMM GFLOP/s at 512, 1024 and 2048 (and 4096 on\n"
    "GPUs), checked against a reference, and the host time of a kernel launch. A device or a\n"
    "network (or a start) that fails, with a build error or out of memory, is reported with its\n"
    "error and the rest goes on; the exit status is then 1.\n"
    "\n"
    "  --device      all, or devices by index or name, separated by commas (default: the device\n"
    "                training uses)\n"
    "  --nets        reference networks or project files, separated by commas (default mlp,cnn,cifar)\n"
    "  --batches     batch sizes, separated by commas (default 64,256)\n"
    "  --steps       steps per timed run (default: as many as take about a second, 3 to 500)\n"
    "  --runs        timed runs (default 3)\n"
    "  --layers      also the forward and backward time of every layer (one step that waits\n"
    "                after each layer, so the parts add up to more than a normal step)\n"
    "  --no-first-batch     skip the cold and warm start timing\n"
    "  --no-device-figures  skip bandwidth, SGEMM and launch timing\n"
    "  --inspection  also, per network, how long looking inside it takes (median of 20 calls, on its\n"
    "                initial weights): one prediction, every layer's activations for one image, an\n"
    "                occlusion map (patch 4, stride 2) and the saliency of one class, as the studio's\n"
    "                views and `backprop inspect` ask for them\n"
    "  --json        JSON lines instead of tables: a \"device\" record per device and a \"training\"\n"
    "                record per network and batch, named as torch_reference.py's fields\n"
    "  --net, --batch       one network, one batch size (as --nets and --batches)\n";

namespace {

struct BenchNet {
    std::string name;  // the reference network, or the project's file name
    model::NetworkSpec spec;
    std::string project;  // the project file as given; empty for a reference network
};

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    for (std::string part; std::getline(stream, part, ',');)
        if (!part.empty()) parts.push_back(part);
    return parts;
}

std::vector<BenchNet> bench_nets(const std::string& list) {
    std::vector<BenchNet> nets;
    for (const std::string& name : split_commas(list)) {
        if (name == "mlp" || name == "cnn" || name == "cifar") {
            nets.push_back({name, bench::reference_network(name), {}});
            continue;
        }
        if (!std::filesystem::exists(name))
            throw UsageError("'" + name +
                             "' is neither a reference network (mlp, cnn, cifar) nor a project file that exists");
        const OpenedProject opened = open_project(name);
        const session::DataFacts facts = session::project_data_facts(opened.project.dataset);
        check_project(opened, facts);
        nets.push_back({std::filesystem::path(name).filename().string(),
                        project::project_network(opened.project, facts.shape), name});
    }
    if (nets.empty()) throw UsageError("--nets names no network");
    return nets;
}

std::vector<int> batch_sizes(const std::string& list) {
    std::vector<int> sizes;
    for (const std::string& part : split_commas(list)) sizes.push_back(parse_whole_number(part, "--batches"));
    if (sizes.empty()) throw UsageError("--batches names no batch size");
    return sizes;
}

// "all" or a comma-separated list of requests, in the order given, each device once.
std::vector<std::size_t> chosen_devices(const std::vector<cl::DeviceInfo>& devices, const std::string& request) {
    if (devices.empty()) throw cl::NoOpenClError();
    std::vector<std::size_t> chosen;
    if (request == "all") {
        for (const cl::DeviceInfo& device : devices) chosen.push_back(device.index);
        return chosen;
    }
    const std::vector<std::string> requests = split_commas(request);
    if (requests.empty()) return {cl::default_device_index(devices)};
    for (const std::string& one : requests) {
        const std::size_t index = cl::find_device(devices, one);
        if (std::find(chosen.begin(), chosen.end(), index) == chosen.end()) chosen.push_back(index);
    }
    return chosen;
}

void progress(const cl::DeviceInfo& device, const std::string& what) {
    std::cerr << "[device " << device.index << ": " << device.name << "] " << what << std::endl;
}

struct BenchPlan {
    std::vector<BenchNet> nets;
    std::vector<int> batches;
    bench::StepTimingOptions timing;
    bool first_batch = true;
    bool device_figures = true;
    bool per_layer = false;
    bool inspection = false;
    bool json = false;
};

// The inspection figures of one network on one device, printed as they come.
void print_inspection(const cl::DeviceInfo& device, const BenchNet& net, bool json) {
    progress(device, net.name + ": inspection");
    const project::Project project =
        net.project.empty() ? project::example_project(net.name) : open_project(net.project).project;
    const model::GraphAnalysis analysis = model::analyse_graph(net.spec);
    const datasets::ImageShape shape{net.spec.input.c, net.spec.input.h, net.spec.input.w};
    const int classes = static_cast<int>(analysis.layers.back().output.per_sample());
    constexpr int repeats = 20;
    const bench::InspectionTiming timing =
        bench::time_inspection(project, shape, classes, std::to_string(device.index), repeats);
    if (json) {
        nlohmann::json line = {{"record", "inspection"},
                               {"device", device.name},
                               {"net", net.name},
                               {"predict_ms", timing.predict_ms},
                               {"activations_ms", timing.activations_ms},
                               {"occlusion_ms", timing.occlusion_ms},
                               {"occlusion_positions", timing.occlusion_positions},
                               {"saliency_ms", timing.saliency_ms},
                               {"open_ms", timing.open_ms}};
        std::cout << line.dump() << std::endl;
        return;
    }
    std::cout << "inspection of " << net.name << " on " << device.name << " (median of " << repeats
              << " calls): predict " << session::format_milliseconds(timing.predict_ms)
              << ", every layer's activations " << session::format_milliseconds(timing.activations_ms)
              << ", occlusion (" << timing.occlusion_positions << " positions) "
              << session::format_milliseconds(timing.occlusion_ms) << ", saliency "
              << session::format_milliseconds(timing.saliency_ms) << "; opening "
              << session::format_milliseconds(timing.open_ms) << "\n";
}

BenchEntry run_entry(ops::Runtime& runtime, const BenchPlan& plan, const BenchNet& net, int batch) {
    const cl::DeviceInfo& device = runtime.device();
    BenchEntry entry;
    entry.net = net.name;
    entry.project = net.project;
    entry.batch = batch;
    progress(device, net.name + ", batch " + std::to_string(batch) + ": training steps");
    try {
        entry.work = bench::training_step_work(net.spec, batch);
        bench::StepTimingOptions options = plan.timing;
        options.batch_size = batch;
        options.per_layer = plan.per_layer;
        entry.timing = bench::time_training_step(runtime, net.spec, options);
    } catch (const std::exception& error) {
        entry.error = error.what();
        if (entry.error.find(device.name) == std::string::npos) entry.error += " (on " + device.name + ")";
        return entry;
    }
    if (plan.first_batch) {
        progress(device, net.name + ", batch " + std::to_string(batch) + ": first batch, cold and warm start");
        entry.first_batch = bench::time_first_batches(
            program_path(), "--device " + std::to_string(device.index) + " --nets " +
                                bench::shell_quoted(net.project.empty() ? net.name : net.project) + " --batches " +
                                std::to_string(batch));
    }
    return entry;
}

DeviceBench run_device(const cl::DeviceInfo& device, const BenchPlan& plan) {
    DeviceBench result;
    result.device = device;
    if (!device.skipped.empty()) {
        result.error = device.skipped;
        return result;
    }
    try {
        progress(device, "building kernels");
        // Before any timing, so that a crash there is the compiler's.
        device::DeviceForWork opened(device, {[](const std::string& note) { print_note(note); }, {}});
        ops::Runtime& runtime = opened.runtime();
        if (plan.device_figures) {
            result.micro = bench::measure_device(runtime, {}, [&](const std::string& what) { progress(device, what); });
        }
        if (plan.json) print_device_json(std::cout, result);
        for (const BenchNet& net : plan.nets)
            for (int batch : plan.batches) {
                result.entries.push_back(run_entry(runtime, plan, net, batch));
                if (plan.json) print_entry_json(std::cout, result, result.entries.back());
            }
    } catch (const std::exception& error) {
        result.error = error.what();
        if (plan.json) print_device_json(std::cout, result);
    }
    return result;
}

// The child of time_first_batches: one first training step, nothing printed.
int run_first_batch_child(const std::vector<cl::DeviceInfo>& devices, const std::vector<std::size_t>& chosen,
                          const BenchPlan& plan) {
    if (chosen.size() != 1 || plan.nets.size() != 1 || plan.batches.size() != 1)
        throw UsageError("--first-batch-child takes one device, one network and one batch size");
    const cl::DeviceInfo& device = devices.at(chosen.front());
    if (!device.skipped.empty()) throw std::runtime_error(device.skipped);
    cl::KernelCache cache(cl::kernel_cache_dir());
    ops::Runtime runtime(device, &cache);
    bench::StepTimingOptions options;
    options.batch_size = plan.batches.front();
    options.first_step_only = true;
    bench::time_training_step(runtime, plan.nets.front().spec, options);
    return exit_ok;
}

}  // namespace

int run_bench(Arguments& arguments) {
    BenchPlan plan;
    const std::optional<std::string> net = arguments.take_option("--net");
    const std::optional<std::string> nets = arguments.take_option("--nets");
    const std::optional<int> batch = arguments.take_whole_number("--batch");
    const std::optional<std::string> batches = arguments.take_option("--batches");
    plan.timing.steps = arguments.take_whole_number("--steps").value_or(0);
    plan.timing.runs = arguments.take_whole_number("--runs").value_or(3);
    const std::string request = cl::device_request(arguments.take_option("--device"));
    plan.json = arguments.take_flag("--json");
    plan.per_layer = arguments.take_flag("--layers");
    plan.first_batch = !arguments.take_flag("--no-first-batch");
    plan.device_figures = !arguments.take_flag("--no-device-figures");
    plan.inspection = arguments.take_flag("--inspection");
    const bool child = arguments.take_flag("--first-batch-child");
    arguments.expect_nothing_left();
    if (net && nets) throw UsageError("give --net or --nets, not both");
    if (batch && batches) throw UsageError("give --batch or --batches, not both");
    try {
        plan.nets = bench_nets(net.value_or(nets.value_or("mlp,cnn,cifar")));
    } catch (const std::invalid_argument& error) {
        throw UsageError(error.what());
    }
    plan.batches = batch ? std::vector<int>{*batch} : batch_sizes(batches.value_or("64,256"));

    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    const std::vector<std::size_t> chosen = chosen_devices(devices, request);
    if (child) return run_first_batch_child(devices, chosen, plan);

    std::vector<DeviceBench> results;
    bool failed = false;
    for (std::size_t index : chosen) {
        results.push_back(run_device(devices.at(index), plan));
        const DeviceBench& result = results.back();
        failed = failed || !result.error.empty() ||
                 std::any_of(result.entries.begin(), result.entries.end(), [](const BenchEntry& entry) {
                     return !entry.timing || (entry.first_batch && !entry.first_batch->error.empty());
                 });
        if (!plan.json) print_device_table(std::cout, result, plan.per_layer);
        if (plan.inspection && result.error.empty()) {
            for (const BenchNet& one : plan.nets) try {
                    print_inspection(devices.at(index), one, plan.json);
                } catch (const std::exception& error) {
                    std::cerr << "inspection of " << one.name << ": " << error.what() << "\n";
                    failed = true;
                }
        }
    }
    if (!plan.json) print_side_by_side(std::cout, results);
    return failed ? exit_failure : exit_ok;
}

}  // namespace bps::cli
