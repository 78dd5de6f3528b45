#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Instructions per update of the model path, libacp's parse and a bare RapidJSON parse on
# the mixed stream of acp_bench_session, counted by callgrind: each phase runs once and
# twice, and the difference is one pass without the stream's construction. Instruction
# counts do not vary with the machine's load, so a change to the receive path can be
# judged on a busy machine (time still decides; this only says where instructions go).
#
#   bench/session_profile.sh [BUILD_DIR] [UPDATES]     (default build/dev, 36100)
set -eu
build=${1:-build/dev}
updates=${2:-36100}
bench="$build/bench/acp_bench_session"
count() {
    out=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file="$out" "$bench" "$updates" "$1" "--only=$2" >/dev/null 2>&1
    callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
    rm -f "$out"
}
for phase in bare parse model; do
    one=$(count 1 "$phase")
    two=$(count 2 "$phase")
    echo "$phase: $(( (two - one) / updates )) instructions per update"
done
