#pragma once
// The HDF5 C API made safe to use from the weights file code: one lock (Linux distributions ship
// HDF5 without thread safety), quiet error stacks, handles that always close, and the attribute
// and array reads and writes that Keras-layout and format-1 files share. Private to engine/io.
#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/io/weights_file.h"

namespace bps::io::hdf5 {

// The serial HDF5 build is not thread-safe, and the GUI may save weights on the engine thread
// while the UI thread reads another file: one lock for all our calls.
std::mutex& lock();

// HDF5 prints its whole error stack to stderr by default; a learner should see only our one-line
// message, so printing is off while we call HDF5 and the previous setting comes back afterwards.
class QuietErrors {
public:
    QuietErrors();
    ~QuietErrors();
    QuietErrors(const QuietErrors&) = delete;
    QuietErrors& operator=(const QuietErrors&) = delete;

private:
    H5E_auto2_t old_function_ = nullptr;
    void* old_data_ = nullptr;
};

// Owns one HDF5 identifier and closes it with the matching H5xclose, so every path (exceptions
// included) releases files, groups, datasets, dataspaces, types and attributes.
class Handle {
public:
    using Closer = herr_t (*)(hid_t);
    Handle(hid_t id, Closer close) : id_(id), close_(close) {}
    ~Handle() {
        if (id_ >= 0) close_(id_);
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, -1)), close_(other.close_) {}
    Handle& operator=(Handle&&) = delete;

    bool valid() const { return id_ >= 0; }
    hid_t get() const { return id_; }
    // Closes now and reports whether HDF5 succeeded.
    bool close() { return close_(std::exchange(id_, -1)) >= 0; }

private:
    hid_t id_;
    Closer close_;
};

// Variable-length UTF-8 strings (what h5py reads back as str); a scalar or a 1-D list (empty too).
bool write_strings(hid_t object, const char* name, const std::vector<std::string>& values, bool scalar);
bool write_int(hid_t object, const char* name, long long value);
// A string attribute's values, fixed-length or variable-length (h5py and Keras write either),
// scalar or 1-D; nullopt when it is missing or not strings.
std::optional<std::vector<std::string>> read_strings(hid_t object, const char* name);
std::optional<std::string> read_string(hid_t object, const char* name);
std::optional<long long> read_int(hid_t object, const char* name);

bool exists(hid_t object, const std::string& path);

// What attribute `name` holds, in a message's words: "text", "3 texts", "a number", "4 numbers",
// "nothing", "an unreadable value" (nullopt when there is no such attribute), and the bytes its
// values take in the file (a variable-length string's own bytes live in the file's heap, which
// only reading finds: for those, the size of the references).
struct AttributeFacts {
    std::string kind;
    std::uint64_t stored_bytes = 0;
};
std::optional<AttributeFacts> attribute_facts(hid_t object, const char* name);

// Little-endian float32 dataset `name` under `group`; false when HDF5 refused.
bool write_floats(hid_t group, const std::string& name, const std::vector<int>& dims, const std::vector<float>& values);

// The dataset at `path` as floats. `which` names it in messages ("array 'fc1.weight'"); with
// `only_float32` other float widths are refused rather than converted. Throws WeightsFileError.
NamedArray read_floats(const std::filesystem::path& file, hid_t object, const std::string& path,
                       const std::string& name, const std::string& which, bool only_float32);

// "float64", "int32", "text": a dataset's type as messages show it.
std::string type_text(hid_t type);

// "1.10.8": the HDF5 library this process loaded.
std::string library_version();

extern const char* const damaged;  // "the file is damaged or incomplete (...)"

}  // namespace bps::io::hdf5
