// Weights files in Keras's layout: a round trip keeps layers, weights, dims, values, order and the
// attributes exactly; the file reads back with the plain HDF5 C API as Keras lays it out; format-1
// files and Keras files written by other programs are read; a failed save leaves an earlier file
// untouched and no temporary behind; concurrent saves never mix; every damaged or foreign file
// gets its own whole message.
#include <hdf5.h>

#include <catch2/catch.hpp>
#include <functional>
#include <random>
#include <thread>

#include "engine/base/atomic_file.h"
#include "engine/io/weights_file.h"
#include "tests/engine/io/weights_error_text.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

using namespace bps;
using io::KerasLayer;
using io::NamedArray;
using io::WeightsFile;
using io::WeightsFileError;

namespace {

// Non-ASCII on purpose (UTF-8 bytes spelled out so every compiler reads the source the same).
const std::string kCard = "{\"project\": \"caf\xC3\xA9\"}";

std::vector<float> values_away_from_zero(std::size_t count, std::uint32_t seed) {
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
    return {name, std::move(dims), values_away_from_zero(count, seed)};
}

// Layers with and without weights, in an order that is not alphabetical (HDF5 lists links by name).
WeightsFile sample_file(std::uint32_t seed = 1) {
    WeightsFile contents;
    contents.layers = {
        {"input", {}},
        {"conv1", {random_array("kernel", {3, 3, 2, 4}, seed), random_array("bias", {4}, seed + 1)}},
        {"relu1", {}},
        {"bn1",
         {random_array("gamma", {4}, seed + 2), random_array("beta", {4}, seed + 3),
          random_array("moving_mean", {4}, seed + 4), random_array("moving_variance", {4}, seed + 5)}},
        {"flatten", {}},
        {"dense", {random_array("kernel", {16, 3}, seed + 6), random_array("bias", {3}, seed + 7)}},
    };
    contents.model_card = kCard;
    contents.program_version = "0.4.1 (git 0123456789)";
    contents.project = "{\"format\": \"backprop-studio-project\"}";
    return contents;
}

std::vector<std::string> leftovers(const std::filesystem::path& folder, const std::filesystem::path& file) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(folder))
        if (entry.path().filename().string().rfind(file.filename().string() + ".part", 0) == 0)
            names.push_back(entry.path().filename().string());
    return names;
}

void check_same(const WeightsFile& read, const WeightsFile& saved) {
    REQUIRE(read.layers.size() == saved.layers.size());
    for (std::size_t l = 0; l < saved.layers.size(); ++l) {
        INFO("layer " << saved.layers[l].name);
        CHECK(read.layers[l].name == saved.layers[l].name);
        REQUIRE(read.layers[l].weights.size() == saved.layers[l].weights.size());
        for (std::size_t w = 0; w < saved.layers[l].weights.size(); ++w) {
            CHECK(read.layers[l].weights[w].name == saved.layers[l].weights[w].name);
            CHECK(read.layers[l].weights[w].dims == saved.layers[l].weights[w].dims);
            CHECK(read.layers[l].weights[w].values == saved.layers[l].weights[w].values);
        }
    }
    CHECK(read.model_card == saved.model_card);
    CHECK(read.project == saved.project);
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

// As h5py writes numpy byte strings (Keras's layer_names and weight_names): fixed length, padded
// with NULs, no terminator.
void write_fixed_strings(hid_t object, const char* name, const std::vector<std::string>& values, bool scalar = false) {
    std::size_t width = 1;
    for (const std::string& value : values) width = std::max(width, value.size());
    H5Id type{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(type, width);
    H5Tset_strpad(type, H5T_STR_NULLPAD);
    std::string buffer;
    for (const std::string& value : values) buffer += value + std::string(width - value.size(), '\0');
    const hsize_t count = values.size();
    H5Id space{scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr), H5Sclose};
    H5Id attribute{H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    REQUIRE(attribute.id >= 0);
    if (!values.empty()) REQUIRE(H5Awrite(attribute, type, buffer.data()) >= 0);
}

void write_variable_strings(hid_t object, const char* name, const std::vector<const char*>& values, bool scalar) {
    H5Id type{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(type, H5T_VARIABLE);
    const hsize_t count = values.size();
    H5Id space{scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr), H5Sclose};
    H5Id attribute{H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    REQUIRE(H5Awrite(attribute, type, values.data()) >= 0);
}

void write_int_attribute(hid_t object, const char* name, int value) {
    H5Id space{H5Screate(H5S_SCALAR), H5Sclose};
    H5Id attribute{H5Acreate2(object, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    REQUIRE(H5Awrite(attribute, H5T_NATIVE_INT, &value) >= 0);
}

void write_dataset(hid_t group, const char* name, hid_t type, std::vector<hsize_t> dims,
                   const std::vector<double>& values) {
    H5Id space{H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose};
    H5Id dataset{H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
    REQUIRE(dataset.id >= 0);
    REQUIRE(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
}

const std::vector<double> kSix = {1.5, -2.0, 3.25, 0.5, -0.75, 4.0};

// A format-1 file as the first Backprop Studio wrote it, made with the C API alone: the format
// attributes as asked, `array_names`, and one dataset fc1/weight.
void write_format1_file(const std::filesystem::path& file, bool with_format, int version, hid_t dataset_type) {
    H5Id hdf5{H5Fcreate(file.string().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
    REQUIRE(hdf5.id >= 0);
    if (with_format) {
        write_fixed_strings(hdf5, "format", {"backprop-studio-weights"}, true);
        write_int_attribute(hdf5, "format_version", version);
        write_variable_strings(hdf5, "array_names", {"fc1.weight"}, false);
        write_variable_strings(hdf5, "description", {"old card"}, true);
    }
    H5Id group{H5Gcreate2(hdf5, "fc1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    write_dataset(group, "weight", dataset_type, {2, 3}, kSix);
}

// A Keras weights file as Keras (through h5py) writes it: byte-string names, no Backprop Studio
// attributes, a Dense named "dense" and a weightless layer. With `whole_model`, as model.save()
// writes it: the same under the group model_weights.
void write_keras_file(const std::filesystem::path& file, bool whole_model) {
    H5Id hdf5{H5Fcreate(file.string().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
    REQUIRE(hdf5.id >= 0);
    H5Id outer{whole_model ? H5Gcreate2(hdf5, "model_weights", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1, H5Gclose};
    const hid_t root = whole_model ? outer.id : hdf5.id;
    write_fixed_strings(root, "layer_names", {"flatten", "dense"});
    write_fixed_strings(root, "backend", {"tensorflow"}, true);
    write_fixed_strings(root, "keras_version", {"2.12.0"}, true);
    H5Id flatten{H5Gcreate2(root, "flatten", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    // h5py stores an empty list as an empty float64 array.
    const hsize_t none = 0;
    H5Id empty_space{H5Screate_simple(1, &none, nullptr), H5Sclose};
    H5Id empty{H5Acreate2(flatten, "weight_names", H5T_IEEE_F64LE, empty_space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    H5Id dense{H5Gcreate2(root, "dense", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    write_fixed_strings(dense, "weight_names", {"dense/kernel:0", "dense/bias:0"});
    H5Id inner{H5Gcreate2(dense, "dense", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    write_dataset(inner, "kernel:0", H5T_IEEE_F32LE, {3, 2}, kSix);
    write_dataset(inner, "bias:0", H5T_IEEE_F64LE, {2}, {0.25, -0.5});  // float64 is converted
}

std::vector<std::string> read_names(hid_t object, const char* name) {
    H5Id attribute{H5Aopen(object, name, H5P_DEFAULT), H5Aclose};
    REQUIRE(attribute.id >= 0);
    H5Id type{H5Aget_type(attribute), H5Tclose};
    REQUIRE(H5Tget_class(type) == H5T_STRING);
    REQUIRE(H5Tis_variable_str(type) > 0);
    H5Id space{H5Aget_space(attribute), H5Sclose};
    const auto count = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
    std::vector<char*> pointers(count, nullptr);
    if (count > 0) REQUIRE(H5Aread(attribute, type, pointers.data()) >= 0);
    std::vector<std::string> names;
    for (char* pointer : pointers) {
        names.emplace_back(pointer);
        H5free_memory(pointer);
    }
    return names;
}

}  // namespace

TEST_CASE("a weights file round trip keeps layers, weights, dims, values, order and attributes exactly", "[weights]") {
    const test::TempDir folder("weights");
    const auto file = folder.path() / "model.h5";
    const WeightsFile saved = sample_file();
    io::save_weights_file(file, saved);
    const WeightsFile read = io::read_weights_file(file);
    CHECK(read.layout == WeightsFile::Layout::keras);
    CHECK(read.written_by_us);
    CHECK(read.program_version == "0.4.1 (git 0123456789)");
    CHECK_FALSE(read.is_checkpoint());
    check_same(read, saved);
    CHECK(leftovers(folder.path(), file).empty());

    // Saving again replaces the file whole.
    WeightsFile second;
    second.layers = {{"dense", {random_array("kernel", {2, 2}, 9)}}};
    io::save_weights_file(file, second);
    check_same(io::read_weights_file(file), second);

    // A checkpoint is a weights file with its training state.
    WeightsFile checkpoint = sample_file(5);
    checkpoint.checkpoint_state = "{\"epoch\": 1}";
    checkpoint.checkpoint_arrays = {random_array("conv1.weight.state0", {4, 2, 3, 3}, 11),
                                    random_array("conv1.bias.state0", {4}, 12)};
    io::save_weights_file(file, checkpoint);
    const WeightsFile resumed = io::read_weights_file(file);
    check_same(resumed, checkpoint);
    REQUIRE(resumed.is_checkpoint());
    CHECK(resumed.checkpoint_state == checkpoint.checkpoint_state);
    REQUIRE(resumed.checkpoint_arrays.size() == 2);
    CHECK(resumed.checkpoint_arrays[1].name == "conv1.bias.state0");
    CHECK(resumed.checkpoint_arrays[0].dims == checkpoint.checkpoint_arrays[0].dims);
    CHECK(resumed.checkpoint_arrays[0].values == checkpoint.checkpoint_arrays[0].values);
}

TEST_CASE("weights files read back with the plain HDF5 C API in Keras's layout", "[weights]") {
    const test::TempDir folder("weights");
    const auto file = folder.path() / "model.h5";
    const WeightsFile saved = sample_file();
    io::save_weights_file(file, saved);

    H5Id hdf5{H5Fopen(file.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
    REQUIRE(hdf5.id >= 0);
    CHECK(read_names(hdf5, "layer_names") ==
          std::vector<std::string>{"input", "conv1", "relu1", "bn1", "flatten", "dense"});
    CHECK(read_names(hdf5, "keras_version") == std::vector<std::string>{"2.15.0"});
    CHECK(read_names(hdf5, "backend") == std::vector<std::string>{"tensorflow"});
    CHECK(read_names(hdf5, "model_card") == std::vector<std::string>{kCard});
    {
        H5Id version{H5Aopen(hdf5, "format_version", H5P_DEFAULT), H5Aclose};
        int value = 0;
        REQUIRE(H5Aread(version, H5T_NATIVE_INT, &value) >= 0);
        CHECK(value == 2);
    }
    H5Id conv1{H5Gopen2(hdf5, "conv1", H5P_DEFAULT), H5Gclose};
    CHECK(read_names(conv1, "weight_names") == std::vector<std::string>{"conv1/kernel:0", "conv1/bias:0"});
    H5Id bn1{H5Gopen2(hdf5, "bn1", H5P_DEFAULT), H5Gclose};
    CHECK(read_names(bn1, "weight_names") ==
          std::vector<std::string>{"bn1/gamma:0", "bn1/beta:0", "bn1/moving_mean:0", "bn1/moving_variance:0"});
    H5Id relu1{H5Gopen2(hdf5, "relu1", H5P_DEFAULT), H5Gclose};
    CHECK(read_names(relu1, "weight_names").empty());

    H5Id dataset{H5Dopen2(hdf5, "conv1/conv1/kernel:0", H5P_DEFAULT), H5Dclose};
    REQUIRE(dataset.id >= 0);
    H5Id type{H5Dget_type(dataset), H5Tclose};
    CHECK(H5Tequal(type, H5T_IEEE_F32LE) > 0);
    H5Id space{H5Dget_space(dataset), H5Sclose};
    REQUIRE(H5Sget_simple_extent_ndims(space) == 4);
    hsize_t dims[4] = {0, 0, 0, 0};
    H5Sget_simple_extent_dims(space, dims, nullptr);
    CHECK(std::vector<hsize_t>(dims, dims + 4) == std::vector<hsize_t>{3, 3, 2, 4});
    std::vector<float> values(72);
    REQUIRE(H5Dread(dataset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
    CHECK(values == saved.layers[1].weights[0].values);
    CHECK(H5Lexists(hdf5, "backprop_checkpoint", H5P_DEFAULT) == 0);
}

TEST_CASE("format-1 weights files are still read", "[weights]") {
    const test::TempDir folder("weights");
    const auto file = folder.path() / "old.h5";
    write_format1_file(file, true, 1, H5T_IEEE_F32BE);  // big-endian float32 is still float32
    const WeightsFile read = io::read_weights_file(file);
    CHECK(read.layout == WeightsFile::Layout::format1);
    REQUIRE(read.format1_arrays.size() == 1);
    CHECK(read.format1_arrays[0].name == "fc1.weight");
    CHECK(read.format1_arrays[0].dims == std::vector<int>{2, 3});
    CHECK(read.format1_arrays[0].values == std::vector<float>{1.5f, -2.0f, 3.25f, 0.5f, -0.75f, 4.0f});
    CHECK(read.model_card == "old card");
    CHECK(read.project.empty());
}

TEST_CASE("Keras weights files written by another program are read, also from a whole saved model", "[weights]") {
    const test::TempDir folder("weights");
    for (const bool whole_model : {false, true}) {
        INFO("whole model: " << whole_model);
        const auto file = folder.path() / (whole_model ? "model.h5" : "weights.h5");
        write_keras_file(file, whole_model);
        const WeightsFile read = io::read_weights_file(file);
        CHECK_FALSE(read.written_by_us);
        CHECK(read.model_card.empty());
        CHECK(read.project.empty());
        REQUIRE(read.layers.size() == 2);
        CHECK(read.layers[0].name == "flatten");
        CHECK(read.layers[0].weights.empty());
        CHECK(read.layers[1].name == "dense");
        REQUIRE(read.layers[1].weights.size() == 2);
        CHECK(read.layers[1].weights[0].name == "kernel");
        CHECK(read.layers[1].weights[0].dims == std::vector<int>{3, 2});
        CHECK(read.layers[1].weights[0].values == std::vector<float>{1.5f, -2.0f, 3.25f, 0.5f, -0.75f, 4.0f});
        CHECK(read.layers[1].weights[1].name == "bias");
        CHECK(read.layers[1].weights[1].values == std::vector<float>{0.25f, -0.5f});
    }
}

TEST_CASE("a failed save leaves the earlier weights file byte-identical and no temporary behind", "[weights]") {
    const test::TempDir folder("weights");
    const auto file = folder.path() / "model.h5";
    io::save_weights_file(file, sample_file());
    const std::string before = test::read_text(file);
    REQUIRE(before.size() > 100);

    WeightsFile broken = sample_file();
    broken.layers.push_back({"fc2", {{"kernel", {2, 4}, values_away_from_zero(6, 7)}}});
    CHECK(test::weights_error_text([&] { io::save_weights_file(file, broken); }) ==
          file.string() + ": weight 'fc2/kernel' has 6 values but its dims 2x4 need 8");
    CHECK(test::read_text(file) == before);
    CHECK(leftovers(folder.path(), file).empty());
}

TEST_CASE("invalid names and arrays are refused before anything is written, each with its own message", "[weights]") {
    const test::TempDir folder("weights");
    const auto file = folder.path() / "model.h5";
    const auto save_layer = [&](KerasLayer layer) {
        WeightsFile contents;
        contents.layers = {std::move(layer)};
        return test::weights_error_text([&] { io::save_weights_file(file, contents); });
    };
    const std::string prefix = file.string() + ": ";
    CHECK(save_layer({"", {}}) == prefix + "layer '' cannot be saved: names must not be empty or contain '/'");
    CHECK(save_layer({"fc/1", {}}) == prefix + "layer 'fc/1' cannot be saved: names must not be empty or contain '/'");
    CHECK(save_layer({"fc1", {{"ker/nel", {1}, {1.0f}}}}) ==
          prefix + "weight 'ker/nel' cannot be saved: names must not be empty or contain '/'");
    CHECK(save_layer({"fc1", {{"bias", {2, 0}, {}}}}) ==
          prefix + "weight 'fc1/bias' has dims 2x0; every dim must be at least 1");
    CHECK(save_layer({"fc1", {{"bias", {}, {1.0f}}}}) ==
          prefix + "weight 'fc1/bias' has no dims; give at least one, e.g. {1}");
    CHECK(save_layer({"fc1", {{"kernel", {2, 3}, values_away_from_zero(7, 1)}}}) ==
          prefix + "weight 'fc1/kernel' has 7 values but its dims 2x3 need 6");
    CHECK(save_layer({"fc1", {random_array("bias", {2}, 1), random_array("bias", {2}, 2)}}) ==
          prefix + "weight 'fc1/bias' appears twice");
    WeightsFile twice;
    twice.layers = {{"fc1", {}}, {"fc1", {}}};
    CHECK(test::weights_error_text([&] { io::save_weights_file(file, twice); }) ==
          prefix + "layer 'fc1' appears twice; every layer name must be unique");
    CHECK_FALSE(std::filesystem::exists(file));
    CHECK(leftovers(folder.path(), file).empty());
}

TEST_CASE("a destination that cannot take the file is refused with why, before anything is written", "[weights]") {
    const test::TempDir folder("weights");
    const auto missing = folder.path() / "no-such-folder";
    CHECK(test::weights_error_text([&] { io::check_weights_destination(missing / "model.h5"); }) ==
          (missing / "model.h5").string() + ": the folder '" + missing.string() + "' does not exist");
    CHECK(test::weights_error_text([&] { io::save_weights_file(folder.path(), sample_file()); }) ==
          folder.path().string() + ": is a folder; give a file name, e.g. weights.h5");
#ifndef _WIN32
    // A device, not a file: writing "succeeds" into nothing, or fails only at the end of a run.
    CHECK(test::weights_error_text([&] { io::check_weights_destination("/dev/full"); }) ==
          "/dev/full: is not a regular file (a device or another special file); give a file name, e.g. weights.h5");
    // A folder where nobody, root included, can create a file.
    CHECK_THAT(test::weights_error_text([&] { io::check_weights_destination("/proc/weights.h5"); }),
               Catch::StartsWith("/proc/weights.h5: the folder '/proc' cannot be written to ("));
#endif
}

TEST_CASE("two saves of one file at the same time never mix: the file is always one of them, whole", "[weights]") {
    const test::TempDir folder("weights");
    const auto file = folder.path() / "model.h5";
    const WeightsFile first = sample_file(100), second = sample_file(200);
    std::vector<std::string> failures;
    std::mutex failures_lock;
    const auto save_many = [&](const WeightsFile& contents) {
        for (int i = 0; i < 15; ++i) {
            try {
                io::save_weights_file(file, contents);
            } catch (const std::exception& error) {
                const std::lock_guard lock(failures_lock);
                failures.emplace_back(error.what());
            }
        }
    };
    std::thread a(save_many, std::cref(first)), b(save_many, std::cref(second));
    a.join();
    b.join();
    CHECK(failures.empty());
    const WeightsFile read = io::read_weights_file(file);
    const bool is_first = read.layers[1].weights[0].values == first.layers[1].weights[0].values;
    check_same(read, is_first ? first : second);
    CHECK(leftovers(folder.path(), file).empty());
}

TEST_CASE("temporaries left by a killed save are removed by the next save once stale, and fresh ones are kept",
          "[weights]") {
    const test::TempDir folder("weights");
    const auto file = folder.path() / "model.h5";
    const auto old_style = folder.path() / "model.h5.part";
    const auto stale = folder.path() / (io::temporary_prefix(file) + "0123456789abcdef");
    const auto fresh = folder.path() / (io::temporary_prefix(file) + "fedcba9876543210");
    const auto other = folder.path() / "other.h5.part-0123456789abcdef";
    for (const auto& path : {old_style, stale, fresh, other}) test::write_text(path, "half a file");
    const auto an_hour_ago = std::filesystem::file_time_type::clock::now() - std::chrono::hours(1);
    for (const auto& path : {old_style, stale, other}) std::filesystem::last_write_time(path, an_hour_ago);

    io::save_weights_file(file, sample_file());
    CHECK_FALSE(std::filesystem::exists(old_style));
    CHECK_FALSE(std::filesystem::exists(stale));
    CHECK(std::filesystem::exists(fresh));  // may belong to a save in progress
    CHECK(std::filesystem::exists(other));  // another file's
    check_same(io::read_weights_file(file), sample_file());
}

TEST_CASE("files that are not readable weights get a message saying why", "[weights]") {
    const test::TempDir folder("weights");
    const auto read = [](const std::filesystem::path& file) {
        return test::weights_error_text([&] { io::read_weights_file(file); });
    };

    SECTION("a missing file") {
        const auto file = folder.path() / "absent.h5";
        CHECK(read(file) == file.string() + ": the file does not exist");
    }
    SECTION("a text file with junk") {
        const auto file = folder.path() / "junk.h5";
        test::write_text(file, "this is not HDF5 at all, just some text\n");
        CHECK(read(file) ==
              file.string() + ": not an HDF5 file; weights files are written by 'backprop train --save-weights'");
    }
    SECTION("a truncated copy of a good file") {
        const auto good = folder.path() / "good.h5";
        io::save_weights_file(good, sample_file());
        const std::string bytes = test::read_text(good);
        const auto file = folder.path() / "truncated.h5";
        test::write_text(file, bytes.substr(0, bytes.size() / 2));
        CHECK(read(file) ==
              file.string() + ": cannot be read: the file is damaged or incomplete (was a save or a copy cut short?)");
    }
    SECTION("an HDF5 file that is neither ours nor Keras's") {
        const auto file = folder.path() / "other.h5";
        write_format1_file(file, false, 1, H5T_IEEE_F32LE);
        CHECK(read(file) == file.string() +
                                ": is an HDF5 file but neither a Backprop Studio weights file nor a Keras weights file "
                                "(it has no 'layer_names' attribute)");
    }
    SECTION("a newer format version") {
        const auto file = folder.path() / "newer.h5";
        write_format1_file(file, true, 3, H5T_IEEE_F32LE);
        CHECK(read(file) == file.string() +
                                ": was written by a newer Backprop Studio (weights format 3); this version reads "
                                "formats 1 to 2");
    }
    SECTION("a newer format version that names the version that wrote it") {
        const auto file = folder.path() / "newer-named.h5";
        write_format1_file(file, true, 3, H5T_IEEE_F32LE);
        {
            H5Id hdf5{H5Fopen(file.string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose};
            REQUIRE(hdf5.id >= 0);
            write_variable_strings(hdf5, "backprop_version", {"0.9.0 (git fedcba9876)"}, true);
        }
        CHECK(read(file) == file.string() +
                                ": was written by Backprop Studio 0.9.0 (git fedcba9876), a newer version (weights "
                                "format 3); this version reads formats 1 to 2");
    }
    SECTION("a kernel whose dims declare terabytes, or more than it stores, is refused before any allocation") {
        // A 13 KB file used to end in a bare std::bad_alloc. Dims are stored apart from the data,
        // so a few changed bytes declare any size; here the dataset is made with them, unwritten.
        const auto declare = [&](const std::filesystem::path& file, std::vector<hsize_t> dims) {
            write_keras_file(file, false);
            H5Id hdf5{H5Fopen(file.string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose};
            REQUIRE(hdf5.id >= 0);
            H5Id inner{H5Gopen2(hdf5, "dense/dense", H5P_DEFAULT), H5Gclose};
            REQUIRE(H5Ldelete(inner, "kernel:0", H5P_DEFAULT) >= 0);
            H5Id space{H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose};
            H5Id dataset{H5Dcreate2(inner, "kernel:0", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                         H5Dclose};
            REQUIRE(dataset.id >= 0);
        };
        const auto huge = folder.path() / "huge.h5";
        declare(huge, {100000, 100000});
        CHECK(std::filesystem::file_size(huge) < 100000);
        CHECK_THAT(read(huge), Catch::StartsWith(huge.string() + ": ") &&
                                   Catch::Contains("declares dims 100000x100000 (10000000000 values), more than any "
                                                   "layer's weights hold: the file is damaged"));
        const auto hollow = folder.path() / "hollow.h5";
        declare(hollow, {40000, 40000});
        CHECK_THAT(read(hollow), Catch::StartsWith(hollow.string() + ": ") &&
                                     Catch::Contains("declares dims 40000x40000 (1600000000 values) but stores only 0 "
                                                     "bytes: the file is damaged"));
    }
    SECTION("a global heap with an object of size 0, or one past its end, is refused, not read forever") {
        // HDF5 1.10.8 adds each object's size to its cursor while it decodes a global heap
        // collection (where the layer names live), so an object of size 0 held it in a loop for
        // good; found by fuzzing. The free space after the last object is the one to damage.
        const auto good = folder.path() / "good.h5";
        io::save_weights_file(good, sample_file());
        const std::string bytes = test::read_text(good);
        const std::size_t heap = bytes.find("GCOL");
        REQUIRE(heap != std::string::npos);
        const auto u64 = [&](std::size_t at) {
            std::uint64_t value = 0;
            for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
            return value;
        };
        std::size_t object = heap + 16;
        while (static_cast<unsigned char>(bytes[object]) != 0 || bytes[object + 1] != 0) {
            object += 16 + static_cast<std::size_t>((u64(object + 8) + 7) / 8 * 8);
            REQUIRE(object + 16 <= heap + u64(heap + 8));
        }
        const auto damaged_copy = [&](const std::string& name, std::size_t at, std::uint64_t size) {
            std::string copy = bytes;
            for (int i = 0; i < 8; ++i) copy[at + 8 + i] = static_cast<char>((size >> (8 * i)) & 0xff);
            const auto file = folder.path() / name;
            test::write_text(file, copy);
            return file;
        };
        const std::string tail = "; the file is damaged or incomplete (was a save or a copy cut short?)";
        const auto empty = damaged_copy("empty-object.h5", object, 0);
        CHECK(read(empty) == empty.string() + ": cannot be read: its global heap at byte " + std::to_string(heap) +
                                 " holds an object of size 0 at byte " + std::to_string(object) + tail);
        const auto long_object = damaged_copy("long-object.h5", heap + 16, u64(heap + 8));
        CHECK(read(long_object) == long_object.string() + ": cannot be read: its global heap at byte " +
                                       std::to_string(heap) + " holds an object at byte " + std::to_string(heap + 16) +
                                       " that runs past its end" + tail);
        CHECK(io::read_weights_file(good).layers.size() == sample_file().layers.size());
    }
    SECTION("a format-1 dataset that is not float32") {
        const auto file = folder.path() / "doubles.h5";
        write_format1_file(file, true, 1, H5T_IEEE_F64LE);
        CHECK(read(file) == file.string() +
                                ": array 'fc1.weight' holds float64 values, but weights must be float32; save them "
                                "as float32");
    }
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
    io::save_weights_file(good, sample_file());
    const std::string bytes = test::read_text(good);
    const auto truncated = folder.path() / "truncated.h5";
    test::write_text(truncated, bytes.substr(0, bytes.size() / 2));
    const auto doubles = folder.path() / "doubles.h5";
    write_format1_file(doubles, true, 1, H5T_IEEE_F64LE);

    // A reporter that counts instead of printing stands in for HDF5's default one, which prints to stderr.
    H5E_auto2_t old_function = nullptr;
    void* old_data = nullptr;
    H5Eget_auto2(H5E_DEFAULT, &old_function, &old_data);
    int reports = 0;
    H5Eset_auto2(H5E_DEFAULT, count_error_reports, &reports);
    const std::string truncated_message = test::weights_error_text([&] { io::read_weights_file(truncated); });
    const std::string doubles_message = test::weights_error_text([&] { io::read_weights_file(doubles); });
    const std::string saved_message =
        test::weights_error_text([&] { io::save_weights_file(folder.path() / "again.h5", sample_file()); });
    H5E_auto2_t function_after = nullptr;
    void* data_after = nullptr;
    H5Eget_auto2(H5E_DEFAULT, &function_after, &data_after);
    H5Eset_auto2(H5E_DEFAULT, old_function, old_data);

    CHECK_THAT(truncated_message, Catch::StartsWith(truncated.string() + ": cannot be read"));
    CHECK_THAT(doubles_message, Catch::StartsWith(doubles.string() + ": array 'fc1.weight' holds float64"));
    CHECK(saved_message == "(no WeightsFileError was thrown)");
    CHECK(reports == 0);
    CHECK(function_after == &count_error_reports);
    CHECK(data_after == &reports);
}

TEST_CASE("saving weights probes the destination once, in save_atomically, and refuses with the same words") {
    const test::TempDir folder("weights");
    const std::filesystem::path file = folder.path() / "model.h5";
    const unsigned long long before = io::destination_probes();
    io::save_weights_file(file, sample_file());
    CHECK(io::destination_probes() - before == 1);
    CHECK(io::read_weights_file(file).layers.size() == sample_file().layers.size());

    // The refusals come from save_atomically's check now, worded as check_weights_destination's.
    const std::filesystem::path missing = folder.path() / "missing" / "model.h5";
    CHECK(test::weights_error_text([&] { io::save_weights_file(missing, sample_file()); }) ==
          test::weights_error_text([&] { io::check_weights_destination(missing); }));
    CHECK(test::weights_error_text([&] { io::save_weights_file(folder.path(), sample_file()); }) ==
          test::weights_error_text([&] { io::check_weights_destination(folder.path()); }));
}
