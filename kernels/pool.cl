// Pooling over channel planes (valid windows, no padding). A tensor argument is a buffer and an
// element offset. Forward kernels run one work-item per output element; backward kernels run one
// work-item per input element and gather from every window that covers it, so overlapping
// windows sum without atomics. `planes` is N * C. The window kernels run over a 3-D range
// (column, row, plane), so finding an element's place needs no division.

// The output rows (or columns) whose window covers input row `i`: [*first, *last].
void covering(const int i, const int size, const int stride, const int out, int* first, int* last) {
    // Window o covers o*stride .. o*stride + size - 1; written without negative division, whose
    // rounding would differ from floor.
    const int lowest = i - size + 1;
    *first = lowest <= 0 ? 0 : (lowest + stride - 1) / stride;
    *last = min(i / stride, out - 1);
}

// argmax holds the index within the input plane (h * in_w + w); the first maximum wins ties.
__kernel void max_pool_forward(const int planes, const int in_h, const int in_w, const int out_h, const int out_w,
                               const int size_h, const int size_w, const int stride_h, const int stride_w,
                               __global const float* x, const int x_off,
                               __global float* y, const int y_off,
                               __global int* argmax, const int argmax_off) {
    const int ow = get_global_id(0), oh = get_global_id(1), plane = get_global_id(2);
    if (ow >= out_w || oh >= out_h || plane >= planes) return;
    const int o = (plane * out_h + oh) * out_w + ow;
    __global const float* in = x + x_off + plane * in_h * in_w;
    int best = (oh * stride_h) * in_w + ow * stride_w;
    float best_value = in[best];
    for (int kh = 0; kh < size_h; ++kh)
        for (int kw = 0; kw < size_w; ++kw) {
            const int index = (oh * stride_h + kh) * in_w + ow * stride_w + kw;
            if (in[index] > best_value) {
                best_value = in[index];
                best = index;
            }
        }
    y[y_off + o] = best_value;
    argmax[argmax_off + o] = best;
}

// accumulate != 0 adds to dx.
__kernel void max_pool_backward(const int planes, const int in_h, const int in_w, const int out_h, const int out_w,
                                const int size_h, const int size_w, const int stride_h, const int stride_w,
                                __global const float* dy, const int dy_off,
                                __global const int* argmax, const int argmax_off,
                                __global float* dx, const int dx_off, const int accumulate) {
    const int w = get_global_id(0), h = get_global_id(1), plane = get_global_id(2);
    if (w >= in_w || h >= in_h || plane >= planes) return;
    const int i = (plane * in_h + h) * in_w + w;
    const int index = h * in_w + w;
    int oh0, oh1, ow0, ow1;
    covering(h, size_h, stride_h, out_h, &oh0, &oh1);
    covering(w, size_w, stride_w, out_w, &ow0, &ow1);
    const int base = plane * out_h * out_w;
    float g = 0.0f;
    for (int oh = oh0; oh <= oh1; ++oh)
        for (int ow = ow0; ow <= ow1; ++ow) {
            const int o = base + oh * out_w + ow;
            if (argmax[argmax_off + o] == index) g += dy[dy_off + o];
        }
    dx[dx_off + i] = accumulate ? dx[dx_off + i] + g : g;
}

// The CPU form: one work-item per plane adds each output's gradient to its maximum, in output
// order (no other work-item writes the plane). accumulate != 0 adds to dx.
__kernel void max_pool_backward_planes(const int planes, const int in_h, const int in_w, const int out_h,
                                       const int out_w, __global const float* dy, const int dy_off,
                                       __global const int* argmax, const int argmax_off,
                                       __global float* dx, const int dx_off, const int accumulate) {
    const int plane = get_global_id(0);
    if (plane >= planes) return;
    __global float* out = dx + dx_off + plane * in_h * in_w;
    if (!accumulate)
        for (int i = 0; i < in_h * in_w; ++i) out[i] = 0.0f;
    const int outputs = out_h * out_w;
    __global const float* gradient = dy + dy_off + plane * outputs;
    __global const int* at = argmax + argmax_off + plane * outputs;
    for (int o = 0; o < outputs; ++o) out[at[o]] += gradient[o];
}

__kernel void avg_pool_forward(const int planes, const int in_h, const int in_w, const int out_h, const int out_w,
                               const int size_h, const int size_w, const int stride_h, const int stride_w,
                               __global const float* x, const int x_off,
                               __global float* y, const int y_off) {
    const int ow = get_global_id(0), oh = get_global_id(1), plane = get_global_id(2);
    if (ow >= out_w || oh >= out_h || plane >= planes) return;
    const int o = (plane * out_h + oh) * out_w + ow;
    __global const float* in = x + x_off + plane * in_h * in_w;
    float sum = 0.0f;
    for (int kh = 0; kh < size_h; ++kh)
        for (int kw = 0; kw < size_w; ++kw) sum += in[(oh * stride_h + kh) * in_w + ow * stride_w + kw];
    y[y_off + o] = sum / (float)(size_h * size_w);
}

__kernel void avg_pool_backward(const int planes, const int in_h, const int in_w, const int out_h, const int out_w,
                                const int size_h, const int size_w, const int stride_h, const int stride_w,
                                __global const float* dy, const int dy_off,
                                __global float* dx, const int dx_off, const int accumulate) {
    const int w = get_global_id(0), h = get_global_id(1), plane = get_global_id(2);
    if (w >= in_w || h >= in_h || plane >= planes) return;
    const int i = (plane * in_h + h) * in_w + w;
    int oh0, oh1, ow0, ow1;
    covering(h, size_h, stride_h, out_h, &oh0, &oh1);
    covering(w, size_w, stride_w, out_w, &ow0, &ow1);
    __global const float* grad = dy + dy_off + plane * out_h * out_w;
    float sum = 0.0f;
    for (int oh = oh0; oh <= oh1; ++oh)
        for (int ow = ow0; ow <= ow1; ++ow) sum += grad[oh * out_w + ow];
    const float g = sum / (float)(size_h * size_w);
    dx[dx_off + i] = accumulate ? dx[dx_off + i] + g : g;
}

// One work-item per plane: planes are small (at most a few thousand values) and there are N * C
// of them, enough to fill the device.
__kernel void global_avg_pool_forward(const int planes, const int plane_size,
                                      __global const float* x, const int x_off,
                                      __global float* y, const int y_off) {
    const int p = get_global_id(0);
    if (p >= planes) return;
    __global const float* in = x + x_off + p * plane_size;
    float sum = 0.0f;
    for (int i = 0; i < plane_size; ++i) sum += in[i];
    y[y_off + p] = sum / (float)plane_size;
}

__kernel void global_avg_pool_backward(const int n, const int plane_size,
                                       __global const float* dy, const int dy_off,
                                       __global float* dx, const int dx_off, const int accumulate) {
    const int i = get_global_id(0);
    if (i >= n) return;
    const float g = dy[dy_off + i / plane_size] / (float)plane_size;
    dx[dx_off + i] = accumulate ? dx[dx_off + i] + g : g;
}
