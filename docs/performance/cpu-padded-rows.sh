# Device call 2 (issue 53, CPU): the gemm method's col and cnhw rows padded to an odd number of
# cache lines, before (main 67a8e57) and after, on the lent machine's 16 cores and on 2 of them,
# with PyTorch on as many threads, in one call.
B=build-rows
L=$(mktemp -d) && tar xJf $B/lib.tar.xz -C $L && export LD_LIBRARY_PATH=$L/lib
export POCL_CACHE_DIR=$(mktemp -d) BACKPROP_DEVICE=cpu
C=$(mktemp -d)
lscpu | grep -E "^Model name|^CPU\(s\)"; python3 -c "import torch; print('torch', torch.__version__)"
echo "== correctness of the changed ops on this PoCL (after)"
BACKPROP_CACHE_DIR=$C/after timeout 250 taskset -c 0-15 $B/engine_tests "[gemm],[conv2d],[tuning]" 2>&1 | tail -2
echo "== product timings, 16 cores"
BACKPROP_CACHE_DIR=$C/after timeout 120 taskset -c 0-15 $B/engine_tests "[.timing]" 2>&1 | grep -E "^==|col|dW   row, dy ld"
for cores in 0-15 0-1; do
  threads=$(( ${cores#0-} + 1 ))
  for repeat in 1 2; do
    for which in before after; do
      bin=$B/backprop; [ $which = before ] && bin=$B/backprop-before
      echo "== cores $cores, repeat $repeat, $which"
      for net in mlp cnn cifar; do
        BACKPROP_CACHE_DIR=$C/$which timeout 150 taskset -c $cores $bin bench --net $net --batch 64 --device cpu --steps 20 --layers --no-first-batch --no-history 2>&1 | grep -E "^  (mlp|cnn|cifar) |^      conv"
      done
    done
    echo "== cores $cores, repeat $repeat, PyTorch on $threads threads"
    timeout 200 taskset -c $cores python3 $B/torch_reference.py --device cpu --threads $threads --nets mlp,cnn,cifar --batches 64 --max-steps 30
  done
done
