#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The wheel the build makes carries libacp.so: installed with pip (no index) into a fresh
# virtual environment, with no ACP_LIBRARY and no PYTHONPATH, `import libacp` loads the
# library inside the package, and the Python example holds a session with the demo agent.
#
#   wheel_venv_test.sh PYTHON BINDING_DIR LIBACP_SO DEMO_AGENT EXAMPLE_PY
set -eu
absolute() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
python=$1 binding=$2 library=$3 agent=$(absolute "$4") example=$(absolute "$5")
work=$(mktemp -d "${TMPDIR:-/tmp}/acp-wheel-XXXXXX")
trap 'rm -rf "$work"' EXIT
if ! "$python" -m venv "$work/venv"; then
    echo "FAIL: $python -m venv failed: install python3-venv (scripts/install-deps.sh)"
    exit 1
fi
wheel=$("$python" "$binding/_build/backend.py" --library "$library" --out "$work/dist")
echo "built $wheel"
unset ACP_LIBRARY PYTHONPATH
"$work/venv/bin/python" -m pip install --no-index --no-cache-dir --disable-pip-version-check -q "$wheel"
# The installed copy, with its own library, is what gets imported.
cd "$work"
"$work/venv/bin/python" -c '
import os, sys, libacp, libacp._native as native
site = sys.argv[1]
assert libacp.__file__.startswith(site), libacp.__file__
assert native.lib._name == os.path.join(os.path.dirname(libacp.__file__), "libacp.so"), native.lib._name
print("libacp", libacp.__version__, "from", native.lib._name)
' "$work/venv"
out=$("$work/venv/bin/python" "$example" "$agent" --delay-ms 0 --state-dir "$work/state")
echo "$out"
echo "$out" | grep -q "You said: Hello!"
echo "$out" | grep -q "turn ended: end_turn"
echo "wheel in a fresh venv: ok"
