# The call behind docs/performance.md's device comparison: `backprop bench --device all` (the
# H100 through NVIDIA's OpenCL and PoCL on the machine's CPU) and torch_reference.py on CUDA and on
# the CPU, joined by join_bench.py. Run on the lent H100 machine from the repository root, with
# build-gpu/bundle carried (see "How to measure"); the raw lines land in $OUT.
. docs/performance/h100-setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "cores: $(nproc)"
echo "== engine tests [bench] and [self-test] on the GPU"
(cd $B && BACKPROP_DEVICE=H100 timeout 120 ./engine_tests "[bench],[self-test]" 2>&1 | tail -2)
echo "== backprop devices --check"
$B/backprop devices --check
echo "== backprop bench --device all --json"
timeout 400 $B/backprop bench --device all --json > $OUT/ours.jsonl 2> $OUT/ours-progress.txt; echo "exit $?"
cat $OUT/ours.jsonl
echo "== torch_reference.py --device cuda"
python3 $B/torch_reference.py --device cuda | tee $OUT/torch-cuda.jsonl
echo "== torch_reference.py --device cpu --threads $(nproc) --max-steps 100"
python3 $B/torch_reference.py --device cpu --threads $(nproc) --max-steps 100 | tee $OUT/torch-cpu.jsonl
echo "== joined"
python3 $B/join_bench.py $OUT/ours.jsonl $OUT/torch-cuda.jsonl $OUT/torch-cpu.jsonl
