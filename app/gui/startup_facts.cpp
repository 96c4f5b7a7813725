#include "app/gui/startup_facts.h"

#include <QtGlobal>

#include "datasets/catalogue.h"
#include "datasets/data_location.h"
#include "engine/device/device_description.h"
#include "engine/session/devices.h"
#include "engine/session/library_versions.h"

namespace bps::app {

using ui::StartupFacts;

StartupFacts gather_startup_facts(std::string& warning) {
    StartupFacts facts;
    try {
        facts.devices = device::list_devices();
    } catch (const std::exception& error) {  // a broken driver: say so and keep running
        facts.device_problem = error.what();
    }
    if (facts.devices.empty() && facts.device_problem.empty()) facts.device_problem = device::no_opencl_help();
    if (!facts.devices.empty()) {
        const std::string request = device::device_request(std::nullopt);
        try {
            facts.default_device = device::select_device(facts.devices, request);
        } catch (const std::exception& error) {  // BACKPROP_DEVICE names none, or every device is skipped
            facts.default_device = device::default_device_index(facts.devices);
            warning = request.empty() ? std::string(error.what()) : std::string("BACKPROP_DEVICE: ") + error.what();
            // The engine's words name the CLI's way back; the studio has its own.
            if (std::string(error.what()).find(" is skipped: ") != std::string::npos)
                warning += " (or select it on the Devices tab and press Use Again)";
            if (std::string(error.what()).find(" computed wrong results ") != std::string::npos)
                warning += " In the studio, choose it under Train on, on the Train panel.";
        }
    }
    if (!facts.device_problem.empty()) warning = facts.device_problem;
    facts.about_text = session::build_info_text(session::build_info(qVersion()));
    facts.dataset_catalogue = datasets::catalogue();
    facts.data_root = datasets::user_data_root();
    // The default dataset: from Debian's package or the user's data folder.
    const datasets::CatalogueEntry& fashion = datasets::catalogue_entry("fashion-mnist");
    const datasets::LocalState state = datasets::local_state(fashion, facts.data_root);
    if (state.availability == datasets::Availability::ready)
        facts.dataset_status = "Fashion-MNIST: " + state.folder.string();
    else
        facts.dataset_status =
            "Fashion-MNIST is not on this computer: download it on the Datasets tab, or " + fashion.install_hint;
    return facts;
}

}  // namespace bps::app
