# Before against after in one call on the lent GPU machine (docs/performance.md, "CPU (PoCL)"): run
# from the repository root with build-gpu/bundle carried and holding backprop-before (the build
# before the change) beside backprop. PART picks what to run, as one call may last 10 minutes:
#   PART=tests  the engine tests of the changed ops on PoCL's 16 cores, every engine test on the
#               GPU, and bench on the GPU, both binaries, three repeats
#   PART=cpu    bench on the 16 cores, both binaries and PyTorch on 16 threads, two repeats, then
#               the per-layer times of the change
#   PART=train  the data path on the GPU: train on Fashion-MNIST (3 epochs) against bench, both
#               binaries, for mlp and cnn at batches 64 and 256, two repeats
. docs/performance/h100-setup.sh
GPU=$(nvidia-smi -L 2>/dev/null | grep -o -E 'H[0-9]00' | head -n 1); GPU=${GPU:-H100}
if [ "${PART:-tests}" = tests ]; then
  echo "== engine tests of the changed ops on PoCL, then all of them on the $GPU"
  (cd $B && BACKPROP_DEVICE=cpu timeout 240 ./engine_tests "${TESTS:-[conv2d],[dense],[network]}" 2>&1 | tail -2)
  (cd $B && BACKPROP_DEVICE=$GPU timeout 240 ./engine_tests "~a buffer larger than the device allows names clCreateBuffer and the size" 2>&1 | tail -2)
  for repeat in 1 2 3; do
    for bin in backprop-before backprop; do
      echo "== repeat $repeat: $bin on the $GPU"
      $B/$bin bench --nets mlp,cnn,cifar --batches 64 --device $GPU --steps 100 --no-first-batch --no-device-figures 2>&1 | grep -E "^  (mlp|cnn|cifar) "
    done
  done
elif [ "$PART" = train ]; then
  (cd $B && BACKPROP_DEVICE=$GPU timeout 240 ./engine_tests "[device_data],[job],[checkpoint]" 2>&1 | tail -2)
  for repeat in 1 2; do
    for bin in backprop-before backprop; do
      for net in mlp cnn; do for b in 64 256; do
        echo "== repeat $repeat: $bin $net $b on the $GPU"
        $B/$bin bench --net $net --batch $b --device $GPU --steps 100 --no-first-batch --no-device-figures 2>&1 | grep -E "^  $net "
        $B/$bin train $net --epochs 3 --batch $b --device $GPU 2>&1 | grep -E "^epoch [0-9]/[0-9]: loss|test accuracy"
      done; done
    done
  done
else
  lscpu | grep -E "^Model name|^CPU\(s\)"
  for repeat in 1 2; do
    for bin in backprop-before backprop; do
      echo "== repeat $repeat: $bin on 16 cores"
      taskset -c 0-15 $B/$bin bench --nets mlp,cnn,cifar --batches 64 --device cpu --steps 30 --no-first-batch --no-device-figures 2>&1 | grep -E "^  (mlp|cnn|cifar) "
    done
    echo "== repeat $repeat: PyTorch CPU on 16 threads"
    taskset -c 0-15 python3 $B/torch_reference.py --device cpu --threads 16 --nets mlp,cnn,cifar --batches 64 --max-steps 100
  done
  echo "== per layer, after, on 16 cores"
  taskset -c 0-15 $B/backprop bench --nets cnn,cifar --batches 64 --device cpu --steps 30 --layers --no-first-batch --no-device-figures 2>&1 | grep -A20 "^  net"
fi
