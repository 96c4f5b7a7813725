// backprop bench: training throughput of reference networks (or projects) on one device or
// several, with each device's own best figures (bandwidth, SGEMM, launch cost) beside them.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

#include "app/cli/bench_history.h"
#include "app/cli/bench_report.h"
#include "app/cli/commands.h"
#include "app/cli/program_path.h"
#include "app/cli/project_argument.h"
#include "app/cli/terminal.h"
#include "engine/base/number_text.h"
#include "engine/bench/comparison_details.h"
#include "engine/bench/first_batch_timing.h"
#include "engine/cl/device.h"
#include "engine/cl/error.h"
#include "engine/compare/comparison_history.h"
#include "engine/compare/device_comparison.h"
#include "engine/compare/inspection_timing.h"
#include "engine/compare/reference_networks.h"

namespace bps::cli {

const char* const bench_help =
    "usage: backprop bench [--device all|D,...] [--nets mlp,cnn,cifar|PROJECT,...] [--batches 64,256]\n"
    "                      [--steps N] [--runs N] [--layers] [--no-first-batch] [--no-device-figures]\n"
    "                      [--inspection] [--json] [--curve-batches N] [--history FILE | --no-history]\n"
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
    "  loss curve           the mean loss of each of --curve-batches training steps on synthetic,\n"
    "                       learnable batches (the same on every device), from the same weights\n"
    "and per device: buffer copy bandwidth, SGEMM GFLOP/s at 512, 1024 and 2048 (and 4096 on\n"
    "GPUs), checked against a reference, and the host time of a kernel launch. A device or a\n"
    "network (or a start) that fails, with a build error or out of memory, is reported with its\n"
    "error and the rest goes on; the exit status is then 1. Each network and batch size is kept\n"
    "in the device comparison history that the studio's Compare Devices shows.\n"
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
    "                record per network and batch, named as torch_reference.py's fields (and the\n"
    "                loss curve as \"losses\")\n"
    "  --net, --batch       one network, one batch size (as --nets and --batches)\n"
    "  --curve-batches      training steps of the loss curve (default 20)\n"
    "  --history FILE       the comparison history to add this run to (default: the studio's,\n"
    "                       device-comparisons.json in its data folder)\n"
    "  --no-history         keep this run out of the comparison history (for scripted runs)\n";

namespace {

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    for (std::string part; std::getline(stream, part, ',');)
        if (!part.empty()) parts.push_back(part);
    return parts;
}

// The reference networks, or the projects' networks named by their file names.
std::vector<bench::PlannedNetwork> bench_nets(const std::string& list) {
    std::vector<bench::PlannedNetwork> nets;
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
    if (devices.empty()) throw device::NoDeviceError();
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

struct BenchOptions {
    std::vector<bench::PlannedNetwork> nets;
    std::vector<int> batches;
    int steps = 0;  // 0: as many as take about a second
    int runs = 3;
    int curve_batches = 20;
    bool first_batch = true;
    bool device_figures = true;
    bool per_layer = false;
    bool inspection = false;
    bool json = false;
    std::optional<std::filesystem::path> history;  // none: --no-history
};

// The inspection figures of one network on one device, printed as they come.
void print_inspection(const device::DeviceDescription& device, const bench::PlannedNetwork& net, bool json) {
    std::cerr << "[device " << device.index << ": " << device.name << "] " << net.name << ": inspection" << std::endl;
    const project::Project project =
        net.project.empty() ? project::example_project(net.name) : open_project(net.project).project;
    const model::GraphAnalysis analysis = model::analyse_graph(net.network);
    const datasets::ImageShape shape{net.network.input.c, net.network.input.h, net.network.input.w};
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

// The device comparison that bench drives: every chosen device runs every network at every
// batch size, timed as the options say, without the studio's self-test.
bench::ComparisonSetup comparison_setup(const BenchOptions& options, const std::vector<std::size_t>& chosen) {
    bench::ComparisonSetup setup;
    setup.network_name = options.nets.front().name;
    setup.network = options.nets.front().network;
    setup.project = options.nets.front().project;
    setup.batch_size = options.batches.front();
    setup.plan.networks = options.nets;
    setup.plan.batch_sizes = options.batches;
    setup.plan.steps = options.steps;
    setup.plan.runs = options.runs;
    setup.plan.per_layer = options.per_layer;
    setup.devices = chosen;
    setup.curve_batches = options.curve_batches;
    setup.device_figures = options.device_figures;
    setup.self_test = false;
    if (options.first_batch) setup.first_batch_program = program_path();
    return setup;
}

// Prints the comparison's results as bench always has: progress on stderr, and per device its
// JSON lines as they come or its table once it ends, then its inspection figures.
class BenchPrinter {
public:
    BenchPrinter(const BenchOptions& options, const std::vector<std::size_t>& chosen)
        : options_(options), chosen_(chosen), runs_(options.nets.size() * options.batches.size()) {}

    bench::ComparisonEvents events() {
        bench::ComparisonEvents events;
        events.progress = [this](const bench::ComparisonProgress& progress) { show(progress); };
        events.device_done = [this](const bench::DeviceComparison& result) { add(result); };
        return events;
    }
    bench::ComparisonDeviceEvents device_events() {
        bench::ComparisonDeviceEvents events;
        events.device_end = [this](const std::vector<bench::DeviceComparison>&) { end_device(); };
        events.note = [](const std::string& note) { print_note(note); };
        return events;
    }
    const std::vector<DeviceBench>& results() const { return results_; }
    bool failed() const { return failed_; }

private:
    void show(const bench::ComparisonProgress& progress) const {
        std::cerr << "[device " << chosen_.at(progress.device_position) << ": " << progress.device_name << "] ";
        if (progress.batch_size > 0) std::cerr << progress.network_name << ", batch " << progress.batch_size << ": ";
        std::cerr << progress.activity << std::endl;
    }

    void add(const bench::DeviceComparison& result) {
        const bench::ComparisonDetails& details = *result.details;
        if (!started_) {  // the device's first result: its own figures, or why it failed
            started_ = true;
            current_ = DeviceBench{};
            current_.device = result.device;
            current_.micro = details.micro;
            if (details.device_failed) current_.error = details.device_error;
            // A skipped device has no line: it was never opened.
            if (options_.json && result.device.skipped.empty()) print_device_json(std::cout, current_);
        }
        if (details.device_failed) return;
        const bench::PlannedNetwork& net = options_.nets.at(current_.entries.size() / options_.batches.size());
        current_.entries.push_back(bench_entry(result, net.project));
        if (options_.json) print_entry_json(std::cout, current_, current_.entries.back());
    }

    void end_device() {
        started_ = false;
        const DeviceBench& result = results_.emplace_back(std::move(current_));
        failed_ = failed_ || !result.error.empty() || result.entries.size() < runs_ ||
                  std::any_of(result.entries.begin(), result.entries.end(), [](const BenchEntry& entry) {
                      return !entry.timing || !entry.error.empty() ||
                             (entry.first_batch && !entry.first_batch->error.empty());
                  });
        if (!options_.json) print_device_table(std::cout, result, options_.per_layer);
        if (!options_.inspection || !result.error.empty()) return;
        for (const bench::PlannedNetwork& net : options_.nets) try {
                print_inspection(result.device, net, options_.json);
            } catch (const std::exception& error) {
                std::cerr << "inspection of " << net.name << ": " << error.what() << "\n";
                failed_ = true;
            }
    }

    const BenchOptions& options_;
    const std::vector<std::size_t>& chosen_;
    std::size_t runs_;
    bool started_ = false;
    DeviceBench current_;
    std::vector<DeviceBench> results_;
    bool failed_ = false;
};

// The child of time_first_batches: one first training step, nothing printed.
int run_first_batch_child(const std::vector<cl::DeviceInfo>& devices, const std::vector<std::size_t>& chosen,
                          const BenchOptions& options) {
    if (chosen.size() != 1 || options.nets.size() != 1 || options.batches.size() != 1)
        throw UsageError("--first-batch-child takes one device, one network and one batch size");
    bench::train_first_batch(devices.at(chosen.front()), options.nets.front().network, options.batches.front());
    return exit_ok;
}

}  // namespace

int run_bench(Arguments& arguments) {
    BenchOptions options;
    const std::optional<std::string> net = arguments.take_option("--net");
    const std::optional<std::string> nets = arguments.take_option("--nets");
    const std::optional<int> batch = arguments.take_whole_number("--batch");
    const std::optional<std::string> batches = arguments.take_option("--batches");
    options.steps = arguments.take_whole_number("--steps").value_or(0);
    options.runs = arguments.take_whole_number("--runs").value_or(3);
    options.curve_batches = arguments.take_whole_number("--curve-batches").value_or(20);
    const std::string request = device::device_request(arguments.take_option("--device"));
    options.json = arguments.take_flag("--json");
    options.per_layer = arguments.take_flag("--layers");
    options.first_batch = !arguments.take_flag("--no-first-batch");
    options.device_figures = !arguments.take_flag("--no-device-figures");
    options.inspection = arguments.take_flag("--inspection");
    const std::optional<std::string> history = arguments.take_option("--history");
    const bool no_history = arguments.take_flag("--no-history");
    const bool child = arguments.take_flag("--first-batch-child");
    arguments.expect_nothing_left();
    if (net && nets) throw UsageError("give --net or --nets, not both");
    if (batch && batches) throw UsageError("give --batch or --batches, not both");
    if (history && no_history) throw UsageError("give --history or --no-history, not both");
    try {
        options.nets = bench_nets(net.value_or(nets.value_or("mlp,cnn,cifar")));
    } catch (const std::invalid_argument& error) {
        throw UsageError(error.what());
    }
    options.batches = batch ? std::vector<int>{*batch} : batch_sizes(batches.value_or("64,256"));
    if (!no_history) options.history = history ? std::filesystem::path(*history) : default_comparison_history();

    const std::vector<cl::DeviceInfo> devices = cl::discover_devices();
    const std::vector<std::size_t> chosen = chosen_devices(devices, request);
    if (child) return run_first_batch_child(devices, chosen, options);
    if (options.history) {
        std::vector<std::filesystem::path> projects;
        for (const auto& planned : options.nets)
            if (!planned.project.empty()) projects.push_back(planned.project);
        check_history_destination(*options.history, projects, history.has_value());
    }

    const bench::ComparisonSetup setup = comparison_setup(options, chosen);
    BenchPrinter printer(options, chosen);
    std::vector<bench::DeviceComparison> compared;
    try {
        compared = bench::compare_devices(setup, printer.events(), nullptr, printer.device_events());
    } catch (const std::invalid_argument& error) {
        throw UsageError(error.what());
    }
    if (!options.json) print_side_by_side(std::cout, printer.results());
    if (options.history) keep_in_comparison_history(*options.history, bench::make_comparison_records(setup, compared));
    return printer.failed() ? exit_failure : exit_ok;
}

}  // namespace bps::cli
