#include "engine/ops/pool.h"

#include <stdexcept>
#include <string>

#include "engine/ops/shape_check.h"

namespace bps::ops {

namespace {
// The kernels this file launches (kernels/pool.cl), named once.
const KernelId max_pool_forward_kernel{"pool", "max_pool_forward"};
const KernelId max_pool_backward_planes_kernel{"pool", "max_pool_backward_planes"};
const KernelId max_pool_backward_kernel{"pool", "max_pool_backward"};
const KernelId avg_pool_forward_kernel{"pool", "avg_pool_forward"};
const KernelId avg_pool_backward_kernel{"pool", "avg_pool_backward"};
const KernelId global_avg_pool_forward_kernel{"pool", "global_avg_pool_forward"};
const KernelId global_avg_pool_backward_kernel{"pool", "global_avg_pool_backward"};

// The kernels' common leading arguments: planes (N * C), input and output plane sizes, window.
struct PlaneArgs {
    int planes, in_h, in_w, out_h, out_w;
};

PlaneArgs checked(const std::string& op, const model::PoolGeometry& geometry, const Tensor& x_like,
                  const Tensor& y_like, const char* y_name) {
    const Shape out = model::pool_output_shape(x_like.shape, geometry);
    require_shape(y_like, out,
                  op + " (" + model::pool_geometry_text(geometry) + " on " + x_like.shape.to_string() + ")", y_name);
    return {x_like.shape.n * x_like.shape.c, x_like.shape.h, x_like.shape.w, out.h, out.w};
}

int as_int(GradWrite write) {
    return write == GradWrite::accumulate ? 1 : 0;
}
}  // namespace

void max_pool_forward(Runtime& runtime, const model::PoolGeometry& g, const Tensor& x, const Tensor& y,
                      const Tensor& argmax) {
    const PlaneArgs a = checked("max pool forward", g, x, y, "y");
    require_shape(argmax, y.shape, "max pool forward", "argmax");
    runtime.run_3d(max_pool_forward_kernel, a.out_w, a.out_h, a.planes, a.planes, a.in_h, a.in_w, a.out_h, a.out_w,
                   g.size_h, g.size_w, g.stride_h, g.stride_w, x, y, argmax);
}

void max_pool_backward(Runtime& runtime, const model::PoolGeometry& g, const Tensor& dy, const Tensor& argmax,
                       const Tensor& dx, GradWrite write, WorkSpread spread) {
    // No input gradient wanted (the first layer): dx's shape may be a placeholder.
    if (dx.buffer == nullptr) return;
    const PlaneArgs a = checked("max pool backward", g, dx, dy, "dy");
    require_shape(argmax, dy.shape, "max pool backward", "argmax");
    if (resolved_spread(runtime, spread) == WorkSpread::per_plane) {
        runtime.run(max_pool_backward_planes_kernel, a.planes, a.planes, a.in_h, a.in_w, a.out_h, a.out_w, dy, argmax,
                    dx, as_int(write));
        return;
    }
    runtime.run_3d(max_pool_backward_kernel, a.in_w, a.in_h, a.planes, a.planes, a.in_h, a.in_w, a.out_h, a.out_w,
                   g.size_h, g.size_w, g.stride_h, g.stride_w, dy, argmax, dx, as_int(write));
}

void avg_pool_forward(Runtime& runtime, const model::PoolGeometry& g, const Tensor& x, const Tensor& y) {
    const PlaneArgs a = checked("average pool forward", g, x, y, "y");
    runtime.run_3d(avg_pool_forward_kernel, a.out_w, a.out_h, a.planes, a.planes, a.in_h, a.in_w, a.out_h, a.out_w,
                   g.size_h, g.size_w, g.stride_h, g.stride_w, x, y);
}

void avg_pool_backward(Runtime& runtime, const model::PoolGeometry& g, const Tensor& dy, const Tensor& dx,
                       GradWrite write) {
    if (dx.buffer == nullptr) return;
    const PlaneArgs a = checked("average pool backward", g, dx, dy, "dy");
    runtime.run_3d(avg_pool_backward_kernel, a.in_w, a.in_h, a.planes, a.planes, a.in_h, a.in_w, a.out_h, a.out_w,
                   g.size_h, g.size_w, g.stride_h, g.stride_w, dy, dx, as_int(write));
}

void global_avg_pool_forward(Runtime& runtime, const Tensor& x, const Tensor& y) {
    require_shape(y, {x.shape.n, x.shape.c, 1, 1}, "global average pool forward on " + x.shape.to_string(), "y");
    const int planes = x.shape.n * x.shape.c;
    runtime.run(global_avg_pool_forward_kernel, y.count(), planes, static_cast<int>(x.shape.plane()), x, y);
}

void global_avg_pool_backward(Runtime& runtime, const Tensor& dy, const Tensor& dx, GradWrite write) {
    if (dx.buffer == nullptr) return;
    require_shape(dy, {dx.shape.n, dx.shape.c, 1, 1}, "global average pool backward on " + dx.shape.to_string(), "dy");
    runtime.run(global_avg_pool_backward_kernel, dx.count(), static_cast<int>(dx.count()),
                static_cast<int>(dx.shape.plane()), dy, dx, as_int(write));
}

}  // namespace bps::ops
