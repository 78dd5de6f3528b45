#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The binding installs with pip from the repository, with no package index (its build
# backend is in-tree, standard library only), and the installed package works: the
# newcomer's example runs from it against the TypeScript-SDK peer.
#
#   pip_install_test.sh PYTHON BINDING_DIR LIBACP_SO NODE AGENT_MJS
set -eu
python=$1
binding=$2
library=$3
node=$4
agent=$5
if ! "$python" -m pip --version >/dev/null 2>&1; then
    echo "SKIPPED: $python has no pip"
    exit 77
fi
target=$(mktemp -d "${TMPDIR:-/tmp}/acp-pip-XXXXXX")
trap 'rm -rf "$target"' EXIT
# A copy, so pip's build leaves nothing in the source tree.
cp -r "$binding" "$target/src"
"$python" -m pip install --no-index --no-cache-dir --disable-pip-version-check --root-user-action=ignore -q --target "$target/site" "$target/src"
test -f "$target/site/libacp/client.py"
ls -d "$target"/site/libacp-*.dist-info >/dev/null
# The installed package, not the source tree, is imported.
ACP_LIBRARY=$library PYTHONPATH=$target/site "$python" -c \
    "import libacp, sys; assert libacp.__file__.startswith(sys.argv[1]), libacp.__file__; print('libacp', libacp.__version__)" \
    "$target/site"
out=$(printf 'hello\n' | ACP_LIBRARY=$library PYTHONPATH=$target/site "$python" "$binding/examples/chat.py" "$node" "$agent")
echo "$out"
echo "$out" | grep -q "Hello, world!"
echo "$out" | grep -q "end_turn"
echo "pip install test: ok"
