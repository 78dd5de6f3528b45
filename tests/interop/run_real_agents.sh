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

# install NAME PACKAGE VERSION [PACKAGE VERSION...]: into $dir/NAME (one folder per agent,
# so one install never prunes another); 0 when those versions are there afterwards.
optional=--omit=optional
install() {
    name=$1
    shift
    mkdir -p "$dir/$name"
    specs=
    missing=
    while [ $# -ge 2 ]; do
        specs="$specs $1@$2"
        grep -qs "\"version\": \"$2\"" "$dir/$name/node_modules/$1/package.json" || missing=yes
        shift 2
    done
    [ -z "$missing" ] && return 0
    # A package.json of its own, so npm does not look for one further up.
    echo '{"private": true}' > "$dir/$name/package.json"
    # Optional dependencies are native extras (node-pty, say) the offline tests do not
    # need; an agent that needs one names it (claude, codex). A registry that swallows
    # connections must end in a skip, not in the test's time-out: few retries, and a
    # bound on the whole install.
    # shellcheck disable=SC2086 # $specs is a list of words
    (cd "$dir/$name" && timeout 300 npm install --no-save "$optional" --no-audit --no-fund \
        --fetch-retries=1 --fetch-timeout=60000 $specs > npm-install.log 2>&1)
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
    # Prompt turns run the Claude CLI, a native binary the SDK takes from its platform's
    # optional package (@anthropic-ai/claude-agent-sdk-linux-x64: 338 MB, 25 s to download here),
    # named on its own so the other optional extras stay out.
    platform=$("$node" -p 'process.platform + "-" + process.arch')
    install claude @agentclientprotocol/claude-agent-acp 0.101.0 \
        "@anthropic-ai/claude-agent-sdk-$platform" 0.3.318 ||
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

# The fake model endpoint for prompt turns (it prints its port): the Gemini API, the
# Anthropic Messages API, or the OpenAI Responses API.
case "$agent" in
gemini)
    fake_model=fake_gemini.mjs
    url_variable=ACP_FAKE_GEMINI_URL
    ;;
claude)
    fake_model=fake_anthropic.mjs
    url_variable=ACP_FAKE_ANTHROPIC_URL
    ;;
codex)
    fake_model=fake_openai.mjs
    url_variable=ACP_FAKE_OPENAI_URL
    ;;
esac
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
