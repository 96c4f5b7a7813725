# shellcheck shell=bash
# Sourced by tests/sanitize/ci.sh and tests/fuzz/run-long.sh: how fuzz_weights_reader runs, whose
# inputs reach the system's HDF5 1.10.8, with its own bugs on damaged files (README.md). The point
# of fuzzing it is what our reader does, so:
# - HDF5's reads past its own buffers (hdf5.supp) and its leaks (hdf5-leaks.supp) are suppressed;
# - a malloc past 2 GiB returns null, as an impossible one does from the C library, which HDF5
#   handles (our own C++ allocations past it are still reported, as out of memory);
# - the crashes and hangs inside HDF5 are kept as artifacts while the run goes on (-fork), and
#   hdf5_sort_artifacts then tells HDF5's from ours by replaying each.
# Needs tests/sanitize/options.sh sourced first.
fuzz_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
hdf5_env=(env "ASAN_OPTIONS=$ASAN_OPTIONS:allocator_may_return_null=1:max_allocation_size_mb=2048:suppressions=$fuzz_dir/hdf5.supp"
          "LSAN_OPTIONS=$LSAN_OPTIONS:suppressions=$fuzz_dir/hdf5-leaks.supp")
hdf5_fuzz_options=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)

# hdf5_first_frame < REPORT: the first stack frame of a sanitizer report outside the sanitizer and
# fuzzer runtimes and the C library. A C library frame shows either as libc.so.6+offset or, where
# the symbolizer finds glibc's debug information (as on CI's machine), by glibc's own name for the
# variant it picked (__memcpy_avx512_unaligned_erms) and its source in glibc's tree (sysdeps/,
# string/, stdlib/, ...). A runtime's frame is named by its prefix and whatever follows it
# (__interceptor_memcpy): HDF5's memcpy past its buffer showed as ours through that frame.
hdf5_first_frame() {
    grep -E '^ +#[0-9]+ ' |
        grep -vE 'libclang_rt|compiler-rt|sanitizer_common|/asan_|/ubsan_|fuzzer::|libc\.so|[ /](sysdeps|string|stdlib|nptl|libio|malloc|posix|assert|csu)/' |
        grep -vE ' in ((__interceptor_|__asan|__ubsan|__sanitizer)[A-Za-z0-9_]*|malloc|calloc|realloc|free|_*(str|mem|wcs|wmem)[a-z0-9_]*|operator (new|delete))[ (]' |
        head -n 1 || true
}

# hdf5_sort_artifacts FUZZER ARTIFACT...: one line per artifact, replayed alone:
# - "HDF5's own: NAME" when the first frame of its report outside the sanitizer and fuzzer
#   runtimes and the C library (hdf5_first_frame: malloc, strdup, memcpy and glibc's variants of
#   them) is in libhdf5;
# - "HDF5's own, after earlier inputs: NAME" when it raises nothing alone: our reader keeps no
#   state from one file to the next, HDF5 does (its identifiers, caches and the files its error
#   paths leave open), and fork mode keeps no stack to show;
# - past the memory limit: ours when a live allocation was made in our code, else HDF5's;
# - "ours: NAME: FRAME" otherwise, and then returns 1.
hdf5_sort_artifacts() {
    local fuzzer=$1 artifact report live frame ours=0
    shift
    for artifact in "$@"; do
        [ -f "$artifact" ] || continue
        report=$("${hdf5_env[@]}" timeout 30 "$fuzzer" -timeout=10 "$artifact" 2>&1 || true)
        # Past the memory limit, libFuzzer shows its own thread, then the largest live allocations
        # with where they were made: ours when one was made in our code (bps::), else the memory
        # went to HDF5 (its allocations, live or already freed; the rest are libFuzzer's own).
        if grep -q 'out-of-memory (used:' <<<"$report"; then
            live=$(sed -n '/Live Heap Allocations/,$p' <<<"$report")
            if grep -q 'bps::' <<<"$live"; then
                echo "   ours: $(basename "$artifact"): $(grep -m1 'bps::' <<<"$live")"
                ours=1
            else
                echo "   HDF5's own (past the memory limit, no live allocation of ours): $(basename "$artifact")"
            fi
            continue
        fi
        frame=$(hdf5_first_frame <<<"$report")
        if [[ "$frame" == *libhdf5* ]]; then
            echo "   HDF5's own: $(basename "$artifact")"
        elif ! grep -qE 'ERROR|runtime error|SUMMARY' <<<"$report"; then
            echo "   HDF5's own, after earlier inputs (nothing alone): $(basename "$artifact")"
        else
            echo "   ours: $(basename "$artifact"): ${frame:-$(grep -m1 -E 'ERROR|runtime error' <<<"$report")}"
            ours=1
        fi
    done
    return $ours
}
