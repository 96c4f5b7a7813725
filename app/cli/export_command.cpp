// placeholder
#include "app/cli/commands.h"

namespace bps::cli {
const char* const export_help = "usage: backprop export\n";
int run_export(Arguments&) {
    throw UsageError("not written yet");
}
}  // namespace bps::cli
