// gather_samples against a host copy: repeated and unordered indices, odd sample sizes.
#include <catch2/catch.hpp>

#include "engine/ops/gather.h"
#include "tests/engine/ops/op_checks.h"

using namespace bps;

TEST_CASE("gather_samples copies the named samples and their labels", "[gather]") {
    ops::Runtime& runtime = test::op_runtime();
    const Shape set_shape{11, 3, 5, 7}, batch_shape{6, 3, 5, 7};
    const std::size_t per_sample = set_shape.per_sample();
    test::TestTensors t;
    const TensorId set_images = t.add("set", set_shape), set_labels = t.add("set labels", Shape{11, 1, 1, 1}),
                   indices = t.add("indices", Shape{6, 1, 1, 1}), images = t.add("images", batch_shape),
                   labels = t.add("labels", Shape{6, 1, 1, 1});
    t.allocate();
    const std::vector<float> set = test::random_values(set_shape.count(), 61);
    t.write(set_images, set);
    const std::vector<int> set_label_values{4, 8, 15, 16, 23, 42, 7, 1, 0, 9, 3};
    runtime.write_ints(t[set_labels], set_label_values);
    const std::vector<int> chosen{10, 3, 3, 0, 7, 5};
    runtime.write_ints(t[indices], chosen);
    t.write(images, test::random_values(batch_shape.count(), 62));  // stale values to overwrite

    ops::gather_samples(runtime, t[set_images], t[set_labels], t[indices], t[images], t[labels]);

    std::vector<float> expected;
    std::vector<int> expected_labels;
    for (int index : chosen) {
        const auto first = set.begin() + static_cast<std::ptrdiff_t>(std::size_t(index) * per_sample);
        expected.insert(expected.end(), first, first + static_cast<std::ptrdiff_t>(per_sample));
        expected_labels.push_back(set_label_values[std::size_t(index)]);
    }
    CHECK(t.read(images) == expected);
    CHECK(runtime.read_ints(t[labels]) == expected_labels);
}

TEST_CASE("gather_samples refuses images that do not match the set", "[gather]") {
    ops::Runtime& runtime = test::op_runtime();
    test::TestTensors t;
    const TensorId set_images = t.add("set", Shape{4, 1, 2, 2}), set_labels = t.add("l", Shape{4, 1, 1, 1}),
                   indices = t.add("i", Shape{2, 1, 1, 1}), images = t.add("x", Shape{2, 1, 2, 3}),
                   labels = t.add("y", Shape{2, 1, 1, 1});
    t.allocate();
    CHECK_THROWS_WITH(ops::gather_samples(runtime, t[set_images], t[set_labels], t[indices], t[images], t[labels]),
                      "gather: images 2x1x2x3 do not match the set's 4x1x2x2");
}
