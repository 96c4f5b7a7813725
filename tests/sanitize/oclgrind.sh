#!/usr/bin/env bash
# Every op test (tests/engine/ops) on its small cases under Oclgrind, a second OpenCL
# implementation that interprets each work-item and reports out-of-bounds accesses, invalid
# barriers and data races that PoCL and NVIDIA tolerate (and an integrated GPU may crash on).
# Checks: Oclgrind's memory checker (always on), --check-api and --data-races; not
# --uninitialized, which does not understand LLVM's `freeze` instruction (false reports).
# Oclgrind exits 0 whatever it finds, so its log is read: any report fails, naming the test and
# the kernel. tests/sanitize/ci.sh runs it; 171 to 193 s on 2 cores (Oclgrind 21.10, Debian 12).
# Limit: a test's tensors share one buffer (engine/tensor/tensor_arena.cpp), so the memory checker
# sees accesses past that buffer, not from one tensor into the next (an off-by-one write shows as a
# data race; the tests' reference comparisons catch wrong values).
# Oclgrind's own fault: it frees its per-thread API call stack before static destructors run, so an
# OpenCL object released by one corrupts its heap at exit; the op tests' runtime is never destroyed.
#   tests/sanitize/oclgrind.sh [engine_tests binary]   (default: <repo>/build/tests/engine_tests)
# Environment: BACKPROP_OCLGRIND_SECONDS (the most the run may take, 360).
set -euo pipefail

project=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
engine_tests=${1:-$project/build/tests/engine_tests}
seconds=${BACKPROP_OCLGRIND_SECONDS:-360}
command -v oclgrind >/dev/null || { echo "oclgrind is missing (packaging/setup-debian.sh installs it)" >&2; exit 2; }
[ -x "$engine_tests" ] || { echo "$engine_tests is not built" >&2; exit 2; }

# One Catch2 tag per op test file (-# makes the file names tags).
spec=
for file in "$project"/tests/engine/ops/test_*.cpp; do spec+="${spec:+,}[#$(basename "$file" .cpp)]"; done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/backprop-oclgrind-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
log=$scratch/oclgrind.log
started=$SECONDS
echo "== oclgrind: the op tests' small cases (BACKPROP_SMALL_OP_TESTS=1) under oclgrind --check-api --data-races"
# The XML reporter names each test case as it starts, and line-buffered output (stdbuf) keeps
# Oclgrind's reports (stderr) after the test that caused them. The kernel cache goes to scratch:
# Oclgrind's programs are its own.
status=0
(cd "$scratch" && BACKPROP_SMALL_OP_TESTS=1 BACKPROP_CACHE_DIR="$scratch/cache" \
    timeout --kill-after=10 "$seconds" stdbuf -oL oclgrind --check-api --data-races \
    "$engine_tests" -# -r xml "$spec" >"$log" 2>&1) || status=$?

# Every Oclgrind report: a kernel's (an indented "Kernel:" line under its headline) or an API
# call's ("OpenCL runtime error detected", then the function), with the test case it came in.
reports=$(awk '
    /<TestCase name="/ { test = $0; sub(/.*<TestCase name="/, "", test); sub(/".*/, "", test) }
    /^\tKernel:/ { kernel = $0; sub(/^\tKernel: */, "", kernel)
                   printf "   %s: kernel %s: %s\n", test, kernel, headline; next }
    /Oclgrind - OpenCL runtime error detected|OCLGRIND FATAL ERROR|^Oclgrind: / { api = 1; headline = $0; next }
    api && /^\tFunction:/ { sub(/^\tFunction: */, ""); printf "   %s: %s in %s\n", test, headline, $0; api = 0; next }
    /^[^\t <]/ { headline = $0 }
' "$log" | sort | uniq -c)
echo "== oclgrind: $((SECONDS - started)) s"
if [ -n "$reports" ]; then
    echo "!! oclgrind reported (count, test, kernel, report; the full log follows):" >&2
    echo "$reports" >&2
    grep -v '^<\|^ *<' "$log" | head -n 200 >&2
    exit 1
fi
if [ "$status" -ne 0 ]; then
    [ "$status" -ge 124 ] && echo "!! oclgrind: the run took more than $seconds s" >&2
    grep -B2 -A12 'success="false"\|<Failure\|<FatalErrorCondition' "$log" | tail -n 80 >&2 || tail -n 40 "$log" >&2
    echo "!! oclgrind: the op tests failed under Oclgrind (exit status $status)" >&2
    exit 1
fi
grep -o '<OverallResults successes="[0-9]*" failures="0"[^/]*/>' "$log" | tail -n 1 |
    sed 's/<OverallResults successes="\([0-9]*\)".*/   \1 assertions passed, no Oclgrind report/'
