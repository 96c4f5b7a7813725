// Inverted dropout with counter-based random numbers. A tensor argument is a buffer and an
// element offset.
//
// dropout_random must stay identical to bps::ref::dropout_random (engine/reference/dropout.h):
// the murmur3 32-bit finaliser applied to the seed, then to the step, then to the element index,
// each folded in with xor. The finaliser is a bijection with full avalanche, so neighbouring
// indices and steps give unrelated values; the constant keeps seed 0 away from the fixed point 0.
uint dropout_mix(uint h) {
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h;
}

uint dropout_random(const uint seed, const uint step, const uint index) {
    uint h = dropout_mix(seed ^ 0x9E3779B9u);
    h = dropout_mix(h ^ step);
    return dropout_mix(h ^ index);
}

// Element i is dropped when its random number is below `threshold` (rate * 2^32).
__kernel void dropout_forward(const int n, const uint threshold, const float keep_scale, const uint seed,
                              const uint step,
                              __global const float* x, const int x_off,
                              __global float* y, const int y_off,
                              __global float* mask, const int mask_off) {
    const int i = get_global_id(0);
    if (i >= n) return;
    const float m = dropout_random(seed, step, (uint)i) < threshold ? 0.0f : keep_scale;
    mask[mask_off + i] = m;
    y[y_off + i] = x[x_off + i] * m;
}

// accumulate != 0 adds to dx.
__kernel void dropout_backward(const int n,
                               __global const float* dy, const int dy_off,
                               __global const float* mask, const int mask_off,
                               __global float* dx, const int dx_off, const int accumulate) {
    const int i = get_global_id(0);
    if (i >= n) return;
    const float g = dy[dy_off + i] * mask[mask_off + i];
    dx[dx_off + i] = accumulate ? dx[dx_off + i] + g : g;
}
