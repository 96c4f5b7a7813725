#pragma once
// A fresh folder under the system temporary folder, removed with everything in it at the end.
#include <filesystem>
#include <string>

namespace bps::test {

class TempDir {
public:
    explicit TempDir(const std::string& purpose);
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace bps::test
