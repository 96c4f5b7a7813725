#include "app/cli/predictor_argument.h"

#include <iostream>

#include "app/cli/arguments.h"
#include "app/cli/terminal.h"
#include "engine/device/device_description.h"
#include "engine/runs/saved_weights.h"

namespace bps::cli {

session::Predictor open_predictor(const OpenedProject& opened, const std::optional<std::string>& weights_flag,
                                  const std::optional<std::string>& device_flag) {
    if (!weights_flag && opened.weights_file.empty())
        throw UsageError("--weights FILE is needed: the trained weights to use");
    const std::filesystem::path weights = weights_flag ? std::filesystem::path(*weights_flag) : opened.weights_file;
    session::PredictorSetup setup;
    // BACKPROP_DEVICE acts as the flag does (a choice for this shell), so it overrides the project's.
    const std::string requested = device::device_request(device_flag);
    setup.device_request = requested.empty() ? opened.project.device : requested;
    setup.note = [](const std::string& note) { print_note(note); };
    const bool terminal = stderr_is_terminal();
    setup.building_kernels = [terminal](std::size_t done, std::size_t total) {
        // Only a first start (a cold kernel cache) takes long enough to show.
        if (!terminal || total == 0) return;
        std::cerr << "\rbuilding kernels " << done << "/" << total << (done == total ? "\r\x1b[K" : "") << std::flush;
    };
    return session::Predictor(session::Predictor::from_saved(session::read_saved_weights(weights), opened.project),
                              std::move(setup));
}

}  // namespace bps::cli
