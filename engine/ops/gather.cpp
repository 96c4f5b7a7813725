#include "engine/ops/gather.h"

#include <climits>
#include <stdexcept>
#include <string>

namespace bps::ops {

namespace {
// The kernels this file launches (kernels/gather.cl), named once.
const KernelId gather_samples_kernel{"gather", "gather_samples"};

void require_count(const Tensor& tensor, std::size_t expected, const char* what) {
    if (tensor.count() != expected)
        throw std::invalid_argument(std::string("gather: ") + what + " " + tensor.shape.to_string() + " holds " +
                                    std::to_string(tensor.count()) + " values, expected " + std::to_string(expected));
}
}  // namespace

void gather_samples(Runtime& runtime, const Tensor& set_images, const Tensor& set_labels, const Tensor& indices,
                    const Tensor& images, const Tensor& labels) {
    const std::size_t set_size = static_cast<std::size_t>(set_images.shape.n);
    const std::size_t count = static_cast<std::size_t>(images.shape.n);
    const std::size_t per_sample = set_images.shape.per_sample();
    if (images.shape.per_sample() != per_sample)
        throw std::invalid_argument("gather: images " + images.shape.to_string() + " do not match the set's " +
                                    set_images.shape.to_string());
    require_count(set_labels, set_size, "set labels");
    require_count(indices, count, "indices");
    require_count(labels, count, "labels");
    // The kernel indexes the set with int, the OpenCL C type every device handles.
    if (set_images.count() > std::size_t(INT_MAX))
        throw std::invalid_argument("gather: a set of " + std::to_string(set_images.count()) +
                                    " values is more than one kernel can index");
    runtime.run_3d(gather_samples_kernel, per_sample, count, 1, static_cast<int>(count), static_cast<int>(per_sample),
                   set_images, set_labels, indices, images, labels);
}

}  // namespace bps::ops
