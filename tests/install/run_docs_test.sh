#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The API reference builds with Doxygen without a warning (docs/api/Doxyfile.in): the
# reference over the public headers, and the C API check where every declaration of
# acp.h must be documented. Any warning fails (Doxygen's WARN_AS_ERROR) and is printed.
# Doxygen is silent about what it drops: a header it does not see as a documented file
# loses every global from the reference, unwarned. So each reference must also have
# acp.h's page with every ACP_API function of acp.h on it.
#
#   run_docs_test.sh DOXYGEN SOURCE_DIR DOXYFILE...
set -u
doxygen=$1 source=$2
shift 2
if ! command -v "$doxygen" >/dev/null 2>&1; then
    echo "FAIL: doxygen not found ($doxygen): run scripts/install-deps.sh"
    exit 1
fi
status=0
for doxyfile in "$@"; do
    output=$(sed -n 's/^OUTPUT_DIRECTORY *= *//p' "$doxyfile")
    rm -rf "$output" && mkdir -p "$output"
    (cd "$source" && "$doxygen" "$doxyfile") >"$output/doxygen.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ] || [ -s "$output/warnings.txt" ] || [ ! -f "$output/html/index.html" ]; then
        echo "FAIL: $doxyfile (doxygen exited $rc):"
        cat "$output/warnings.txt" "$output/doxygen.log" 2>/dev/null | head -50
        status=1
        continue
    fi
    page="$output/html/acp_8h.html"
    missing=""
    for name in $(sed -n 's/^ACP_API [^(]*[ *]\(acp_[a-z0-9_]*\)(.*/\1/p' "$source/include/acp/acp.h"); do
        grep -q ">$name<" "$page" 2>/dev/null || missing="$missing $name"
    done
    if [ ! -f "$page" ] || [ -n "$missing" ]; then
        echo "FAIL: $doxyfile: not in the reference ($page):${missing:- the page itself}"
        status=1
    else
        echo "ok: $doxyfile -> $output/html/index.html"
    fi
done
exit $status
