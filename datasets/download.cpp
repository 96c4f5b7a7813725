// One file through libcurl's easy interface: appended to NAME.part so an interrupted or
// cancelled download resumes, verified (size, then SHA-256) before it takes its final name.
#include "datasets/download.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <fstream>
#include <iomanip>
#include <memory>
#include <mutex>
#include <sstream>
#include <system_error>

#include "datasets/ascii_case.h"

namespace bps::datasets {

namespace fs = std::filesystem;

namespace {

void initialise_curl_once() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct CurlCleanup {
    void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};

std::uint64_t size_on_disk(const fs::path& file) {
    std::error_code error;
    const std::uintmax_t size = fs::file_size(file, error);
    return error ? 0 : static_cast<std::uint64_t>(size);
}

void remove_quietly(const fs::path& file) {
    std::error_code ignored;
    fs::remove(file, ignored);
}

std::string megabytes(std::uint64_t bytes) {
    std::ostringstream text;
    // Two decimals below 1 MB so an early cancel does not read "0.0 MB".
    text << std::fixed << std::setprecision(bytes < 1'000'000 ? 2 : 1) << static_cast<double>(bytes) / 1e6;
    return text.str();
}

// What the libcurl callbacks share with the code around curl_easy_perform. Callbacks must
// not throw through C code, so a failure is recorded here and acted on afterwards.
struct Transfer {
    const RemoteFile* remote = nullptr;
    const ProgressCallback* progress = nullptr;
    std::ofstream* out = nullptr;
    std::uint64_t resumed = 0;  // bytes already in the .part when this transfer started
    std::uint64_t written = 0;  // bytes this transfer appended
    bool cancelled = false;
    bool write_failed = false;
    bool too_large = false;
    std::exception_ptr callback_exception;
};

std::size_t write_body(char* data, std::size_t size, std::size_t count, void* user) {
    auto& transfer = *static_cast<Transfer*>(user);
    const std::size_t bytes = size * count;
    transfer.out->write(data, static_cast<std::streamsize>(bytes));
    if (!*transfer.out) {
        transfer.write_failed = true;
        return 0;  // makes libcurl stop with CURLE_WRITE_ERROR
    }
    transfer.written += bytes;
    // A server sending more than the catalogue says would otherwise fill the disk.
    if (transfer.resumed + transfer.written > transfer.remote->size) {
        transfer.too_large = true;
        return 0;
    }
    return bytes;
}

int report_progress(void* user, curl_off_t, curl_off_t now, curl_off_t, curl_off_t) {
    auto& transfer = *static_cast<Transfer*>(user);
    if (!*transfer.progress) return 0;
    try {
        const DownloadProgress report{transfer.remote->name,
                                      transfer.resumed + static_cast<std::uint64_t>(std::max<curl_off_t>(now, 0)),
                                      transfer.remote->size};
        if ((*transfer.progress)(report)) return 0;
        transfer.cancelled = true;
    } catch (...) {
        transfer.callback_exception = std::current_exception();
    }
    return 1;  // non-zero aborts the transfer with CURLE_ABORTED_BY_CALLBACK
}

bool is_http(CURL* handle) {
    const char* scheme = nullptr;
    if (curl_easy_getinfo(handle, CURLINFO_SCHEME, &scheme) != CURLE_OK || scheme == nullptr) return false;
    const std::string name = ascii_lowercase(scheme);
    return name == "http" || name == "https";
}

enum class TransferOutcome { Finished, ResumeRefused };

// Appends the rest of the remote file to `part`. Throws DownloadCancelled or DownloadError;
// returns ResumeRefused when the server would not continue from the .part's size.
TransferOutcome transfer_rest(const RemoteFile& remote, const fs::path& part, const ProgressCallback& progress) {
    const std::uint64_t resumed = size_on_disk(part);
    if (resumed > 0 && resumed == remote.size) return TransferOutcome::Finished;  // only verification is left

    std::ofstream out(part, std::ios::binary | std::ios::app);
    if (!out) {
        std::string message = remote.name;
        message += ": could not open ";
        message += part.string();
        message += " for writing; check that the folder is writable";
        throw DownloadError(message);
    }

    initialise_curl_once();
    const std::unique_ptr<CURL, CurlCleanup> handle(curl_easy_init());
    if (!handle) throw DownloadError(remote.name + ": libcurl could not start a download");
    CURL* curl = handle.get();

    Transfer transfer;
    transfer.remote = &remote;
    transfer.progress = &progress;
    transfer.out = &out;
    transfer.resumed = resumed;
    char error_buffer[CURL_ERROR_SIZE] = {};

    curl_easy_setopt(curl, CURLOPT_URL, remote.url.c_str());
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // downloads run on worker threads
    curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
    // A stalled connection (less than 1 byte/s for a minute) fails instead of hanging forever.
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "BackpropStudio/0.1");
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, report_progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &transfer);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    if (resumed > 0) curl_easy_setopt(curl, CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(resumed));

    const CURLcode result = curl_easy_perform(curl);
    out.close();
    long response_code = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response_code);

    if (transfer.callback_exception) std::rethrow_exception(transfer.callback_exception);
    if (transfer.cancelled) {
        std::string message = "download of ";
        message += remote.name;
        message += " stopped; run it again to resume from ";
        message += megabytes(size_on_disk(part));
        message += " MB";
        throw DownloadCancelled(message);
    }
    if (transfer.write_failed) {
        std::string message = remote.name;
        message += ": could not write to ";
        message += part.string();
        message += "; is the disk full?";
        throw DownloadError(message);
    }
    if (transfer.too_large) return TransferOutcome::Finished;  // the size check reports it

    // A server that ignores the Range header answers 200 with the whole file; libcurl then
    // stops with CURLE_RANGE_ERROR. A .part longer than what the server has gives 416 or,
    // for file://, CURLE_BAD_DOWNLOAD_RESUME. All of these mean: start from the beginning.
    if (resumed > 0) {
        const bool whole_file_sent = result == CURLE_OK && is_http(curl) && response_code == 200;
        const bool range_refused = result == CURLE_RANGE_ERROR || result == CURLE_BAD_DOWNLOAD_RESUME ||
                                   (result == CURLE_HTTP_RETURNED_ERROR && response_code == 416);
        if (whole_file_sent || range_refused) return TransferOutcome::ResumeRefused;
    }
    if (result != CURLE_OK) {
        // Keep what arrived so the next run resumes; an empty .part is only clutter.
        if (size_on_disk(part) == 0) remove_quietly(part);
        std::string message = remote.name;
        message += ": could not download ";
        message += remote.url;
        message += ": ";
        message += error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(result);
        throw DownloadError(message);
    }
    return TransferOutcome::Finished;
}

[[noreturn]] void throw_damaged(const RemoteFile& remote, const fs::path& part, const std::string& problem) {
    remove_quietly(part);
    std::string message = remote.name;
    message += ": ";
    message += problem;
    message += "; the damaged download was removed, run the download again";
    throw DownloadError(message);
}

void verify_and_rename(const RemoteFile& remote, const fs::path& part, const fs::path& final_file) {
    const std::uint64_t size = size_on_disk(part);
    if (size != remote.size) {
        std::string problem = "the download has ";
        problem += std::to_string(size);
        problem += " bytes, expected ";
        problem += std::to_string(remote.size);
        throw_damaged(remote, part, problem);
    }
    const std::string expected = ascii_lowercase(remote.sha256);
    const std::string actual = sha256_of_file(part);
    if (actual != expected) {
        const char* ellipsis = "\xE2\x80\xA6";  // "…" spelled in UTF-8 bytes, whatever the compiler's charset
        std::string problem = "checksum mismatch (expected ";
        problem += expected.substr(0, 12);
        problem += ellipsis;
        problem += ", got ";
        problem += actual.substr(0, 12);
        problem += ellipsis;
        problem += ")";
        throw_damaged(remote, part, problem);
    }
    fs::rename(part, final_file);
}

}  // namespace

bool is_verified(const RemoteFile& remote, const fs::path& folder) {
    const fs::path file = folder / remote.name;
    std::error_code error;
    if (!fs::is_regular_file(file, error) || size_on_disk(file) != remote.size) return false;
    try {
        return sha256_of_file(file) == ascii_lowercase(remote.sha256);
    } catch (const std::exception&) {
        return false;  // unreadable counts as not verified; downloading again replaces it
    }
}

void download_file(const RemoteFile& remote, const fs::path& folder, const ProgressCallback& progress) {
    std::error_code error;
    fs::create_directories(folder, error);
    if (error) {
        std::string message = folder.string();
        message += ": could not create the download folder: ";
        message += error.message();
        throw DownloadError(message);
    }
    const fs::path final_file = folder / remote.name;
    const fs::path part = folder / (remote.name + ".part");

    if (is_verified(remote, folder)) {
        if (progress) progress(DownloadProgress{remote.name, remote.size, remote.size});
        return;
    }
    fs::remove(final_file);  // wrong size or checksum: replaced by a fresh download

    if (size_on_disk(part) > remote.size) remove_quietly(part);
    if (transfer_rest(remote, part, progress) == TransferOutcome::ResumeRefused) {
        remove_quietly(part);
        if (transfer_rest(remote, part, progress) == TransferOutcome::ResumeRefused) {
            // Cannot happen from an empty .part, but never loop or accept a half file.
            throw_damaged(remote, part, "the server would not resume the download");
        }
    }
    verify_and_rename(remote, part, final_file);
}

}  // namespace bps::datasets
