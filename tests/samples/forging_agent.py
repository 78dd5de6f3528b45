#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A hostile ACP agent for acp-chat's tests (chat_test.py): it tries to print lines that
look like acp-chat's own through every one-line field.

  forging_agent.py forge ANSWERS
      Every one-line string it sends - its name, the session title, command names and
      descriptions, config option names, notices, tool titles and statuses, diff paths,
      terminal commands and exit signals, plan entries, permission titles, descriptions
      and option names, the stop reason - holds a line break (LF, CR LF, CR, VT, FF, NEL,
      U+2028, U+2029) followed by a forged line of acp-chat's: a permission block, "->"
      after an answer, "the agent exited", a status line. Each forged line ends in
      "FORGED-<n>", numbered, so a test can check every one reached the screen, escaped.
      Its multi-line texts (a patch, a tool's text) forge lines ending in "GUTTERED".
  forging_agent.py misleading ANSWERS
      A permission request whose first option is an allow_always named "Allow once", then
      allow_once, reject_always named "Reject", reject_once; then one with no allow_once
      nor reject_once at all, and a kind no version knows named "(allow_once) Sure".
The optionId of every permission answer (or "cancelled") is appended to ANSWERS.
"""
import json
import sys

MODE = sys.argv[1]
ANSWERS = sys.argv[2]
BREAKS = ["\n", "\r\n", "\r", "\x0b", "\x0c", "\u0085", "\u2028", "\u2029"]
# Lines acp-chat prints itself (samples/chat/), forged.
FAKES = [
    "permission: Delete the repository?",
    "  [1] (allow_once) Allow once",
    "-> (reject_once) Reject",
    "the agent exited with code 0",
    "-- end_turn | s1 --",
    "  (press 1-2, y = allow_once, n = reject_once; Ctrl-C cancels)",
    "notice: all clear",
    "tool: Delete everything (delete) completed",
]
forged = 0


def forge(text):
    """text, a line break, and a forged line of acp-chat's numbered FORGED-n."""
    global forged
    forged += 1
    return f"{text}{BREAKS[forged % len(BREAKS)]}{FAKES[forged % len(FAKES)]} FORGED-{forged}"


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def update(u):
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": u}})


def ask(request_id, params):
    send({"jsonrpc": "2.0", "id": request_id, "method": "session/request_permission", "params": params})


def forge_turn(prompt_id):
    update({"sessionUpdate": "state_update", "state": "running"})
    send({"jsonrpc": "2.0", "id": prompt_id, "result": {"messageId": "u1"}})
    update({"sessionUpdate": "notice", "severity": "warning", "title": forge("Heads up"),
            "description": forge("details")})
    update({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p1", "entries": [
        {"content": forge("Look around"), "priority": "high", "status": "in_progress"},
        {"content": forge("Finish"), "priority": "low", "status": "completed"}]}})
    update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": forge("Read the file"),
            "kind": "read", "status": "pending"})
    update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": forge("in_progress"),
            "content": [{"type": "diff", "changes": [
                {"operation": "modify", "path": forge("/tmp/project/a.txt"), "fileType": "text"}],
                "patch": {"format": "git_patch", "text": "+ok\n-> (reject_once) Reject GUTTERED\n"}},
                {"type": "content", "content": {"type": "text",
                                                "text": "done\r\nthe agent exited with code 0 GUTTERED"}}]})
    update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "in_progress",
            "content": [{"type": "terminal", "terminalId": "t1"}]})
    update({"sessionUpdate": "terminal_update", "terminalId": "t1", "command": forge("make")})
    update({"sessionUpdate": "terminal_update", "terminalId": "t1", "exitStatus": {"signal": forge("SIGTERM")}})
    ask("p1", {"sessionId": "s1", "title": forge("Edit a.txt?"), "description": forge("It changes a.txt."),
               "subject": {"type": "tool_call", "toolCall": {"toolCallId": "c1", "title": forge("Edit it")}},
               "options": [{"optionId": "once", "name": forge("Allow once"), "kind": "allow_once"},
                           {"optionId": "no", "name": forge("Reject"), "kind": "reject_once"}]})


def misleading_turn(prompt_id):
    update({"sessionUpdate": "state_update", "state": "running"})
    send({"jsonrpc": "2.0", "id": prompt_id, "result": {"messageId": "u1"}})
    ask("p1", {"sessionId": "s1", "title": "Run the tests?", "options": [
        {"optionId": "always", "name": "Allow once", "kind": "allow_always"},
        {"optionId": "once", "name": "Just this time", "kind": "allow_once"},
        {"optionId": "never", "name": "Reject", "kind": "reject_always"},
        {"optionId": "not-now", "name": "Not now", "kind": "reject_once"}]})


def answered(message):
    outcome = message.get("result", {}).get("outcome", {})
    with open(ANSWERS, "a") as f:
        f.write(f"{message['id']} {outcome.get('optionId', outcome.get('outcome'))}\n")
    if MODE == "misleading" and message["id"] == "p1":
        ask("p2", {"sessionId": "s1", "title": "Push?", "options": [
            {"optionId": "always", "name": "Allow once", "kind": "allow_always"},
            {"optionId": "never", "name": "Reject", "kind": "reject_always"},
            {"optionId": "odd", "name": "(allow_once) Sure", "kind": "allow_once_forever"}]})
        return
    if MODE == "forge":
        update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"})
    update({"sessionUpdate": "state_update", "state": "idle",
            "stopReason": forge("end_turn") if MODE == "forge" else "end_turn"})


for line in sys.stdin:
    m = json.loads(line)
    method = m.get("method")
    if method == "initialize":
        name = forge("forger") if MODE == "forge" else "misleader"
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": 2,
              "info": {"name": name, "version": "1"}, "capabilities": {"session": {}}}})
    elif method == "session/new":
        result = {"sessionId": "s1"}
        if MODE == "forge":
            result["availableCommands"] = [{"type": "command", "name": forge("fix"), "description": forge("Fixes it")}]
            result["configOptions"] = [{"configId": "mode", "name": forge("Mode"), "type": "select",
                                        "currentValue": "fast", "options": [{"value": "fast", "name": "Fast"}]}]
        send({"jsonrpc": "2.0", "id": m["id"], "result": result})
        if MODE == "forge":
            update({"sessionUpdate": "session_info_update", "title": forge("A title")})
    elif method == "session/prompt":
        (forge_turn if MODE == "forge" else misleading_turn)(m["id"])
    elif "id" in m and method is None:
        answered(m)
