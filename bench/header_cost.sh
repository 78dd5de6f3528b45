#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What including acp/client.hpp costs a plugin's translation unit, against a translation
# unit that includes only the standard and libuv headers client.hpp itself needs (every
# `#include <...>` of the acp headers it pulls in, found with the preprocessor, so the
# baseline follows the header as it changes).
#
#   bench/header_cost.sh [ROUNDS]        (default 5; CXX and CXXFLAGS from the environment)
#
# Both TUs are compiled to an object with the same flags, in interleaved rounds so that a
# busy machine slows both alike. Reported: the median CPU time (user + sys of the
# compiler) of each and their ratio, the figure to read on a shared machine, where wall
# time mostly measures the wait for a core; the median wall times follow.
set -euo pipefail

rounds=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
cxx=${CXX:-c++}
read -r -a flags <<<"${CXXFLAGS:--std=c++17 -O2 -g -DNDEBUG -fPIC -Wall -Wextra}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# version.hpp is configured by CMake; a stand-in is enough for the closure and the compile.
mkdir -p "$work/generated/acp"
sed 's/@[A-Za-z_]*@/0/g' "$root/include/acp/version.hpp.in" >"$work/generated/acp/version.hpp"
includes=(-I"$root/include" -I"$work/generated")

printf '#include "acp/client.hpp"\nint header_cost_anchor;\n' >"$work/client_tu.cpp"

# The acp headers client.hpp pulls in (-MM lists project headers, not system ones).
acp_headers=$("$cxx" "${flags[@]}" "${includes[@]}" -MM "$work/client_tu.cpp" |
    tr ' \\' '\n\n' | grep -E '/acp/.*\.(hpp|h)$' | sort -u)
# shellcheck disable=SC2086
system_headers=$(grep -h -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' $acp_headers |
    sed -E 's/.*<([^>]+)>.*/\1/' | sort -u)
{
    for h in $system_headers; do printf '#include <%s>\n' "$h"; done
    printf 'int header_cost_anchor;\n'
} >"$work/baseline_tu.cpp"

echo "compiler: $("$cxx" --version | head -1)"
echo "flags:    ${flags[*]}"
echo "acp headers in client.hpp's closure: $(echo "$acp_headers" | wc -l) ($(cat $acp_headers | wc -l) lines)"
echo "baseline includes: $(echo $system_headers)"

# Prints "cpu wall" seconds of one compile.
compile_seconds() {
    local TIMEFORMAT='%U %S %R' t
    t=$({ time "$cxx" "${flags[@]}" "${includes[@]}" -c "$1" -o "$work/out.o" 2>&3; } 3>&2 2>&1)
    echo "$t" | awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$work/client.times"
: >"$work/baseline.times"
for ((i = 1; i <= rounds; i++)); do
    b=$(compile_seconds "$work/baseline_tu.cpp")
    c=$(compile_seconds "$work/client_tu.cpp")
    echo "$b" >>"$work/baseline.times"
    echo "$c" >>"$work/client.times"
    printf 'round %d: baseline cpu %.2f s wall %.2f s; client.hpp cpu %.2f s wall %.2f s\n' "$i" $b $c
done

bc_cpu=$(cut -d' ' -f1 "$work/baseline.times" | median)
cl_cpu=$(cut -d' ' -f1 "$work/client.times" | median)
bc_wall=$(cut -d' ' -f2 "$work/baseline.times" | median)
cl_wall=$(cut -d' ' -f2 "$work/client.times" | median)
printf 'median of %d, cpu:  baseline TU %.2f s, client.hpp TU %.2f s, ratio %.2f\n' "$rounds" "$bc_cpu" "$cl_cpu" \
    "$(echo "$cl_cpu / $bc_cpu" | bc -l)"
printf 'median of %d, wall: baseline TU %.2f s, client.hpp TU %.2f s, ratio %.2f\n' "$rounds" "$bc_wall" "$cl_wall" \
    "$(echo "$cl_wall / $bc_wall" | bc -l)"
