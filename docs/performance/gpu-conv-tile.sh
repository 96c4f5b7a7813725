# Issue 53, an experiment for the tuner: the own convolution kernels' tile (TM x TN per work-item of
# an 8x8 group, STEP values of k per staged step) on the lent GPU, correctness then speed. The
# binaries come from branch exp-conv-tile (2026-11-27-conv-tile-experiment.patch on f9362ff, which
# reads the tile from BACKPROP_CONV_TILE): build its backprop and engine_tests, put them in
# build-tile/ as backprop-tile and engine_tests-tile beside build-bundle's lib.tar.xz, and carry it.
B=build-tile
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
L=$(mktemp -d) && tar xJf $B/lib.tar.xz -C $L && export LD_LIBRARY_PATH=$L/lib
GPU=$(nvidia-smi -L 2>/dev/null | grep -o -E 'H[0-9]00' | head -n 1); GPU=${GPU:-H100}
nvidia-smi --query-gpu=name --format=csv,noheader
export BACKPROP_CACHE_DIR=$(mktemp -d) BACKPROP_DEVICE=$GPU
for t in "4 4 16" "8 8 16" "8 4 16" "4 8 16" "8 8 8" "8 8 32"; do
  echo "== tile $t: conv2d tests on the $GPU"
  BACKPROP_CONV_TILE="$t" timeout 300 $B/engine_tests-tile "[conv2d]" 2>&1 | tail -2
done
for repeat in 1 2; do
  for t in "4 4 16" "8 8 16" "8 4 16" "4 8 16" "8 8 8" "8 8 32"; do
    echo "== repeat $repeat, tile $t"
    BACKPROP_CONV_TILE="$t" $B/backprop-tile bench --nets cnn,cifar --batches 64,256 --device $GPU --no-first-batch --no-device-figures --no-history 2>&1 | grep -E "^  (cnn|cifar) "
  done
done
