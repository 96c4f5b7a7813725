#!/usr/bin/env bash
# Long local fuzzing, not CI: each target runs until it has executed at least BACKPROP_FUZZ_RUNS
# inputs (a million by default), under ASan + UBSan, one after another, with the limits of CI
# (a 2 GiB allocation or process is a finding). Builds what it needs in <repo>/build-sanitize.
#   tests/fuzz/run-long.sh [target...]      (default: all; e.g. idx_reader cifar_reader)
# The corpora grow in build-sanitize/fuzz-long/corpus/<target> (seeded from tests/fuzz/corpus, kept
# between runs); findings go to build-sanitize/fuzz-long/artifacts. Exit status 1 if any target
# found something. Environment: BACKPROP_FUZZ_RUNS, BACKPROP_FUZZ_MAX_SECONDS (a cap per target,
# 0 = none), BACKPROP_SANITIZE_BUILD.
set -euo pipefail

project=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BACKPROP_SANITIZE_BUILD:-$project/build-sanitize}
runs=${BACKPROP_FUZZ_RUNS:-1000000}
max_seconds=${BACKPROP_FUZZ_MAX_SECONDS:-0}
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(idx_reader cifar_reader project_reader image_decoder kernel_cache_entry weights_reader)

"$project/tests/sanitize/build.sh" "$build" "${targets[@]/#/fuzz_}"
source "$project/tests/sanitize/options.sh"
source "$project/tests/fuzz/hdf5-target.sh"
# Inputs are written to files; a memory-backed temporary folder makes that cheap.
[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm

work=$build/fuzz-long
mkdir -p "$work/artifacts"
found=()
for target in "${targets[@]}"; do
    corpus=$work/corpus/$target
    mkdir -p "$corpus"
    cp -n "$project/tests/fuzz/corpus/$target/"* "$corpus/"
    options=()
    fuzz_options=()
    if [ "$target" = weights_reader ]; then
        options=("${hdf5_env[@]}")
        fuzz_options=("${hdf5_fuzz_options[@]}")
    fi
    log=$work/$target.log
    echo "== fuzzing $target for $runs inputs (log: $log)"
    started=$SECONDS
    status=0
    "${options[@]}" "$build/tests/fuzz/fuzz_$target" -runs="$runs" -max_total_time="$max_seconds" -timeout=10 \
        -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/artifacts/$target-" \
        "${fuzz_options[@]}" "$corpus" >"$log" 2>&1 || status=$?
    # -fork prints no final stats: its last progress line ("#N: cov: ...") counts the inputs.
    executed=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
    [ -n "$executed" ] || executed=$(grep -oE '^#[0-9]+: cov' "$log" | tail -n 1 | tr -dc 0-9 || true)
    echo "   $target: ${executed:-?} inputs in $((SECONDS - started)) s, exit status $status"
    if [ ${#fuzz_options[@]} -gt 0 ]; then
        hdf5_sort_artifacts "$build/tests/fuzz/fuzz_$target" "$work/artifacts/$target-"* || status=1
    fi
    if [ "$status" -ne 0 ]; then
        grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -n 8
        found+=("$target")
    fi
done
if [ ${#found[@]} -gt 0 ]; then
    echo "!! findings in: ${found[*]} (inputs in $work/artifacts)" >&2
    exit 1
fi
echo "== no findings"
