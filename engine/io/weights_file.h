#pragma once
// Trained weights on disk: one HDF5 file, a group per layer holding its arrays ("/fc1/weight",
// "/fc1/bias", "/bn1/running_mean"), float32 in the engine's own axis order, and root attributes
// naming the format and its version. The file is written to a temporary name beside the target
// and renamed into place, so a failed save never damages an earlier file.
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace bps::io {

// One parameter array on the host: name as Network::parameters() gives it ("fc1.weight").
struct NamedArray {
    std::string name;
    std::vector<int> dims;  // outermost first; the product equals values.size()
    std::vector<float> values;
};

// Any problem with a weights file; what() is "FILE: problem".
class WeightsFileError : public std::runtime_error {
public:
    WeightsFileError(const std::filesystem::path& file, const std::string& problem);
    const std::filesystem::path& file() const { return file_; }

private:
    std::filesystem::path file_;
};

// "16x64": dims as messages show them.
std::string dims_text(const std::vector<int>& dims);

// Throws WeightsFileError when weights could not be saved as `file`: its folder is missing or not a
// folder, or `file` is a folder. save_weights checks this too; a trainer calls it before training so
// that hours of work do not end in an unsavable file.
void check_weights_destination(const std::filesystem::path& file);

// Names must be "<layer>.<array>" with no '/' ; throws WeightsFileError (also for a folder that does
// not exist or cannot be written). `description` is stored as a root attribute and read back by
// load_weights_description (`backprop train` stores the model card of session/model_card.h there).
void save_weights(const std::filesystem::path& file, std::span<const NamedArray> arrays,
                  const std::string& description = {});

// Every array in the file, in the order they were saved. Throws WeightsFileError for a missing
// file, a file that is not HDF5, an HDF5 file that is not a Backprop Studio weights file, a newer
// format version, or an array that cannot be read.
std::vector<NamedArray> load_weights(const std::filesystem::path& file);
std::string load_weights_description(const std::filesystem::path& file);

}  // namespace bps::io
