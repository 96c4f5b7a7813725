#pragma once
// A check on an HDF5 file's bytes before the HDF5 library reads it, for a damage that the HDF5
// Debian ships (1.10.8) never comes back from: a global heap collection (where variable-length
// strings such as layer names live) holding a free-space object of size 0 makes HDF5's decoder
// loop forever on it (H5HG__cache_heap_deserialize adds the object's size to its cursor), and an
// object that runs past its collection makes it copy past its buffer. Found by fuzzing.
#include <filesystem>
#include <optional>
#include <string>

namespace bps::io::hdf5 {

// What is wrong with the file's global heap collections, in a message's words ("its global heap
// at byte 2048 holds an object of size 0 at byte 4688"), or nullopt when HDF5 may read them.
// Collections are found by their "GCOL" signature; a signature HDF5 never reaches is checked
// too, which for a real file only costs the look. An unreadable file is left to HDF5 to report.
std::optional<std::string> global_heap_damage(const std::filesystem::path& file);

}  // namespace bps::io::hdf5
