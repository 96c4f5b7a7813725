// Counts NaN and infinite values: the check of a network's parameters and optimiser state between
// epochs (a NaN weight behind a ReLU leaves the loss finite, so the loss alone cannot tell).
//
// A value is non-finite when its exponent bits are all ones. The bits are tested rather than
// isfinite(), which a compiler told to assume finite math may fold to true.
//
// Any number of work-items: each counts a strided share (neighbours read neighbours), and only
// one that found something adds its count to count[0] atomically (integers: the total is exact
// and the same in any order). A finite tensor costs no atomic at all.
__kernel void count_non_finite(const int n, __global const float* values, const int values_off,
                               volatile __global int* count, const int count_off) {
    const int stride = (int)get_global_size(0);
    int found = 0;
    for (int i = (int)get_global_id(0); i < n; i += stride)
        found += (as_uint(values[values_off + i]) & 0x7f800000u) == 0x7f800000u;
    if (found > 0) atomic_add(&count[count_off], found);
}
