// backprop: Backprop Studio's command line. It drives the same engine as the GUI.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/printable.h"
#include "app/cli/program_path.h"
#include "app/cli/run_job.h"
#include "app/cli/terminal.h"
#include "engine/device/device_description.h"
#include "engine/session/build_check.h"
#include "engine/session/devices.h"
#include "engine/session/library_versions.h"

namespace {

const char* const main_help =
    "backprop: Backprop Studio on the command line\n"
    "\n"
    "usage: backprop COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  devices   list the OpenCL devices and mark the one training uses\n"
    "  cache     show, fill or clear the compiled-kernel cache\n"
    "  bench     training speed and device figures, on one device or all of them\n"
    "  datasets  list, download and look into datasets\n"
    "  summary   a project's network layer by layer: shapes, parameters, FLOPs, memory\n"
    "  train     train a project's network and report its test accuracy\n"
    "  evaluate  the test accuracy of saved weights\n"
    "  predict   the most probable classes of image files\n"
    "  inspect   what a trained network does with one image: every layer's output, occlusion, saliency\n"
    "  resume    continue training from a checkpoint\n"
    "  runs      a project's runs, from the studio and from 'train'\n"
    "  export    write a PyTorch or Keras script that re-creates a trained network\n"
    "  course    the course's exercises: list, show, check a learner's project, validate an exercise\n"
    "\n"
    "Run 'backprop COMMAND --help' for a command's options, and 'backprop --version' for the version,\n"
    "the libraries in use and the kernel cache's folder (include them when reporting a problem).\n"
    "Environment: BACKPROP_DEVICE picks a device like --device; BACKPROP_CACHE_DIR moves the cache.\n"
    "\n"
    "exit status:\n"
    "  0    done\n"
    "  1    the command failed (the message says why)\n"
    "  2    a usage mistake: an unknown command or option, a missing value\n"
    "  3    no OpenCL device could be found\n"
    "  130  stopped by Ctrl-C (SIGINT), SIGTERM or SIGHUP; training saves what it has first\n";

// The command line uses no Qt; what users report is the Qt of the studio installed beside it.
#ifdef BACKPROP_STUDIO_QT_VERSION
const std::string studio_qt = BACKPROP_STUDIO_QT_VERSION " (the studio's)";
#else
const std::string studio_qt = "none (built without the studio)";
#endif

struct Command {
    const char* name;
    int (*run)(bps::cli::Arguments&);
    const char* help;
};

const Command commands[] = {
    {"devices", bps::cli::run_devices, bps::cli::devices_help},
    {"cache", bps::cli::run_cache, bps::cli::cache_help},
    {"bench", bps::cli::run_bench, bps::cli::bench_help},
    {"datasets", bps::cli::run_datasets, bps::cli::datasets_help},
    {"summary", bps::cli::run_summary, bps::cli::summary_help},
    {"train", bps::cli::run_train, bps::cli::train_help},
    {"evaluate", bps::cli::run_evaluate, bps::cli::evaluate_help},
    {"predict", bps::cli::run_predict, bps::cli::predict_help},
    {"inspect", bps::cli::run_inspect, bps::cli::inspect_help},
    {"resume", bps::cli::run_resume, bps::cli::resume_help},
    {"runs", bps::cli::run_runs, bps::cli::runs_help},
    {"export", bps::cli::run_export, bps::cli::export_help},
    {"course", bps::cli::run_course, bps::cli::course_help},
};

}  // namespace

int main(int argc, char** argv) {
    using namespace bps::cli;
    remember_program_path(argc > 0 ? argv[0] : nullptr);  // bench starts itself again
    survive_closed_output();
    std::vector<std::string> words(argv + 1, argv + argc);
    if (words.empty() || words[0] == "--help" || words[0] == "-h" || words[0] == "help") {
        std::cout << main_help;
        return words.empty() ? exit_usage : exit_ok;
    }
    if (words[0] == "--version") {
        std::cout << bps::session::build_info_text(bps::session::build_info(studio_qt));
        return exit_ok;
    }
    const Command* command = nullptr;
    for (const Command& candidate : commands)
        if (words[0] == candidate.name) command = &candidate;
    if (!command) {
        std::cerr << "backprop: unknown command '" << words[0] << "'\n\n" << main_help;
        return exit_usage;
    }
    Arguments arguments(std::vector<std::string>(words.begin() + 1, words.end()));
    if (arguments.take_flag("--help") || arguments.take_flag("-h")) {
        std::cout << command->help;
        return exit_ok;
    }
    try {
        // Before the first OpenCL call, so the drivers' caches persist beside ours.
        bps::device::point_driver_caches_beside_ours();
        // Before the crash guard skips a device, it builds in a separate process: this program.
        bps::device::check_builds_with(program_path());
        return command->run(arguments);
    } catch (const UsageError& error) {
        std::cerr << "backprop " << command->name << ": " << error.what() << "\n\n" << command->help;
        return exit_usage;
    } catch (const bps::device::NoDeviceError& error) {
        std::cerr << error.what();
        return exit_no_opencl;
    } catch (const bps::cli::DeviceHungError& error) {
        std::cerr << "backprop " << command->name << ": error: " << error.what() << std::endl;
        std::cout.flush();
        // The job's worker is stuck inside the driver: a normal exit would run the driver's
        // teardown, which waits for it. Nothing is left to save.
        std::_Exit(1);
    } catch (const std::bad_alloc&) {
        // Readers name their file when they run out; this is what is left (a network's buffers,
        // a report): at least the command, and not the bare "std::bad_alloc".
        std::cerr << "backprop " << command->name
                  << ": error: out of memory: this computer could not give the command the memory it needed; "
                     "close other programs, or use a smaller dataset, batch or network\n";
        return exit_failure;
    } catch (const std::exception& error) {
        // Messages quote names from files (a layer, a class): their control characters are escaped.
        std::cerr << "backprop " << command->name << ": error: " << bps::cli::printable(error.what(), true) << "\n";
        return exit_failure;
    }
}
