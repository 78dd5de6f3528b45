#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""prompt.py on asyncio: the same job, with libacp's descriptor on the running event loop
(no thread, no polling), so the program stays free to do other work meanwhile.

    python3 prompt_asyncio.py AGENT [ARGS...]        e.g. python3 prompt_asyncio.py acp-demo-agent
"""
import asyncio
import os
import sys

import libacp


def show_reply(change):
    if change.kind == "agent_message" and change.appended is not None:
        print(("\n" if change.type == "item_inserted" else "") + change.appended, end="", flush=True)


async def allow_once(request):  # a coroutine: it could await a dialog
    print("\n[%s: allow once]" % request["title"])
    return "allow_once"


async def main(argv):
    async with libacp.AsyncClient(argv) as client:
        client.observe_sessions()
        client.on_session_change = show_reply
        client.on_permission = allow_once
        await client.initialize()
        session = await client.new_session(cwd=os.getcwd())
        stop_reason = await session.prompt("Hello!")
    print("\n[turn ended: %s]" % stop_reason)
    return 0 if stop_reason == "end_turn" else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])) if len(sys.argv) > 1 else __doc__)
