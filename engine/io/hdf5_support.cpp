#include "engine/io/hdf5_support.h"

#include <cstdint>
#include <limits>
#include <new>
#include <string>

#include "engine/tensor/checked_size.h"

namespace bps::io::hdf5 {

const char* const damaged = "the file is damaged or incomplete (was a save or a copy cut short?)";

std::string library_version() {
    unsigned major = 0, minor = 0, release = 0;
    if (H5get_libversion(&major, &minor, &release) < 0) return "unknown";
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

std::mutex& lock() {
    static std::mutex lock;
    return lock;
}

QuietErrors::QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &old_function_, &old_data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietErrors::~QuietErrors() {
    H5Eset_auto2(H5E_DEFAULT, old_function_, old_data_);
}

namespace {

Handle utf8_string_type() {
    Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    if (!type.valid() || H5Tset_size(type.get(), H5T_VARIABLE) < 0 || H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0) {
        return Handle(-1, H5Tclose);
    }
    return type;
}

std::optional<Handle> open_attribute(hid_t object, const char* name) {
    if (H5Aexists(object, name) <= 0) return std::nullopt;
    Handle attribute(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
    if (!attribute.valid()) return std::nullopt;
    return attribute;
}

}  // namespace

bool write_strings(hid_t object, const char* name, const std::vector<std::string>& values, bool scalar) {
    Handle type = utf8_string_type();
    const hsize_t count = values.size();
    Handle space(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr), H5Sclose);
    if (!type.valid() || !space.valid()) return false;
    Handle attribute(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!attribute.valid()) return false;
    // With no values the attribute is complete as created: HDF5 refuses a write from the null
    // buffer that an empty vector gives.
    if (values.empty()) return true;
    std::vector<const char*> pointers;
    for (const std::string& value : values) pointers.push_back(value.c_str());
    return H5Awrite(attribute.get(), type.get(), pointers.data()) >= 0;
}

bool write_int(hid_t object, const char* name, long long value) {
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    if (!space.valid()) return false;
    Handle attribute(H5Acreate2(object, name, H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    return attribute.valid() && H5Awrite(attribute.get(), H5T_NATIVE_LLONG, &value) >= 0;
}

std::optional<std::vector<std::string>> read_strings(hid_t object, const char* name) {
    std::optional<Handle> attribute = open_attribute(object, name);
    if (!attribute) return std::nullopt;
    Handle file_type(H5Aget_type(attribute->get()), H5Tclose);
    Handle space(H5Aget_space(attribute->get()), H5Sclose);
    if (!file_type.valid() || !space.valid()) return std::nullopt;
    const hssize_t count = H5Sget_simple_extent_npoints(space.get());
    if (count < 0) return std::nullopt;
    // h5py writes an empty Python list as an empty float64 array: no strings at all.
    if (count == 0) return std::vector<std::string>{};
    if (H5Tget_class(file_type.get()) != H5T_STRING) return std::nullopt;
    std::vector<std::string> values;
    // Reading with a copy of the file's own string type keeps its padding and character set, so no
    // conversion can cut off a character.
    Handle memory_type(H5Tcopy(file_type.get()), H5Tclose);
    if (!memory_type.valid()) return std::nullopt;
    if (H5Tis_variable_str(file_type.get()) > 0) {
        std::vector<char*> pointers(static_cast<std::size_t>(count), nullptr);
        if (H5Aread(attribute->get(), memory_type.get(), pointers.data()) < 0) return std::nullopt;
        for (char* pointer : pointers) {
            values.emplace_back(pointer ? pointer : "");
            if (pointer) H5free_memory(pointer);
        }
        return values;
    }
    const std::size_t size = H5Tget_size(file_type.get());
    if (size == 0) return std::nullopt;
    std::vector<char> buffer(size * static_cast<std::size_t>(count));
    if (H5Aread(attribute->get(), memory_type.get(), buffer.data()) < 0) return std::nullopt;
    const bool space_padded = H5Tget_strpad(file_type.get()) == H5T_STR_SPACEPAD;
    for (hssize_t i = 0; i < count; ++i) {
        std::string value(buffer.data() + static_cast<std::size_t>(i) * size, size);
        value = value.substr(0, value.find('\0'));
        if (space_padded) value.erase(value.find_last_not_of(' ') + 1);
        values.push_back(std::move(value));
    }
    return values;
}

std::optional<std::string> read_string(hid_t object, const char* name) {
    std::optional<std::vector<std::string>> values = read_strings(object, name);
    if (!values || values->size() != 1) return std::nullopt;
    return values->front();
}

std::optional<long long> read_int(hid_t object, const char* name) {
    std::optional<Handle> attribute = open_attribute(object, name);
    if (!attribute) return std::nullopt;
    Handle type(H5Aget_type(attribute->get()), H5Tclose);
    Handle space(H5Aget_space(attribute->get()), H5Sclose);
    if (!type.valid() || !space.valid() || H5Tget_class(type.get()) != H5T_INTEGER ||
        H5Sget_simple_extent_npoints(space.get()) != 1) {
        return std::nullopt;
    }
    long long value = 0;
    if (H5Aread(attribute->get(), H5T_NATIVE_LLONG, &value) < 0) return std::nullopt;
    return value;
}

std::optional<AttributeFacts> attribute_facts(hid_t object, const char* name) {
    std::optional<Handle> attribute = open_attribute(object, name);
    if (!attribute) return std::nullopt;
    Handle type(H5Aget_type(attribute->get()), H5Tclose);
    Handle space(H5Aget_space(attribute->get()), H5Sclose);
    const hssize_t count = space.valid() ? H5Sget_simple_extent_npoints(space.get()) : -1;
    AttributeFacts facts{"an unreadable value", H5Aget_storage_size(attribute->get())};
    if (!type.valid() || count < 0) return facts;
    const bool many = H5Sget_simple_extent_type(space.get()) == H5S_SIMPLE;
    const std::string counted = std::to_string(count);
    switch (H5Tget_class(type.get())) {
        case H5T_STRING:
            facts.kind = many ? counted + " texts" : "text";
            break;
        case H5T_INTEGER:
        case H5T_FLOAT:
            facts.kind = many ? counted + " numbers" : "a number";
            break;
        default:
            facts.kind = many ? counted + " values that are not text" : "a value that is not text";
    }
    if (count == 0) facts.kind = "nothing";
    return facts;
}

bool exists(hid_t object, const std::string& path) {
    // H5Lexists checks one link: every step of the path must be checked in turn.
    std::size_t start = 0;
    while (true) {
        const std::size_t slash = path.find('/', start);
        const std::string prefix = path.substr(0, slash);
        if (prefix.empty() || H5Lexists(object, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
        if (slash == std::string::npos) return true;
        start = slash + 1;
    }
}

bool write_floats(hid_t group, const std::string& name, const std::vector<int>& dims,
                  const std::vector<float>& values) {
    const std::vector<hsize_t> extents(dims.begin(), dims.end());
    Handle space(H5Screate_simple(static_cast<int>(extents.size()), extents.data(), nullptr), H5Sclose);
    if (!space.valid()) return false;
    // Little-endian float32 on disk whatever the machine, as Keras and h5py write it.
    Handle dataset(H5Dcreate2(group, name.c_str(), H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   H5Dclose);
    return dataset.valid() &&
           H5Dwrite(dataset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0;
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

NamedArray read_floats(const std::filesystem::path& file, hid_t object, const std::string& path,
                       const std::string& name, const std::string& which, bool only_float32) {
    if (!exists(object, path)) throw WeightsFileError(file, which + " is listed but missing: " + damaged);
    Handle dataset(H5Dopen2(object, path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset.valid()) throw WeightsFileError(file, which + " cannot be opened: " + damaged);
    Handle type(H5Dget_type(dataset.get()), H5Tclose);
    Handle space(H5Dget_space(dataset.get()), H5Sclose);
    if (!type.valid() || !space.valid()) throw WeightsFileError(file, which + " cannot be read: " + damaged);
    const bool is_float = H5Tget_class(type.get()) == H5T_FLOAT;
    if (!is_float || (only_float32 && H5Tget_size(type.get()) != 4)) {
        throw WeightsFileError(file, which + " holds " + type_text(type.get()) +
                                         " values, but weights must be float32; save them as float32");
    }
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 1) throw WeightsFileError(file, which + " has no dims: " + damaged);
    std::vector<hsize_t> extents(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(space.get(), extents.data(), nullptr);
    NamedArray array{name, {}, {}};
    for (const hsize_t extent : extents) {
        if (extent < 1 || extent > static_cast<hsize_t>(std::numeric_limits<int>::max())) {
            throw WeightsFileError(file, which + " has a dim of " + std::to_string(extent) + ": " + damaged);
        }
        array.dims.push_back(static_cast<int>(extent));
    }
    // The dims come from the file, where a few damaged bytes can declare terabytes. No layer's
    // weights hold more than INT_MAX values (devices index with int), and a file stores what it
    // declares: deflate, the one filter Keras files use, packs at most about 1032 to 1.
    const std::uint64_t values = saturating_product(array.dims);
    const std::string declared =
        which + " declares dims " + dims_text(array.dims) + " (" + std::to_string(values) + " values)";
    if (values > max_tensor_values)
        throw WeightsFileError(file, declared + ", more than any layer's weights hold: " + damaged);
    const std::uint64_t stored = H5Dget_storage_size(dataset.get());
    if (values * sizeof(float) > stored * 1032 + 4096)
        throw WeightsFileError(file, declared + " but stores only " + std::to_string(stored) + " bytes: " + damaged);
    try {
        array.values.resize(static_cast<std::size_t>(values));
    } catch (const std::bad_alloc&) {
        throw WeightsFileError(file, declared + ", " + std::to_string(values * sizeof(float) >> 20) +
                                         " MiB, more memory than this computer can give now");
    }
    if (H5Dread(dataset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, array.values.data()) < 0) {
        throw WeightsFileError(file, which + " cannot be read: " + damaged);
    }
    return array;
}

}  // namespace bps::io::hdf5
