# Issue 53, the tuner: on the lent machine, for its GPU and for PoCL on its 16 cores, the tuning
# from a cold cache (`backprop cache warm`, which tunes an untuned device and says what each
# variant took), every variant's correctness against the C++ references ([tuning] tests), and the
# networks with the tuned tiles against today's fixed ones, alternated in one call (the fixed run
# uses a copy of the same kernel cache without the tuning record). Carry build-tune/ (backprop,
# engine_tests, build-bundle's lib.tar.xz).
B=build-tune
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
L=$(mktemp -d) && tar xJf $B/lib.tar.xz -C $L && export LD_LIBRARY_PATH=$L/lib
GPU=$(nvidia-smi -L 2>/dev/null | grep -o -E 'H[0-9]00' | head -n 1); GPU=${GPU:-H100}
nvidia-smi --query-gpu=name --format=csv,noheader
nproc
for D in $GPU cpu; do
  T=$(mktemp -d)
  export BACKPROP_CACHE_DIR=$T/tuned POCL_CACHE_DIR=$T/pocl BACKPROP_DEVICE=$D
  echo "== $D: cache warm from a cold cache (tunes, then builds)"
  /usr/bin/time -f "cache warm: %e s wall" $B/backprop cache warm --device $D 2>&1
  $B/backprop devices 2>&1 | grep "kernels:"
  echo "== $D: a second tuning, PoCL's and the driver's caches warm (the record removed)"
  mv $T/tuned/tuning $T/tuning-first
  $B/backprop cache warm --device $D 2>&1 | grep -E "a pass|tuned in"
  rm -rf $T/tuned/tuning && mv $T/tuning-first $T/tuned/tuning
  echo "== $D: every tile variant against the references"
  timeout 400 $B/engine_tests "[tuning]" 2>&1 | tail -2
  mkdir -p $T/fixed && cp -r $T/tuned/kernels $T/fixed/
  if [ "$D" = cpu ]; then nets="--nets mlp,cnn,cifar --batches 64"; else nets="--nets mlp,cnn,cifar --batches 64,256"; fi
  for repeat in 1 2; do
    for which in tuned fixed; do
      echo "== $D, repeat $repeat, $which tiles"
      BACKPROP_CACHE_DIR=$T/$which $B/backprop bench $nets --device $D --no-first-batch --no-device-figures --no-history 2>&1 | grep -E "^  (mlp|cnn|cifar) "
    done
  done
done
