#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs one example against the demo agent in a scratch directory (the session's cwd; the
# agent's state goes there too) and checks that it exited 0 and printed what the turn says.
#
#   check_example.sh WORK_ROOT EXPECTED_REGEX NAME PROGRAM... --state-dir
# The last argument, --state-dir, gets the scratch directory's state path appended.
set -u
root=$1 expected=$2 name=$3
shift 3
work="$root/run-$name"
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
"$@" "$work/state" >"$work/output.txt" 2>&1
rc=$?
cat "$work/output.txt"
if [ "$rc" -ne 0 ]; then
    echo "FAIL: the example exited with $rc"
    exit 1
fi
# The output as one line, so the expected parts may span lines.
if ! tr '\n' ' ' <"$work/output.txt" | grep -Eq "$expected"; then
    echo "FAIL: the output does not match: $expected"
    exit 1
fi
echo "ok: $name"
