# Issue 53, round 3: cold and warm starts to the first trained batch, before (main 2735124) and
# after (parallel program builds on GPUs, PoCL's binaries not stored on the way to a first batch,
# kernel handles), on the lent H100 machine's GPU and on its CPU through PoCL, in one call; then
# the training speed of both binaries on the GPU (the kernel handles must cost nothing), and
# PyTorch with and without cudnn.benchmark. Run from the repository root with build-bundle carried
# (backprop-before, backprop, lib.tar.xz, torch_reference.py). ONLY=first stops after the starts.
B=build-bundle
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
L=$(mktemp -d) && tar xJf $B/lib.tar.xz -C $L && export LD_LIBRARY_PATH=$L/lib
GPU=$(nvidia-smi -L 2>/dev/null | grep -o -E 'H[0-9]00' | head -n 1); GPU=${GPU:-H100}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
export BACKPROP_CACHE_DIR=$(mktemp -d)
$B/backprop devices 2>&1 | head -8
first_batches() {  # DEVICE NET: one bench line per binary, cold and warm starts only
  for bin in backprop-before backprop; do
    $B/$bin bench --net $2 --batch 64 --device $1 --steps 3 --runs 1 --no-device-figures --curve-batches 1 --no-history --json 2>/dev/null |
      python3 -c "import json,sys
for l in sys.stdin:
  r=json.loads(l)
  if r.get('record')=='training': print('$bin', '$1', r['net'], 'cold', r.get('first_batch_cold_s'), 'warm', r.get('first_batch_warm_s'), r.get('first_batch_error',''))"
  done
}
for repeat in 1 2 3; do
  echo "== repeat $repeat: first batch on the $GPU"
  for net in mlp cnn cifar; do first_batches $GPU $net; done
done
for repeat in 1 2; do
  echo "== repeat $repeat: first batch on PoCL, 16 cores"
  for net in mlp cnn cifar; do first_batches cpu $net; done
done
[ "${ONLY:-}" = first ] && exit 0
for repeat in 1 2; do
  for bin in backprop-before backprop; do
    echo "== repeat $repeat: $bin speed on the $GPU"
    $B/$bin bench --nets mlp,cnn,cifar --batches 64,256 --device $GPU --steps 100 --no-first-batch --no-device-figures --no-history 2>&1 | grep -E "^  (mlp|cnn|cifar) "
  done
done
echo "== PyTorch default, then cudnn.benchmark"
python3 $B/torch_reference.py --device cuda --nets mlp,cnn,cifar --batches 64,256
python3 $B/torch_reference.py --device cuda --nets mlp,cnn,cifar --batches 64,256 --cudnn-benchmark
