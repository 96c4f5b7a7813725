// Unpacking with libarchive: only regular files, only paths that stay inside the target
// folder, each written as NAME.part and renamed when complete.
#include "datasets/archive.h"

#include <archive.h>
#include <archive_entry.h>

#include <cerrno>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "datasets/dataset.h"

namespace bps::datasets {

namespace fs = std::filesystem;

namespace {

struct ArchiveFree {
    void operator()(archive* reader) const { archive_read_free(reader); }
};

std::string libarchive_error(archive* reader) {
    const char* text = archive_error_string(reader);
    return text != nullptr ? text : "unknown error";
}

[[noreturn]] void throw_damaged(const fs::path& archive_file, archive* reader) {
    throw DatasetError(archive_file, std::string("is damaged: ") + libarchive_error(reader));
}

[[noreturn]] void throw_not_an_archive(const fs::path& archive_file, archive* reader) {
    throw DatasetError(archive_file,
                       std::string("is not an archive this program can unpack (") + libarchive_error(reader) + ")");
}

// Rejects "/x", "C:x", "\\server\x" and any ".." component, checking both separators so an
// archive made on Windows is judged the same on every system.
bool is_safe_relative_path(const std::string& name) {
    if (name.empty() || name.front() == '/' || name.front() == '\\') return false;
    if (name.size() >= 2 && name[1] == ':') return false;
    std::size_t start = 0;
    while (start <= name.size()) {
        const std::size_t end = name.find_first_of("/\\", start);
        const std::size_t stop = end == std::string::npos ? name.size() : end;
        if (name.compare(start, stop - start, "..") == 0 && stop - start == 2) return false;
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return true;
}

fs::path entry_path(archive_entry* entry) {
#ifdef _WIN32
    const wchar_t* name = archive_entry_pathname_w(entry);
#else
    const char* name = archive_entry_pathname(entry);
#endif
    return name != nullptr ? fs::path(name) : fs::path();
}

void open_for_reading(archive* reader, const fs::path& archive_file) {
    archive_read_support_filter_all(reader);
    archive_read_support_format_all(reader);
    constexpr std::size_t block_size = 64 * 1024;
#ifdef _WIN32
    const int result = archive_read_open_filename_w(reader, archive_file.c_str(), block_size);
#else
    const int result = archive_read_open_filename(reader, archive_file.c_str(), block_size);
#endif
    if (result == ARCHIVE_OK) return;
    if (!fs::is_regular_file(archive_file)) throw DatasetError(archive_file, "does not exist or is not a file");
    // libarchive reports an unrecognised format as EFTYPE where it exists, else EILSEQ.
    const int code = archive_errno(reader);
#ifdef EFTYPE
    const bool unrecognised = code == EFTYPE || code == EILSEQ;
#else
    const bool unrecognised = code == EILSEQ;
#endif
    if (unrecognised && archive_format(reader) == 0) throw_not_an_archive(archive_file, reader);
    throw DatasetError(archive_file, std::string("could not be opened: ") + libarchive_error(reader));
}

// Streams the current entry's data to `target` through target.part.
void write_entry(archive* reader, const fs::path& archive_file, const fs::path& target) {
    fs::create_directories(target.parent_path());
    fs::path part = target;
    part += ".part";
    {
        std::ofstream out(part, std::ios::binary | std::ios::trunc);
        if (!out) throw DatasetError(part, "could not be created; check that the folder is writable");
        std::vector<char> buffer(64 * 1024);
        for (;;) {
            const la_ssize_t count = archive_read_data(reader, buffer.data(), buffer.size());
            if (count == 0) break;
            if (count < 0) {
                out.close();
                std::error_code ignored;
                fs::remove(part, ignored);
                throw_damaged(archive_file, reader);
            }
            out.write(buffer.data(), static_cast<std::streamsize>(count));
            if (!out) throw DatasetError(part, "could not be written; is the disk full?");
        }
    }
    fs::rename(part, target);
}

}  // namespace

std::vector<fs::path> extract_archive(const fs::path& archive_file, const fs::path& folder) {
    const std::unique_ptr<archive, ArchiveFree> reader(archive_read_new());
    if (!reader) throw DatasetError(archive_file, "could not be opened: libarchive is out of memory");
    open_for_reading(reader.get(), archive_file);

    std::vector<fs::path> extracted;
    for (;;) {
        archive_entry* entry = nullptr;
        const int result = archive_read_next_header(reader.get(), &entry);
        if (result == ARCHIVE_EOF) break;
        if (result < ARCHIVE_WARN) {
            // No format recognised at all: not a damaged archive but not an archive.
            if (archive_format(reader.get()) == 0) throw_not_an_archive(archive_file, reader.get());
            throw_damaged(archive_file, reader.get());
        }
        // Folders are created as needed; links, devices and hard-link entries carry no data of their own.
        if (archive_entry_filetype(entry) != AE_IFREG || archive_entry_hardlink(entry) != nullptr) continue;

        const fs::path relative = entry_path(entry);
        const std::string name = relative.generic_string();
        if (relative.empty())
            throw DatasetError(archive_file, "holds an entry whose name cannot be read on this system");
        if (relative.is_absolute() || relative.has_root_name() || relative.has_root_directory() ||
            !is_safe_relative_path(name)) {
            std::string problem = "holds an unsafe path '";
            problem += name;
            problem += "'";
            throw DatasetError(archive_file, problem);
        }
        const fs::path target = folder / relative;
        write_entry(reader.get(), archive_file, target);
        extracted.push_back(target);
    }
    return extracted;
}

}  // namespace bps::datasets
