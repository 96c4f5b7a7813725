// Staged uploads: the values arrive, the caller's memory is free as soon as write returns, the
// two staging buffers are reused in turn, and a size mismatch is refused with the names.
#include <catch2/catch.hpp>

#include "engine/ops/staged_upload.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;

TEST_CASE("staged uploads arrive intact after the caller's memory is overwritten", "[staged_upload]") {
    ops::Runtime& runtime = test::op_runtime();
    test::TestTensors t;
    std::vector<TensorId> ids;
    for (int i = 0; i < 5; ++i) ids.push_back(t.add("batch" + std::to_string(i), Shape{3, 7, 5, 1}));
    const TensorId labels = t.add("labels", Shape{1, 1, 1, 9});
    t.allocate();

    ops::StagedUpload images, label_upload;
    std::vector<std::vector<float>> sent;
    std::vector<float> host(Shape{3, 7, 5, 1}.count());
    // Five writes through two staging buffers: each buffer is refilled twice.
    for (std::size_t i = 0; i < ids.size(); ++i) {
        sent.push_back(test::random_values(host.size(), 90 + static_cast<std::uint32_t>(i)));
        host = sent.back();
        images.write(runtime, t[ids[i]], host, "batch " + std::to_string(i));
        std::fill(host.begin(), host.end(), -7.0f);  // the caller reuses its memory at once
    }
    std::vector<int> label_values{3, 1, 4, 1, 5, 9, 2, 6, 5};
    label_upload.write_ints(runtime, t[labels], label_values, "labels");
    label_values.assign(label_values.size(), 0);

    for (std::size_t i = 0; i < ids.size(); ++i) {
        INFO("batch " << i);
        CHECK(t.read(ids[i]) == sent[i]);
    }
    CHECK(runtime.read_ints(t[labels]) == std::vector<int>{3, 1, 4, 1, 5, 9, 2, 6, 5});
}

TEST_CASE("a staged upload of the wrong size is refused with what and the shape", "[staged_upload]") {
    ops::Runtime& runtime = test::op_runtime();
    test::TestTensors t;
    const TensorId id = t.add("x", Shape{2, 3, 1, 1});
    t.allocate();
    ops::StagedUpload upload;
    const std::vector<float> five(5, 1.0f);
    CHECK_THROWS_WITH(upload.write(runtime, t[id], five, "the batch's images"),
                      "upload of the batch's images: 5 values for a 2x3x1x1 tensor");
}
