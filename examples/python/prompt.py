#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One prompt with libacp's Python binding: spawn an agent, open a session, send a prompt,
print the reply as it streams, allow what the agent asks permission for, wait for the end
of the turn.

    python3 prompt.py AGENT [ARGS...]        e.g. python3 prompt.py acp-demo-agent
"""
import os
import sys

import libacp


def show_reply(change):
    """Follows the session model: each chunk of the agent's reply, as it arrives."""
    if change.kind == "agent_message" and change.appended is not None:
        print(("\n" if change.type == "item_inserted" else "") + change.appended, end="", flush=True)


def allow_once(request):
    print("\n[%s: allow once]" % request["title"])
    return "allow_once"  # an option kind selects the first option of that kind


def main(argv):
    with libacp.Client(argv) as client:
        client.observe_sessions()
        client.on_session_change = show_reply
        client.on_permission = allow_once
        client.initialize()
        session = client.new_session(cwd=os.getcwd())
        stop_reason = session.prompt("Hello!").wait()
    print("\n[turn ended: %s]" % stop_reason)
    return 0 if stop_reason == "end_turn" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) if len(sys.argv) > 1 else __doc__)
