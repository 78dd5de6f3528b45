#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The Neovim plugin's build step (a plugin manager's `build`/`run`, from the repository's
# root): libacp.so, acp_cdef.h and the demo agent in build/nvim, where the plugin looks
# first. Needs only libacp's own dependencies (libuv, RapidJSON; libcurl, libwebsockets and
# libarchive for remote agents when installed): acp-chat, its libedit and md4c, the tests
# and the examples are not built (without libedit or md4c acp-chat is left out at configure).
#   scripts/nvim-build.sh [BUILD_DIR] [-DCMAKE_OPTION=...]...     (default build/nvim)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/nvim
case ${1:-} in -*|'') ;; *) build=$1; shift ;; esac
for tool in cmake pkg-config c++; do
    command -v "$tool" >/dev/null 2>&1 || { echo "nvim-build: $tool not found (Debian: cmake pkg-config g++)" >&2; exit 1; }
done
generator=
command -v ninja >/dev/null 2>&1 && generator="-G Ninja"
[ -f "$build/CMakeCache.txt" ] && generator=  # the build dir keeps its generator
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" $generator -DCMAKE_BUILD_TYPE=Release -DACP_BUILD_TESTS=OFF \
    -DACP_BUILD_EXAMPLES=OFF -DACP_BUILD_BENCHMARKS=OFF "$@"
jobs=$(nproc 2>/dev/null || echo 2)
cmake --build "$build" -j "$jobs" --target acp_shared acp_cdef acp-demo-agent
echo "nvim-build: $build/libacp.so, $build/generated/acp/acp_cdef.h, $build/samples/acp-demo-agent"
