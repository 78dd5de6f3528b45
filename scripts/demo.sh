#!/usr/bin/env bash
# Builds the sample program and starts it against the bundled agent.
# Extra arguments are passed to the sample (e.g. an agent command line).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build/demo -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACP_BUILD_TESTS=OFF >/dev/null
cmake --build build/demo -j "$(nproc)" --target acp-rpc-demo
exec build/demo/samples/acp-rpc-demo "$@"
