// Parameter updates (bps::train::optimizer_step), one work-item per parameter element. Each tensor
// argument is a buffer and an element offset.

// Plain SGD: param -= lr * (grad + wd * param).
__kernel void sgd_step(const int n, const float lr, const float weight_decay,
                       __global float* param, const int param_off,
                       __global const float* grad, const int grad_off) {
    const int i = get_global_id(0);
    if (i >= n) return;
    const float p = param[param_off + i];
    const float g = grad[grad_off + i] + weight_decay * p;
    param[param_off + i] = p - lr * g;
}

// SGD with momentum (PyTorch, no dampening): v = momentum * v + g; the step is v, or g + momentum * v
// with Nesterov.
__kernel void sgd_momentum_step(const int n, const float lr, const float momentum, const float weight_decay,
                                const int nesterov,
                                __global float* param, const int param_off,
                                __global const float* grad, const int grad_off,
                                __global float* velocity, const int velocity_off) {
    const int i = get_global_id(0);
    if (i >= n) return;
    const float p = param[param_off + i];
    const float g = grad[grad_off + i] + weight_decay * p;
    const float v = momentum * velocity[velocity_off + i] + g;
    velocity[velocity_off + i] = v;
    param[param_off + i] = p - lr * (nesterov ? g + momentum * v : v);
}

// Adam and AdamW. The host folds the bias corrections in: step_rate = lr / (1 - b1^t),
// v_scale = 1 / sqrt(1 - b2^t). Adam passes its L2 decay as l2 (added to the gradient) and shrink = 1;
// AdamW passes l2 = 0 and shrink = 1 - lr * wd (decoupled decay before the Adam step).
__kernel void adam_step(const int n, const float step_rate, const float v_scale, const float beta1,
                        const float beta2, const float epsilon, const float l2, const float shrink,
                        __global float* param, const int param_off,
                        __global const float* grad, const int grad_off,
                        __global float* first, const int first_off,
                        __global float* second, const int second_off) {
    const int i = get_global_id(0);
    if (i >= n) return;
    const float p = param[param_off + i];
    const float g = grad[grad_off + i] + l2 * p;
    const float m = beta1 * first[first_off + i] + (1.0f - beta1) * g;
    const float v = beta2 * second[second_off + i] + (1.0f - beta2) * g * g;
    first[first_off + i] = m;
    second[second_off + i] = v;
    param[param_off + i] = p * shrink - step_rate * m / (sqrt(v) * v_scale + epsilon);
}
