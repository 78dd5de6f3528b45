# SPDX-License-Identifier: Apache-2.0
"""Tool servers in the Python binding (docs/tools.md) against the TypeScript-SDK peer that
calls a client's tools over MCP over ACP with the SDK's own McpOverAcpCaller
(tests/peers/ts-agent/tools-agent.mjs, next to the agent.mjs that ACP_TS_AGENT names). A
prompt is the peer's script (one MCP request a line); each line's outcome comes back as an
agent message "LINE => OUTCOME".
"""
import asyncio
import json
import os
import unittest

import libacp

NODE = os.environ.get("ACP_NODE", "node")
AGENT_DIR = os.path.dirname(os.environ.get("ACP_TS_AGENT", os.path.join(os.path.dirname(__file__), "..", "peers",
                                                                        "ts-agent", "agent.mjs")))
TOOLS_AGENT = [NODE, os.path.join(AGENT_DIR, "tools-agent.mjs")]

OPEN_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}, "line": {"type": "integer", "minimum": 1}},
               "required": ["path"], "additionalProperties": False}


def outcomes(session):
    """The outcome of each script line: the inner MCP outcome ({"result"} or {"error"}) as
    a dict (with "progress": the notifications counted, for a progress line), or the text
    when the request itself failed."""
    found = []
    for item in session.model().items:
        if item.kind == "agent_message" and " => " in item.text:
            text = item.text.split(" => ", 1)[1]
            head, _, count = text.rpartition(" progress=")
            try:
                outcome = json.loads(head if head else text)
            except ValueError:
                found.append(text)
                continue
            if head:
                outcome["progress"] = int(count)
            found.append(outcome)
    return found


def editor_server(calls):
    """The server every test offers: a text tool, a structured one, one that fails and one
    with an input schema; calls records what reached a handler."""
    editor = libacp.ToolServer("editor")

    @editor.tool(title="Current selection", annotations={"readOnlyHint": True})
    def current_selection(args, call):
        """The text selected in the editor"""
        calls.append(("current_selection", dict(args), call.server, call.tool, call.session_id))
        return "int answer = 42;"

    @editor.tool(output_schema={"type": "object", "properties": {"line": {"type": "integer"}}, "required": ["line"]})
    def cursor(args):
        calls.append(("cursor", dict(args)))
        return {"file": "main.c", "line": 7}

    @editor.tool(description="Saves the buffer")
    def save(args):
        calls.append(("save", dict(args)))
        raise libacp.ToolError("the buffer is read-only")

    @editor.tool(description="Opens a file at a line", input_schema=OPEN_SCHEMA)
    def open_file(args):
        calls.append(("open_file", dict(args)))
        return "opened %s:%d" % (args.path, args.get("line", 1))

    return editor


class SyncToolsTest(unittest.TestCase):
    def test_tools_are_listed_and_answer_with_text_structured_results_and_tool_errors(self):
        calls = []
        editor = editor_server(calls)
        with libacp.Client(TOOLS_AGENT) as client:
            client.initialize()
            session = client.new_session(cwd="/tmp", tools=[editor])
            self.assertEqual(session.prompt("list\ncall current_selection\ncall cursor\ncall save").wait(), "end_turn")
            listed, text, structured, failed = outcomes(session)
            tools = {tool["name"]: tool for tool in listed["result"]["tools"]}
            self.assertEqual(sorted(tools), ["current_selection", "cursor", "open_file", "save"])
            self.assertEqual(tools["current_selection"]["description"], "The text selected in the editor")
            self.assertEqual(tools["current_selection"]["title"], "Current selection")
            self.assertEqual(tools["current_selection"]["annotations"], {"readOnlyHint": True})
            self.assertEqual(tools["open_file"]["inputSchema"], OPEN_SCHEMA)
            self.assertEqual(text["result"]["content"], [{"type": "text", "text": "int answer = 42;"}])
            self.assertFalse(text["result"].get("isError", False))
            self.assertEqual(structured["result"]["structuredContent"], {"file": "main.c", "line": 7})
            self.assertEqual(json.loads(structured["result"]["content"][0]["text"]), {"file": "main.c", "line": 7})
            self.assertTrue(failed["result"]["isError"])
            self.assertEqual(failed["result"]["content"], [{"type": "text", "text": "the buffer is read-only"}])
            # The handler that takes the call learns whose call it is.
            self.assertEqual(calls[0], ("current_selection", {}, "editor", "current_selection", session.id))
            self.assertEqual([c[0] for c in calls], ["current_selection", "cursor", "save"])
            self.assertEqual(client.handler_errors, [])  # a ToolError is an answer, not a host bug

    def test_arguments_that_break_the_input_schema_never_reach_the_handler(self):
        calls = []
        editor = editor_server(calls)
        with libacp.Client(TOOLS_AGENT) as client:
            client.initialize()
            session = client.new_session(cwd="/tmp", tools=[editor])
            script = ['call open_file {"line": 3}', 'call open_file {"path": 5}',
                      'call open_file {"path": "a", "x": 1}', 'call open_file {"path": "a.c", "line": 0}',
                      'call open_file {"path": "a.c", "line": 3}']
            session.prompt("\n".join(script)).wait()
            results = outcomes(session)
            for refused in results[:4]:
                self.assertEqual(refused["error"]["code"], -32602, refused)
            self.assertEqual(results[4]["result"]["content"][0]["text"], "opened a.c:3")
            self.assertEqual(calls, [("open_file", {"path": "a.c", "line": 3})])

    def test_a_handler_bug_is_reported_and_the_agent_gets_an_error(self):
        editor = libacp.ToolServer("editor")

        @editor.tool
        def broken(args):
            raise KeyError("selection")

        @editor.tool
        def wrong_type(args):
            return 42

        @editor.tool(output_schema={"type": "object", "required": ["line"]})
        def off_schema(args):
            return {"file": "a.c"}

        with libacp.Client(TOOLS_AGENT) as client:
            client.on_handler_error = lambda error: None
            client.initialize()
            session = client.new_session(cwd="/tmp", tools=[editor])
            session.prompt("call broken\ncall wrong_type\ncall off_schema\ncall broken").wait()
            results = outcomes(session)
            for outcome in results:
                self.assertTrue("error" in outcome or outcome["result"].get("isError"), outcome)
            self.assertEqual([type(e) for e in client.handler_errors], [KeyError, TypeError, TypeError, KeyError])

    def test_bad_declarations_are_refused_when_added(self):
        editor = libacp.ToolServer("editor")
        editor.add_tool("ok", lambda args: "")
        with self.assertRaises(libacp.InvalidArgument):
            editor.add_tool("ok", lambda args: "")  # a duplicate
        with self.assertRaises(libacp.InvalidArgument):
            editor.add_tool("no spaces", lambda args: "")
        with self.assertRaises(libacp.InvalidArgument):
            editor.add_tool("schema", lambda args: "", input_schema=["not", "an", "object"])
        with self.assertRaises(libacp.InvalidArgument):
            libacp.ToolServer("")
        self.assertEqual(sorted(editor.tools), ["ok"])

    def test_a_resumed_session_is_offered_the_tools_again(self):
        calls = []
        editor = editor_server(calls)
        with libacp.Client(TOOLS_AGENT) as client:
            client.initialize()
            session = client.new_session(cwd="/tmp")
            session.prompt("call current_selection").wait()
            self.assertEqual(outcomes(session), ["no acp server"])
            client.resume_session(session.id, cwd="/tmp", tools=[editor])
            session.prompt("call current_selection").wait()
            self.assertEqual(outcomes(session)[-1]["result"]["content"][0]["text"], "int answer = 42;")


class AsyncToolsTest(unittest.TestCase):
    def test_a_coroutine_handler_answers_reports_progress_and_is_cancelled(self):
        events = []

        async def main():
            editor = libacp.ToolServer("editor")

            @editor.tool
            async def diagnostics(args, call):
                """The editor's diagnostics"""
                call.progress(1, 2, "reading")
                # The SDK's caller handles a notification a tick after a response read with
                # it and drops those of settled requests: answer a while later.
                await asyncio.sleep(0.1)
                return {"count": 1}

            @editor.tool
            async def slow(args):
                try:
                    await asyncio.sleep(30)
                except asyncio.CancelledError:
                    events.append("cancelled")
                    raise
                return "too late"

            @editor.tool
            async def save(args):
                await asyncio.sleep(0)
                raise libacp.ToolError("read-only")

            async with libacp.AsyncClient(TOOLS_AGENT) as client:
                await client.initialize()
                session = await client.new_session(cwd="/tmp", tools=[editor])
                stop = await session.prompt("call diagnostics\nprogress diagnostics\ncancel slow\ncall save")
                self.assertEqual(stop, "end_turn")
                results = outcomes(session)
                self.assertEqual(client.handler_errors, [])
                return results

        called, with_progress, cancelled, failed = asyncio.run(main())
        self.assertEqual(called["result"]["structuredContent"], {"count": 1})
        self.assertEqual(with_progress["result"], called["result"])
        self.assertEqual(with_progress["progress"], 1)  # sent to the call that asked for progress
        self.assertTrue(cancelled.startswith("outer "), cancelled)
        self.assertEqual(events, ["cancelled"])
        self.assertTrue(failed["result"]["isError"])


if __name__ == "__main__":
    unittest.main()
