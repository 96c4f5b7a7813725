# The call behind docs/performance.md's 16-core CPU table with the own CPU kernels (run on the lent
# H100 machine from the repository root, with build-gpu/bundle carried; see "How to measure").
. docs/performance/h100-setup.sh
# The lent machine may come with an H200 instead: its OpenCL device name is the card's.
GPU=$(nvidia-smi -L 2>/dev/null | grep -o -E 'H[0-9]00' | head -n 1); GPU=${GPU:-H100}
lscpu | grep -E "^Model name|^CPU\(s\)|^Thread|^Core"; lscpu | grep -o -E "avx512f|avx2" | sort -u | tr '\n' ' '; echo
echo "== engine tests of the changed ops on PoCL, then all of them on the GPU"
(cd $B && BACKPROP_DEVICE=cpu timeout 200 ./engine_tests "[gemm],[conv2d],[pool],[self-test]" 2>&1 | tail -2)
(cd $B && BACKPROP_DEVICE=$GPU timeout 240 ./engine_tests "~a buffer larger than the device allows names clCreateBuffer and the size" 2>&1 | tail -2)
for repeat in 1 2; do
  echo "== repeat $repeat: PoCL on 16 cores"
  for net in mlp cnn cifar; do
    taskset -c 0-15 $B/backprop bench --net $net --batch 64 --device cpu --steps 30 --layers 2>&1 | grep -A20 "^  net"
  done
  echo "== repeat $repeat: PyTorch CPU on 16 threads"
  taskset -c 0-15 python3 $B/torch_reference.py --device cpu --threads 16 --nets mlp,cnn,cifar --batches 64 --max-steps 100
done
echo "== the GPU path is unchanged: bench on the $GPU"
for nb in "mlp 64" "cnn 64" "cifar 256"; do set -- $nb
  $B/backprop bench --net $1 --batch $2 --device $GPU --steps 100 2>&1 | grep -A1 "^  net"
done
