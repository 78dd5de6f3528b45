#!/bin/sh
# Installs the published ACP agents the interop tests talk to into a scratch directory
# (never into the repository), then runs the tests against them. Exits 77 (CTest: skipped)
# with a clear message when an agent cannot be installed, e.g. without internet.
#
#   run_real_agents.sh SCRATCH_DIR TEST_BINARY
set -u
dir=$1
binary=$2
gemini_version=0.61.0
mkdir -p "$dir"
gemini="$dir/node_modules/@google/gemini-cli/bundle/gemini.js"
if [ ! -f "$gemini" ] || ! grep -q "\"version\": \"$gemini_version\"" "$dir/node_modules/@google/gemini-cli/package.json"; then
    # A package.json of its own, so npm does not look for one further up.
    echo '{"private": true}' > "$dir/package.json"
    if ! (cd "$dir" && npm install --no-save --omit=optional --no-audit --no-fund \
            "@google/gemini-cli@$gemini_version" > npm-install.log 2>&1); then
        echo "SKIPPED: could not install @google/gemini-cli@$gemini_version from npm (offline?); see $dir/npm-install.log"
        exit 77
    fi
fi
ACP_GEMINI_JS="$gemini" ACP_INTEROP_HOME="$dir/home" exec "$binary"
