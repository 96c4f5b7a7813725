// Persistent on-disk cache of compiled OpenCL program binaries.
//
// Pure C++ (no OpenCL types): the OpenCL layer calls load() before building a
// program from source and store() after a successful build. The cache is an
// optimisation only, so nothing here throws for bad entries or failed writes.
//
// Layout: <dir>/<sanitised-device-name>-<8 hex>/<key_hash_hex>.bin
// Entry (all integers little-endian):
//   "BPKC" | u32 format_version | u64 fnv(source) | u64 fnv(build_options)
//   | str platform_name | str platform_version | str device_name
//   | str driver_version | str build_options        (str = u32 length + bytes)
//   | u64 payload_size | u32 crc32(header bytes before it + payload) | payload
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace bps::cl {

// Everything that changes a compiled binary.
struct CacheKey {
    std::string source;  // full kernel source
    std::string build_options;
    std::string platform_name;
    std::string platform_version;
    std::string device_name;
    std::string driver_version;
};

// misses include rejected loads; rejected = damaged/mismatching entries deleted.
struct CacheStats {
    std::size_t hits = 0, misses = 0, rejected = 0, stored = 0, evicted = 0;
};

struct CacheDeviceUsage {
    std::string device_name;
    std::string driver_version;
    std::size_t entries = 0;
    std::uint64_t bytes = 0;
};

struct CacheInfo {
    std::filesystem::path dir;
    std::vector<CacheDeviceUsage> devices;  // sorted by device name
    std::size_t entries = 0;
    std::uint64_t bytes = 0;
    std::uint64_t size_cap_bytes = 0;
};

// One instance may be shared between threads (calls are serialised), and any
// number of instances, in any number of processes, may share one folder.
class KernelCache {
public:
    static constexpr std::uint32_t format_version = 1;
    static constexpr std::uint64_t default_size_cap_bytes = 256ull << 20;
    // Longest string accepted in a header; bounds what a damaged file can ask for.
    static constexpr std::uint32_t max_header_string_bytes = 1u << 16;

    explicit KernelCache(std::filesystem::path dir, std::uint64_t size_cap_bytes = default_size_cap_bytes);

    // The binary stored for this key, or nullopt. A damaged, truncated or
    // mismatching entry is deleted (counted in rejected) and nullopt returned.
    // A hit refreshes the entry's last-use time (LRU).
    std::optional<std::vector<unsigned char>> load(const CacheKey& key);

    // Deletes the entry for this key after load() returned it and it proved wrong (the driver
    // took the binary but it holds another program's kernels); counted as rejected, and the
    // hit that load() counted becomes a miss.
    void reject(const CacheKey& key);

    // Writes atomically (temp file + rename), then evicts least-recently-used
    // entries until the total is within the cap. Returns false (see
    // last_error()) when the entry could not be written or alone exceeds the cap.
    bool store(const CacheKey& key, const std::vector<unsigned char>& binary);

    CacheInfo info() const;  // walks the folder
    std::size_t clear();     // removes all entries and temp files; returns entries removed
    // Removes the entries of one device (its device_folder_name); returns how many.
    std::size_t clear_device(const std::string& device_folder);

    const std::filesystem::path& dir() const;
    std::uint64_t size_cap_bytes() const;
    // Not synchronised with concurrent load()/store() on the same instance.
    const CacheStats& stats() const;
    std::string last_error() const;

    // Where the entry for this key lives (whether or not it exists).
    std::filesystem::path entry_path(const CacheKey& key) const;
    // Folder name for the key's device: sanitised device name + "-" + 8 hex digits.
    static std::string device_folder_name(const CacheKey& key);
    // 16 hex digits: 64-bit FNV-1a over format_version and all length-prefixed parts.
    static std::string key_hash_hex(const CacheKey& key);
    // Size on disk of an entry holding payload_bytes for this key.
    static std::uint64_t entry_bytes(const CacheKey& key, std::uint64_t payload_bytes);

private:
    void evict_locked(const std::filesystem::path& keep);
    void set_error_locked(std::string message);

    std::filesystem::path dir_;
    std::uint64_t size_cap_bytes_;
    CacheStats stats_;
    std::string last_error_;
    mutable std::mutex mutex_;
};

}  // namespace bps::cl
