#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Editor tools with libacp's Python binding: offer the agent an MCP server named "editor"
with one tool, current_selection, that returns the text given on the command line; ask
the agent what is selected, print its reply, allow what it asks permission for.

    python3 tools.py SELECTION AGENT [ARGS...]     e.g. python3 tools.py "int main()" acp-demo-agent

libacp serves the tool over whatever MCP transport the agent advertised.
"""
import os
import sys

import libacp


def show_reply(change):
    if change.kind == "agent_message" and change.appended is not None:
        print(("\n" if change.type == "item_inserted" else "") + change.appended, end="", flush=True)


def allow_once(request):
    print("\n[%s: allow once]" % request["title"])
    return "allow_once"


def main(selection, argv):
    editor = libacp.ToolServer("editor")

    @editor.tool(title="Current selection", annotations={"readOnlyHint": True})
    def current_selection(args):
        """The text selected in the editor"""
        return selection

    with libacp.Client(argv) as client:
        client.observe_sessions()
        client.on_session_change = show_reply
        client.on_permission = allow_once
        client.initialize()
        session = client.new_session(cwd=os.getcwd(), tools=[editor])
        stop_reason = session.prompt("What is selected?").wait()
    print("\n[turn ended: %s]" % stop_reason)
    return 0 if stop_reason == "end_turn" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]) if len(sys.argv) > 2 else __doc__)
