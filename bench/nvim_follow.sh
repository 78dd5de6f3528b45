#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The Neovim plugin following a streamed reply: appended text vs re-rendering the item or
# the whole buffer per chunk (bench/nvim_follow.lua). Never run by CTest.
#   bench/nvim_follow.sh [BUILD_DIR]      (default build/dev; ACP_BENCH_CHUNKS (<= 1000), _ROUNDS, _HISTORY)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/dev}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
ACP_LIBRARY=$build/libacp.so ACP_BENCH_AGENT=$build/samples/acp-demo-agent ACP_BENCH_SCRATCH=$scratch \
    nvim --headless -u NONE -i NONE -n --cmd "set runtimepath^=$root/bindings/lua/nvim" \
    --cmd "runtime! plugin/acp.lua" -c "luafile $root/bench/nvim_follow.lua" </dev/null
