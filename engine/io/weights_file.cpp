#include "engine/io/weights_file.h"

#include <hdf5.h>

#include <cstdint>
#include <fstream>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

namespace bps::io {

WeightsFileError::WeightsFileError(const std::filesystem::path& file, const std::string& problem)
    : std::runtime_error(file.string() + ": " + problem), file_(file) {}

namespace {

constexpr const char* kFormatName = "backprop-studio-weights";
constexpr long long kFormatVersion = 1;
constexpr const char* kWrittenBy = "weights files are written by 'backprop train --save-weights'";
constexpr const char* kDamaged = "the file is damaged or incomplete (was a save or a copy cut short?)";

// The serial HDF5 build that Linux distributions ship is not thread-safe, and the GUI may save
// weights on the engine thread while the UI thread loads another file: one lock for all our calls.
std::mutex& hdf5_lock() {
    static std::mutex lock;
    return lock;
}

// HDF5 prints its whole error stack to stderr by default; a learner should see only our one-line
// message, so printing is off while we call HDF5 and the previous setting comes back afterwards.
class QuietHdf5Errors {
public:
    QuietHdf5Errors() {
        H5Eget_auto2(H5E_DEFAULT, &old_function_, &old_data_);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~QuietHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, old_function_, old_data_); }
    QuietHdf5Errors(const QuietHdf5Errors&) = delete;
    QuietHdf5Errors& operator=(const QuietHdf5Errors&) = delete;

private:
    H5E_auto2_t old_function_ = nullptr;
    void* old_data_ = nullptr;
};

// Owns one HDF5 identifier and closes it with the matching H5xclose, so every path (exceptions
// included) releases files, groups, datasets, dataspaces, types and attributes.
class Hdf5Handle {
public:
    using Closer = herr_t (*)(hid_t);
    Hdf5Handle(hid_t id, Closer close) : id_(id), close_(close) {}
    ~Hdf5Handle() {
        if (id_ >= 0) close_(id_);
    }
    Hdf5Handle(const Hdf5Handle&) = delete;
    Hdf5Handle& operator=(const Hdf5Handle&) = delete;
    Hdf5Handle(Hdf5Handle&& other) noexcept : id_(std::exchange(other.id_, -1)), close_(other.close_) {}
    Hdf5Handle& operator=(Hdf5Handle&&) = delete;

    bool valid() const { return id_ >= 0; }
    hid_t get() const { return id_; }
    // Closes now and reports whether HDF5 succeeded: closing the file is where buffered data is
    // flushed, so its failure (a full disk) must not pass silently.
    bool close() { return close_(std::exchange(id_, -1)) >= 0; }

private:
    hid_t id_;
    Closer close_;
};

// ---- names and dims ----------------------------------------------------------------------------

struct SplitName {
    std::string layer;
    std::string array;
};

std::optional<SplitName> split_array_name(const std::string& name) {
    const auto dot = name.find('.');
    if (dot == std::string::npos || name.find('.', dot + 1) != std::string::npos) return std::nullopt;
    if (name.find('/') != std::string::npos) return std::nullopt;
    SplitName split{name.substr(0, dot), name.substr(dot + 1)};
    if (split.layer.empty() || split.array.empty()) return std::nullopt;
    return split;
}

std::string bad_name_problem(const std::string& name) {
    return "array name '" + name +
           "' is not '<layer>.<array>' (exactly one '.', no '/', neither part empty), e.g. 'fc1.weight'";
}

// The number of values the dims describe, saturating rather than wrapping on absurd dims.
std::uint64_t dims_product(const std::vector<int>& dims) {
    std::uint64_t product = 1;
    for (const int dim : dims) {
        const auto d = static_cast<std::uint64_t>(dim);
        if (d != 0 && product > std::numeric_limits<std::uint64_t>::max() / d) {
            return std::numeric_limits<std::uint64_t>::max();
        }
        product *= d;
    }
    return product;
}

void validate_arrays(const std::filesystem::path& file, std::span<const NamedArray> arrays) {
    std::set<std::string> seen;
    for (const NamedArray& array : arrays) {
        if (!split_array_name(array.name)) throw WeightsFileError(file, bad_name_problem(array.name));
        const std::string which = "array '" + array.name + "'";
        if (array.dims.empty()) {
            throw WeightsFileError(
                file, which + " has no dims; give at least one, e.g. {" + std::to_string(array.values.size()) + "}");
        }
        for (const int dim : array.dims) {
            if (dim < 1) {
                throw WeightsFileError(file,
                                       which + " has dims " + dims_text(array.dims) + "; every dim must be at least 1");
            }
        }
        const std::uint64_t needed = dims_product(array.dims);
        if (needed != array.values.size()) {
            throw WeightsFileError(file, which + " has " + std::to_string(array.values.size()) +
                                             " values but its dims " + dims_text(array.dims) + " need " +
                                             std::to_string(needed));
        }
        if (!seen.insert(array.name).second) {
            throw WeightsFileError(file, which + " appears twice; every array name must be unique");
        }
    }
}

// ---- writing -----------------------------------------------------------------------------------

// Variable-length UTF-8 strings: any length (even empty) and what h5py reads back as str.
Hdf5Handle utf8_string_type() {
    Hdf5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    if (!type.valid() || H5Tset_size(type.get(), H5T_VARIABLE) < 0 || H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0) {
        return Hdf5Handle(-1, H5Tclose);
    }
    return type;
}

bool write_string_attribute(hid_t object, const char* name, const std::vector<std::string>& values, bool scalar) {
    Hdf5Handle type = utf8_string_type();
    const hsize_t count = values.size();
    Hdf5Handle space(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr), H5Sclose);
    if (!type.valid() || !space.valid()) return false;
    Hdf5Handle attribute(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!attribute.valid()) return false;
    // With no values (no arrays to save) the attribute is complete as created: HDF5 refuses a write
    // from the null buffer that an empty vector gives.
    if (values.empty()) return true;
    std::vector<const char*> pointers;
    for (const std::string& value : values) pointers.push_back(value.c_str());
    return H5Awrite(attribute.get(), type.get(), pointers.data()) >= 0;
}

bool write_int_attribute(hid_t object, const char* name, long long value) {
    Hdf5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    if (!space.valid()) return false;
    Hdf5Handle attribute(H5Acreate2(object, name, H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    return attribute.valid() && H5Awrite(attribute.get(), H5T_NATIVE_LLONG, &value) >= 0;
}

void write_array(const std::filesystem::path& file, hid_t group, const std::string& array_name,
                 const NamedArray& array) {
    const std::vector<hsize_t> dims(array.dims.begin(), array.dims.end());
    Hdf5Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    if (!space.valid()) throw WeightsFileError(file, "could not describe the shape of array '" + array.name + "'");
    // Little-endian float32 on disk whatever the machine, as Keras and h5py write it.
    Hdf5Handle dataset(
        H5Dcreate2(group, array_name.c_str(), H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        H5Dclose);
    if (!dataset.valid() ||
        H5Dwrite(dataset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, array.values.data()) < 0) {
        throw WeightsFileError(file, "could not write array '" + array.name + "'; is the disk full?");
    }
}

// Writes the whole file at `target` (the temporary name); every handle is closed when this returns
// or throws, so the caller can then remove or rename the file.
void write_weights_file(const std::filesystem::path& file, const std::filesystem::path& target,
                        std::span<const NamedArray> arrays, const std::string& description) {
    Hdf5Handle hdf5(H5Fcreate(target.string().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!hdf5.valid()) {
        throw WeightsFileError(file, "could not create the temporary file '" + target.string() +
                                         "'; check that the folder can be written to");
    }
    std::vector<std::string> names;
    for (const NamedArray& array : arrays) names.push_back(array.name);
    // The root attribute `array_names` keeps the save order exactly (HDF5 lists links by name).
    if (!write_string_attribute(hdf5.get(), "format", {kFormatName}, true) ||
        !write_int_attribute(hdf5.get(), "format_version", kFormatVersion) ||
        !write_string_attribute(hdf5.get(), "description", {description}, true) ||
        !write_string_attribute(hdf5.get(), "array_names", names, false)) {
        throw WeightsFileError(file, "could not write the file's attributes; is the disk full?");
    }
    for (const NamedArray& array : arrays) {
        const SplitName split = *split_array_name(array.name);  // validated before
        const htri_t exists = H5Lexists(hdf5.get(), split.layer.c_str(), H5P_DEFAULT);
        Hdf5Handle group(exists > 0
                             ? H5Gopen2(hdf5.get(), split.layer.c_str(), H5P_DEFAULT)
                             : H5Gcreate2(hdf5.get(), split.layer.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                         H5Gclose);
        if (!group.valid()) throw WeightsFileError(file, "could not create the group for layer '" + split.layer + "'");
        write_array(file, group.get(), split.array, array);
    }
    if (!hdf5.close()) throw WeightsFileError(file, "could not finish writing the file; is the disk full?");
}

// ---- reading -----------------------------------------------------------------------------------

std::optional<Hdf5Handle> open_attribute(hid_t object, const char* name) {
    if (H5Aexists(object, name) <= 0) return std::nullopt;
    Hdf5Handle attribute(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
    if (!attribute.valid()) return std::nullopt;
    return attribute;
}

// A string attribute's values, fixed-length or variable-length (h5py writes either), scalar or 1-D;
// nullopt when it is missing or not strings.
std::optional<std::vector<std::string>> read_string_attribute(hid_t object, const char* name) {
    std::optional<Hdf5Handle> attribute = open_attribute(object, name);
    if (!attribute) return std::nullopt;
    Hdf5Handle file_type(H5Aget_type(attribute->get()), H5Tclose);
    Hdf5Handle space(H5Aget_space(attribute->get()), H5Sclose);
    if (!file_type.valid() || !space.valid() || H5Tget_class(file_type.get()) != H5T_STRING) return std::nullopt;
    const hssize_t count = H5Sget_simple_extent_npoints(space.get());
    if (count < 0) return std::nullopt;
    std::vector<std::string> values;
    // Reading with a copy of the file's own string type keeps its padding and character set, so no
    // conversion can cut off a character.
    Hdf5Handle memory_type(H5Tcopy(file_type.get()), H5Tclose);
    if (!memory_type.valid()) return std::nullopt;
    if (H5Tis_variable_str(file_type.get()) > 0) {
        std::vector<char*> pointers(static_cast<std::size_t>(count), nullptr);
        if (count > 0 && H5Aread(attribute->get(), memory_type.get(), pointers.data()) < 0) return std::nullopt;
        for (char* pointer : pointers) {
            values.emplace_back(pointer ? pointer : "");
            if (pointer) H5free_memory(pointer);
        }
        return values;
    }
    const std::size_t size = H5Tget_size(file_type.get());
    if (size == 0) return std::nullopt;
    std::vector<char> buffer(size * static_cast<std::size_t>(count));
    if (count > 0 && H5Aread(attribute->get(), memory_type.get(), buffer.data()) < 0) return std::nullopt;
    const bool space_padded = H5Tget_strpad(file_type.get()) == H5T_STR_SPACEPAD;
    for (hssize_t i = 0; i < count; ++i) {
        std::string value(buffer.data() + static_cast<std::size_t>(i) * size, size);
        value = value.substr(0, value.find('\0'));
        if (space_padded) value.erase(value.find_last_not_of(' ') + 1);
        values.push_back(std::move(value));
    }
    return values;
}

std::optional<std::string> read_single_string_attribute(hid_t object, const char* name) {
    std::optional<std::vector<std::string>> values = read_string_attribute(object, name);
    if (!values || values->size() != 1) return std::nullopt;
    return values->front();
}

std::optional<long long> read_int_attribute(hid_t object, const char* name) {
    std::optional<Hdf5Handle> attribute = open_attribute(object, name);
    if (!attribute) return std::nullopt;
    Hdf5Handle type(H5Aget_type(attribute->get()), H5Tclose);
    Hdf5Handle space(H5Aget_space(attribute->get()), H5Sclose);
    if (!type.valid() || !space.valid() || H5Tget_class(type.get()) != H5T_INTEGER ||
        H5Sget_simple_extent_npoints(space.get()) != 1) {
        return std::nullopt;
    }
    long long value = 0;
    if (H5Aread(attribute->get(), H5T_NATIVE_LLONG, &value) < 0) return std::nullopt;
    return value;
}

// Opens a weights file for reading and checks that it is one we can read, with a message for each
// way it can fail: missing, not HDF5, someone else's HDF5, newer format, damaged.
Hdf5Handle open_weights_file(const std::filesystem::path& file) {
    std::error_code error;
    const auto status = std::filesystem::status(file, error);
    if (!std::filesystem::exists(status)) throw WeightsFileError(file, "the file does not exist");
    if (std::filesystem::is_directory(status)) {
        throw WeightsFileError(file, "is a folder, not a weights file; choose the .h5 file inside it");
    }
    if (!std::ifstream(file, std::ios::binary)) {
        throw WeightsFileError(file, "the file cannot be opened for reading; check its permissions");
    }
#if H5_VERSION_GE(1, 12, 0)
    const htri_t is_hdf5 = H5Fis_accessible(file.string().c_str(), H5P_DEFAULT);
#else
    const htri_t is_hdf5 = H5Fis_hdf5(file.string().c_str());
#endif
    if (is_hdf5 <= 0) throw WeightsFileError(file, std::string("not an HDF5 file; ") + kWrittenBy);
    Hdf5Handle hdf5(H5Fopen(file.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!hdf5.valid()) throw WeightsFileError(file, std::string("cannot be read: ") + kDamaged);
    if (read_single_string_attribute(hdf5.get(), "format") != kFormatName) {
        throw WeightsFileError(file, "is an HDF5 file but not a Backprop Studio weights file");
    }
    const std::optional<long long> version = read_int_attribute(hdf5.get(), "format_version");
    if (!version || *version < 1) {
        throw WeightsFileError(file, "has no valid weights format version: " + std::string(kDamaged));
    }
    if (*version > kFormatVersion) {
        throw WeightsFileError(file, "was written by a newer Backprop Studio (weights format " +
                                         std::to_string(*version) + "); this version reads format " +
                                         std::to_string(kFormatVersion));
    }
    return hdf5;
}

std::string type_text(hid_t type) {
    const std::string bits = std::to_string(H5Tget_size(type) * 8);
    switch (H5Tget_class(type)) {
        case H5T_INTEGER:
            return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + bits;
        case H5T_FLOAT:
            return "float" + bits;
        case H5T_STRING:
            return "text";
        default:
            return "a non-numeric type";
    }
}

NamedArray read_array(const std::filesystem::path& file, hid_t hdf5, const std::string& name) {
    const std::optional<SplitName> split = split_array_name(name);
    if (!split) throw WeightsFileError(file, "lists an invalid " + bad_name_problem(name) + "; " + kDamaged);
    const std::string which = "array '" + name + "'";
    const std::string path = split->layer + "/" + split->array;
    if (H5Lexists(hdf5, split->layer.c_str(), H5P_DEFAULT) <= 0 || H5Lexists(hdf5, path.c_str(), H5P_DEFAULT) <= 0) {
        throw WeightsFileError(file, which + " is listed but missing: " + kDamaged);
    }
    Hdf5Handle dataset(H5Dopen2(hdf5, path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset.valid()) throw WeightsFileError(file, which + " cannot be opened: " + kDamaged);
    Hdf5Handle type(H5Dget_type(dataset.get()), H5Tclose);
    Hdf5Handle space(H5Dget_space(dataset.get()), H5Sclose);
    if (!type.valid() || !space.valid()) throw WeightsFileError(file, which + " cannot be read: " + kDamaged);
    if (H5Tget_class(type.get()) != H5T_FLOAT || H5Tget_size(type.get()) != 4) {
        throw WeightsFileError(file, which + " holds " + type_text(type.get()) +
                                         " values, but weights must be float32; save them as float32");
    }
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 1) throw WeightsFileError(file, which + " has no dims: " + kDamaged);
    std::vector<hsize_t> extents(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(space.get(), extents.data(), nullptr);
    NamedArray array{name, {}, {}};
    for (const hsize_t extent : extents) {
        if (extent < 1 || extent > static_cast<hsize_t>(std::numeric_limits<int>::max())) {
            throw WeightsFileError(file, which + " has a dim of " + std::to_string(extent) + ": " + kDamaged);
        }
        array.dims.push_back(static_cast<int>(extent));
    }
    array.values.resize(static_cast<std::size_t>(dims_product(array.dims)));
    if (H5Dread(dataset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, array.values.data()) < 0) {
        throw WeightsFileError(file, which + " cannot be read: " + kDamaged);
    }
    return array;
}

}  // namespace

std::string dims_text(const std::vector<int>& dims) {
    std::string text;
    for (int dim : dims) {
        if (!text.empty()) text += 'x';
        text += std::to_string(dim);
    }
    return text;
}

void check_weights_destination(const std::filesystem::path& file) {
    const std::filesystem::path folder = file.parent_path();
    std::error_code error;
    if (!folder.empty()) {
        const auto folder_status = std::filesystem::status(folder, error);
        if (!std::filesystem::exists(folder_status)) {
            throw WeightsFileError(file, "the folder '" + folder.string() + "' does not exist");
        }
        if (!std::filesystem::is_directory(folder_status)) {
            throw WeightsFileError(file, "'" + folder.string() + "' is not a folder");
        }
    }
    if (std::filesystem::is_directory(file, error)) {
        throw WeightsFileError(file, "is a folder; give a file name for the weights, e.g. weights.h5");
    }
}

void save_weights(const std::filesystem::path& file, std::span<const NamedArray> arrays,
                  const std::string& description) {
    validate_arrays(file, arrays);
    check_weights_destination(file);
    std::error_code error;
    std::filesystem::path temporary = file;
    temporary += ".part";
    try {
        const std::lock_guard lock(hdf5_lock());
        const QuietHdf5Errors quiet;
        write_weights_file(file, temporary, arrays, description);
    } catch (...) {
        std::filesystem::remove(temporary, error);
        throw;
    }
    std::filesystem::rename(temporary, file, error);
    if (error) {
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
        throw WeightsFileError(file, "could not replace the file: " + error.message());
    }
}

std::vector<NamedArray> load_weights(const std::filesystem::path& file) {
    const std::lock_guard lock(hdf5_lock());
    const QuietHdf5Errors quiet;
    Hdf5Handle hdf5 = open_weights_file(file);
    const std::optional<std::vector<std::string>> names = read_string_attribute(hdf5.get(), "array_names");
    if (!names) throw WeightsFileError(file, std::string("has no list of its arrays: ") + kDamaged);
    std::vector<NamedArray> arrays;
    for (const std::string& name : *names) arrays.push_back(read_array(file, hdf5.get(), name));
    return arrays;
}

std::string load_weights_description(const std::filesystem::path& file) {
    const std::lock_guard lock(hdf5_lock());
    const QuietHdf5Errors quiet;
    Hdf5Handle hdf5 = open_weights_file(file);
    // An absent description is no damage of the file itself; a caller that needs one (the model
    // card of session/model_card.h) says so with its own message.
    return read_single_string_attribute(hdf5.get(), "description").value_or("");
}

}  // namespace bps::io
