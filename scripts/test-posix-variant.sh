#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds libacp with the portable POSIX platform layer (lib/platform/posix/: what macOS and
# the BSDs use) on this Linux machine, and runs the tests that apply to it: the process and
# descriptor transports, the hostile "no agent outlives its host" and backpressure tests,
# and the stdio tool bridge (its SDK test needs node). Only those targets are built, at -O0 without debug info (the quickest to compile;
# -O1 makes GCC's -Wnull-dereference fire inside RapidJSON), so it takes a few minutes.
# Tests of guarantees only the Linux guard gives are not registered for this variant
# (ACP_PLATFORM_LINUX in the tests).
#
#   scripts/test-posix-variant.sh [--build|--test] [BUILD_DIR]    default build/posix
#   --build: only configure and build; --test: only run the tests of a build made before
set -euo pipefail
cd "$(dirname "$0")/.."
mode=all
case ${1:-} in --build | --test) mode=$1; shift ;; esac
build=${1:-build/posix}

if [ "$mode" != --test ]; then
    launcher=()
    if command -v ccache >/dev/null; then
        launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
    fi
    mkdir -p "$(dirname "$build")"
    cmake -S . -B "$build" -G Ninja -DACP_PLATFORM=posix -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DCMAKE_C_FLAGS_DEBUG=-O0 -DACP_WARNINGS_AS_ERRORS=ON \
        -DACP_WITH_REMOTE=OFF -DACP_WITH_HTTP_TOOLS=OFF -DACP_BUILD_SAMPLES=OFF -DACP_BUILD_BENCHMARKS=OFF \
        -DACP_BUILD_EXAMPLES=OFF "${launcher[@]}" >"$build.configure.log" 2>&1 ||
        { cat "$build.configure.log" >&2; exit 1; }
    cmake --build "$build" -j "$(nproc)" --target acp_process_tests acp_hostile_tests acp_bridge_tests
fi
if [ "$mode" != --build ]; then
    # --no-tests=error: a filter that matches nothing fails instead of passing empty.
    ctest --test-dir "$build" -j "$(nproc)" --no-tests=error --output-on-failure -R '^(process: |fd transport: |hostile:|bridge carrier:)'
fi
