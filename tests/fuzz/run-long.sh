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
        # The point of this run is what our reader does; HDF5 1.10.8's own bugs are known
        # (README.md): its reads past its buffers (hdf5.supp) and leaks (hdf5-leaks.supp) are
        # suppressed; a malloc past 2 GiB returns null as an impossible one does from the C
        # library, which HDF5 handles (our C++ allocations past it are still reported); and the
        # crashes and hangs inside HDF5 are kept as artifacts and the run goes on (-fork), then
        # sorted below into HDF5's and ours.
        options=(env "ASAN_OPTIONS=$ASAN_OPTIONS:allocator_may_return_null=1:max_allocation_size_mb=2048:suppressions=$project/tests/fuzz/hdf5.supp"
                 "LSAN_OPTIONS=$LSAN_OPTIONS:suppressions=$project/tests/fuzz/hdf5-leaks.supp")
        fuzz_options=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    fi
    log=$work/$target.log
    echo "== fuzzing $target for $runs inputs (log: $log)"
    started=$SECONDS
    status=0
    "${options[@]}" "$build/tests/fuzz/fuzz_$target" -runs="$runs" -max_total_time="$max_seconds" -timeout=10 \
        -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/artifacts/$target-" \
        "${fuzz_options[@]}" "$corpus" >"$log" 2>&1 || status=$?
    # -fork prints no final stats: its last progress line ("#N: cov: ...") counts the inputs.
    executed=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
    [ -z "$executed" ] && executed=$(grep -oE '^#[0-9]+: cov' "$log" | tail -n 1 | tr -dc 0-9)
    echo "   $target: ${executed:-?} inputs in $((SECONDS - started)) s, exit status $status"
    if [ ${#fuzz_options[@]} -gt 0 ]; then
        # Each kept input is replayed: a report whose first frame outside the sanitizer runtime is
        # in libhdf5 is HDF5's; any other is ours.
        for artifact in "$work/artifacts/$target-"*; do
            [ -f "$artifact" ] || continue
            frame=$("${options[@]}" timeout 20 "$build/tests/fuzz/fuzz_$target" -timeout=10 "$artifact" 2>&1 |
                grep -E '^ +#[0-9]+ ' | grep -vE 'libclang_rt|compiler-rt|sanitizer_common|asan_|ubsan_|fuzzer::|libc.so' |
                head -n 1 || true)
            if [[ "$frame" == *libhdf5* ]]; then
                echo "   HDF5's own: $(basename "$artifact")"
            else
                echo "   ours (or no report): $(basename "$artifact"): ${frame:-the replay raised nothing}"
                status=1
            fi
        done
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
