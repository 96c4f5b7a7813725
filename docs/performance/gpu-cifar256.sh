# Issue 53: where cifar's step at batch 256 goes on the lent GPU (H100 or H200), ours layer by layer against
# PyTorch's kernels, in one call. Run from the repository root with build-bundle carried
# (backprop, lib.tar.xz, torch_reference.py).
B=build-bundle
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
L=$(mktemp -d) && tar xJf $B/lib.tar.xz -C $L && export LD_LIBRARY_PATH=$L/lib
GPU=$(nvidia-smi -L 2>/dev/null | grep -o -E 'H[0-9]00' | head -n 1); GPU=${GPU:-H100}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export BACKPROP_CACHE_DIR=$(mktemp -d)
for repeat in 1 2; do
  echo "== repeat $repeat: ours, cifar 256, every layer waited for"
  $B/backprop bench --nets cifar --batches 256 --device $GPU --layers --no-first-batch --no-history 2>&1
done
python3 docs/performance/cifar256-profile.py --reference $B/torch_reference.py --steps 50
python3 docs/performance/cifar256-profile.py --reference $B/torch_reference.py --steps 50 --cudnn-benchmark
python3 $B/torch_reference.py --device cuda --nets cifar --batches 256
python3 $B/torch_reference.py --device cuda --nets cifar --batches 256 --cudnn-benchmark
