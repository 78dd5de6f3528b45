#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `pip install bindings/python` from the source tree, with no package index, into a fresh
# virtual environment: the in-tree build backend builds libacp.so with CMake and bundles
# it (here in the test's own build tree, -C build-dir=BUILD_DIR, so that only an
# up-to-date check runs; without it the backend configures a Release build in a scratch
# directory, minutes on two cores), so with no ACP_LIBRARY and no PYTHONPATH `import libacp` works and the Python
# example holds a prompt turn with the demo agent. The wheel carries the licence and
# py.typed. A library that cannot be had fails the install, not the import.
#
#   pip_install_test.sh PYTHON BINDING_DIR BUILD_DIR DEMO_AGENT EXAMPLE_PY
set -eu
absolute() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
python=$1 binding=$(absolute "$2") build=$(absolute "$3") agent=$(absolute "$4") example=$(absolute "$5")
work=$(mktemp -d "${TMPDIR:-/tmp}/acp-pip-XXXXXX")
trap 'rm -rf "$work"' EXIT
if ! "$python" -m venv "$work/venv"; then
    echo "FAIL: $python -m venv failed: install python3-venv (scripts/install-deps.sh)"
    exit 1
fi
pip="$work/venv/bin/python -m pip --disable-pip-version-check --no-cache-dir"
unset ACP_LIBRARY PYTHONPATH

# An unusable library setting fails at install time, saying why.
if $pip install --no-index -q -C libacp=/nonexistent/libacp.so "$binding" >"$work/bad.log" 2>&1; then
    echo "FAIL: pip install with -C libacp=/nonexistent succeeded"
    exit 1
fi
grep -q "libacp=/nonexistent/libacp.so: no such file" "$work/bad.log" || { cat "$work/bad.log"; exit 1; }

$pip install --no-index -q -C build-dir="$build" "$binding"
cd "$work"
"$work/venv/bin/python" -c '
import os, sys, libacp, libacp._native as native
from importlib import metadata
package = os.path.dirname(libacp.__file__)
assert package.startswith(sys.argv[1]), libacp.__file__
assert native.lib._name == os.path.join(package, "libacp.so"), native.lib._name
assert os.path.isfile(os.path.join(package, "py.typed"))
dist = metadata.distribution("libacp")
assert "Apache License" in dist.read_text("LICENSE"), "the wheel carries no licence"
print("libacp", libacp.__version__, "from", native.lib._name)
' "$work/venv"
out=$("$work/venv/bin/python" "$example" "$agent" --delay-ms 0 --state-dir "$work/state")
echo "$out"
echo "$out" | grep -q "turn ended: end_turn"
echo "pip install from the source tree: ok"
