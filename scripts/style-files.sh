#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Lists the C and C++ files clang-format owns (one path a line, from the repository root):
# every tracked .c/.h/.cpp/.hpp, less the code scripts/generate_protocol.py writes (its
# "do not edit" header; `generate_protocol.py --check` keeps those identical to what it
# prints).
#
#   scripts/style-files.sh            all of them
#   scripts/style-files.sh BASE       those changed since the commit BASE (and not deleted)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -gt 0 ]; then
    git diff --name-only --diff-filter=d "$1" -- '*.c' '*.h' '*.cpp' '*.hpp'
else
    git ls-files -- '*.c' '*.h' '*.cpp' '*.hpp'
fi | while IFS= read -r file; do
    [ -f "$file" ] || continue
    head -n 3 "$file" | grep -q 'do not edit' && continue
    echo "$file"
done
