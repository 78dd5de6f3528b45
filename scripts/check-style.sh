#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the C and C++ files a change touched (scripts/style-files.sh BASE): clang-format
# (.clang-format) must leave each as it is, and clang-tidy (.clang-tidy) must find nothing
# in the .cpp files among them. scripts/test.sh runs it after its first build.
#
#   scripts/check-style.sh [BUILD_DIR [BASE]]
#     BUILD_DIR  where compile_commands.json is (default build/test)
#     BASE       the commit to compare with (also ACP_STYLE_BASE). Default: on a branch,
#                where it left main (git merge-base HEAD main); on main itself (CI's clean
#                clone), the commit before: the files of the last commit. Uncommitted
#                changes count too.
#   scripts/check-style.sh --all [BUILD_DIR]   clang-format over every file, no clang-tidy
# Fix what clang-format reports with scripts/apply-format.sh (it formats every file, or
# FILE... given).
set -euo pipefail
cd "$(dirname "$0")/.."

all=0
if [ "${1:-}" = "--all" ]; then
    all=1
    shift
fi
build=${1:-build/test}
base=${2:-${ACP_STYLE_BASE:-}}

tool() {
    command -v "$1-14" || command -v "$1" || {
        echo "check-style: $1 not found (Debian: $1; scripts/install-deps.sh installs it)" >&2
        exit 1
    }
}
clang_format=$(tool clang-format)
clang_tidy=$(tool clang-tidy)

if [ "$all" = 1 ]; then
    mapfile -t files < <(scripts/style-files.sh)
else
    if [ -z "$base" ]; then
        base=$(git merge-base HEAD main 2>/dev/null || true)
        if [ -z "$base" ] || [ "$base" = "$(git rev-parse HEAD)" ]; then
            base=$(git rev-parse -q --verify HEAD~1 || true)
        fi
    fi
    if [ -z "$base" ]; then
        echo "check-style: no commit to compare with (a clone of one commit): checking every file's format" >&2
        all=1
        mapfile -t files < <(scripts/style-files.sh)
    else
        mapfile -t files < <(scripts/style-files.sh "$base")
        echo "check-style: ${#files[@]} C/C++ files changed since $(git rev-parse --short "$base")"
    fi
fi

failed=0
for file in "${files[@]}"; do
    if ! "$clang_format" --style=file --dry-run --Werror "$file" 2>/dev/null; then
        echo "not formatted: $file (scripts/apply-format.sh $file; the diff follows)"
        "$clang_format" --style=file "$file" | diff -u "$file" - | head -n 40 || true
        failed=1
    fi
done

if [ "$all" = 0 ]; then
    database="$build/compile_commands.json"
    if [ ! -f "$database" ]; then
        echo "check-style: $database is missing: configure the build first (README, Build)" >&2
        exit 1
    fi
    tidy=()
    for file in "${files[@]}"; do
        case "$file" in *.cpp) ;; *) continue ;; esac
        # A change that is only clang-format's (the one reformat commit) has nothing new
        # for clang-tidy.
        if git cat-file -e "$base:$file" 2>/dev/null &&
            git show "$base:$file" | "$clang_format" --style=file --assume-filename="$file" | cmp -s - "$file"; then
            continue
        fi
        if grep -qF "\"file\": \"$PWD/$file\"" "$database"; then
            tidy+=("$file")
        else
            echo "check-style: $file is not built in $build (a fuzz target?): not checked by clang-tidy" >&2
        fi
    done
    if [ ${#tidy[@]} -gt 0 ]; then
        echo "check-style: clang-tidy on ${#tidy[@]} files"
        # The build's flags are GCC's: clang does not know them all. Its count of the
        # warnings it suppressed (system headers) is noise.
        printf '%s\0' "${tidy[@]}" | xargs -0 -n 1 -P "$(nproc)" "$clang_tidy" -p "$build" --quiet \
            --extra-arg=-Wno-unknown-warning-option 2> >(grep -v 'warnings\? generated\.$' >&2) || failed=1
    fi
fi

if [ "$failed" != 0 ]; then
    echo "check-style: FAILED" >&2
    exit 1
fi
echo "check-style: ok (${#files[@]} files)"
