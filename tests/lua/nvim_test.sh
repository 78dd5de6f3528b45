#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The Neovim plugin in Debian's Neovim, headless: twelve Neovims one after the other, six
# on the demo agent, four on TypeScript-SDK peers (one v1), one on a peer over WebSocket
# and one on a scripted agent with background work (tests/lua/nvim_test.lua says what
# each checks); no agent they started may still run.
# Usage: nvim_test.sh NVIM PLUGIN_DIR LIBACP_SO DEMO_AGENT SCRATCH_DIR NODE TS_AGENT_MJS
set -u
nvim=$1 plugin=$2 library=$3 agent=$4 scratch=$5 node=$6 ts_agent=$7
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v "$nvim" >/dev/null 2>&1; then
    echo "FAILED: nvim not found ($nvim): run scripts/install-deps.sh" >&2
    exit 1
fi
rm -rf "$scratch" && mkdir -p "$scratch/state"
status=0
for phase in first second hostile peer remote background features context review fs tools unstable; do
    ACP_TEST_PHASE=$phase ACP_TEST_OUT=$scratch ACP_TEST_AGENT=$agent ACP_LIBRARY=$library \
        ACP_TEST_NODE=$node ACP_TEST_TS_AGENT=$ts_agent \
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
