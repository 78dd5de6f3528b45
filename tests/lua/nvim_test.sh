#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The Neovim plugin in Debian's Neovim, headless: fourteen Neovims one after the other,
# seven on the demo agent, five on TypeScript-SDK peers (two v1), one on a peer over
# WebSocket and one on a scripted agent with background work (tests/lua/nvim_test.lua says
# what each checks); no agent they started may still run.
# Usage: nvim_test.sh NVIM PLUGIN_DIR LIBACP_SO DEMO_AGENT SCRATCH_DIR NODE TS_AGENT_MJS
# (ACP_TEST_PHASES="review fs" runs only those phases, while working on them.)
set -u
nvim=$1 plugin=$2 library=$3 agent=$4 scratch=$5 node=$6 ts_agent=$7
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v "$nvim" >/dev/null 2>&1; then
    echo "FAILED: nvim not found ($nvim): run scripts/install-deps.sh" >&2
    exit 1
fi
rm -rf "$scratch" && mkdir -p "$scratch/state"
status=0
# Debian's Neovim 0.7 ships no markdown parser: the phase "treesitter" gets one compiled
# from the grammar pinned in markdown-grammar/package.json (`npm ci` there installs it),
# with the grammar's highlights query, on a runtimepath of its own. Its ABI (14) is one
# 0.7's tree-sitter (0.20) loads.
grammar=$here/markdown-grammar/node_modules/@tree-sitter-grammars/tree-sitter-markdown
ts_rtp=$scratch/ts-rtp
mkdir -p "$ts_rtp/parser" "$ts_rtp/queries/markdown"
if [ ! -f "$grammar/tree-sitter-markdown/src/parser.c" ]; then
    echo "FAIL  no markdown grammar in $grammar: run npm ci in tests/lua/markdown-grammar"; status=1
elif ! "${CC:-cc}" -O1 -w -shared -fPIC -I "$grammar/tree-sitter-markdown/src" "$grammar/tree-sitter-markdown/src/parser.c" \
        "$grammar/tree-sitter-markdown/src/scanner.c" -o "$ts_rtp/parser/markdown.so"; then
    echo "FAIL  the markdown grammar did not compile"; status=1
fi
cp "$grammar/tree-sitter-markdown/queries/highlights.scm" "$ts_rtp/queries/markdown/" 2>/dev/null
for phase in ${ACP_TEST_PHASES:-first second hostile peer remote background features treesitter context review fs v1review tools unstable}; do
    ACP_TEST_PHASE=$phase ACP_TEST_OUT=$scratch ACP_TEST_AGENT=$agent ACP_LIBRARY=$library \
        ACP_TEST_NODE=$node ACP_TEST_TS_AGENT=$ts_agent ACP_TEST_TS_RTP=$ts_rtp \
        timeout 120 "$nvim" --headless -u NONE -i NONE -n \
        --cmd "set runtimepath^=$plugin" --cmd "runtime! plugin/acp.lua" \
        -c "luafile $here/nvim_test.lua" </dev/null
    rc=$?
    echo "== nvim ($phase) exited $rc"
    cat "$scratch/$phase.result" 2>/dev/null || echo "FAIL  no results from the $phase Neovim"
    [ $rc -eq 0 ] || status=1
    grep -q '^FAIL' "$scratch/$phase.result" 2>/dev/null && status=1
    done_line=$(grep '^DONE' "$scratch/$phase.result" 2>/dev/null)
    [ -n "$done_line" ] || { echo "FAIL  the $phase Neovim did not reach VimLeave"; status=1; }
    for pid in ${done_line#DONE}; do
        if [ -e "/proc/$pid" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$pid/stat" 2>/dev/null; then
            echo "FAIL  process $pid (agent or its guard) still runs after :qa"; status=1
        else
            echo "ok    process $pid (agent or its guard) is gone after :qa"
        fi
    done
done
exit $status
