# The call behind docs/performance.md's GPU and 16-core CPU tables (run on the lent H100 machine
# from the repository root, with build-gpu/bundle carried; see "How to measure").
. docs/performance/h100-setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== engine tests on the GPU (one known NVIDIA exception: it allows buffers past its stated limit)"
(cd $B && BACKPROP_DEVICE=H100 timeout 300 ./engine_tests "~a buffer larger than the device allows names clCreateBuffer and the size" 2>&1 | tail -2)
for net in mlp cnn cifar; do for b in 64 256; do
  echo "== bench $net $b"; $B/backprop bench --net $net --batch $b --device H100 --steps 100 --layers 2>&1 | tail -24
done; done
for net in mlp cnn; do for b in 64 256; do
  echo "== train $net $b"; $B/backprop train $net --epochs 3 --batch $b --device H100 2>&1 | grep -E "^epoch [0-9]/[0-9]: loss|test accuracy"
done; done
python3 $B/torch_reference.py --device cuda --nets mlp,cnn,cifar --batches 64,256
python3 $B/torch_reference.py --device cuda --nets mlp,cnn --batches 64,256 --idx /usr/share/datasets/fashion-mnist
echo "== CPU (PoCL, 16 cores)"; nproc
for net in mlp cnn cifar; do echo "== pocl bench $net 64"; taskset -c 0-15 $B/backprop bench --net $net --batch 64 --device 1 --steps 5 2>&1 | grep "whole step"; done
taskset -c 0-15 python3 $B/torch_reference.py --device cpu --threads 16 --nets mlp,cnn,cifar --batches 64 --max-steps 100
