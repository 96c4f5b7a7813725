#pragma once
// Spatial pooling over each channel plane, forward and backward: max, average (valid windows, no
// padding) and global average.
//
// Tolerances against engine/reference/pool.h (float32, normwise relative error):
//   max pooling: y and argmax exact (a copy and an index); dx 1e-6 (overlapping windows sum a few
//     gradients, in another order than the reference's scatter);
//   average pooling: y and dx 1e-6 (sums of size_h * size_w terms, at most a few dozen);
//   global average pooling: y 1e-5 (a sum over a whole plane, up to a few thousand terms, and the
//     means of random-sign inputs are small next to their terms); dx 1e-6 (one division).
#include "engine/ops/runtime.h"
#include "engine/tensor/layer_geometry.h"

namespace bps::ops {

// The geometry and its output-shape maths are device-free (engine/tensor/layer_geometry.h). Input
// rows and columns that no window reaches receive no gradient.

// argmax: same shape as y, int32 elements: the index within the input plane (h * W + w) of the
// maximum (the first one in row-major order on ties).
void max_pool_forward(Runtime& runtime, const model::PoolGeometry& geometry, const Tensor& x, const Tensor& y,
                      const Tensor& argmax);
// dx =|+= the gradient routed to each window's maximum; overlapping windows (stride < size) sum.
// No atomics: per element, each input element gathers from the windows covering it; per plane,
// one work-item scatters a plane's gradients to their maxima. dx.buffer == nullptr: nothing.
void max_pool_backward(Runtime& runtime, const model::PoolGeometry& geometry, const Tensor& dy, const Tensor& argmax,
                       const Tensor& dx, GradWrite write, WorkSpread spread = WorkSpread::automatic);

void avg_pool_forward(Runtime& runtime, const model::PoolGeometry& geometry, const Tensor& x, const Tensor& y);
void avg_pool_backward(Runtime& runtime, const model::PoolGeometry& geometry, const Tensor& dy, const Tensor& dx,
                       GradWrite write);

// y: N x C x 1 x 1, the mean of each channel plane.
void global_avg_pool_forward(Runtime& runtime, const Tensor& x, const Tensor& y);
void global_avg_pool_backward(Runtime& runtime, const Tensor& dy, const Tensor& dx, GradWrite write);

}  // namespace bps::ops
