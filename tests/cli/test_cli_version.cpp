// What a user reports along with a problem: `backprop --version` names the version from CMake's
// project(), the git revision (checked against git itself), the libraries' versions (checked
// against what CMake and the headers say) and the kernel cache; weights files and checkpoints
// carry the same version, read back with h5py. And `train --batches N`, the installers' smoke test.
#include <clblast.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>

#include "tests/cli/cli.h"
#include "tests/cli/stripes_project.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace bps::test;

namespace {

std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

// The value of the "Name: value" line of --version; fails the test when there is none.
std::string line_value(const std::string& output, const std::string& name) {
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind(name + ": ", 0) == 0) return line.substr(name.size() + 2);
    FAIL("no line '" << name << ": ' in\n" << output);
    return {};
}

// The backprop_version attribute of an HDF5 file, read by h5py.
std::string stored_version(const std::filesystem::path& file) {
    const ProcessResult read =
        run_command_stdout(python +
                           " -c \"import h5py,sys; v=h5py.File(sys.argv[1],'r').attrs['backprop_version']; "
                           "print(v.decode() if isinstance(v, bytes) else v)\" " +
                           quote(file));
    INFO(read.output);
    REQUIRE(read.exit_code == 0);
    return first_line(read.output);
}

}  // namespace

TEST_CASE("backprop --version names the version, the git revision, the libraries and the kernel cache",
          "[cli][version]") {
    TempDir dir("cli-version");
    ScopedEnvironment cache("BACKPROP_CACHE_DIR", dir.path().string());
    const ProcessResult result = run_command_stdout(backprop("--version"));
    INFO(result.output);
    REQUIRE(result.exit_code == 0);

    const std::string heading = first_line(result.output);
    const std::string prefix = "Backprop Studio " BACKPROP_PROJECT_VERSION " (git ";
    REQUIRE_THAT(heading, Catch::StartsWith(prefix) && Catch::EndsWith(")"));
    std::string revision = heading.substr(prefix.size(), heading.size() - prefix.size() - 1);
    const std::filesystem::path source = std::filesystem::path(TESTS_SOURCE_DIR).parent_path();
    if (std::filesystem::exists(source / ".git")) {
        // The commit the program was built from is the checkout's (a build of a changed tree says -dirty).
        const ProcessResult head = run_command_stdout("git -C " + quote(source) + " rev-parse HEAD");
        REQUIRE(head.exit_code == 0);
        if (revision.size() > 6 && revision.substr(revision.size() - 6) == "-dirty")
            revision.resize(revision.size() - 6);
        CHECK(revision.size() >= 7);
        CHECK_THAT(head.output, Catch::StartsWith(revision));
    } else {
        CHECK(revision == "unknown");
    }

#ifdef BACKPROP_QT_VERSION
    CHECK(line_value(result.output, "Qt") == BACKPROP_QT_VERSION " (the studio's)");
#else
    CHECK(line_value(result.output, "Qt") == "none (built without the studio)");
#endif
    CHECK(line_value(result.output, "CLBlast") == std::to_string(CLBLAST_VERSION_MAJOR) + "." +
                                                      std::to_string(CLBLAST_VERSION_MINOR) + "." +
                                                      std::to_string(CLBLAST_VERSION_PATCH));
    CHECK(line_value(result.output, "HDF5") == BACKPROP_HDF5_VERSION);  // CMake's FindHDF5 read it from the headers
    const std::string loader = line_value(result.output, "OpenCL loader");
#ifdef __linux__
    // ocl-icd describes itself; a version number follows its name.
    CHECK_THAT(loader, Catch::Matches("OpenCL ICD Loader [0-9]+\\.[0-9]+.*, OpenCL [0-9]\\.[0-9]"));
#else
    CHECK_FALSE(loader.empty());
#endif
    CHECK(line_value(result.output, "Kernel cache") == (dir.path() / "kernels").string());
}

TEST_CASE("train --batches stops after that many steps, and its files carry the version", "[cli][version]") {
    TempDir dir("cli-batches");
    write_stripes(dir.path() / "images", 12);
    const std::filesystem::path project = write_project(dir.path(), dir.path() / "images");
    const std::filesystem::path weights = dir.path() / "w.h5", checkpoint = dir.path() / "c.h5";

    const ProcessResult trained =
        run_command_stdout(backprop("train " + quote(project) + " --epochs 3 --batches 2 --save-weights " +
                                    quote(weights) + " --checkpoint " + quote(checkpoint)));
    INFO(trained.output);
    REQUIRE(trained.exit_code == 0);
    CHECK_THAT(trained.output, Catch::Contains("stopped after 2 batches (--batches)\n"));
    CHECK_THAT(trained.output, !Catch::Contains("epoch 1/3: "));  // no epoch was finished

    const ProcessResult version = run_command_stdout(backprop("--version"));
    REQUIRE(version.exit_code == 0);
    const std::string expected = first_line(version.output).substr(std::string("Backprop Studio ").size());
    CHECK(stored_version(weights) == expected);
    CHECK(stored_version(checkpoint) == expected);

    // The checkpoint goes on after the two batches: the rest of epoch 1, then epochs 2 and 3.
    const ProcessResult resumed = run_command_stdout(backprop("resume " + quote(checkpoint)));
    INFO(resumed.output);
    REQUIRE(resumed.exit_code == 0);
    CHECK_THAT(resumed.output, Catch::Contains("epoch 1/3: ") && Catch::Contains("epoch 3/3: "));

    const ProcessResult zero = run_command(backprop("train " + quote(project) + " --batches 0"));
    CHECK(zero.exit_code == 2);
    CHECK_THAT(zero.output, Catch::Contains("--batches"));
}
