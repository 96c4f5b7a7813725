// SHA-256 of a file through OpenSSL's EVP interface, read in 1 MiB chunks so a large
// download never has to fit in memory.
#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <memory>
#include <vector>

#include "datasets/dataset.h"
#include "datasets/download.h"

namespace bps::datasets {

namespace {

struct DigestContextFree {
    void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};

std::string lowercase_hex(const unsigned char* bytes, unsigned int count) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string text;
    text.reserve(count * 2);
    for (unsigned int i = 0; i < count; ++i) {
        text += digits[bytes[i] >> 4];
        text += digits[bytes[i] & 0x0f];
    }
    return text;
}

}  // namespace

std::string sha256_of_file(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw DatasetError(file, "could not be opened to compute its SHA-256 checksum");

    const std::unique_ptr<EVP_MD_CTX, DigestContextFree> context(EVP_MD_CTX_new());
    if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("OpenSSL could not start a SHA-256 computation");

    std::vector<char> chunk(1 << 20);
    while (in) {
        in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        const auto count = static_cast<std::size_t>(in.gcount());
        if (count > 0 && EVP_DigestUpdate(context.get(), chunk.data(), count) != 1)
            throw std::runtime_error("OpenSSL failed while computing a SHA-256 checksum");
    }
    if (in.bad()) throw DatasetError(file, "could not be read to the end to compute its SHA-256 checksum");

    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(context.get(), digest.data(), &length) != 1)
        throw std::runtime_error("OpenSSL could not finish a SHA-256 computation");
    return lowercase_hex(digest.data(), length);
}

}  // namespace bps::datasets
