#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds acp-chat and the demo agent and starts the chat against the demo agent.
# Extra arguments are passed to acp-chat (e.g. `-- AGENT COMMAND...` for another agent).
set -euo pipefail
caller=$PWD  # new sessions work in the directory the demo was started from
cd "$(dirname "$0")/.."

scripts/install-deps.sh --build
cmake -S . -B build/demo -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACP_BUILD_TESTS=OFF >/dev/null
cmake --build build/demo -j "$(nproc)" --target acp-chat acp-demo-agent
exec build/demo/samples/acp-chat --cwd "$caller" "$@"
