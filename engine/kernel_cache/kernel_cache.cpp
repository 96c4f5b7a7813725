#include "engine/kernel_cache/kernel_cache.h"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <random>
#include <system_error>
#include <thread>
#include <utility>

namespace bps::cl {

namespace fs = std::filesystem;

namespace {

constexpr unsigned char magic[4] = {'B', 'P', 'K', 'C'};
// Temp files younger than this may belong to a live writer in another process.
constexpr auto stale_temp_age = std::chrono::hours(1);

// ---- hashing ---------------------------------------------------------------

constexpr std::uint64_t fnv_offset = 14695981039346656037ull;
constexpr std::uint64_t fnv_prime = 1099511628211ull;

void fnv_bytes(std::uint64_t& h, const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= fnv_prime;
    }
}

// Hash the integer's little-endian bytes so the hash does not depend on the host.
void fnv_u64(std::uint64_t& h, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        const auto b = static_cast<unsigned char>(v >> (8 * i));
        fnv_bytes(h, &b, 1);
    }
}

// Length prefix keeps ("ab","c") and ("a","bc") apart.
void fnv_part(std::uint64_t& h, const std::string& s) {
    fnv_u64(h, s.size());
    fnv_bytes(h, s.data(), s.size());
}

std::uint64_t fnv_string(const std::string& s) {
    std::uint64_t h = fnv_offset;
    fnv_bytes(h, s.data(), s.size());
    return h;
}

std::string hex(std::uint64_t v, int digits) {
    static const char* d = "0123456789abcdef";
    std::string out(static_cast<std::size_t>(digits), '0');
    for (int i = digits - 1; i >= 0; --i) {
        out[static_cast<std::size_t>(i)] = d[v & 0xF];
        v >>= 4;
    }
    return out;
}

// zlib's crc32 takes a uInt length, so feed large buffers in chunks.
std::uint32_t crc_update(std::uint32_t crc, const unsigned char* data, std::size_t n) {
    uLong c = crc;
    while (n > 0) {
        const std::size_t chunk = std::min<std::size_t>(n, 1u << 30);
        c = crc32(c, data, static_cast<uInt>(chunk));
        data += chunk;
        n -= chunk;
    }
    return static_cast<std::uint32_t>(c);
}

// ---- header ----------------------------------------------------------------

struct Header {
    std::uint32_t version = 0;
    std::uint64_t source_hash = 0;
    std::uint64_t options_hash = 0;
    std::string platform_name, platform_version, device_name, driver_version, build_options;
    std::uint64_t payload_size = 0;
    std::uint32_t checksum = 0;
};

void put_u32(std::vector<unsigned char>& out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

void put_u64(std::vector<unsigned char>& out, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

void put_str(std::vector<unsigned char>& out, const std::string& s) {
    put_u32(out, static_cast<std::uint32_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
}

// Everything before the checksum field; the checksum covers these bytes too.
std::vector<unsigned char> header_prefix(const CacheKey& key, std::uint64_t payload_size) {
    std::vector<unsigned char> out(std::begin(magic), std::end(magic));
    put_u32(out, KernelCache::format_version);
    put_u64(out, fnv_string(key.source));
    put_u64(out, fnv_string(key.build_options));
    put_str(out, key.platform_name);
    put_str(out, key.platform_version);
    put_str(out, key.device_name);
    put_str(out, key.driver_version);
    put_str(out, key.build_options);
    put_u64(out, payload_size);
    return out;
}

// Reads from a stream whose true length is known, so no length field read from
// the file can make us read (or allocate) past its end.
class Reader {
public:
    Reader(std::istream& in, std::uint64_t size) : in_(in), remaining_(size) {}

    bool ok() const { return ok_; }
    std::uint64_t remaining() const { return remaining_; }
    std::uint32_t crc() const { return crc_; }

    bool bytes(unsigned char* dst, std::uint64_t n, bool checksummed = true) {
        if (!ok_ || n > remaining_) return ok_ = false;
        in_.read(reinterpret_cast<char*>(dst), static_cast<std::streamsize>(n));
        if (!in_ || static_cast<std::uint64_t>(in_.gcount()) != n) return ok_ = false;
        remaining_ -= n;
        if (checksummed) crc_ = crc_update(crc_, dst, static_cast<std::size_t>(n));
        return true;
    }

    std::uint64_t uint(int width, bool checksummed = true) {
        unsigned char b[8] = {};
        if (!bytes(b, static_cast<std::uint64_t>(width), checksummed)) return 0;
        std::uint64_t v = 0;
        for (int i = width - 1; i >= 0; --i) v = (v << 8) | b[i];
        return v;
    }

    std::string str() {
        const auto n = uint(4);
        if (!ok_ || n > KernelCache::max_header_string_bytes || n > remaining_) {
            ok_ = false;
            return {};
        }
        std::string s(static_cast<std::size_t>(n), '\0');
        bytes(reinterpret_cast<unsigned char*>(s.data()), n);
        return s;
    }

private:
    std::istream& in_;
    std::uint64_t remaining_;
    std::uint32_t crc_ = static_cast<std::uint32_t>(crc32(0L, Z_NULL, 0));
    bool ok_ = true;
};

// Parses the header; leaves the reader at the payload. nullopt if it does not parse.
std::optional<Header> read_header(Reader& r) {
    unsigned char m[4] = {};
    if (!r.bytes(m, 4) || !std::equal(std::begin(m), std::end(m), std::begin(magic))) {
        return std::nullopt;
    }
    Header h;
    h.version = static_cast<std::uint32_t>(r.uint(4));
    // A different format may lay out the rest differently: stop here.
    if (!r.ok() || h.version != KernelCache::format_version) return std::nullopt;
    h.source_hash = r.uint(8);
    h.options_hash = r.uint(8);
    h.platform_name = r.str();
    h.platform_version = r.str();
    h.device_name = r.str();
    h.driver_version = r.str();
    h.build_options = r.str();
    h.payload_size = r.uint(8);
    h.checksum = static_cast<std::uint32_t>(r.uint(4, false));
    if (!r.ok()) return std::nullopt;
    return h;
}

bool header_matches(const Header& h, const CacheKey& key) {
    return h.source_hash == fnv_string(key.source) && h.options_hash == fnv_string(key.build_options) &&
           h.platform_name == key.platform_name && h.platform_version == key.platform_version &&
           h.device_name == key.device_name && h.driver_version == key.driver_version &&
           h.build_options == key.build_options;
}

enum class Verdict { hit, missing, bad };

// Reads and fully verifies the entry at path. Reads nothing it has not checked.
Verdict read_entry(const fs::path& path, const CacheKey& key, std::vector<unsigned char>* payload) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Verdict::missing;
    // Size of the file we actually opened (the path may be replaced meanwhile).
    in.seekg(0, std::ios::end);
    const auto end = in.tellg();
    in.seekg(0, std::ios::beg);
    if (end < 0 || !in) return Verdict::missing;

    Reader r(in, static_cast<std::uint64_t>(end));
    const auto h = read_header(r);
    if (!h || !header_matches(*h, key)) return Verdict::bad;
    // Exact match catches both truncation and trailing bytes, and bounds the allocation.
    if (h->payload_size != r.remaining()) return Verdict::bad;

    std::vector<unsigned char> data(static_cast<std::size_t>(h->payload_size));
    if (!r.bytes(data.data(), data.size()) || r.crc() != h->checksum) return Verdict::bad;
    if (payload) *payload = std::move(data);
    return Verdict::hit;
}

// ---- misc ------------------------------------------------------------------

std::string path_text(const fs::path& p) {
    const auto u = p.u8string();
    return std::string(reinterpret_cast<const char*>(u.data()), u.size());
}

std::string sanitise(const std::string& name) {
    std::string out;
    for (const char c : name) {
        if (out.size() >= 40) break;
        const bool ok =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        out.push_back(ok ? c : '_');
    }
    return out.empty() ? std::string("device") : out;
}

// Unique per writer across threads (counter) and processes (random nonce).
std::string temp_suffix() {
    static const std::uint64_t nonce = [] {
        std::random_device rd;
        std::uint64_t v = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
        v ^= static_cast<std::uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
        return v;
    }();
    static std::atomic<std::uint64_t> counter{0};
    // Appended piecewise: GCC 12 reports a false -Wrestrict for "." + std::string at -O2.
    std::string suffix(".");
    suffix += hex(nonce, 16);
    suffix += '-';
    suffix += std::to_string(counter.fetch_add(1));
    suffix += ".tmp";
    return suffix;
}

struct EntryFile {
    fs::path path;
    std::uint64_t bytes = 0;
    fs::file_time_type used;
};

// Collects *.bin entries in the device folders; removes temp files older than
// min_temp_age (they belong to writers that died).
std::vector<EntryFile> scan(const fs::path& dir, fs::file_time_type::duration min_temp_age) {
    std::vector<EntryFile> out;
    std::error_code ec;
    const auto now = fs::file_time_type::clock::now();
    for (fs::directory_iterator dev(dir, ec), end; !ec && dev != end; dev.increment(ec)) {
        std::error_code e;
        if (!dev->is_directory(e)) continue;
        for (fs::directory_iterator f(dev->path(), e); !e && f != end; f.increment(e)) {
            std::error_code fe;
            if (!f->is_regular_file(fe)) continue;
            const auto ext = f->path().extension();
            const auto mtime = fs::last_write_time(f->path(), fe);
            if (ext == ".tmp") {
                if (!fe && now - mtime >= min_temp_age) fs::remove(f->path(), fe);
            } else if (ext == ".bin") {
                const auto size = fs::file_size(f->path(), fe);
                if (!fe) out.push_back({f->path(), size, mtime});
            }
        }
    }
    return out;
}

}  // namespace

// ---- KernelCache -------------------------------------------------------------

KernelCache::KernelCache(fs::path dir, std::uint64_t size_cap_bytes)
    : dir_(std::move(dir)), size_cap_bytes_(size_cap_bytes) {}

const fs::path& KernelCache::dir() const {
    return dir_;
}
std::uint64_t KernelCache::size_cap_bytes() const {
    return size_cap_bytes_;
}
const CacheStats& KernelCache::stats() const {
    return stats_;
}

std::string KernelCache::last_error() const {
    std::lock_guard lock(mutex_);
    return last_error_;
}

void KernelCache::set_error_locked(std::string message) {
    last_error_ = std::move(message);
}

std::string KernelCache::key_hash_hex(const CacheKey& key) {
    std::uint64_t h = fnv_offset;
    fnv_u64(h, format_version);
    for (const auto* part : {&key.source, &key.build_options, &key.platform_name, &key.platform_version,
                             &key.device_name, &key.driver_version}) {
        fnv_part(h, *part);
    }
    return hex(h, 16);
}

std::string KernelCache::device_folder_name(const CacheKey& key) {
    std::uint64_t h = fnv_offset;
    for (const auto* part : {&key.platform_name, &key.platform_version, &key.device_name, &key.driver_version}) {
        fnv_part(h, *part);
    }
    return sanitise(key.device_name) + "-" + hex((h ^ (h >> 32)) & 0xFFFFFFFFu, 8);
}

fs::path KernelCache::entry_path(const CacheKey& key) const {
    return dir_ / device_folder_name(key) / (key_hash_hex(key) + ".bin");
}

std::uint64_t KernelCache::entry_bytes(const CacheKey& key, std::uint64_t payload_bytes) {
    return header_prefix(key, payload_bytes).size() + 4 + payload_bytes;
}

std::optional<std::vector<unsigned char>> KernelCache::load(const CacheKey& key) {
    std::lock_guard lock(mutex_);
    try {
        const auto path = entry_path(key);
        std::vector<unsigned char> payload;
        switch (read_entry(path, key, &payload)) {
            case Verdict::hit: {
                std::error_code ec;
                fs::last_write_time(path, fs::file_time_type::clock::now(), ec);  // LRU; best effort
                ++stats_.hits;
                return payload;
            }
            case Verdict::bad: {
                std::error_code ec;
                fs::remove(path, ec);
                ++stats_.rejected;
                ++stats_.misses;
                return std::nullopt;
            }
            case Verdict::missing:
                break;
        }
    } catch (const std::exception& e) {
        // Not the entry's fault (e.g. out of memory): leave it on disk.
        set_error_locked(std::string("kernel cache load failed: ") + e.what());
    } catch (...) {
        set_error_locked("kernel cache load failed");
    }
    ++stats_.misses;
    return std::nullopt;
}

bool KernelCache::store(const CacheKey& key, const std::vector<unsigned char>& binary) {
    std::lock_guard lock(mutex_);
    fs::path tmp;
    try {
        for (const auto* s :
             {&key.platform_name, &key.platform_version, &key.device_name, &key.driver_version, &key.build_options}) {
            if (s->size() > max_header_string_bytes) {
                set_error_locked("kernel cache: key field longer than " + std::to_string(max_header_string_bytes) +
                                 " bytes, not stored");
                return false;
            }
        }
        const auto path = entry_path(key);
        auto header = header_prefix(key, binary.size());
        const std::uint64_t total = header.size() + 4 + binary.size();
        if (total > size_cap_bytes_) {
            set_error_locked("kernel cache: entry of " + std::to_string(total) + " bytes exceeds the cap of " +
                             std::to_string(size_cap_bytes_) + " bytes, not stored");
            return false;
        }
        std::uint32_t crc = crc_update(static_cast<std::uint32_t>(crc32(0L, Z_NULL, 0)), header.data(), header.size());
        crc = crc_update(crc, binary.data(), binary.size());
        put_u32(header, crc);

        std::error_code ec;
        fs::create_directories(path.parent_path(), ec);
        if (ec) {
            set_error_locked("kernel cache: cannot create folder '" + path_text(path.parent_path()) +
                             "': " + ec.message());
            return false;
        }

        tmp = path.parent_path() / (key_hash_hex(key) + temp_suffix());
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            out.write(reinterpret_cast<const char*>(header.data()), static_cast<std::streamsize>(header.size()));
            out.write(reinterpret_cast<const char*>(binary.data()), static_cast<std::streamsize>(binary.size()));
            // close() rather than flush(): the last buffered write can fail too (disk full).
            out.close();
            if (out.fail()) {
                fs::remove(tmp, ec);
                set_error_locked("kernel cache: cannot write '" + path_text(tmp) +
                                 "' (read-only folder or disk full?)");
                return false;
            }
        }

        // POSIX renames over an existing file atomically. Windows refuses while
        // another process holds the target open; if the target is already a valid
        // entry for this key the job is done, otherwise retry briefly.
        std::string rename_error;
        for (int attempt = 0;; ++attempt) {
            fs::rename(tmp, path, ec);
            if (!ec) break;
            rename_error = ec.message();
            if (read_entry(path, key, nullptr) == Verdict::hit || attempt == 4) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(1 + 4 * attempt));
        }
        if (ec) {
            std::error_code ignored;
            fs::remove(tmp, ignored);
            if (read_entry(path, key, nullptr) != Verdict::hit) {
                set_error_locked("kernel cache: cannot move entry into '" + path_text(path) + "': " + rename_error);
                return false;
            }
        }
        ++stats_.stored;
        evict_locked(path);
        return true;
    } catch (const std::exception& e) {
        if (!tmp.empty()) {
            std::error_code ec;
            fs::remove(tmp, ec);
        }
        set_error_locked(std::string("kernel cache store failed: ") + e.what());
        return false;
    } catch (...) {
        if (!tmp.empty()) {
            std::error_code ec;
            fs::remove(tmp, ec);
        }
        set_error_locked("kernel cache store failed");
        return false;
    }
}

void KernelCache::evict_locked(const fs::path& keep) {
    auto entries = scan(dir_, stale_temp_age);
    std::uint64_t total = 0;
    for (const auto& e : entries) total += e.bytes;
    if (total <= size_cap_bytes_) return;

    // Oldest first; the path tie-break keeps equal timestamps deterministic.
    std::sort(entries.begin(), entries.end(), [](const EntryFile& a, const EntryFile& b) {
        return a.used != b.used ? a.used < b.used : a.path < b.path;
    });
    for (const auto& e : entries) {
        if (total <= size_cap_bytes_) break;
        if (e.path == keep) continue;
        std::error_code ec;
        if (fs::remove(e.path, ec)) {
            ++stats_.evicted;
            total -= e.bytes;
        } else if (!ec) {
            total -= e.bytes;  // another process removed it first
        }
    }
}

std::size_t KernelCache::clear() {
    std::lock_guard lock(mutex_);
    std::size_t removed = 0;
    try {
        // Explicit user action: drop every temp file too. A writer that loses its
        // temp file just fails its store, which is harmless.
        for (const auto& e : scan(dir_, fs::file_time_type::duration::zero())) {
            std::error_code ec;
            if (fs::remove(e.path, ec)) ++removed;
        }
        std::error_code ec;
        for (fs::directory_iterator dev(dir_, ec), end; !ec && dev != end; dev.increment(ec)) {
            std::error_code e;
            if (dev->is_directory(e)) fs::remove(dev->path(), e);  // only succeeds when empty
        }
    } catch (const std::exception& e) {
        set_error_locked(std::string("kernel cache clear failed: ") + e.what());
    } catch (...) {
        set_error_locked("kernel cache clear failed");
    }
    return removed;
}

void KernelCache::reject(const CacheKey& key) {
    std::lock_guard lock(mutex_);
    std::error_code ec;
    fs::remove(entry_path(key), ec);
    ++stats_.rejected;
    if (stats_.hits > 0) --stats_.hits;
    ++stats_.misses;
}

std::size_t KernelCache::clear_device(const std::string& device_folder) {
    std::lock_guard lock(mutex_);
    std::size_t removed = 0;
    std::error_code ec;
    for (fs::directory_iterator f(dir_ / device_folder, ec), end; !ec && f != end; f.increment(ec)) {
        std::error_code e;
        if (f->path().extension() == ".bin" && fs::remove(f->path(), e)) ++removed;
    }
    return removed;
}

CacheInfo KernelCache::info() const {
    CacheInfo result;
    result.dir = dir_;
    result.size_cap_bytes = size_cap_bytes_;
    std::error_code ec;
    for (fs::directory_iterator dev(dir_, ec), end; !ec && dev != end; dev.increment(ec)) {
        std::error_code e;
        if (!dev->is_directory(e)) continue;
        CacheDeviceUsage usage;
        bool named = false;
        for (fs::directory_iterator f(dev->path(), e); !e && f != end; f.increment(e)) {
            std::error_code fe;
            if (!f->is_regular_file(fe) || f->path().extension() != ".bin") continue;
            const auto size = fs::file_size(f->path(), fe);
            if (fe) continue;
            ++usage.entries;
            usage.bytes += size;
            if (!named) {
                std::ifstream in(f->path(), std::ios::binary);
                in.seekg(0, std::ios::end);
                const auto len = in.tellg();
                in.seekg(0, std::ios::beg);
                if (in && len >= 0) {
                    Reader r(in, static_cast<std::uint64_t>(len));
                    if (const auto h = read_header(r)) {
                        usage.device_name = h->device_name;
                        usage.driver_version = h->driver_version;
                        named = true;
                    }
                }
            }
        }
        if (usage.entries == 0) continue;
        if (!named) usage.device_name = path_text(dev->path().filename());
        result.entries += usage.entries;
        result.bytes += usage.bytes;
        result.devices.push_back(std::move(usage));
    }
    std::sort(result.devices.begin(), result.devices.end(), [](const CacheDeviceUsage& a, const CacheDeviceUsage& b) {
        return a.device_name != b.device_name ? a.device_name < b.device_name : a.driver_version < b.driver_version;
    });
    return result;
}

}  // namespace bps::cl
