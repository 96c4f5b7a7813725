"""Issue 53: where cifar's step at batch 256 goes in PyTorch on the GPU, kernel by kernel.

Trains shared/bench's cifar network (torch_reference.py's nets(), FP32, TF32 off) on random data
at batch 256, with cuDNN's default choice of algorithms or with cudnn.benchmark (one setting per
process: cuDNN keeps its first choices for the process), and prints each CUDA kernel's time per step from
torch.profiler (the mean over the profiled steps), largest first, with cuDNN's convolution
kernels named for what they compute: fprop (forward), dgrad (the input's gradient) and wgrad
(the filters' gradient). Compare with `backprop bench --nets cifar --batches 256 --layers`.

  python3 cifar256-profile.py --reference build-bundle/torch_reference.py [--cudnn-benchmark] [--steps 50]
"""
import argparse
import importlib.util

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile


def load_reference(path):
    spec = importlib.util.spec_from_file_location("torch_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def profile_steps(reference, benchmark, batch, steps):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = benchmark
    shape, make = reference.nets()["cifar"]
    torch.manual_seed(0)
    device = torch.device("cuda")
    model = make().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_function = nn.CrossEntropyLoss()
    x = torch.randn(batch, *shape, device=device)
    y = torch.randint(0, 10, (batch,), device=device)

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss_function(model(x), y).backward()
        optimizer.step()

    for _ in range(30):  # cudnn.benchmark times its algorithms in the first steps
        step()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(steps):
        step()
    end.record()
    torch.cuda.synchronize()
    step_ms = start.elapsed_time(end) / steps
    with profile(activities=[ProfilerActivity.CUDA]) as profiler:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    kernels = []
    for event in profiler.key_averages():
        total_us = getattr(event, "cuda_time_total", 0) or getattr(event, "device_time_total", 0)
        if total_us > 0 and event.count > 0:
            kernels.append((total_us / steps / 1000.0, event.count // steps, event.key))
    kernels.sort(reverse=True)
    title = "cudnn.benchmark" if benchmark else "default"
    print(f"== PyTorch {torch.__version__} {title}, cifar batch {batch}: {step_ms:.3f} ms a step "
          f"({batch / step_ms * 1000:,.0f} images/s), {steps} steps profiled")
    print(f"{'ms/step':>8} {'calls':>5}  kernel")
    for ms, calls, name in kernels[:30]:
        print(f"{ms:8.3f} {calls:5d}  {name[:150]}")
    print(f"{sum(k[0] for k in kernels):8.3f}        all kernels")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reference", required=True, help="shared/bench/torch_reference.py")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--cudnn-benchmark", action="store_true")
    arguments = parser.parse_args()
    profile_steps(load_reference(arguments.reference), arguments.cudnn_benchmark, arguments.batch, arguments.steps)


if __name__ == "__main__":
    main()
