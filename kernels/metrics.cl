// Epoch totals summed on the device. The host launches one work-group (any size: lanes past
// METRICS_LANES stay idle and any further group does nothing), so no float atomics are needed
// and the order of the sum is fixed.
#define METRICS_LANES 64

// totals[0] += sum(loss), totals[1] += sum(correct) when has_correct.
__kernel void accumulate_metrics(const int n,
                                 __global const float* loss, const int loss_off,
                                 __global const float* correct, const int correct_off, const int has_correct,
                                 __global float* totals, const int totals_off) {
    __local float loss_part[METRICS_LANES];
    __local float correct_part[METRICS_LANES];
    // Only the first group sums, but no work-item returns early: every one reaches the barrier
    // (a group-wide return before it gave 64 times the sum on PoCL).
    const int first_group = get_group_id(0) == 0;
    const int lane = get_local_id(0);
    const int lanes = min((int)get_local_size(0), METRICS_LANES);
    if (first_group && lane < lanes) {
        float l = 0.0f, c = 0.0f;
        for (int i = lane; i < n; i += lanes) {
            l += loss[loss_off + i];
            if (has_correct) c += correct[correct_off + i];
        }
        loss_part[lane] = l;
        correct_part[lane] = c;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (first_group && lane == 0) {
        float l = 0.0f, c = 0.0f;
        for (int i = 0; i < lanes; ++i) {
            l += loss_part[i];
            c += correct_part[i];
        }
        totals[totals_off] += l;
        if (has_correct) totals[totals_off + 1] += c;
    }
}

__kernel void clear_metrics(__global float* totals, const int totals_off) {
    const int i = get_global_id(0);
    if (i < 2) totals[totals_off + i] = 0.0f;
}
