# The call behind docs/performance.md's GPU table (run on the lent H100 machine from the
# repository root, with build-gpu/bundle carried; see "How to measure").
. docs/performance/h100-setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
GPU=$(nvidia-smi -L 2>/dev/null | grep -o -E "H[0-9]00" | head -n 1); GPU=${GPU:-H100}
echo "== engine tests on the GPU (one known NVIDIA exception: it allows buffers past its stated limit)"
(cd $B && BACKPROP_DEVICE=$GPU timeout 300 ./engine_tests "~a buffer larger than the device allows names clCreateBuffer and the size" 2>&1 | tail -2)
for net in mlp cnn cifar; do for b in 64 256; do
  echo "== bench $net $b"; $B/backprop bench --net $net --batch $b --device $GPU --steps 100 --layers 2>&1 | tail -24
done; done
for net in mlp cnn; do for b in 64 256; do
  echo "== train $net $b"; $B/backprop train $net --epochs 3 --batch $b --device $GPU 2>&1 | grep -E "^epoch [0-9]/[0-9]: loss|test accuracy"
done; done
python3 $B/torch_reference.py --device cuda --nets mlp,cnn,cifar --batches 64,256
python3 $B/torch_reference.py --device cuda --nets mlp,cnn --batches 64,256 --idx /usr/share/datasets/fashion-mnist
# The 16-core CPU figures, before and after in one call: h100-before-after.sh with PART=cpu.
