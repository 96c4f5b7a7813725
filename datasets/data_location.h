#pragma once
// Where downloaded datasets live: BACKPROP_DATA_DIR when set and non-empty, else the
// platform's per-user data folder + "backprop-studio/datasets" (Linux: $XDG_DATA_HOME if
// absolute, else ~/.local/share; macOS: ~/Library/Application Support; Windows:
// %LOCALAPPDATA%), falling back to the temporary folder.
#include <filesystem>

namespace bps::datasets {

std::filesystem::path user_data_root();

// The studio's own per-user data folder: the platform's (as above, where Qt's
// GenericDataLocation is) + "backprop-studio", whatever BACKPROP_DATA_DIR says. The studio and
// `backprop bench` keep the device comparisons' history there.
std::filesystem::path user_data_folder();

}  // namespace bps::datasets
