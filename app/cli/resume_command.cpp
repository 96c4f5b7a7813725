// placeholder
#include "app/cli/commands.h"

namespace bps::cli {
const char* const resume_help = "usage: backprop resume\n";
int run_resume(Arguments&) {
    throw UsageError("not written yet");
}
}  // namespace bps::cli
