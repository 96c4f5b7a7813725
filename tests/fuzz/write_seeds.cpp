// Writes the fuzz targets' seed corpora: for each reader a few small valid files, written by the
// project's own writers (or byte by byte where the format is that simple), and near-valid ones
// (truncated, one field wrong) so the fuzzers start next to every check.
//   fuzz_write_seeds <corpus folder>     (tests/fuzz/corpus; replaces the files it names)
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/io/weights_file.h"
#include "engine/kernel_cache/kernel_cache.h"
#include "tests/fuzz/kernel_cache_key.h"
#include "tests/support/image_encoder.h"

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

namespace {

void write(const fs::path& file, const Bytes& bytes) {
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + file.string());
}

Bytes read(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + file.string());
    return Bytes(std::istreambuf_iterator<char>(in), {});
}

Bytes truncated(Bytes bytes, std::size_t keep) {
    bytes.resize(std::min(keep, bytes.size()));
    return bytes;
}

Bytes gzip(const Bytes& plain) {
    z_stream stream{};
    if (deflateInit2(&stream, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("deflateInit2");
    Bytes out(deflateBound(&stream, static_cast<uLong>(plain.size())) + 32);
    stream.next_in = const_cast<Bytef*>(plain.data());
    stream.avail_in = static_cast<uInt>(plain.size());
    stream.next_out = out.data();
    stream.avail_out = static_cast<uInt>(out.size());
    if (deflate(&stream, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate");
    out.resize(stream.total_out);
    deflateEnd(&stream);
    return out;
}

Bytes idx(std::uint8_t type, const std::vector<std::uint32_t>& dims, std::size_t data_bytes) {
    Bytes bytes{0, 0, type, static_cast<std::uint8_t>(dims.size())};
    for (const std::uint32_t dim : dims)
        for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<std::uint8_t>(dim >> shift));
    for (std::size_t i = 0; i < data_bytes; ++i) bytes.push_back(static_cast<std::uint8_t>(i * 7 % 10));
    return bytes;
}

void idx_seeds(const fs::path& dir) {
    const Bytes images = idx(0x08, {3, 4, 5}, 60);
    write(dir / "images-3x4x5", images);
    write(dir / "images-3x4x5.gz", gzip(images));
    write(dir / "labels-6", idx(0x08, {6}, 6));
    write(dir / "labels-6.gz", gzip(idx(0x08, {6}, 6)));
    write(dir / "images-truncated", truncated(images, 40));
    write(dir / "images-trailing-bytes", idx(0x08, {3, 4, 5}, 64));
    write(dir / "images-type-0d", idx(0x0D, {3, 4, 5}, 60));
    write(dir / "images-huge-dims", idx(0x08, {0xffffffffu, 28, 28}, 8));
    write(dir / "images-gzip-truncated", truncated(gzip(images), 20));
    // Regressions: a header promising 2.1 GB made the reader reserve it all before the data came.
    write(dir / "regression-header-promises-2gb", idx(0x08, {2'700'000, 28, 28}, 16));
    write(dir / "regression-header-promises-2gb.gz", gzip(idx(0x08, {2'700'000, 28, 28}, 16)));
}

Bytes cifar(std::size_t label_bytes, std::size_t records, std::uint8_t label) {
    Bytes bytes;
    for (std::size_t r = 0; r < records; ++r) {
        for (std::size_t l = 0; l < label_bytes; ++l) bytes.push_back(static_cast<std::uint8_t>(label + r + l));
        for (std::size_t i = 0; i < 3072; ++i) bytes.push_back(static_cast<std::uint8_t>(i * 13 + r));
    }
    return bytes;
}

void cifar_seeds(const fs::path& dir) {
    write(dir / "cifar10-2-records", cifar(1, 2, 3));
    write(dir / "cifar100-fine-1-record", cifar(2, 1, 7));
    write(dir / "cifar100-coarse-2-records", cifar(2, 2, 4));
    write(dir / "cifar10-label-10", cifar(1, 1, 10));
    write(dir / "cifar10-short", truncated(cifar(1, 1, 0), 3000));
    const std::string names = "airplane\nautomobile\nbird\ncat\ndeer\n\ndog\nfrog\nhorse\nship\ntruck\n";
    write(dir / "class-names.txt", Bytes(names.begin(), names.end()));
}

void project_seeds(const fs::path& dir) {
    for (const char* name : {"mlp", "cnn", "cifar"})
        write(dir / (std::string(name) + ".json"),
              read(fs::path(TUTORIAL_PROJECTS_DIR) / (std::string(name) + ".json")));
    write(dir / "cnn-truncated.json", truncated(read(fs::path(TUTORIAL_PROJECTS_DIR) / "cnn.json"), 700));
}

Bytes pixels(int width, int height, int channels) {
    Bytes values(static_cast<std::size_t>(width * height * channels));
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint8_t>(i * 37);
    return values;
}

Bytes png(int width, int height, int channels) {
    return bps::test::encode_png(width, height, channels, pixels(width, height, channels));
}

Bytes jpg(int width, int height, int channels) {
    return bps::test::encode_jpg(width, height, channels, pixels(width, height, channels), 80);
}

void image_seeds(const fs::path& dir) {
    write(dir / "gray-5x4.png", png(5, 4, 1));
    write(dir / "rgb-6x3.png", png(6, 3, 3));
    write(dir / "rgba-3x3.png", png(3, 3, 4));
    write(dir / "gray-8x8.jpg", jpg(8, 8, 1));
    write(dir / "rgb-9x7.jpg", jpg(9, 7, 3));
    write(dir / "rgb-truncated.png", truncated(png(6, 3, 3), 40));
    write(dir / "rgb-truncated.jpg", truncated(jpg(9, 7, 3), 200));
}

bps::io::NamedArray array(const std::string& name, std::vector<int> dims) {
    std::size_t count = 1;
    for (const int dim : dims) count *= static_cast<std::size_t>(dim);
    std::vector<float> values(count);
    for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<float>(i) * 0.25f - 1.0f;
    return {name, std::move(dims), std::move(values)};
}

void weights_seeds(const fs::path& dir) {
    fs::create_directories(dir);
    bps::io::WeightsFile contents;
    contents.layers = {{"input", {}}, {"dense", {array("kernel", {3, 2}), array("bias", {2})}}};
    contents.model_card = "{\"project\": \"seed\"}";
    contents.project = "{\"format\": \"backprop-studio-project\"}";
    contents.program_version = "0.1.0 (git 0123456789)";
    bps::io::save_weights_file(dir / "dense.h5", contents);
    contents.checkpoint_state = "{\"epoch\": 1}";
    contents.checkpoint_arrays = {array("dense.weight.state0", {2, 3})};
    bps::io::save_weights_file(dir / "checkpoint.h5", contents);
    write(dir / "dense-truncated.h5", truncated(read(dir / "dense.h5"), 1500));
}

void kernel_cache_seeds(const fs::path& dir) {
    const fs::path scratch = fs::temp_directory_path() / "backprop-fuzz-seeds-kernel-cache";
    bps::cl::KernelCache cache(scratch);
    const bps::cl::CacheKey key = bps::fuzz::fuzz_cache_key();
    if (!cache.store(key, Bytes{0x7f, 'E', 'L', 'F', 1, 2, 3, 4, 5, 6, 7, 8}))
        throw std::runtime_error(cache.last_error());
    const Bytes entry = read(cache.entry_path(key));
    write(dir / "entry", entry);
    if (!cache.store(key, Bytes{})) throw std::runtime_error(cache.last_error());
    write(dir / "entry-empty-payload", read(cache.entry_path(key)));
    write(dir / "entry-truncated", truncated(entry, entry.size() - 5));
    Bytes flipped = entry;
    flipped[flipped.size() - 1] ^= 0x01;
    write(dir / "entry-payload-flipped", flipped);
    fs::remove_all(scratch);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <corpus folder>\n", argv[0]);
        return 2;
    }
    try {
        const fs::path corpus = argv[1];
        idx_seeds(corpus / "idx_reader");
        cifar_seeds(corpus / "cifar_reader");
        project_seeds(corpus / "project_reader");
        image_seeds(corpus / "image_decoder");
        weights_seeds(corpus / "weights_reader");
        kernel_cache_seeds(corpus / "kernel_cache_entry");
    } catch (const std::exception& error) {
        std::fprintf(stderr, "%s\n", error.what());
        return 1;
    }
    return 0;
}
