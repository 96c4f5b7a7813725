# The before-and-after call of docs/performance.md ("CPU (PoCL)"): run on the lent GPU machine from the
# repository root, with build-gpu/bundle carried and holding backprop-before (the build before the
# change) beside backprop. The GPU path first, then the 16 CPU cores.
. docs/performance/h100-setup.sh
GPU=$(nvidia-smi -L 2>/dev/null | grep -o -E 'H[0-9]00' | head -n 1); GPU=${GPU:-H100}
for repeat in 1 2 3; do
  for bin in backprop-before backprop; do
    echo "== repeat $repeat: $bin on the $GPU"
    $B/$bin bench --nets mlp,cnn --batches 64 --device $GPU --steps 100 --no-first-batch --no-device-figures 2>&1 | grep -E "^  (mlp|cnn) "
  done
done
for repeat in 1 2; do
  for bin in backprop-before backprop; do
    echo "== repeat $repeat: $bin on 16 cores"
    taskset -c 0-15 $B/$bin bench --nets mlp,cnn,cifar --batches 64 --device cpu --steps 30 --no-first-batch --no-device-figures 2>&1 | grep -E "^  (mlp|cnn|cifar) "
  done
done
