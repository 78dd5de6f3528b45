#!/bin/sh
# Installs the published ACP agents the interop tests talk to into a scratch directory
# (never into the repository), then runs the tests against them. An agent that cannot be
# installed (no internet, say) is reported as SKIPPED and its tests do not run; when none
# can be installed the script exits 77 (CTest: skipped).
#
#   run_real_agents.sh SCRATCH_DIR TEST_BINARY NODE
set -u
dir=$1
binary=$2
node=$3
here=$(dirname "$0")

# install NAME PACKAGE VERSION: into $dir/NAME (one folder per agent, so one install
# never prunes another); 0 when that version is there afterwards.
install() {
    mkdir -p "$dir/$1"
    if grep -qs "\"version\": \"$3\"" "$dir/$1/node_modules/$2/package.json"; then
        return 0
    fi
    # A package.json of its own, so npm does not look for one further up.
    echo '{"private": true}' > "$dir/$1/package.json"
    # Optional dependencies are native extras (node-pty, Claude's 190 MB binary) the
    # offline tests do not need.
    (cd "$dir/$1" && npm install --no-save --omit=optional --no-audit --no-fund "$2@$3" > npm-install.log 2>&1)
}

installed=0
if install gemini @google/gemini-cli 0.61.0; then
    ACP_GEMINI_JS="$dir/gemini/node_modules/@google/gemini-cli/bundle/gemini.js"
    export ACP_GEMINI_JS
    installed=1
else
    echo "SKIPPED: could not install @google/gemini-cli@0.61.0 from npm (offline?); see $dir/gemini/npm-install.log"
fi
if install claude @agentclientprotocol/claude-agent-acp 0.101.0; then
    ACP_CLAUDE_ACP_JS="$dir/claude/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js"
    export ACP_CLAUDE_ACP_JS
    installed=1
else
    echo "SKIPPED: could not install @agentclientprotocol/claude-agent-acp@0.101.0 from npm (offline?); see $dir/claude/npm-install.log"
fi
[ "$installed" = 1 ] || exit 77

# The fake model endpoint for prompt turns (fake_gemini.mjs prints its port).
rm -f "$dir/fake-gemini.port"
"$node" "$here/fake_gemini.mjs" > "$dir/fake-gemini.port" 2> "$dir/fake-gemini.log" &
fake=$!
tries=0
while [ ! -s "$dir/fake-gemini.port" ] && [ "$tries" -lt 100 ]; do
    sleep 0.1
    tries=$((tries + 1))
done
ACP_FAKE_GEMINI_URL="http://127.0.0.1:$(cat "$dir/fake-gemini.port")"
export ACP_FAKE_GEMINI_URL
# A scratch HOME outside any repository (Gemini CLI looks for one around its cwd).
home=$(mktemp -d "${TMPDIR:-/tmp}/acp-interop-home-XXXXXX")
ACP_INTEROP_HOME="$home" "$binary"
status=$?
kill "$fake"
rm -rf "$home"
exit "$status"
