#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds libacp and runs every test: once with warnings as errors, once more under
# AddressSanitizer + UndefinedBehaviorSanitizer. Installs what it needs first.
#
#   scripts/test.sh            both builds
#   ACP_SKIP_SANITIZERS=1 scripts/test.sh   only the first (quicker, for development)
#   ACP_FUZZ_SECONDS=N scripts/test.sh     each libFuzzer target for N s (default 45; 0 skips)
#
# Then the portable POSIX variant of the platform layer (scripts/test-posix-variant.sh) and
# the Windows build under wine (scripts/test-windows.sh), both built beside the Linux stages.
set -euo pipefail
cd "$(dirname "$0")/.."

# No build output, core dump or other large file is tracked: anything over 4 MiB fails
# the run unless it is a declared fixture (none today).
if git rev-parse --git-dir >/dev/null 2>&1; then
    large=$(git ls-files -z | xargs -0 -r stat -c '%s %n' 2>/dev/null | awk '$1 > 4194304 {print}')
    if [ -n "$large" ]; then
        echo "tracked files over 4 MiB (remove them, or declare a fixture here):" >&2
        echo "$large" >&2
        exit 1
    fi
fi

scripts/install-deps.sh
# The peer agent on the official TypeScript SDK, pinned by the committed lockfile.
(cd tests/peers/ts-agent && npm ci --no-audit --no-fund --loglevel=error)
# The tree-sitter Markdown grammar the Neovim test compiles (C sources only, no scripts).
(cd tests/lua/markdown-grammar && npm ci --no-audit --no-fund --loglevel=error)

jobs=$(nproc)

# Builds that need nothing of the Linux stages run beside them, at the lowest CPU and I/O
# priority: they take what the Linux build and tests leave idle (the tests wait on agents
# and peers much of the time), and their tests run at the end: the Windows cross build
# (scripts/test-windows.sh: it installs mingw-w64 and wine first, no other apt-get runs
# meanwhile) and the portable POSIX variant of the platform layer (test-posix-variant.sh).
side_log=build/side-builds.log
mkdir -p build
# Its own session, so a failure can end all of it; with the scheduler's autogroups (on in
# Debian's kernels) a session is scheduled as a whole beside the others, so the session's
# own nice value is set too: nice alone would only rank processes inside it.
setsid bash -c 'echo 19 >/proc/self/autogroup 2>/dev/null || true
    exec nice -n 19 ionice -c 3 bash -c "scripts/test-windows.sh --build && scripts/test-posix-variant.sh --build"' \
    >"$side_log" 2>&1 &
side_pid=$!
# A stage that fails ends the run: the side builds go with it.
trap 'kill -- -"$side_pid" 2>/dev/null || true' EXIT

# A full disk fails a step far from its cause: say how much there is where the builds go.
free_gib=$(df -Pk . | awk 'NR == 2 {printf "%d", $4 / 1048576}')
echo "== disk: ${free_gib} GiB free (the whole run needs about ${ACP_RUN_NEEDS_GIB:=10} GiB)"
if [ "$free_gib" -lt "$ACP_RUN_NEEDS_GIB" ]; then
    echo "warning: less free disk than the run needs: expect a step to fail with ENOSPC" >&2
fi

echo "== build: warnings as errors"
cmake -S . -B build/test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACP_WARNINGS_AS_ERRORS=ON -DACP_WITH_REMOTE=ON >/dev/null
cmake --build build/test -j "$jobs"
ctest --test-dir build/test -j "$jobs" --output-on-failure --timeout 600

# clang-format and clang-tidy on the files this change touched (the last commit on main).
echo "== style"
scripts/check-style.sh build/test

if [ "${ACP_SKIP_SANITIZERS:-0}" != "1" ]; then
    # The whole suite again, the TypeScript-SDK peer tests included; only the published
    # agents from npm (interop, network and minutes) are left to the first build.
    echo "== build: AddressSanitizer + UndefinedBehaviorSanitizer"
    # Line tables only (-g1): what the sanitizers' reports need, a quarter of -g's disk and
    # faster to build (the ABI check, which needs full DWARF, runs in the first build).
    cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DACP_WARNINGS_AS_ERRORS=ON \
        -DCMAKE_C_FLAGS_DEBUG=-g1 -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DACP_SANITIZE=ON -DACP_REAL_AGENT_TESTS=OFF -DACP_WITH_REMOTE=ON >/dev/null
    cmake --build build/sanitize -j "$jobs"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ctest --test-dir build/sanitize -j "$jobs" --output-on-failure --timeout 600
fi

# The libFuzzer targets over the receive path, each for a bounded time (scripts/fuzz.sh).
if [ "${ACP_SKIP_SANITIZERS:-0}" != "1" ] && [ "${ACP_FUZZ_SECONDS:-45}" != "0" ]; then
    echo "== fuzz: libFuzzer + AddressSanitizer + UndefinedBehaviorSanitizer"
    ACP_FUZZ_JOBS="$jobs" scripts/fuzz.sh "${ACP_FUZZ_SECONDS:-45}"
fi

echo "== the side builds (started at the beginning)"
if ! wait "$side_pid"; then
    tail -n 80 "$side_log" >&2
    echo "a side build failed: $side_log" >&2
    exit 1
fi
echo "== the portable POSIX variant: its process and hostile tests"
scripts/test-posix-variant.sh --test
echo "== Windows: the cross-built tests under wine"
scripts/test-windows.sh --test
