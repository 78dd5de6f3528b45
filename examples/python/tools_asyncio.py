#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools.py on asyncio: the tool's handler is a coroutine, so it could await the editor
(a language server, a UI round trip) while the client goes on serving the agent.

    python3 tools_asyncio.py SELECTION AGENT [ARGS...]
"""
import asyncio
import os
import sys

import libacp


def show_reply(change):
    if change.kind == "agent_message" and change.appended is not None:
        print(("\n" if change.type == "item_inserted" else "") + change.appended, end="", flush=True)


async def allow_once(request):
    print("\n[%s: allow once]" % request["title"])
    return "allow_once"


async def main(selection, argv):
    editor = libacp.ToolServer("editor")

    @editor.tool(title="Current selection", annotations={"readOnlyHint": True})
    async def current_selection(args):
        """The text selected in the editor"""
        await asyncio.sleep(0)  # e.g. ask the editor
        return selection

    async with libacp.AsyncClient(argv) as client:
        client.observe_sessions()
        client.on_session_change = show_reply
        client.on_permission = allow_once
        await client.initialize()
        session = await client.new_session(cwd=os.getcwd(), tools=[editor])
        stop_reason = await session.prompt("What is selected?")
    print("\n[turn ended: %s]" % stop_reason)
    return 0 if stop_reason == "end_turn" else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2:])) if len(sys.argv) > 2 else __doc__)
