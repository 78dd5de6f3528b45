#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A tiny ACP chat in the terminal: spawns an agent, opens a session in the current
directory, and sends each line you type as a prompt, printing the agent's answer as it
streams. Permission requests are asked on the terminal.

    ACP_LIBRARY=build/dev/libacp.so PYTHONPATH=bindings/python \
        python3 bindings/python/examples/chat.py node tests/peers/ts-agent/agent.mjs

Any ACP agent command works in place of the TS peer (try the prompts "hello", "tool",
"permission" with it). Add --async to run the same chat on asyncio.
"""
import asyncio
import os
import sys

import libacp


def show(update):
    """Prints what a person would want to see of one session update."""
    kind = update.get("sessionUpdate")
    if kind in ("agent_message_chunk", "agent_thought_chunk"):
        content = update.get("content", {})
        if content.get("type") == "text":
            prefix = "" if kind == "agent_message_chunk" else "(thinking) "
            print(prefix + content["text"], end="", flush=True)
    elif kind == "agent_message":
        print("".join(block.get("text", "") for block in update.get("content", [])), end="", flush=True)
    elif kind == "tool_call_update" and update.get("status"):
        print("\n[tool %s: %s]" % (update.get("title") or update["toolCallId"], update["status"]), flush=True)
    elif kind == "plan_update":
        print("\n[plan updated]", flush=True)


def ask_permission(request):
    print("\n" + request.get("title", "The agent asks for permission"))
    for number, option in enumerate(request["options"], 1):
        print("  %d) %s" % (number, option["name"]))
    answer = input("choice (empty = cancel): ").strip()
    if answer.isdigit() and 1 <= int(answer) <= len(request["options"]):
        return request["options"][int(answer) - 1]["optionId"]
    return None


def run_sync(argv):
    with libacp.Client(argv) as client:
        agent = client.initialize()
        print("connected to %s %s" % (agent["info"]["name"], agent["info"].get("version", "")))
        session = client.new_session(cwd=os.getcwd())
        client.on_permission = ask_permission
        for line in sys.stdin:
            if not line.strip():
                continue
            turn = session.prompt(line.strip())
            for update in turn:
                show(update)
            print("\n[%s]" % turn.stop_reason)


async def run_async(argv):
    async with libacp.AsyncClient(argv) as client:
        agent = await client.initialize()
        print("connected to %s (asyncio)" % agent["info"]["name"])
        session = await client.new_session(cwd=os.getcwd())

        async def permission(request):  # a coroutine handler: the loop keeps running meanwhile
            return await asyncio.get_running_loop().run_in_executor(None, ask_permission, request)
        client.on_permission = permission
        loop = asyncio.get_running_loop()
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                break
            if not line.strip():
                continue
            turn = session.prompt(line.strip())
            async for update in turn:
                show(update)
            print("\n[%s]" % turn.stop_reason)


def main():
    argv = [a for a in sys.argv[1:] if a != "--async"]
    if not argv:
        sys.exit(__doc__)
    try:
        if "--async" in sys.argv[1:]:
            asyncio.run(run_async(argv))
        else:
            run_sync(argv)
    except libacp.AcpError as e:
        sys.exit("libacp: %s (%s)" % (e, type(e).__name__))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
