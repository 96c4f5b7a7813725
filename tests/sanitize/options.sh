# shellcheck shell=bash
# Sourced by tests/sanitize/ci.sh and tests/fuzz/run-long.sh: how sanitized processes report.
# Reports name source lines (llvm-symbolizer), and any report ends the process with an error.
sanitize_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer || true)
if [ -z "$ASAN_SYMBOLIZER_PATH" ] && [ -x /usr/lib/llvm-14/bin/llvm-symbolizer ]; then
    ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
fi
export ASAN_SYMBOLIZER_PATH
# use_sigaltstack=0: with ASan's own signal stack, a thread that PoCL started fails to unmap it
# at exit ("AddressSanitizer: CHECK failed ... unable to unmap") and the whole process dies.
export ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:use_sigaltstack=0
export LSAN_OPTIONS=suppressions=$sanitize_dir/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
