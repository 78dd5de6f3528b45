#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes abi/libacp.abixml, the stored C ABI that the test abi.compatible_with_baseline
# compares libacp.so against (docs/abi.md says when to run this: at a release, or when a
# major version deliberately breaks the ABI; never to make the test pass).
#
#   scripts/update-abi-baseline.sh [build dir]    default build/test, a RelWithDebInfo build
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/test}
command -v abidw >/dev/null 2>&1 || { echo "abidw not found: install abigail-tools (scripts/install-deps.sh)" >&2; exit 1; }
cmake --build "$build" --target acp_shared
library=$(find "$build" -maxdepth 1 -name 'libacp.so.*.*.*' | head -n 1)
[ -n "$library" ] || { echo "no libacp.so.X.Y.Z in $build" >&2; exit 1; }
# Only what acp.h declares: the C++ internals' DWARF behind it stays out (their types
# are private, and the file stays small). No locations or build paths, so the file
# changes only when the ABI does.
abidw --headers-dir include/acp --drop-private-types --exported-interfaces-only \
    --short-locs --no-comp-dir-path --no-corpus-path --type-id-style hash \
    --out-file abi/libacp.abixml "$library"
echo "wrote abi/libacp.abixml ($(wc -c < abi/libacp.abixml) bytes) from $library"
