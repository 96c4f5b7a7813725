#!/usr/bin/env bash
# CI's sanitizer stage (issue 26): the readers fuzzed and the engine and dataset tests run under
# AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer, built by clang-14 in
# <repo>/build-sanitize (no GUI, only what these need). Every run is bounded in time; the script
# fails on any finding or test failure, naming it. Last, every op test's kernels run under Oclgrind
# (tests/sanitize/oclgrind.sh, on the normal build's engine_tests: Oclgrind preloads its runtime,
# which ASan, wanting to come first, refuses). `packaging/setup-debian.sh sanitize` runs it, and CI
# (.ci/run) after the test command.
#   tests/sanitize/ci.sh
# Environment: BACKPROP_FUZZ_SECONDS (the most a target may take, 40), BACKPROP_SANITIZE_BUILD
# (the build folder), BACKPROP_ENGINE_TESTS (the normal build's engine_tests, which Oclgrind runs;
# its build's CLI warms the sanitized tests' kernel cache).
set -euo pipefail

project=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BACKPROP_SANITIZE_BUILD:-$project/build-sanitize}
# The normal build (packaging/setup-debian.sh builds it first): its engine_tests and its CLI.
normal_engine_tests=${BACKPROP_ENGINE_TESTS:-$project/build/tests/engine_tests}
normal_cli=$(dirname "$normal_engine_tests")/../app/backprop
fuzz_seconds=${BACKPROP_FUZZ_SECONDS:-40}
fuzz_targets=(idx_reader cifar_reader project_reader image_decoder weights_reader kernel_cache_entry)
# CI fuzzes from a fixed seed for a fixed number of inputs a target (about 20 s each on a 2-core
# machine); the long runs (run-long.sh) explore with random seeds.
declare -A fuzz_runs=([idx_reader]=25000 [cifar_reader]=17000 [project_reader]=150000 [image_decoder]=60000
                      [weights_reader]=10000 [kernel_cache_entry]=170000)
# The weights reader's inputs reach the system's HDF5 1.10.8, which crashes on some damaged files
# itself (tests/fuzz/README.md): see fuzz_weights_reader below.

# Catch2 test specs ("~" leaves out; "[.]" is the hidden tests, which a spec of only exclusions
# would otherwise include). The whole engine suite runs.
engine_tests_spec='~[.]'
# datasets_tests all but the one that runs itself under `ulimit -v`: ASan reserves terabytes of
# address space for its shadow memory, so no sanitized process starts under such a limit.
datasets_tests_spec='~[.]~*under a 600 MB memory limit*'

scratch=$(mktemp -d "${TMPDIR:-/tmp}/backprop-sanitize-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
started=$SECONDS

echo "== sanitize: configuring and building in $build (clang-14, ASan + UBSan, libFuzzer)"
"$project/tests/sanitize/build.sh" "$build" fuzz_targets engine_tests datasets_tests
echo "== sanitize: built in $((SECONDS - started)) s"

source "$project/tests/sanitize/options.sh"
# A sanitized process keeps its kernel cache apart, beside the suite's (PoCL's cache is shared:
# the same driver compiles the same kernels).
caches=${BACKPROP_CACHE_DIR:+$(dirname "$BACKPROP_CACHE_DIR")}
export BACKPROP_CACHE_DIR=${caches:-$scratch}/backprop-sanitize
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-$scratch/pocl}
# That cache is warmed first, by the normal build's CLI: a binary in it is the driver's, whichever
# build of the engine asked for it. A runtime on PoCL stores none of PoCL's binaries itself
# (engine/ops/runtime.h, CacheWrites), so without the warm every program a sanitized test builds
# had PoCL preprocess its source to find its own cache entry, under ASan: a sixth of the engine
# tests took 29 s instead of 13 s. With PoCL's cache warm from the test command it takes seconds.
phase=$SECONDS
if "$normal_cli" cache warm >"$scratch/cache-warm.log" 2>&1; then
    echo "== sanitize: the sanitized tests' kernel cache warmed in $((SECONDS - phase)) s"
else
    tail -n 20 "$scratch/cache-warm.log"
    echo "note: $normal_cli cache warm failed; the sanitized tests build kernels as they go"
fi

failures=()

# Jobs run side by side, as many at a time as there are cores, each into its own log, which is
# shown in the order started. A job that fails says why in its log and returns non-zero.
jobs_dir=$scratch/jobs
mkdir -p "$jobs_dir"
job_names=()
start_job() {  # start_job NAME COMMAND...
    local name=$1
    shift
    while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
    ("$@" >"$jobs_dir/$name.out" 2>&1 || touch "$jobs_dir/$name.failed") &
    job_names+=("$name")
}
finish_jobs() {
    wait
    local name
    for name in "${job_names[@]}"; do
        cat "$jobs_dir/$name.out"
        if [ -f "$jobs_dir/$name.failed" ]; then failures+=("$name"); fi
    done
    job_names=()
}

# The weights reader: its corpus replayed as it is (every input HDF5 and we get right), then fuzzed
# in fork mode past HDF5's own crashes (tests/fuzz/hdf5-target.sh); only a report of ours fails.
source "$project/tests/fuzz/hdf5-target.sh"
fuzz_weights_reader() {
    local corpus=$1 fuzzer=$build/tests/fuzz/fuzz_weights_reader
    shift
    local log=$scratch/fuzz-weights_reader.log
    echo "== sanitize: weights_reader replaying its corpus, then ${fuzz_runs[weights_reader]} inputs past HDF5's own crashes"
    if ! TMPDIR=$scratch timeout --kill-after=10 $((fuzz_seconds + 60)) "${hdf5_env[@]}" "$fuzzer" "$@" "$corpus"/* \
        >"$log" 2>&1; then
        tail -n 60 "$log"
        echo "!! sanitize: fuzz_weights_reader failed on its own corpus"
        return 1
    fi
    TMPDIR=$scratch timeout --kill-after=10 $((fuzz_seconds + 60)) "${hdf5_env[@]}" "$fuzzer" "$@" -seed=1 \
        -runs="${fuzz_runs[weights_reader]}" -max_total_time="$fuzz_seconds" "${hdf5_fuzz_options[@]}" "$corpus" \
        >>"$log" 2>&1 || true
    grep -oE '^#[0-9]+: cov' "$log" | tail -n 1 | tr -dc 0-9 | sed 's/^/   weights_reader: /; s/$/ inputs\n/'
    if ! hdf5_sort_artifacts "$fuzzer" "$scratch/artifacts/weights_reader-"*; then
        mkdir -p "$build/fuzz-artifacts"
        cp "$scratch/artifacts/weights_reader-"* "$build/fuzz-artifacts/" 2>/dev/null || true
        echo "!! sanitize: fuzz_weights_reader found a problem of ours; its input is in $build/fuzz-artifacts"
        return 1
    fi
}

fuzz_target() {  # fuzz_target TARGET CORPUS LIMITS...
    local target=$1 corpus=$2
    shift 2
    echo "== sanitize: fuzzing $target with ${fuzz_runs[$target]} inputs (seed 1, at most ${fuzz_seconds} s)"
    local run=("$build/tests/fuzz/fuzz_$target" "$@" -seed=1 -runs="${fuzz_runs[$target]}"
               -max_total_time="$fuzz_seconds" -print_final_stats=1 "$corpus")
    local log=$scratch/fuzz-$target.log
    # TMPDIR: the targets write each input to a file there, left behind by a crash; the trap clears it.
    if TMPDIR=$scratch timeout --kill-after=10 $((fuzz_seconds + 60)) "${run[@]}" >"$log" 2>&1; then
        grep -E '^stat::number_of_executed_units|^Executed ' "$log" | tail -n 1 | sed "s/^/   $target: /"
    else
        tail -n 60 "$log"
        mkdir -p "$build/fuzz-artifacts"
        cp "$scratch/artifacts/$target-"* "$build/fuzz-artifacts/" 2>/dev/null || true
        echo "!! sanitize: fuzz_$target found a problem; its input is in $build/fuzz-artifacts"
        return 1
    fi
}

run_tests() {  # run_tests LOG EXECUTABLE SECONDS CATCH2_ARGUMENTS...
    local name=$1 executable=$2 seconds=$3
    shift 3
    echo "== sanitize: $name $*"
    local log=$scratch/$name.log
    if (cd "$scratch" && timeout --kill-after=10 "$seconds" "$build/tests/$executable" "$@" >"$log" 2>&1); then
        tail -n 3 "$log"
    else
        tail -n 150 "$log"
        echo "!! sanitize: $name failed (or a sanitizer reported)"
        return 1
    fi
}

# The test cases that a run's log says passed ("All tests passed (A assertions in N test cases)").
cases_passed() {
    grep -oE 'All tests passed \([0-9]+ assertions? in [0-9]+ test cases?\)' "$scratch/$1.log" | grep -oE '[0-9]+ test' |
        grep -oE '[0-9]+' || echo 0
}

# One pool of jobs, as many at a time as there are cores, the longest first. The engine tests under
# ASan are mostly host code on one core (a whole run took 241 s at 98 % CPU on two cores), so their
# test cases are dealt in turn to as many shards as there are cores; each shard must pass every case
# it was dealt, which is checked against the list below. The fuzzers and the dataset tests are one
# process on one core each.
phase=$SECONDS
engine_shards=$(nproc)
# (Catch2 2's listing exits with the number of tests listed.)
{ "$build/tests/engine_tests" --list-test-names-only "$engine_tests_spec" || true; } | sed '/^$/d' \
    >"$scratch/engine-tests.txt"
engine_cases=$(wc -l <"$scratch/engine-tests.txt")
if [ "$engine_cases" -eq 0 ]; then
    echo "!! sanitize: engine_tests listed no test cases"
    exit 1
fi
for ((shard = 1; shard <= engine_shards; shard++)); do
    # Catch2 reads one test name a line (-f), in which a comma, a bracket, a star, a tilde and a
    # backslash would be its test spec's own: each is escaped with a backslash.
    awk -v shards="$engine_shards" -v shard="$shard" 'NR % shards == shard % shards' "$scratch/engine-tests.txt" |
        sed 's/[],[\\*~]/\\&/g' >"$scratch/engine-tests-$shard.txt"
    start_job "engine_tests-$shard" run_tests "engine_tests-$shard" engine_tests 420 -f "$scratch/engine-tests-$shard.txt"
done
# The committed corpus is copied: a run adds the inputs it finds interesting to its corpus folder.
for target in "${fuzz_targets[@]}"; do
    corpus=$scratch/corpus/$target
    mkdir -p "$corpus" "$scratch/artifacts"
    cp "$project/tests/fuzz/corpus/$target/"* "$corpus/"
    # -rss_limit_mb/-malloc_limit_mb: one allocation or a process past 2 GiB is a finding.
    limits=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -artifact_prefix="$scratch/artifacts/$target-")
    if [ "$target" = weights_reader ]; then
        start_job fuzz_weights_reader fuzz_weights_reader "$corpus" "${limits[@]}"
    else
        start_job "fuzz_$target" fuzz_target "$target" "$corpus" "${limits[@]}"
    fi
done
start_job datasets_tests run_tests datasets_tests datasets_tests 300 "$datasets_tests_spec"
finish_jobs
engine_passed=0
for ((shard = 1; shard <= engine_shards; shard++)); do
    engine_passed=$((engine_passed + $(cases_passed "engine_tests-$shard")))
done
if [ "$engine_passed" -ne "$engine_cases" ]; then
    echo "!! sanitize: the engine tests' shards passed $engine_passed of their $engine_cases test cases"
    failures+=(engine_tests)
fi
echo "== sanitize: the engine tests in $engine_shards shards, the fuzzers and the dataset tests, $(nproc) at a time: $((SECONDS - phase)) s"

# The kernels under a second OpenCL implementation, from the normal build.
if ! "$project/tests/sanitize/oclgrind.sh" "$normal_engine_tests"; then
    failures+=(oclgrind)
fi

echo "== sanitize: $((SECONDS - started)) s in all"
if [ ${#failures[@]} -gt 0 ]; then
    echo "!! sanitize: failed: ${failures[*]}" >&2
    exit 1
fi
echo "== sanitize: no findings"
