// Weights files: a round trip keeps names, dims, values and order exactly; the file reads back with
// the plain HDF5 C API in the documented layout; a failed save leaves an earlier file untouched;
// every damaged or foreign file gets its own whole message.
#include <hdf5.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>

#include "engine/io/weights_file.h"
#include "tests/support/temp_dir.h"

using namespace bps;
using io::NamedArray;
using io::WeightsFileError;

namespace {

// Non-ASCII on purpose (UTF-8 bytes spelled out so every compiler reads the source the same).
const std::string kDescription = "Fashion-MNIST MLP, caf\xC3\xA9";

std::vector<float> random_values(std::size_t count, std::uint32_t seed) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> magnitude(0.05f, 2.0f);
    std::bernoulli_distribution negative(0.5);
    std::vector<float> values(count);
    for (float& value : values) value = negative(generator) ? -magnitude(generator) : magnitude(generator);
    return values;
}

NamedArray random_array(const std::string& name, std::vector<int> dims, std::uint32_t seed) {
    std::size_t count = 1;
    for (const int dim : dims) count *= static_cast<std::size_t>(dim);
    return {name, std::move(dims), random_values(count, seed)};
}

// Saved deliberately interleaved across layers, so that an order recovered per group would differ.
std::vector<NamedArray> sample_arrays() {
    return {random_array("conv1.weight", {4, 3, 3, 2}, 1), random_array("fc1.weight", {3, 5}, 2),
            random_array("conv1.bias", {4}, 3), random_array("fc1.bias", {3}, 4),
            random_array("bn1.running_mean", {7}, 5)};
}

std::string read_bytes(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::filesystem::path& file, const std::string& bytes) {
    std::ofstream(file, std::ios::binary) << bytes;
}

std::string message_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const WeightsFileError& error) {
        return error.what();
    }
    return "(no WeightsFileError was thrown)";
}

// The test's own HDF5 handle, independent of the one inside the loader.
struct H5Id {
    hid_t id;
    herr_t (*close)(hid_t);
    ~H5Id() {
        if (id >= 0) close(id);
    }
    operator hid_t() const { return id; }
};

void write_string_attribute(hid_t object, const char* name, const std::string& value, bool fixed_length) {
    H5Id type{H5Tcopy(H5T_C_S1), H5Tclose};
    if (fixed_length) {
        // As h5py writes numpy byte strings: exactly the characters, padded with NULs, no terminator.
        H5Tset_size(type, value.size());
        H5Tset_strpad(type, H5T_STR_NULLPAD);
    } else {
        H5Tset_size(type, H5T_VARIABLE);
    }
    H5Id space{H5Screate(H5S_SCALAR), H5Sclose};
    H5Id attribute{H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    const char* pointer = value.c_str();
    REQUIRE(H5Awrite(attribute, type, fixed_length ? static_cast<const void*>(pointer) : &pointer) >= 0);
}

void write_int_attribute(hid_t object, const char* name, int value) {
    H5Id space{H5Screate(H5S_SCALAR), H5Sclose};
    H5Id attribute{H5Acreate2(object, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    REQUIRE(H5Awrite(attribute, H5T_NATIVE_INT, &value) >= 0);
}

void write_names_attribute(hid_t object, const std::vector<const char*>& names) {
    H5Id type{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(type, H5T_VARIABLE);
    const hsize_t count = names.size();
    H5Id space{H5Screate_simple(1, &count, nullptr), H5Sclose};
    H5Id attribute{H5Acreate2(object, "array_names", type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    REQUIRE(H5Awrite(attribute, type, names.data()) >= 0);
}

// A file made with the C API alone: the format attributes as asked, and one dataset fc1/weight.
void write_foreign_file(const std::filesystem::path& file, bool with_format, int version, hid_t dataset_type) {
    H5Id hdf5{H5Fcreate(file.string().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
    REQUIRE(hdf5.id >= 0);
    if (with_format) {
        write_string_attribute(hdf5, "format", "backprop-studio-weights", true);
        write_int_attribute(hdf5, "format_version", version);
        write_names_attribute(hdf5, {"fc1.weight"});
    }
    H5Id group{H5Gcreate2(hdf5, "fc1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    const hsize_t dims[2] = {2, 3};
    H5Id space{H5Screate_simple(2, dims, nullptr), H5Sclose};
    H5Id dataset{H5Dcreate2(group, "weight", dataset_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
    const double values[6] = {1.5, -2.0, 3.25, 0.5, -0.75, 4.0};
    REQUIRE(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0);
}

std::string read_string_attribute(hid_t object, const char* name) {
    H5Id attribute{H5Aopen(object, name, H5P_DEFAULT), H5Aclose};
    REQUIRE(attribute.id >= 0);
    H5Id type{H5Aget_type(attribute), H5Tclose};
    REQUIRE(H5Tget_class(type) == H5T_STRING);
    REQUIRE(H5Tis_variable_str(type) > 0);
    char* value = nullptr;
    REQUIRE(H5Aread(attribute, type, &value) >= 0);
    std::string text(value);
    H5free_memory(value);
    return text;
}

}  // namespace

TEST_CASE("weights round trip keeps names, dims, values and save order exactly", "[weights]") {
    const test::TempDir folder("weights");
    const auto file = folder.path() / "model.h5";
    const std::vector<NamedArray> saved = sample_arrays();
    io::save_weights(file, saved, kDescription);

    const std::vector<NamedArray> loaded = io::load_weights(file);
    REQUIRE(loaded.size() == saved.size());
    for (std::size_t i = 0; i < saved.size(); ++i) {
        INFO("array " << i << " saved as " << saved[i].name);
        CHECK(loaded[i].name == saved[i].name);
        CHECK(loaded[i].dims == saved[i].dims);
        CHECK(loaded[i].values == saved[i].values);
    }
    CHECK(io::load_weights_description(file) == kDescription);
    CHECK_FALSE(std::filesystem::exists(folder.path() / "model.h5.part"));

    // Saving again replaces the file: new values and description, and no default description left over.
    const std::vector<NamedArray> second = {random_array("dense.kernel", {2, 2}, 9)};
    io::save_weights(file, second);
    const std::vector<NamedArray> reloaded = io::load_weights(file);
    REQUIRE(reloaded.size() == 1);
    CHECK(reloaded[0].name == "dense.kernel");
    CHECK(reloaded[0].values == second[0].values);
    CHECK(io::load_weights_description(file).empty());

    // A network without parameters (only a flatten layer, say) still saves and loads.
    io::save_weights(file, {}, "no parameters");
    CHECK(io::load_weights(file).empty());
    CHECK(io::load_weights_description(file) == "no parameters");
}

TEST_CASE("weights files read back with the plain HDF5 C API in the documented layout", "[weights]") {
    const test::TempDir folder("weights");
    const auto file = folder.path() / "model.h5";
    const std::vector<NamedArray> saved = sample_arrays();
    io::save_weights(file, saved, "my project");

    H5Id hdf5{H5Fopen(file.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
    REQUIRE(hdf5.id >= 0);
    CHECK(read_string_attribute(hdf5, "format") == "backprop-studio-weights");
    CHECK(read_string_attribute(hdf5, "description") == "my project");
    {
        H5Id version{H5Aopen(hdf5, "format_version", H5P_DEFAULT), H5Aclose};
        int value = 0;
        REQUIRE(H5Aread(version, H5T_NATIVE_INT, &value) >= 0);
        CHECK(value == 1);
    }
    H5Id dataset{H5Dopen2(hdf5, "fc1/weight", H5P_DEFAULT), H5Dclose};
    REQUIRE(dataset.id >= 0);
    H5Id type{H5Dget_type(dataset), H5Tclose};
    CHECK(H5Tequal(type, H5T_IEEE_F32LE) > 0);
    H5Id space{H5Dget_space(dataset), H5Sclose};
    REQUIRE(H5Sget_simple_extent_ndims(space) == 2);
    hsize_t dims[2] = {0, 0};
    H5Sget_simple_extent_dims(space, dims, nullptr);
    CHECK(dims[0] == 3);
    CHECK(dims[1] == 5);
    std::vector<float> values(15);
    REQUIRE(H5Dread(dataset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
    CHECK(values == saved[1].values);

    H5Id bias{H5Dopen2(hdf5, "conv1/bias", H5P_DEFAULT), H5Dclose};
    H5Id bias_space{H5Dget_space(bias), H5Sclose};
    CHECK(H5Sget_simple_extent_ndims(bias_space) == 1);
    CHECK(H5Sget_simple_extent_npoints(bias_space) == 4);
}

TEST_CASE("a failed save leaves the earlier weights file byte-identical and no temporary behind", "[weights]") {
    const test::TempDir folder("weights");
    const auto file = folder.path() / "model.h5";
    io::save_weights(file, sample_arrays(), "good");
    const std::string before = read_bytes(file);
    REQUIRE(before.size() > 100);

    std::vector<NamedArray> broken = sample_arrays();
    broken.push_back({"fc2.weight", {2, 4}, random_values(6, 7)});
    CHECK(message_of([&] { io::save_weights(file, broken, "bad"); }) ==
          file.string() + ": array 'fc2.weight' has 6 values but its dims 2x4 need 8");
    CHECK(read_bytes(file) == before);
    CHECK_FALSE(std::filesystem::exists(folder.path() / "model.h5.part"));
    CHECK(io::load_weights_description(file) == "good");
}

TEST_CASE("a save that fails while writing leaves the earlier weights file byte-identical", "[weights]") {
    const test::TempDir folder("weights");
    const auto file = folder.path() / "model.h5";
    io::save_weights(file, sample_arrays(), "good");
    const std::string before = read_bytes(file);
    // A folder (not empty, so it survives the clean-up) where the temporary file must go makes the
    // write itself fail, after validation has passed.
    const auto temporary = folder.path() / "model.h5.part";
    std::filesystem::create_directories(temporary / "blocker");
    CHECK(message_of([&] {
              io::save_weights(file, std::vector<NamedArray>{random_array("fc1.weight", {2, 2}, 3)}, "new");
          }) == file.string() + ": could not create the temporary file '" + temporary.string() +
                    "'; check that the folder can be written to");
    CHECK(read_bytes(file) == before);
    CHECK(io::load_weights_description(file) == "good");
}

TEST_CASE("invalid arrays are refused before anything is written, each with its own message", "[weights]") {
    const test::TempDir folder("weights");
    const auto file = folder.path() / "model.h5";
    const auto save_one = [&](NamedArray array) {
        return message_of([&] { io::save_weights(file, std::vector<NamedArray>{std::move(array)}); });
    };
    const std::string prefix = file.string() + ": ";
    for (const std::string name : {"fc1", "fc1.weight.x", "fc/1.weight", ".weight", "fc1.", "fc1./"}) {
        INFO(name);
        CHECK(save_one({name, {2}, {1.0f, 2.0f}}) ==
              prefix + "array name '" + name +
                  "' is not '<layer>.<array>' (exactly one '.', no '/', neither part empty), e.g. 'fc1.weight'");
    }
    CHECK(save_one({"fc1.bias", {}, {1.0f, 2.0f}}) ==
          prefix + "array 'fc1.bias' has no dims; give at least one, e.g. {2}");
    CHECK(save_one({"fc1.weight", {2, 0}, {}}) ==
          prefix + "array 'fc1.weight' has dims 2x0; every dim must be at least 1");
    CHECK(save_one({"fc1.weight", {2, 3}, {1.0f}}) ==
          prefix + "array 'fc1.weight' has 1 values but its dims 2x3 need 6");
    CHECK(save_one({"fc1.weight", {2, 3}, random_values(7, 1)}) ==
          prefix + "array 'fc1.weight' has 7 values but its dims 2x3 need 6");
    const std::vector<NamedArray> twice = {random_array("fc1.bias", {2}, 1), random_array("fc1.bias", {2}, 2)};
    CHECK(message_of([&] { io::save_weights(file, twice); }) ==
          prefix + "array 'fc1.bias' appears twice; every array name must be unique");
    CHECK_FALSE(std::filesystem::exists(file));
    CHECK_FALSE(std::filesystem::exists(folder.path() / "model.h5.part"));
}

TEST_CASE("saving into a folder that does not exist names the folder", "[weights]") {
    const test::TempDir folder("weights");
    const auto missing = folder.path() / "no-such-folder";
    const auto file = missing / "model.h5";
    CHECK(message_of([&] { io::save_weights(file, sample_arrays()); }) ==
          file.string() + ": the folder '" + missing.string() + "' does not exist");
}

TEST_CASE("files that are not readable weights get a message saying why", "[weights]") {
    const test::TempDir folder("weights");
    const auto load = [](const std::filesystem::path& file) { return message_of([&] { io::load_weights(file); }); };
    const auto describe = [](const std::filesystem::path& file) {
        return message_of([&] { io::load_weights_description(file); });
    };

    SECTION("a missing file") {
        const auto file = folder.path() / "absent.h5";
        CHECK(load(file) == file.string() + ": the file does not exist");
        CHECK(describe(file) == file.string() + ": the file does not exist");
    }
    SECTION("a text file with junk") {
        const auto file = folder.path() / "junk.h5";
        write_bytes(file, "this is not HDF5 at all, just some text\n");
        const std::string expected =
            file.string() + ": not an HDF5 file; weights files are written by 'backprop train --save-weights'";
        CHECK(load(file) == expected);
        CHECK(describe(file) == expected);
    }
    SECTION("a truncated copy of a good file") {
        const auto good = folder.path() / "good.h5";
        io::save_weights(good, sample_arrays());
        const std::string bytes = read_bytes(good);
        const auto file = folder.path() / "truncated.h5";
        write_bytes(file, bytes.substr(0, bytes.size() / 2));
        CHECK(load(file) ==
              file.string() + ": cannot be read: the file is damaged or incomplete (was a save or a copy cut short?)");
    }
    SECTION("an HDF5 file without the format attribute") {
        const auto file = folder.path() / "other.h5";
        write_foreign_file(file, false, 1, H5T_IEEE_F32LE);
        const std::string expected = file.string() + ": is an HDF5 file but not a Backprop Studio weights file";
        CHECK(load(file) == expected);
        CHECK(describe(file) == expected);
    }
    SECTION("a newer format version") {
        const auto file = folder.path() / "newer.h5";
        write_foreign_file(file, true, 2, H5T_IEEE_F32LE);
        const std::string expected = file.string() +
                                     ": was written by a newer Backprop Studio (weights format 2); this version "
                                     "reads format 1";
        CHECK(load(file) == expected);
        CHECK(describe(file) == expected);
    }
    SECTION("a dataset that is not float32") {
        const auto file = folder.path() / "doubles.h5";
        write_foreign_file(file, true, 1, H5T_IEEE_F64LE);
        CHECK(load(file) == file.string() +
                                ": array 'fc1.weight' holds float64 values, but weights must be float32; save them "
                                "as float32");
    }
}

TEST_CASE("a file written by another tool with fixed-length strings loads", "[weights]") {
    const test::TempDir folder("weights");
    const auto file = folder.path() / "foreign.h5";
    write_foreign_file(file, true, 1, H5T_IEEE_F32BE);  // big-endian float32 is still float32
    const std::vector<NamedArray> loaded = io::load_weights(file);
    REQUIRE(loaded.size() == 1);
    CHECK(loaded[0].name == "fc1.weight");
    CHECK(loaded[0].dims == std::vector<int>{2, 3});
    CHECK(loaded[0].values == std::vector<float>{1.5f, -2.0f, 3.25f, 0.5f, -0.75f, 4.0f});
    CHECK(io::load_weights_description(file).empty());
}

namespace {
herr_t count_error_reports(hid_t, void* count) {
    ++*static_cast<int*>(count);
    return 0;
}
}  // namespace

TEST_CASE("HDF5's own error report never reaches the user, and the caller's setting is kept", "[weights]") {
    const test::TempDir folder("weights");
    const auto good = folder.path() / "good.h5";
    io::save_weights(good, sample_arrays());
    const std::string bytes = read_bytes(good);
    const auto truncated = folder.path() / "truncated.h5";
    write_bytes(truncated, bytes.substr(0, bytes.size() / 2));
    const auto doubles = folder.path() / "doubles.h5";
    write_foreign_file(doubles, true, 1, H5T_IEEE_F64LE);

    // A reporter that counts instead of printing stands in for HDF5's default one, which prints to stderr.
    H5E_auto2_t old_function = nullptr;
    void* old_data = nullptr;
    H5Eget_auto2(H5E_DEFAULT, &old_function, &old_data);
    int reports = 0;
    H5Eset_auto2(H5E_DEFAULT, count_error_reports, &reports);
    const std::string truncated_message = message_of([&] { io::load_weights(truncated); });
    const std::string doubles_message = message_of([&] { io::load_weights(doubles); });
    H5E_auto2_t function_after = nullptr;
    void* data_after = nullptr;
    H5Eget_auto2(H5E_DEFAULT, &function_after, &data_after);
    H5Eset_auto2(H5E_DEFAULT, old_function, old_data);

    CHECK_THAT(truncated_message, Catch::StartsWith(truncated.string() + ": cannot be read"));
    CHECK_THAT(doubles_message, Catch::StartsWith(doubles.string() + ": array 'fc1.weight' holds float64"));
    CHECK(reports == 0);
    CHECK(function_after == &count_error_reports);
    CHECK(data_after == &reports);
}
