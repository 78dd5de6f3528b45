#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Formats C and C++ files in place with clang-format (.clang-format): the files given, or
# every file clang-format owns (scripts/style-files.sh: generated code is left to its
# generator). Prints how many lines changed.
#
#   scripts/apply-format.sh            every file
#   scripts/apply-format.sh FILE...    those files
set -euo pipefail
cd "$(dirname "$0")/.."

clang_format=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$clang_format" ]; then
    echo "apply-format: clang-format not found (Debian: clang-format; scripts/install-deps.sh installs it)" >&2
    exit 1
fi
if [ $# -gt 0 ]; then
    files=("$@")
else
    mapfile -t files < <(scripts/style-files.sh)
fi
changed=0
for file in "${files[@]}"; do
    formatted=$("$clang_format" --style=file "$file"; echo x)
    formatted=${formatted%x}
    lines=$(printf '%s' "$formatted" | diff -U0 "$file" - | tail -n +3 | grep -c '^[-+]' || true)
    if [ "$lines" -gt 0 ]; then
        printf '%s' "$formatted" >"$file"
        changed=$((changed + lines))
    fi
done
echo "apply-format: ${#files[@]} files, $changed lines changed (added plus removed)"
