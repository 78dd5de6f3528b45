#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for a bounded time on
# its seed corpus and dictionary (tests/fuzz/). A crash fails the script and leaves the
# input in build/fuzz/artifacts/.
#
#   scripts/fuzz.sh            60 s per target
#   scripts/fuzz.sh 3600       an hour per target (the longer run)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (scripts/install-deps.sh installs it)" >&2; exit 1; }

CC=clang CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DACP_FUZZ=ON -DACP_SANITIZE=ON -DACP_WARNINGS_AS_ERRORS=ON \
    -DACP_BUILD_TESTS=OFF -DACP_BUILD_SAMPLES=OFF -DACP_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build/fuzz -j "${ACP_FUZZ_JOBS:-2}" --target fuzz

mkdir -p build/fuzz/artifacts
for target in receive; do
    # The committed seeds stay as they are; what the fuzzer finds goes to a scratch copy.
    work=build/fuzz/corpus/$target
    mkdir -p "$work"
    echo "== fuzz: $target for ${seconds}s"
    log=build/fuzz/$target.log
    if ! ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "build/fuzz/tests/fuzz/acp_fuzz_$target" "$work" "tests/fuzz/corpus/$target" \
        -dict="tests/fuzz/$target.dict" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/ >"$log" 2>&1; then
        tail -n 60 "$log"
        echo "fuzz.sh: $target failed; the input is in build/fuzz/artifacts/, the log in $log" >&2
        exit 1
    fi
    grep -E "^(#[0-9]+ +(INITED|DONE)|stat::)" "$log"
done
