#include "engine/kernel_cache/kernel_cache.h"

#include <catch2/catch.hpp>

#include "tests/support/temp_dir.h"

#include <algorithm>
#include <cstddef>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace bps::cl;
namespace fs = std::filesystem;

namespace {


CacheKey make_key(const std::string& source = "__kernel void k(__global float* x) { x[0] = 1.0f; }") {
    CacheKey k;
    k.source = source;
    k.build_options = "-cl-std=CL1.2 -cl-fast-relaxed-math";
    k.platform_name = "Portable Computing Language";
    k.platform_version = "OpenCL 3.0 PoCL 5.0";
    k.device_name = "cpu-haswell-AMD Ryzen 9 7950X 16-Core Processor";
    k.driver_version = "5.0+debian";
    return k;
}

std::vector<unsigned char> make_binary(std::size_t n, unsigned seed = 1) {
    std::vector<unsigned char> b(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>((i * 31 + seed * 7) & 0xFF);
    return b;
}

std::vector<unsigned char> read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& p, const std::vector<unsigned char>& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::size_t count_with_extension(const fs::path& dir, const std::string& ext) {
    std::size_t n = 0;
    if (!fs::exists(dir)) return 0;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (e.is_regular_file() && e.path().extension() == ext) ++n;
    }
    return n;
}


// Header length of an entry for this key (the payload follows it).
std::size_t header_size(const CacheKey& key) {
    return static_cast<std::size_t>(KernelCache::entry_bytes(key, 0));
}

}  // namespace

TEST_CASE("A stored binary loads back byte-identical and counts one hit while an unknown key is a miss",
          "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    KernelCache cache(tmp.path());
    const auto key = make_key();
    const auto binary = make_binary(4096);

    REQUIRE(cache.store(key, binary));
    CHECK(cache.stats().stored == 1);
    CHECK(fs::file_size(cache.entry_path(key)) == KernelCache::entry_bytes(key, binary.size()));
    CHECK(cache.entry_path(key).parent_path().parent_path() == tmp.path());

    const auto loaded = cache.load(key);
    REQUIRE(loaded.has_value());
    CHECK(*loaded == binary);
    CHECK(cache.stats().hits == 1);
    CHECK(cache.stats().misses == 0);

    CHECK_FALSE(cache.load(make_key("__kernel void other() {}")).has_value());
    CHECK(cache.stats().hits == 1);
    CHECK(cache.stats().misses == 1);
    CHECK(cache.stats().rejected == 0);
}

TEST_CASE("An empty binary round-trips", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    KernelCache cache(tmp.path());
    REQUIRE(cache.store(make_key(), {}));
    const auto loaded = cache.load(make_key());
    REQUIRE(loaded.has_value());
    CHECK(loaded->empty());
}

TEST_CASE("Key hashes are 16 hex digits and length prefixes keep parts apart", "[kernel_cache]") {
    auto a = make_key("ab");
    a.build_options = "c";
    auto b = make_key("a");
    b.build_options = "bc";
    const auto ha = KernelCache::key_hash_hex(a);
    CHECK(ha.size() == 16);
    CHECK(ha.find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK(ha != KernelCache::key_hash_hex(b));
    CHECK(ha == KernelCache::key_hash_hex(a));
}

TEST_CASE("Device folder names are sanitised and end in 8 hex digits", "[kernel_cache]") {
    auto key = make_key();
    key.device_name = "NVIDIA GeForce RTX 4090 / (weird: name) with a very long tail beyond forty chars";
    const auto name = KernelCache::device_folder_name(key);
    REQUIRE(name.size() == 40 + 1 + 8);
    CHECK(name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") ==
          std::string::npos);
    CHECK(name.substr(41).find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK(name.rfind("NVIDIA_GeForce_RTX_4090", 0) == 0);

    auto other_driver = key;
    other_driver.driver_version = "551.23";
    CHECK(KernelCache::device_folder_name(other_driver) != name);
}

TEST_CASE("Flipping one payload byte is rejected and deletes the entry and storing again loads",
          "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    KernelCache cache(tmp.path());
    const auto key = make_key();
    const auto binary = make_binary(1000);
    REQUIRE(cache.store(key, binary));

    const auto path = cache.entry_path(key);
    auto bytes = read_file(path);
    bytes[header_size(key) + 500] = static_cast<unsigned char>(bytes[header_size(key) + 500] ^ 0x01);
    write_file(path, bytes);

    CHECK_FALSE(cache.load(key).has_value());
    CHECK(cache.stats().rejected == 1);
    CHECK(cache.stats().misses == 1);
    CHECK_FALSE(fs::exists(path));

    REQUIRE(cache.store(key, binary));
    const auto loaded = cache.load(key);
    REQUIRE(loaded.has_value());
    CHECK(*loaded == binary);
    CHECK(cache.stats().hits == 1);
}

TEST_CASE("Flipping one header byte in the device name is rejected", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    KernelCache cache(tmp.path());
    const auto key = make_key();
    REQUIRE(cache.store(key, make_binary(100)));

    const auto path = cache.entry_path(key);
    auto bytes = read_file(path);
    const auto at = std::search(bytes.begin(), bytes.end(), key.device_name.begin(), key.device_name.end());
    REQUIRE(at != bytes.end());
    *(at + 3) = static_cast<unsigned char>(*(at + 3) ^ 0x20);
    write_file(path, bytes);

    CHECK_FALSE(cache.load(key).has_value());
    CHECK(cache.stats().rejected == 1);
    CHECK_FALSE(fs::exists(path));
}

TEST_CASE("Every single-byte flip anywhere in an entry is rejected", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    KernelCache cache(tmp.path());
    const auto key = make_key();
    const auto binary = make_binary(64);
    REQUIRE(cache.store(key, binary));
    const auto path = cache.entry_path(key);
    const auto good = read_file(path);

    for (std::size_t i = 0; i < good.size(); ++i) {
        auto bad = good;
        bad[i] = static_cast<unsigned char>(bad[i] ^ 0x40);
        write_file(path, bad);
        INFO("flipped byte " << i);
        CHECK_FALSE(cache.load(key).has_value());
        CHECK_FALSE(fs::exists(path));
    }
    CHECK(cache.stats().rejected == good.size());
}

TEST_CASE("A truncated entry is rejected at every length without crashing", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    KernelCache cache(tmp.path());
    const auto key = make_key();
    const auto binary = make_binary(256);
    REQUIRE(cache.store(key, binary));
    const auto path = cache.entry_path(key);
    const auto good = read_file(path);
    const auto header = header_size(key);
    REQUIRE(good.size() == header + binary.size());

    const std::vector<std::size_t> lengths = {0, 1, 3, 4, 7, 8, 20, header - 5, header - 1, header,
                                              header + 1, good.size() - 1};
    for (const auto len : lengths) {
        write_file(path, std::vector<unsigned char>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len)));
        INFO("length " << len);
        std::optional<std::vector<unsigned char>> result;
        CHECK_NOTHROW(result = cache.load(key));
        CHECK_FALSE(result.has_value());
        CHECK_FALSE(fs::exists(path));
    }
    CHECK(cache.stats().rejected == lengths.size());
}

TEST_CASE("Trailing bytes after the payload are rejected", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    KernelCache cache(tmp.path());
    const auto key = make_key();
    REQUIRE(cache.store(key, make_binary(32)));
    auto bytes = read_file(cache.entry_path(key));
    bytes.push_back(0);
    write_file(cache.entry_path(key), bytes);
    CHECK_FALSE(cache.load(key).has_value());
    CHECK(cache.stats().rejected == 1);
}

TEST_CASE("A key differing in one field misses and the original still hits", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    KernelCache cache(tmp.path());
    const auto key = make_key();
    const auto binary = make_binary(300);
    REQUIRE(cache.store(key, binary));

    auto driver = key;
    driver.driver_version = "5.1";
    auto device = key;
    device.device_name = "pthread-cpu";
    auto options = key;
    options.build_options = "-cl-std=CL1.2";
    auto source = key;
    source.source += " ";
    auto platform = key;
    platform.platform_version = "OpenCL 3.0 PoCL 5.1";

    for (const auto* k : {&driver, &device, &options, &source, &platform}) {
        CHECK(KernelCache::key_hash_hex(*k) != KernelCache::key_hash_hex(key));
        CHECK_FALSE(cache.load(*k).has_value());
    }
    CHECK(cache.stats().misses == 5);
    CHECK(cache.stats().rejected == 0);

    const auto loaded = cache.load(key);
    REQUIRE(loaded.has_value());
    CHECK(*loaded == binary);
    CHECK(cache.stats().hits == 1);
}

TEST_CASE("An entry stored under another key's file name is rejected as mismatching", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    KernelCache cache(tmp.path());
    const auto key = make_key();
    auto other = key;
    other.build_options = "-cl-std=CL2.0";
    REQUIRE(cache.store(key, make_binary(50)));
    // Same device folder, so only the header tells them apart.
    REQUIRE(cache.entry_path(other).parent_path() == cache.entry_path(key).parent_path());
    fs::copy_file(cache.entry_path(key), cache.entry_path(other));

    CHECK_FALSE(cache.load(other).has_value());
    CHECK(cache.stats().rejected == 1);
    CHECK_FALSE(fs::exists(cache.entry_path(other)));
    CHECK(cache.load(key).has_value());
}

TEST_CASE("A header claiming a 2^60-byte payload is rejected without allocating", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    KernelCache cache(tmp.path());
    const auto key = make_key();
    REQUIRE(cache.store(key, make_binary(16)));
    const auto path = cache.entry_path(key);
    auto bytes = read_file(path);

    // The payload size is the u64 just before the trailing u32 checksum of the header.
    const auto size_at = header_size(key) - 12;
    const std::uint64_t huge = 1ull << 60;
    for (int i = 0; i < 8; ++i) bytes[size_at + static_cast<std::size_t>(i)] = static_cast<unsigned char>(huge >> (8 * i));
    write_file(path, bytes);

    std::optional<std::vector<unsigned char>> result;
    CHECK_NOTHROW(result = cache.load(key));
    CHECK_FALSE(result.has_value());
    // An allocation attempt would have thrown and been reported as an error instead.
    CHECK(cache.stats().rejected == 1);
    CHECK(cache.last_error().empty());
    CHECK_FALSE(fs::exists(path));
}

TEST_CASE("A header string length pointing past the end is rejected", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    KernelCache cache(tmp.path());
    const auto key = make_key();
    REQUIRE(cache.store(key, make_binary(16)));
    const auto path = cache.entry_path(key);
    auto bytes = read_file(path);
    // magic(4) + version(4) + two hashes(16): the platform-name length comes next.
    bytes[24] = 0xFF;
    bytes[25] = 0xFF;
    bytes[26] = 0xFF;
    bytes[27] = 0x7F;
    write_file(path, bytes);
    CHECK_FALSE(cache.load(key).has_value());
    CHECK(cache.stats().rejected == 1);
}

TEST_CASE("The size cap evicts the least recently used entry", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    const auto a = make_key("kernel A");
    const auto b = make_key("kernel B");
    const auto c = make_key("kernel C");
    const auto d = make_key("kernel D");
    const auto binary = make_binary(1000);
    const auto one = KernelCache::entry_bytes(a, binary.size());
    KernelCache cache(tmp.path(), 3 * one + one / 2);

    REQUIRE(cache.store(a, binary));
    REQUIRE(cache.store(b, binary));
    REQUIRE(cache.store(c, binary));
    CHECK(cache.stats().evicted == 0);

    // Explicit, well separated times so filesystem clock granularity cannot tie them.
    const auto now = fs::file_time_type::clock::now();
    fs::last_write_time(cache.entry_path(a), now - std::chrono::minutes(30));
    fs::last_write_time(cache.entry_path(b), now - std::chrono::minutes(20));
    fs::last_write_time(cache.entry_path(c), now - std::chrono::minutes(10));

    REQUIRE(cache.load(a).has_value());  // refreshes A, leaving B the oldest
    CHECK(fs::last_write_time(cache.entry_path(a)) > fs::last_write_time(cache.entry_path(c)));

    REQUIRE(cache.store(d, binary));
    CHECK(cache.stats().evicted == 1);
    CHECK_FALSE(fs::exists(cache.entry_path(b)));
    CHECK(fs::exists(cache.entry_path(a)));
    CHECK(fs::exists(cache.entry_path(c)));
    CHECK(fs::exists(cache.entry_path(d)));
    CHECK(cache.info().entries == 3);
    CHECK(cache.info().bytes == 3 * one);
}

TEST_CASE("An entry larger than the cap alone is not stored and evicts nothing", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    const auto small = make_key("small");
    const auto big = make_key("big");
    KernelCache cache(tmp.path(), KernelCache::entry_bytes(small, 100) + 10);
    REQUIRE(cache.store(small, make_binary(100)));

    CHECK_FALSE(cache.store(big, make_binary(1000)));
    CHECK(cache.last_error().find("exceeds") != std::string::npos);
    CHECK_FALSE(fs::exists(cache.entry_path(big)));
    CHECK(fs::exists(cache.entry_path(small)));
    CHECK(cache.stats().evicted == 0);
    CHECK(cache.stats().stored == 1);
}

TEST_CASE("Eight threads storing the same key leave exactly one valid entry", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    const auto key = make_key();
    const auto binary = make_binary(200000);
    constexpr int threads = 8;
    constexpr int rounds = 10;

    std::atomic<bool> go{false};
    std::atomic<int> successes{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&] {
            // One instance per thread: the same situation as separate processes.
            KernelCache cache(tmp.path());
            while (!go.load()) std::this_thread::yield();
            for (int r = 0; r < rounds; ++r) {
                if (cache.store(key, binary)) ++successes;
            }
        });
    }
    go = true;
    for (auto& w : workers) w.join();

    CHECK(successes.load() == threads * rounds);
    KernelCache cache(tmp.path());
    const auto folder = cache.entry_path(key).parent_path();
    CHECK(count_with_extension(folder, ".bin") == 1);
    CHECK(count_with_extension(tmp.path(), ".tmp") == 0);
    const auto loaded = cache.load(key);
    REQUIRE(loaded.has_value());
    CHECK(*loaded == binary);
}

TEST_CASE("One instance shared by eight threads stores and loads consistently", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    KernelCache cache(tmp.path());
    std::vector<std::thread> workers;
    std::atomic<int> good{0};
    for (int t = 0; t < 8; ++t) {
        workers.emplace_back([&, t] {
            const auto key = make_key("kernel " + std::to_string(t % 4));
            const auto binary = make_binary(5000, static_cast<unsigned>(t % 4));
            for (int r = 0; r < 10; ++r) {
                if (cache.store(key, binary)) {
                    const auto loaded = cache.load(key);
                    if (loaded && *loaded == binary) ++good;
                }
            }
        });
    }
    for (auto& w : workers) w.join();
    CHECK(good.load() == 80);
    CHECK(cache.stats().stored == 80);
    CHECK(cache.stats().hits == 80);
    CHECK(cache.info().entries == 4);
}

TEST_CASE("clear() removes everything and info() then reports no entries", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    KernelCache cache(tmp.path());
    REQUIRE(cache.store(make_key("one"), make_binary(10)));
    REQUIRE(cache.store(make_key("two"), make_binary(20)));
    // A temp file left behind by a crashed writer.
    write_file(cache.entry_path(make_key("one")).parent_path() / "dead.0-0.tmp", make_binary(5));

    CHECK(cache.info().entries == 2);
    CHECK(cache.clear() == 2);
    const auto after = cache.info();
    CHECK(after.entries == 0);
    CHECK(after.bytes == 0);
    CHECK(after.devices.empty());
    CHECK(count_with_extension(tmp.path(), ".tmp") == 0);
    CHECK(count_with_extension(tmp.path(), ".bin") == 0);
    CHECK_FALSE(cache.load(make_key("one")).has_value());
}

TEST_CASE("Eviction removes stale temp files but keeps fresh ones", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    const auto x = make_key("x");
    const auto y = make_key("y");
    // Room for exactly one entry, so the second store has to evict.
    KernelCache cache(tmp.path(), KernelCache::entry_bytes(x, 10));
    const auto folder = cache.entry_path(x).parent_path();
    fs::create_directories(folder);
    const auto stale = folder / "stale.1-1.tmp";
    const auto fresh = folder / "fresh.1-2.tmp";  // may belong to a live writer
    write_file(stale, make_binary(5));
    write_file(fresh, make_binary(5));
    fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(2));

    REQUIRE(cache.store(x, make_binary(10)));
    fs::last_write_time(cache.entry_path(x), fs::file_time_type::clock::now() - std::chrono::minutes(1));
    REQUIRE(cache.store(y, make_binary(10)));
    CHECK_FALSE(fs::exists(stale));
    CHECK(fs::exists(fresh));
    CHECK(cache.stats().evicted == 1);
    CHECK_FALSE(fs::exists(cache.entry_path(x)));
    CHECK(fs::exists(cache.entry_path(y)));
    CHECK(cache.info().entries == 1);
}

TEST_CASE("info() reports entry counts and bytes per device", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    KernelCache cache(tmp.path());
    auto gpu = make_key("gpu kernel 1");
    gpu.device_name = "NVIDIA GeForce RTX 4090";
    gpu.driver_version = "550.54";
    auto gpu2 = gpu;
    gpu2.source = "gpu kernel 2";
    const auto cpu = make_key("cpu kernel");

    REQUIRE(cache.store(gpu, make_binary(1000)));
    REQUIRE(cache.store(gpu2, make_binary(2000)));
    REQUIRE(cache.store(cpu, make_binary(500)));

    const auto info = cache.info();
    CHECK(info.dir == tmp.path());
    CHECK(info.size_cap_bytes == KernelCache::default_size_cap_bytes);
    CHECK(info.entries == 3);
    const auto gpu_bytes = KernelCache::entry_bytes(gpu, 1000) + KernelCache::entry_bytes(gpu2, 2000);
    const auto cpu_bytes = KernelCache::entry_bytes(cpu, 500);
    CHECK(info.bytes == gpu_bytes + cpu_bytes);
    REQUIRE(info.devices.size() == 2);
    // Sorted by name, and the readable name comes from the header, not the folder.
    CHECK(info.devices[0].device_name == "NVIDIA GeForce RTX 4090");
    CHECK(info.devices[0].driver_version == "550.54");
    CHECK(info.devices[0].entries == 2);
    CHECK(info.devices[0].bytes == gpu_bytes);
    CHECK(info.devices[1].device_name == cpu.device_name);
    CHECK(info.devices[1].entries == 1);
    CHECK(info.devices[1].bytes == cpu_bytes);
}

TEST_CASE("info() of a folder that does not exist is empty", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    KernelCache cache(tmp.path() / "never" / "created");
    const auto info = cache.info();
    CHECK(info.entries == 0);
    CHECK(info.devices.empty());
    CHECK(cache.clear() == 0);
}

TEST_CASE("Storing where the folder cannot be created returns false and names the path",
          "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    const auto blocker = tmp.path() / "not-a-folder";
    write_file(blocker, make_binary(3));
    KernelCache cache(blocker / "kernels");

    bool stored = true;
    CHECK_NOTHROW(stored = cache.store(make_key(), make_binary(10)));
    CHECK_FALSE(stored);
    CHECK(cache.last_error().find(blocker.string()) != std::string::npos);
    CHECK(cache.stats().stored == 0);
    std::optional<std::vector<unsigned char>> result;
    CHECK_NOTHROW(result = cache.load(make_key()));
    CHECK_FALSE(result.has_value());
    CHECK(cache.info().entries == 0);
}

TEST_CASE("Storing into a read-only folder returns false and leaves no temp file", "[kernel_cache]") {
    bps::test::TempDir tmp("kernel-cache");
    const auto key = make_key();
    KernelCache cache(tmp.path());
    const auto folder = cache.entry_path(key).parent_path();
    fs::create_directories(folder);
    fs::permissions(folder, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
    struct Restore {
        fs::path p;
        ~Restore() {
            std::error_code ec;
            fs::permissions(p, fs::perms::owner_all, fs::perm_options::add, ec);
        }
    } restore{folder};

    // Administrators (and Windows, where the bit means something else) can still write.
    const auto probe = folder / "probe";
    if (std::ofstream(probe).good()) {
        fs::remove(probe);
        WARN("folder is still writable for this user; read-only case not exercised");
        return;
    }
    bool stored = true;
    CHECK_NOTHROW(stored = cache.store(key, make_binary(10)));
    CHECK_FALSE(stored);
    CHECK(cache.last_error().find(folder.string()) != std::string::npos);
    CHECK(count_with_extension(tmp.path(), ".tmp") == 0);
}
