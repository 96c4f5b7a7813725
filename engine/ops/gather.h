#pragma once
// Copies the samples a batch names out of a set held on the device (kernels/gather.cl): the
// batch's images and labels without a host copy or a transfer of pixels.
#include "engine/ops/runtime.h"

namespace bps::ops {

// set_images: S x C x H x W, set_labels: S int32 values, indices: N int32 values in [0, S) (the
// caller checks them: the kernel trusts them), images: N x C x H x W, labels: N int32 values.
void gather_samples(Runtime& runtime, const Tensor& set_images, const Tensor& set_labels, const Tensor& indices,
                    const Tensor& images, const Tensor& labels);

}  // namespace bps::ops
