#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs one published ACP agent the interop tests talk to into a scratch directory
# (never into the repository), then runs that agent's tests against it. An agent that
# cannot be installed (no registry, say) is reported as SKIPPED and the script exits 77
# (CTest: skipped, with this output).
#
#   run_real_agents.sh SCRATCH_DIR TEST_BINARY NODE gemini|claude|codex
set -u
dir=$1
binary=$2
node=$3
agent=$4
here=$(dirname "$0")

# install NAME PACKAGE VERSION: into $dir/NAME (one folder per agent, so one install
# never prunes another); 0 when that version is there afterwards.
optional=--omit=optional
install() {
    mkdir -p "$dir/$1"
    if grep -qs "\"version\": \"$3\"" "$dir/$1/node_modules/$2/package.json"; then
        return 0
    fi
    # A package.json of its own, so npm does not look for one further up.
    echo '{"private": true}' > "$dir/$1/package.json"
    # Optional dependencies are native extras (node-pty, the Claude CLI's 338 MB binary)
    # the offline tests do not need, except codex-acp's, which is the agent itself. A
    # registry that swallows connections must end in a skip, not in the test's time-out:
    # few retries, and a bound on the whole install.
    (cd "$dir/$1" && timeout 300 npm install --no-save "$optional" --no-audit --no-fund \
        --fetch-retries=1 --fetch-timeout=60000 "$2@$3" > npm-install.log 2>&1)
}

skip() {
    echo "SKIPPED: could not install $1 from npm (offline?); see $2:"
    tail -5 "$2" 2>/dev/null
    exit 77
}

case "$agent" in
gemini)
    install gemini @google/gemini-cli 0.61.0 || skip @google/gemini-cli@0.61.0 "$dir/gemini/npm-install.log"
    ACP_GEMINI_JS="$dir/gemini/node_modules/@google/gemini-cli/bundle/gemini.js"
    export ACP_GEMINI_JS
    ;;
claude)
    install claude @agentclientprotocol/claude-agent-acp 0.101.0 ||
        skip @agentclientprotocol/claude-agent-acp@0.101.0 "$dir/claude/npm-install.log"
    ACP_CLAUDE_ACP_JS="$dir/claude/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js"
    export ACP_CLAUDE_ACP_JS
    ;;
codex)
    # The package is a launcher; the agent is its platform's optional dependency (223 MB).
    optional=--include=optional
    install codex @zed-industries/codex-acp 0.16.0 || skip @zed-industries/codex-acp@0.16.0 "$dir/codex/npm-install.log"
    ACP_CODEX_ACP_JS="$dir/codex/node_modules/@zed-industries/codex-acp/bin/codex-acp.js"
    export ACP_CODEX_ACP_JS
    ;;
*)
    echo "unknown agent $agent" >&2
    exit 2
    ;;
esac

# The fake model endpoint for prompt turns (it prints its port): the Gemini API, or for
# codex the OpenAI Responses API.
fake_model=fake_gemini.mjs
url_variable=ACP_FAKE_GEMINI_URL
if [ "$agent" = codex ]; then
    fake_model=fake_openai.mjs
    url_variable=ACP_FAKE_OPENAI_URL
fi
port_file="$dir/fake-model-$agent.port"
rm -f "$port_file"
"$node" "$here/$fake_model" > "$port_file" 2> "$dir/fake-model-$agent.log" &
fake=$!
tries=0
while [ ! -s "$port_file" ] && [ "$tries" -lt 100 ]; do
    sleep 0.1
    tries=$((tries + 1))
done
if [ ! -s "$port_file" ]; then
    echo "the fake model endpoint did not start; see $dir/fake-model-$agent.log" >&2
    kill "$fake" 2>/dev/null
    exit 1
fi
export "$url_variable=http://127.0.0.1:$(cat "$port_file")"
# A scratch HOME outside any repository (Gemini CLI looks for one around its cwd).
home=$(mktemp -d "${TMPDIR:-/tmp}/acp-interop-home-XXXXXX")
ACP_INTEROP_HOME="$home" "$binary" "--test-case=interop: $agent*"
status=$?
kill "$fake"
rm -rf "$home"
exit "$status"
