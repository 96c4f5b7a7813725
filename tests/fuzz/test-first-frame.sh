#!/usr/bin/env bash
# Checks hdf5_first_frame (hdf5-target.sh), which decides whether a crash found while fuzzing the
# weights reader is HDF5's or ours, on the shapes of report the symbolizer gives: C library frames
# as libc.so.6+offset (this machine) or by glibc's variant names and sources (CI's machine, where
# a crash inside HDF5's memcpy was taken for ours), and a frame of ours under a C library one.
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
source "$here/../sanitize/options.sh"
source "$here/hdf5-target.sh"
failures=0
expect() {  # NAME EXPECTED-SUBSTRING REPORT
    local frame
    frame=$(hdf5_first_frame <<<"$3")
    if [[ "$frame" == *"$2"* ]]; then
        echo "ok: $1"
    else
        echo "FAILED: $1: expected a frame with '$2', got '${frame:-nothing}'"
        failures=$((failures + 1))
    fi
}

expect "glibc's memcpy variant, symbolized from its sources, is skipped for HDF5's caller" libhdf5 \
"==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000
    #0 0x7fa6d738b870 in __memcpy_avx512_unaligned_erms string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:350
    #1 0x7fa6d7a1b2c3 in __asan_memcpy (/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.asan-x86_64.so+0xb2c3)
    #2 0x7fa6d7c61234 in H5HG_read (/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x167234)
    #3 0x5648004fd039 in bps::io::hdf5::read_strings /work/main/engine/io/hdf5_support.cpp:93:13"

expect "a C library frame shown as libc.so.6 and an offset is skipped" libhdf5 \
"==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000
    #0 0x7ff4dd7a2b56  (/lib/x86_64-linux-gnu/libc.so.6+0x15db56)
    #1 0x7ff4ddb67b56 in H5HG_read (/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x167b56)"

expect "a strlen variant under an interceptor is skipped" libhdf5 \
"==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000011
    #0 0x7f00 in __strlen_evex string/../sysdeps/x86_64/multiarch/strlen-evex.S:77
    #1 0x7f01 in __interceptor_strdup (/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.asan-x86_64.so+0x1)
    #2 0x7f02 in H5Aexists (/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x58cf5)"

expect "an abort raised by HDF5's assertion, symbolized from glibc's sources, is HDF5's" libhdf5 \
"==1==ERROR: AddressSanitizer: ABRT on unknown address 0x000000000001
    #0 0x7f00 in __pthread_kill_implementation nptl/pthread_kill.c:44:76
    #1 0x7f01 in raise signal/../sysdeps/posix/raise.c:26:13
    #2 0x7f02 in abort stdlib/abort.c:79:7
    #3 0x7f03 in __assert_fail_base assert/assert.c:92:3
    #4 0x7f04 in H5HG_read (/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x167b56)"

expect "an interceptor linked into the fuzzer itself is skipped for HDF5's caller" libhdf5 \
"==1==ERROR: AddressSanitizer: SEGV on unknown address 0x61700007e070
    #0 0x7f7a0a18b885 in __memcpy_avx512_unaligned_erms string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:362
    #1 0x558268117607 in __interceptor_memcpy (/build-sanitize/tests/fuzz/fuzz_weights_reader+0x9f607) (BuildId: 1e79)
    #2 0x7f7a0a390f18  (/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x190f18) (BuildId: e923)
    #3 0x7f7a0a3b4ca4 in H5O__msg_iterate_real (/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x1b4ca4)
    #4 0x5582681e76bc in open_attribute /work/main/engine/io/hdf5_support.cpp:45:9"

expect "our frame under a C library memcpy is ours" "bps::io::read_weights_file" \
"==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000011
    #0 0x7fa6d738b870 in __memcpy_avx512_unaligned_erms string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:350
    #1 0x7fa6d7a1b2c3 in __asan_memcpy (/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.asan-x86_64.so+0xb2c3)
    #2 0x5648004fd039 in bps::io::read_weights_file(std::filesystem::path const&) /work/main/engine/io/weights_file.cpp:303:10
    #3 0x7ff4dda58cf5 in H5Aread (/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x58cf5)"

expect "a frame of ours on top is ours" "bps::io::hdf5::read_strings" \
"==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000
    #0 0x56480051b96b in bps::io::hdf5::read_strings[abi:cxx11](long, char const*) /work/main/engine/io/hdf5_support.cpp:93:13
    #1 0x5648004f458e in LLVMFuzzerTestOneInput /work/main/tests/fuzz/fuzz_weights_reader.cpp:11:15"

[ "$failures" -eq 0 ] || { echo "$failures case(s) failed"; exit 1; }
