#pragma once
// Downloading one file with resume, cancel, progress and SHA-256 verification (libcurl,
// OpenSSL's SHA-256). Any URL libcurl knows works, file:// included (which the tests use).
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>

namespace bps::datasets {

struct RemoteFile {
    std::string name;  // file name in the dataset's folder, "train-images-idx3-ubyte.gz"
    std::string url;
    std::uint64_t size = 0;
    std::string sha256;  // lowercase hex
};

struct DownloadProgress {
    std::string file;            // RemoteFile::name
    std::uint64_t received = 0;  // bytes on disk so far, resumed bytes included
    std::uint64_t total = 0;     // RemoteFile::size
};

// Called often (at most every few milliseconds is fine); return false to cancel.
using ProgressCallback = std::function<bool(const DownloadProgress&)>;

// The user cancelled: the partial file stays (NAME.part) so the next call resumes it.
class DownloadCancelled : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Network failure, HTTP error, size or checksum mismatch. The message names the file and URL
// and says what to do, e.g.
//   "train-images-idx3-ubyte.gz: checksum mismatch (expected 3aed…, got 01ba…); the damaged
//    download was removed, run the download again"
//   "train-images-idx3-ubyte.gz: could not download https://…: Couldn't resolve host name"
class DownloadError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Downloads `remote` to folder/remote.name:
// - the final file already there with the right size and SHA-256: nothing is downloaded;
// - a file there with the wrong checksum is replaced (downloaded again);
// - folder/NAME.part from an interrupted run is resumed from its size (HTTP Range); a server
//   that ignores the range, or a .part longer than the file, restarts cleanly;
// - the finished .part is checked (size, then SHA-256) and only then renamed to NAME,
//   so a file under the final name is always complete and verified.
// Creates `folder` if needed.
void download_file(const RemoteFile& remote, const std::filesystem::path& folder, const ProgressCallback& progress);

// Lowercase hex SHA-256 of a file (throws std::runtime_error naming an unreadable file).
std::string sha256_of_file(const std::filesystem::path& file);

// True when folder/remote.name exists with the catalogued size and checksum.
bool is_verified(const RemoteFile& remote, const std::filesystem::path& folder);

}  // namespace bps::datasets
