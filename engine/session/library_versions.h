#pragma once
// The versions of the libraries this program runs with, asked of the libraries themselves (HDF5,
// the OpenCL loader, CLBlast), for `backprop --version` and the About box. A door header.
#include <string>

#include "engine/base/build_info.h"

namespace bps::session {

// qt: the Qt version to report, or a note on why there is none.
BuildInfo build_info(const std::string& qt);

}  // namespace bps::session
