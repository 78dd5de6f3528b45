#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""acp-chat end to end, against the demo agent.

Scripted: stdin is a pipe, so acp-chat reads one prompt or command per line and prints
plain lines, which are compared line by line. Terminal: acp-chat runs in a pseudo-terminal
(the stdlib pty module) and the test types at it like a user: a prompt whose permission
question is answered with one key, Ctrl-C cancelling a streaming turn, Ctrl-C twice to quit.

Paths come from the environment (CTest sets them): ACP_CHAT, ACP_DEMO_AGENT, and, for the
schema check of the --log traffic and the runs against the TypeScript-SDK peer, ACP_NODE,
ACP_VALIDATE and ACP_TS_AGENT (those fail when missing, unless ACP_NODE_TESTS=OFF).

Waits have a guard (the test fails instead of hanging) but nothing asserts on timing.
"""
import base64
import fcntl
import functools
import hashlib
import json
import os
import platform
import pty
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tarfile
import tempfile
import termios
import time
import unittest

CHAT = os.environ["ACP_CHAT"]
AGENT = os.environ["ACP_DEMO_AGENT"]
NODE = os.environ.get("ACP_NODE", "")
VALIDATE = os.environ.get("ACP_VALIDATE", "")
TS_AGENT = os.environ.get("ACP_TS_AGENT", "")
GUARD_SECONDS = 30
NODE_TESTS = os.environ.get("ACP_NODE_TESTS") != "OFF"  # configured with -DACP_NODE_TESTS=OFF: no


def with_ts_peer(test):
    """A test against the TypeScript-SDK peer: it fails when node or the peer is missing,
    and is skipped only in a build configured without them (-DACP_NODE_TESTS=OFF, which
    CMake passes on as ACP_NODE_TESTS=OFF)."""
    if not NODE_TESTS:
        return unittest.skip("configured with -DACP_NODE_TESTS=OFF")(test)

    @functools.wraps(test)
    def run(self, *args, **kwargs):
        self.assertTrue(NODE and TS_AGENT, "needs node and the TypeScript-SDK peer (ACP_NODE, ACP_TS_AGENT)")
        return test(self, *args, **kwargs)
    return run


class ChatCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="acp-chat-test-")
        self.state = os.path.join(self.dir, "state")
        # acp-chat keeps its prompt history there: never in the user's own home.
        os.environ["XDG_STATE_HOME"] = os.path.join(self.dir, "xdg-state")
        # Nor its agents.json (a "default" there would change what acp-chat starts).
        os.environ["XDG_CONFIG_HOME"] = os.path.join(self.dir, "xdg-config")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def agent(self, *flags, delay=0):
        return ["--", AGENT, "--state-dir", self.state, "--delay-ms", str(delay), *flags]

    def run_chat(self, lines, *args, agent=None, env=None):
        """Runs acp-chat with stdin a pipe; returns (exit code, stdout lines)."""
        command = [CHAT, "--cwd", "/tmp/project", *args, *(agent if agent is not None else self.agent())]
        result = subprocess.run(command, input="".join(line + "\n" for line in lines), capture_output=True,
                                text=True, timeout=GUARD_SECONDS, env=env)
        return result.returncode, result.stdout.split("\n")[:-1]


EXPECTED_TURN = [
    "> hello there",
    'thinking: The user wrote "hello there". I will answer, note it down and run the checks.',
    "plan:",
    "  [>] Answer the message",
    "  [ ] Note it down in NOTES.md",
    "  [ ] Run the checks",
    "You said: hello there",
    "I am the libacp demo agent: I run offline and every turn shows each part of the protocol. Let me note that down.",
    "tool: Add a line to NOTES.md (edit) pending",
    "  modify /tmp/project/NOTES.md",
    "  | diff --git /tmp/project/NOTES.md /tmp/project/NOTES.md",
    "  | --- /tmp/project/NOTES.md",
    "  | +++ /tmp/project/NOTES.md",
    "  | @@ -1,2 +1,2 @@",
    "  |  # Notes",
    "  | -- (nothing yet)",
    "  | +- hello there",
    "permission: Edit NOTES.md?",
    "  session demo-1, tool: Add a line to NOTES.md (edit)",
    "  The agent wants to add a line to NOTES.md.",
    "  [1] (allow_once) Allow once",
    "  [2] (allow_always) Always allow",
    "  [3] (reject_once) Reject",
    "1",
    "-> (allow_once) Allow once",
    "tool: Add a line to NOTES.md (edit) in_progress",
    "tool: Add a line to NOTES.md (edit) completed",
    "plan:",
    "  [x] Answer the message",
    "  [x] Note it down in NOTES.md",
    "  [>] Run the checks",
    "tool: Run the checks (execute) in_progress",
    "terminal: $ make check",
    "  | $ make check",
    "  | checking NOTES.md ... ok",
    "  | 1 file checked, 0 problems",
    "  (exited with code 0)",
    "tool: Run the checks (execute) completed",
    "plan:",
    "  [x] Answer the message",
    "  [x] Note it down in NOTES.md",
    "  [x] Run the checks",
    "Done: NOTES.md has your line and the checks pass.",
    "-- end_turn | demo-1 | hello there | 1044/200000 tokens | 0.0010 USD --",
]


class Scripted(ChatCase):
    def test_a_turn_line_by_line(self):
        code, lines = self.run_chat(["hello there", "1", "/quit"])
        self.assertEqual(code, 0)
        self.assertRegex(lines[0], r"^connected to libacp demo agent \S+ \(ACP v2\); /help lists the commands$")
        self.assertEqual(lines[1], "session demo-1 in /tmp/project")
        self.assertEqual(lines[2:-1], EXPECTED_TURN)
        self.assertEqual(lines[-1], "> /quit")
        # Plain output: no colour codes when stdout is not a terminal.
        self.assertFalse(any("\x1b" in line for line in lines))

    def test_reject_config_and_agent_commands(self):
        code, lines = self.run_chat(["/config", "/config model demo-thorough", "/config thoughts false", "/config",
                                     "edit please", "n", "/echo hi you", "/count 3", "/nope"])
        self.assertEqual(code, 0)
        text = "\n".join(lines)
        self.assertIn("  model = demo-fast  (one of: demo-fast demo-thorough)  Model\n"
                      "  thoughts = true  (true or false)  Show thoughts", text)
        self.assertIn("> /config model demo-thorough\nmodel = demo-thorough", text)
        self.assertIn("  model = demo-thorough  (one of: demo-fast demo-thorough)  Model\n"
                      "  thoughts = false  (true or false)  Show thoughts", text)
        self.assertNotIn("thinking:", text)
        self.assertIn("> edit please\n", text)
        self.assertIn("  [3] (reject_once) Reject\nn\n-> (reject_once) Reject\ntool: Add a line to NOTES.md (edit) failed\nOK, I left NOTES.md alone.\n"
                      "-- end_turn | demo-1 --", text)
        self.assertIn("> /echo hi you\nhi you\n-- end_turn | demo-1 --", text)
        self.assertIn("> /count 3\n1\n2\n3\n-- end_turn | demo-1 --", text)
        self.assertIn("> /nope\nunknown command or missing argument: /nope (/help lists the commands)", text)

    def test_resume_replays_the_history_and_rebuilds_the_same_model(self):
        first_dump = os.path.join(self.dir, "first.json")
        code, _ = self.run_chat(["hello there", "2", "/echo more", "/quit"], "--dump-state", first_dump)
        self.assertEqual(code, 0)
        second_dump = os.path.join(self.dir, "second.json")
        code, lines = self.run_chat(["/sessions", "/resume demo-1", "/quit"], "--dump-state", second_dump)
        self.assertEqual(code, 0)
        text = "\n".join(lines)
        self.assertRegex(text, r'> /sessions\n  demo-1  "hello there"  /tmp/project  \d{4}-\d\d-\d\dT[\d:]+Z\n'
                               r'\* demo-2  \(untitled\)  /tmp/project')
        replay = text[text.index("> /resume demo-1"):]
        # The history on screen: the user's messages too, and no permission question.
        self.assertIn("resuming demo-1\nresumed demo-1, its history (2 turns):\nyou: hello there\nthinking: ", replay)
        self.assertIn("  | +- hello there\n", replay)
        self.assertIn("you: /echo more\nmore\n> /quit", replay)
        self.assertNotIn("permission:", replay)
        with open(first_dump) as f:
            first = json.load(f)
        with open(second_dump) as f:
            second = json.load(f)
        # The model rebuilt from the restarted agent's replay equals the live one.
        self.assertEqual(second["demo-1"], first["demo-1"])

    def test_resume_passes_the_sessions_directories(self):
        code, _ = self.run_chat(["/add-dir /srv", "/new", "/echo in srv", "/quit"])
        self.assertEqual(code, 0)
        log = os.path.join(self.dir, "traffic.ndjson")
        code, lines = self.run_chat(["/resume demo-2", "/quit"], "--log", log)
        self.assertEqual(code, 0)
        self.assertIn("resumed demo-2, its history (1 turn):", lines)
        with open(log) as f:
            resume = [json.loads(line)["msg"] for line in f if '"session/resume"' in line][-1]
        self.assertEqual(resume["params"]["additionalDirectories"], ["/srv"])
        self.assertEqual(resume["params"]["cwd"], "/tmp/project")

    def test_close_and_delete(self):
        code, lines = self.run_chat(["/close", "hello", "/delete demo-1", "/sessions", "/new", "/sessions"])
        self.assertEqual(code, 0)
        text = "\n".join(lines)
        self.assertIn("> /close\nclosed demo-1\n> hello\nno session: /new or /resume ID first", text)
        self.assertIn("> /delete demo-1\ndeleted demo-1\n> /sessions\nno sessions\n> /new\nsession demo-2", text)
        self.assertIn("> /sessions\n* demo-2  (untitled)  /tmp/project", text)

    def test_add_dir_and_mcp_follow_the_agent_capabilities(self):
        code, lines = self.run_chat(["/add-dir /srv", "/mcp tools /bin/true", "/new"],
                                    agent=self.agent("--minimal-caps"))
        self.assertEqual(code, 0)
        text = "\n".join(lines)
        self.assertIn("> /add-dir /srv\nrefused: the agent does not support additional directories "
                      "(it did not advertise session.additionalDirectories)", text)
        # CLIENT-MUST-33: refused at /mcp with the reason, so /new goes out without it.
        self.assertIn("> /mcp tools /bin/true\nrefused: the agent does not support MCP servers over stdio "
                      "(it did not advertise session.mcp.stdio)", text)
        self.assertIn("> /new\nsession demo-2 in /tmp/project", text)
        code, lines = self.run_chat(["/add-dir /srv", "/mcp tools /bin/true", "/mcp more true --flag",
                                     "/mcp none no-such-command-here", "/new"], "--log",
                                    os.path.join(self.dir, "traffic.ndjson"))
        text = "\n".join(lines)
        self.assertIn("added /srv for the next /new\n> /mcp tools /bin/true\nMCP server tools added for the next /new\n",
                      text)
        self.assertIn("> /mcp none no-such-command-here\nrefused: no-such-command-here is not an executable on PATH",
                      text)
        self.assertRegex(text, r"> /new\nsession demo-\d in /tmp/project")
        with open(os.path.join(self.dir, "traffic.ndjson")) as f:
            new = [json.loads(line)["msg"] for line in f if '"session/new"' in line][-1]
        # A bare command name is looked up on PATH: the server's command is absolute.
        servers = {server["name"]: server for server in new["params"]["mcpServers"]}
        self.assertEqual(sorted(servers), ["more", "tools"])
        self.assertEqual(servers["more"]["command"], shutil.which("true"))
        self.assertEqual(servers["more"]["args"], ["--flag"])

    def test_traffic_log_is_valid_acp(self):
        log = os.path.join(self.dir, "traffic.ndjson")
        code, _ = self.run_chat(["hello", "y", "/sessions", "/close"], "--log", log)
        self.assertEqual(code, 0)
        with open(log) as f:
            records = [json.loads(line) for line in f]
        methods = [r["msg"].get("method") for r in records if r["dir"] == "in"]
        self.assertEqual(methods[:3], ["initialize", "session/new", "session/prompt"])
        if NODE_TESTS:  # the official SDK's schema check on every record
            self.assertTrue(NODE and VALIDATE, "needs node and the peer's validate.mjs (ACP_NODE, ACP_VALIDATE)")
            result = subprocess.run([NODE, VALIDATE, "--agent", log], capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            self.assertIn(" 0 invalid", result.stdout)

    @with_ts_peer
    def test_another_agent(self):
        # Not only the demo agent: the peer built on the official TypeScript SDK.
        code, lines = self.run_chat(["hello", "permission", "1", "/quit"], agent=["--", NODE, TS_AGENT])
        self.assertEqual(code, 0)
        self.assertRegex(lines[0], r"^connected to libacp TS peer agent 1.0.0 \(ACP v2\)")
        text = "\n".join(lines)
        self.assertIn("> hello\nHello, world!\n-- end_turn | sess-1 --", text)
        self.assertIn("permission: Allow running rm -rf build?", text)
        self.assertIn("Permission granted (allow-once); the command ran.", text)


    @with_ts_peer
    def test_a_v1_agent(self):
        # The TypeScript SDK's v1 entry point: negotiated down, the same screen as v2.
        agent_v1 = os.path.join(os.path.dirname(TS_AGENT), "agent-v1.mjs")
        code, lines = self.run_chat(["hello", "permission", "1", "fail", "hello", "/quit"],
                                    agent=["--", NODE, agent_v1])
        self.assertEqual(code, 0)
        self.assertRegex(lines[0], r"\(ACP v1\)")
        text = "\n".join(lines)
        self.assertIn("> hello\nHello, world!\n-- end_turn", text)
        self.assertIn("Permission granted (allow-once); the command ran.", text)
        # A failed v1 turn ends with its error on the status line, once; the next line runs after it.
        self.assertIn("> fail\nSomething went wrong.\n-- error (Internal error: Scripted failure) | sess-1 --\n"
                      "> hello\nHello, world!\n-- end_turn | sess-1 --\n> /quit", text)
        self.assertEqual(text.count("Scripted failure"), 1)


class Permissions(ChatCase):
    """Permission prompts: who asks, one at a time, cancel order, scripted answers."""

    def test_a_second_request_waits_its_turn(self):
        code, lines = self.run_chat(["hello", "1", "3", "/quit"], agent=self.agent("--two-permissions"))
        self.assertEqual(code, 0)
        text = "\n".join(lines)
        # Scripted, the next line answers the first question before the second arrives (the
        # terminal test has both on hand at once); each answer goes to its own request.
        self.assertIn("permission: Edit NOTES.md?\n  session demo-1, tool: Add a line to NOTES.md (edit)\n", text)
        first = text.index("permission: Edit NOTES.md?")
        allowed = text.index("1\n-> (allow_once) Allow once")
        second = text.index("permission: Also run the checks?\n  session demo-1\n")
        rejected = text.index("3\n-> (reject_once) Reject")
        self.assertLess(first, allowed)
        self.assertLess(allowed, second)
        self.assertLess(second, rejected)
        self.assertIn("The second question got reject-once.", text)
        self.assertIn("tool: Add a line to NOTES.md (edit) completed", text)

    def test_a_line_that_does_not_answer_is_reported_and_the_next_one_read(self):
        code, lines = self.run_chat(["hello", "maybe", "1", "/quit"])
        self.assertEqual(code, 0)
        text = "\n".join(lines)
        self.assertIn("maybe\n(not an answer: maybe; answer with 1-3, y = allow_once, n = reject_once or an option id)\n"
                      "1\n-> (allow_once) Allow once", text)
        self.assertIn("-- end_turn | demo-1", text)

    def test_end_of_input_at_a_prompt_cancels_the_turn_session_cancel_first(self):
        # CLIENT-GUIDE 7.4: session/cancel goes out before the permission answer "cancelled",
        # so the agent records the tool call as cancelled, not as rejected.
        log = os.path.join(self.dir, "traffic.ndjson")
        code, lines = self.run_chat(["hello", "not an answer"], "--log", log)
        self.assertEqual(code, 0)
        text = "\n".join(lines)
        self.assertIn("(not an answer: not an answer;", text)
        self.assertIn("tool: Add a line to NOTES.md (edit) cancelled", text)
        self.assertIn("-- cancelled | demo-1", text)
        with open(log) as f:
            sent = [json.loads(line)["msg"] for line in f if json.loads(line)["dir"] == "in"]
        cancel = [i for i, m in enumerate(sent) if m.get("method") == "session/cancel"]
        answer = [i for i, m in enumerate(sent)
                  if "result" in m and m["result"].get("outcome", {}).get("outcome") == "cancelled"]
        self.assertEqual(len(cancel), 1, sent)
        self.assertEqual(len(answer), 1, sent)
        self.assertLess(cancel[0], answer[0])


# What the demo agent's --hostile mode puts around every text it sends (samples/demo-agent/
# hostile.hpp): none of it may reach the terminal.
FORBIDDEN_ON_SCREEN = {
    "ESC (clear screen, OSC 52, window title)": "\x1b",
    "BEL": "\x07",
    "8-bit CSI U+009B": "\u009b",
    "8-bit OSC U+009D": "\u009d",
    "8-bit ST U+009C": "\u009c",
    "the OSC 52 payload": "cHduZWQ=",
    "the window title": "pwned",
    "the 8-bit CSI's parameters": "2J",
}


class Hostile(ChatCase):
    """An agent that puts terminal control sequences in every field cannot take over the terminal."""

    def assert_clean(self, text, allow_sgr=False):
        if allow_sgr:
            text = re.sub("\x1b\\[[0-9;]*m", "", text)  # acp-chat's own colours
            text = re.sub("\x1b\\[\\?2004[hl]", "", text)  # and its bracketed paste on and off
        for what, needle in FORBIDDEN_ON_SCREEN.items():
            self.assertNotIn(needle, text, f"{what} reached the screen:\n{text!r}")

    def test_every_field_is_sanitised_in_scripted_mode(self):
        log = os.path.join(self.dir, "traffic.ndjson")
        code, lines = self.run_chat(["hello", "1", "/help", "/config", "/sessions", "fail", "/stderr", "/quit"],
                                    "--log", log, agent=self.agent("--hostile"))
        text = "\n".join(lines)
        # The error's data is shown as the JSON the agent sent, where control characters are
        # \\u escapes: readable text, not sequences. The rest must be clean.
        data = re.search(r'prompt failed: the model is unavailable \((\{"detail":.*quota.*\})\)', text)
        self.assertIsNotNone(data, text)
        for what, needle in list(FORBIDDEN_ON_SCREEN.items())[:5]:
            self.assertNotIn(needle, data.group(1), what)
        text = text.replace(data.group(1), "")
        self.assert_clean(text)
        # Not vacuous: every hostile field was on screen, cleaned.
        for shown in ["connected to libacp demo agent", "notice: Heads up - this agent is hostile",
                      "thinking: The user wrote", "You said: hello", "[ ] Note it down in NOTES.md",
                      "[x] Answer the message",
                      # Its kind is no kind this version knows: shown as "other".
                      "tool: Add a line to NOTES.md (other) pending",
                      "/tmp/project/NOTES.md", "permission: Edit NOTES.md?",
                      "The agent wants to add a line to NOTES.md.", "[1] (allow_once) Allow once\n  [2] (reject_once) Reject",
                      "-> (allow_once) Allow once", "terminal: $ make check", "  | checking NOTES.md ... ok",
                      "tool: Run the checks (execute)", "/echo  Repeat the text back", "Model",
                      "\"hello\"  /tmp/project", "USD --",
                      "prompt failed: the model is unavailable", "> /stderr\n  | the model is slow today"]:
            self.assertIn(shown, text)
        self.assertEqual(code, 0)
        # The agent's stderr is in the log too, as a record of its own.
        with open(log) as f:
            records = [json.loads(line) for line in f]
        stderr = [r for r in records if r["dir"] == "log" and r["source"] == "agent-stderr"]
        self.assertTrue(any("the model is slow today" in r["text"] for r in stderr), stderr)

    def test_auth_method_texts_are_sanitised(self):
        code, lines = self.run_chat(["hello"], agent=self.agent("--auth-required", "--hostile"))
        self.assertEqual(code, 6)
        text = "\n".join(lines)
        self.assert_clean(text)
        self.assertIn("demo-login (Demo login: Always succeeds)", text)

    def test_nothing_but_colours_reaches_a_terminal(self):
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env["TERM"] = "xterm"
        s = Screen([CHAT, "--cwd", "/tmp/project", *self.agent("--hostile")], env)
        at = s.wait_for(r"session \S+ in /tmp/project")
        s.type("hello\r")
        at = s.wait_for(r"Ctrl-C cancels\) ", at)
        s.type("1")
        at = s.wait_for(r"-- end_turn", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        self.assert_clean(s.text(), allow_sgr=True)
        self.assertIn("You said: hello", s.text())


FORGING_AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "forging_agent.py")
# How acp-chat shows each line break inside a one-line string (samples/chat/sanitize.hpp).
ESCAPED_BREAKS = ["\\n", "\\r\\n", "\\r", "\\v", "\\f", "\\u0085", "\\u2028", "\\u2029"]


def screen_lines(text):
    """The lines as a terminal shows them: colours and the line editor's sequences gone, and a
    carriage return starting a line as much as a newline does."""
    text = re.sub("\x1b\\[[0-9;?]*[A-Za-z]", "", text)
    return re.split("\r\n|\n|\r", text)


class Forged(ChatCase):
    """Line breaks in one-line agent strings (titles, option names, notices, commands, paths,
    plan entries, names, the stop reason) are shown escaped: no forged line ever looks like
    one of acp-chat's own; y and n pick exactly allow_once and reject_once."""

    def answers(self):
        with open(os.path.join(self.dir, "answers")) as f:
            return f.read().split("\n")[:-1]

    def assert_nothing_forged(self, text):
        lines = screen_lines(text)
        seen = set()
        for line in lines:
            for m in re.finditer(r"FORGED-(\d+)", line):
                n = int(m.group(1))
                seen.add(n)
                # forging_agent.py's forge(): a break, then a line of acp-chat's, then the mark.
                fake = ["permission: Delete the repository?", "  [1] (allow_once) Allow once",
                        "-> (reject_once) Reject", "the agent exited with code 0", "-- end_turn | s1 --",
                        "  (press 1-2, y = allow_once, n = reject_once; Ctrl-C cancels)", "notice: all clear",
                        "tool: Delete everything (delete) completed"][n % 8]
                shown = ESCAPED_BREAKS[n % 8] + fake + " FORGED-" + str(n)
                self.assertTrue(line[:m.end()].endswith(shown), f"forged line {n} not escaped in {line!r}")
        # Every forged string reached the screen (not vacuous), each inside a line of acp-chat's.
        self.assertEqual(seen, set(range(1, max(seen) + 1)), text)
        self.assertGreaterEqual(len(seen), 20)
        # acp-chat's own lines, as many as it printed itself.
        def starting(prefix):
            return [line for line in lines if line.startswith(prefix)]
        self.assertEqual(len(starting("permission: ")), 1, lines)
        self.assertEqual(len(starting("-> ")), 1, lines)
        self.assertEqual(starting("the agent exited"), [])
        self.assertEqual(len(starting("notice: ")), 1, lines)
        self.assertEqual(len(starting("  [1] ")), 1, lines)
        self.assertEqual(len(starting("-- ")), 1, lines)
        # Multi-line text (a patch, a tool's text) is printed as lines, each behind the gutter.
        guttered = [line for line in lines if "GUTTERED" in line]
        self.assertEqual(len(guttered), 2, lines)
        for line in guttered:
            self.assertTrue(line.startswith("  | "), line)

    def test_forged_lines_in_a_pseudo_terminal(self):
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env["TERM"] = "xterm"
        answers = os.path.join(self.dir, "answers")
        s = Screen([CHAT, "--cwd", "/tmp/project", "--", sys.executable, FORGING_AGENT, "forge", answers], env)
        at = s.wait_for(r"session s1 in /tmp/project")
        at = s.wait_for(r"> ", at)
        s.type("/help\r")
        at = s.wait_for(r"Fixes it", at)
        at = s.wait_for(r"> ", at)
        s.type("/config\r")
        at = s.wait_for(r"Mode", at)
        at = s.wait_for(r"> ", at)
        s.type("go\r")
        at = s.wait_for(r"Ctrl-C cancels\) ", at)
        s.type("y")
        at = s.wait_for(r"-> \(allow_once\) Allow once", at)
        at = s.wait_for(r"FORGED-\d+ \| s1 \| A title", at)
        at = s.wait_for(r"> ", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        self.assert_nothing_forged(s.text())
        self.assertEqual(self.answers(), ["p1 once"])

    def test_forged_lines_in_scripted_mode(self):
        answers = os.path.join(self.dir, "answers")
        code, lines = self.run_chat(["/help", "/config", "go", "n", "/quit"],
                                    agent=["--", sys.executable, FORGING_AGENT, "forge", answers])
        self.assertEqual(code, 0)
        self.assert_nothing_forged("\n".join(lines))
        self.assertEqual(self.answers(), ["p1 no"])

    def test_y_and_n_pick_exactly_allow_once_and_reject_once(self):
        # The first option is an allow_always named "Allow once": y still picks allow_once.
        env = {k: v for k, v in os.environ.items()}
        env["TERM"] = "xterm"
        answers = os.path.join(self.dir, "answers")
        s = Screen([CHAT, "--cwd", "/tmp/project", "--", sys.executable, FORGING_AGENT, "misleading", answers], env)
        at = s.wait_for(r"session s1 in /tmp/project")
        s.type("go\r")
        at = s.wait_for(r"  \[1\] \(allow_always\) Allow once\r\n  \[2\] \(allow_once\) Just this time\r\n"
                        r"  \[3\] \(reject_always\) Reject\r\n  \[4\] \(reject_once\) Not now\r\n"
                        r"  \(press 1-4, y = allow_once, n = reject_once; Ctrl-C cancels\) ", at)
        s.type("y")
        at = s.wait_for(r"-> \(allow_once\) Just this time", at)
        # Neither allow_once nor reject_once: y and n answer nothing, a number does. A kind
        # this version does not know is not printed as the agent wrote it.
        at = s.wait_for(r"  \[1\] \(allow_always\) Allow once\r\n  \[2\] \(reject_always\) Reject\r\n"
                        r"  \[3\] \(unknown kind\) \(allow_once\) Sure\r\n"
                        r"  \(press 1-3; Ctrl-C cancels\) ", at)
        s.type("y")
        at = s.wait_for(r"\(press 1-3\)", at)
        s.type("n")
        at = s.wait_for(r"\(press 1-3\)", at)
        s.type("2")
        at = s.wait_for(r"-> \(reject_always\) Reject", at)
        at = s.wait_for(r"-- end_turn \| s1", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        self.assertEqual(self.answers(), ["p1 once", "p2 never"])

    def test_y_and_n_in_scripted_mode(self):
        answers = os.path.join(self.dir, "answers")
        code, lines = self.run_chat(["go", "n", "y", "1"],
                                    agent=["--", sys.executable, FORGING_AGENT, "misleading", answers])
        self.assertEqual(code, 0)
        text = "\n".join(lines)
        self.assertIn("n\n-> (reject_once) Not now", text)
        self.assertIn("y\n(not an answer: y; answer with 1-3 or an option id)\n1\n-> (allow_always) Allow once", text)
        self.assertNotIn("allow_once_forever", text)
        self.assertEqual(self.answers(), ["p1 not-now", "p2 always"])


class LineLimit(ChatCase):
    def test_a_message_over_the_line_limit_is_reported(self):
        code, lines = self.run_chat(["/big 5000", "/echo after"], "--max-line-bytes", "4096")
        self.assertEqual(code, 0)
        text = "\n".join(lines)
        self.assertRegex(text, r"> /big 5000\nlibacp: discarded an incoming line of \d+ bytes: over the limit of 4096 bytes"
                               r"\nThat was a big one.\n-- end_turn \| demo-1")
        self.assertNotIn("yyyy", text)
        self.assertIn("> /echo after\nafter\n", text)


class TrafficLog(ChatCase):
    def test_one_valid_record_per_line_whatever_the_agent_sends(self):
        # Not JSON, a forged "sent by the client" record, a truncated object, bad UTF-8.
        forged = '1},{"dir":"in","msg":{"jsonrpc":"2.0","method":"forged/by/agent"}}'
        script = ("read line; printf '%s\\n' 'not json at all' '" + forged + "' '{\"jsonrpc\":' ; "
                  "printf '\\377\\376\\n'; echo 'bye' >&2; exit 9")
        log = os.path.join(self.dir, "traffic.ndjson")
        code, _ = self.run_chat([], "--log", log, agent=["--", "sh", "-c", script])
        self.assertEqual(code, 4)
        with open(log, "rb") as f:
            raw_lines = f.read().split(b"\n")[:-1]
        records = [json.loads(line.decode("utf-8")) for line in raw_lines]  # every line one valid record
        sent = [r for r in records if r["dir"] == "in"]
        self.assertEqual([r["msg"]["method"] for r in sent if "method" in r["msg"]], ["initialize"])
        self.assertNotIn("forged/by/agent", json.dumps(sent))
        received = [r["raw"] for r in records if r["dir"] == "out"]
        self.assertEqual(received[:3], ["not json at all", forged, '{"jsonrpc":'])
        self.assertIn("bye", [r["text"] for r in records if r["dir"] == "log" and r["source"] == "agent-stderr"])


class CommandLine(ChatCase):
    def test_version(self):
        result = subprocess.run([CHAT, "--version"], capture_output=True, text=True, timeout=GUARD_SECONDS)
        self.assertEqual(result.returncode, 0)
        self.assertRegex(result.stdout, r"^acp-chat \d+\.\d+\.\d+ \(libacp \d+\.\d+\.\d+\)\n$")

    def test_help_covers_every_option_and_command(self):
        result = subprocess.run([CHAT, "--help"], capture_output=True, text=True, timeout=GUARD_SECONDS)
        self.assertEqual(result.returncode, 0)
        for word in ["--connect URL", "--header", "--ca-file FILE", "--cwd DIR", "--resume SESSION", "--resume-turns N", "--login METHOD", "--log FILE", "--dump-state FILE",
                     "--no-color", "--plain", "--max-line-bytes N", "--version", "--help", "/new", "/sessions", "/resume ID", "/history [N]", "/close",
                     "/delete ID", "/config", "/cwd", "/add-dir PATH", "/mcp NAME", "/stderr", "/help, /quit",
                     "--agent NAME", "--registry FILE|URL", "--registry-max-age SECONDS", "/agents", "/image PATH",
                     "exit codes:"]:
            self.assertIn(word, result.stdout)

    def test_bad_options_are_usage_errors(self):
        for args in (["--bogus"], ["--cwd"], ["--resume"]):
            result = subprocess.run([CHAT, *args], capture_output=True, text=True, timeout=GUARD_SECONDS)
            self.assertEqual(result.returncode, 2, args)
            self.assertIn("usage: acp-chat", result.stderr)

    def test_resume_at_start_creates_no_session(self):
        code, _ = self.run_chat(["/echo first", "/quit"])
        self.assertEqual(code, 0)
        log = os.path.join(self.dir, "traffic.ndjson")
        # The agent command without "--": options end at the first word that is not one.
        code, lines = self.run_chat(["/echo again", "/sessions", "/quit"], "--resume", "demo-1", "--log", log,
                                    agent=self.agent()[1:])
        self.assertEqual(code, 0)
        text = "\n".join(lines)
        self.assertIn("resuming demo-1\nresumed demo-1, its history (1 turn):\nyou: /echo first\nfirst\n", text)
        self.assertIn("> /echo again\nagain\n-- end_turn | demo-1", text)
        self.assertNotIn("demo-2", text)
        with open(log) as f:
            methods = [json.loads(line)["msg"].get("method") for line in f if json.loads(line)["dir"] == "in"]
        self.assertNotIn("session/new", methods)
        self.assertIn("session/resume", methods)


class Remote(ChatCase):
    """--connect: the TypeScript-SDK peer served over WebSocket and Streamable HTTP by the
    SDK's own server side (server.mjs beside the stdio peer)."""

    def server(self, *flags):
        command = [NODE, os.path.join(os.path.dirname(TS_AGENT), "server.mjs"), "--port=0", *flags]
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True)
        self.addCleanup(process.wait)
        self.addCleanup(process.terminate)
        return json.loads(process.stdout.readline())

    @with_ts_peer
    def test_the_same_chat_over_websocket_and_http(self):
        lines_in = ["hello", "permission", "1", "/quit"]
        code, over_stdio = self.run_chat(lines_in, agent=["--", NODE, TS_AGENT])
        self.assertEqual(code, 0)
        for scheme in ("ws", "http"):
            urls = self.server("--require-token=chat-token")  # a fresh one: session ids from sess-1
            code, lines = self.run_chat(lines_in, "--connect", urls[scheme], "--header",
                                        "Authorization: Bearer chat-token", agent=[])
            self.assertEqual(code, 0, scheme)
            self.assertEqual(lines, over_stdio, scheme)

    @with_ts_peer
    def test_a_refused_connection_says_why_and_never_shows_the_token(self):
        urls = self.server("--require-token=right-token")
        for scheme in ("ws", "http"):
            result = subprocess.run([CHAT, "--connect", urls[scheme], "--header", "Authorization: Bearer wrong-token"],
                                    input="/quit\n", capture_output=True, text=True, timeout=GUARD_SECONDS)
            self.assertNotEqual(result.returncode, 0, scheme)
            self.assertIn("401", result.stdout + result.stderr, scheme)
            self.assertNotIn("wrong-token", result.stdout + result.stderr, scheme)

    def test_connect_excludes_an_agent_command(self):
        result = subprocess.run([CHAT, "--connect", "ws://127.0.0.1:9/acp", "--", AGENT], capture_output=True,
                                text=True, timeout=GUARD_SECONDS)
        self.assertEqual(result.returncode, 2)


class Unstable(ChatCase):
    """--unstable: the agent's unstable surface (/fork, /title, /archive, /status,
    /providers), offered only where the agent advertises it (the TypeScript-SDK peer with
    --caps=unstable), refused with the reason otherwise."""

    @with_ts_peer
    def test_fork_title_status_archive_and_providers(self):
        code, lines = self.run_chat(["hello", "/title My thread", "/status", "/fork", "hello", "/sessions",
                                     "/archive", "/providers", "/providers disable main", "/quit"],
                                    "--unstable", agent=["--", NODE, TS_AGENT, "--caps=unstable"])
        self.assertEqual(code, 0)
        self.assertIn('title: "My thread"', lines)
        self.assertIn("sess-1: open, state idle", lines)
        self.assertIn("forked sess-1 as sess-2; prompts go to the fork", lines)
        # The second turn went to the fork; both sessions are listed, the title on the source.
        self.assertIn("-- end_turn | sess-2 --", lines)
        self.assertIn('  sess-1  "My thread"  /tmp/project', lines)
        self.assertIn("* sess-2  (untitled)  /tmp/project", lines)
        self.assertIn("archived sess-2", lines)
        self.assertIn("  main (required)  anthropic https://llm.example/anthropic", lines)
        # A required provider is never disabled: refused before sending.
        self.assertIn("cannot disable main: provider 'main' is required: it cannot be disabled", lines)

    @with_ts_peer
    def test_without_the_opt_in_or_the_capability_the_commands_say_why(self):
        log = os.path.join(self.dir, "traffic.jsonl")
        code, lines = self.run_chat(["/fork", "/help", "/quit"], "--log", log,
                                    agent=["--", NODE, TS_AGENT, "--caps=unstable"])
        self.assertEqual(code, 0)
        self.assertIn("/fork: a command of the agent's unstable surface: start acp-chat with --unstable", lines)
        self.assertNotIn("the agent's unstable commands (--unstable):", lines)
        with open(log) as f:
            self.assertNotIn("session/fork", f.read())
        # The demo agent offers none of them.
        code, lines = self.run_chat(["/title x", "/quit"], "--unstable")
        self.assertEqual(code, 0)
        self.assertIn("/title: the agent does not offer it", lines)


class ExitCodes(ChatCase):
    def test_usage(self):
        code, _ = self.run_chat([], "--bogus")
        self.assertEqual(code, 2)

    def test_agent_cannot_start(self):
        code, lines = self.run_chat([], agent=["--", "/nonexistent/agent"])
        self.assertEqual(code, 3)
        self.assertIn("could not start the agent `/nonexistent/agent`", lines[0])

    def test_connection_refused_could_not_start(self):
        # A port nobody listens on (bound, then closed): refused, which is "could not start" (3).
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        for url in ("ws://127.0.0.1:%d/" % port, "http://127.0.0.1:%d/acp" % port):
            result = subprocess.run([CHAT, "--connect", url], input="", capture_output=True, text=True,
                                    timeout=GUARD_SECONDS)
            self.assertEqual(result.returncode, 3, result.stdout)
            self.assertIn("could not connect to the agent", result.stdout)

    def test_agent_exits_with_its_stderr_shown(self):
        code, lines = self.run_chat(["hello"], agent=["--", "sh", "-c", "echo 'no model configured' >&2; exit 7"])
        self.assertEqual(code, 4)
        self.assertEqual(lines[:2], ["the agent exited with code 7; its last output on stderr:", "  | no model configured"])

    def test_protocol_version_unsupported(self):
        # libacp speaks 2 and falls back to 1; an agent answering 7 is refused.
        code, lines = self.run_chat([], agent=self.agent("--protocol-version", "7"))
        self.assertEqual(code, 5)
        self.assertIn("protocolVersion 7", lines[0])

    def test_authentication_required_lists_the_methods(self):
        code, lines = self.run_chat(["hello"], agent=self.agent("--auth-required"))
        self.assertEqual(code, 6)
        # A terminal method is only for a client that advertised auth.terminal (AGENT-MUST-04,
        # CLIENT-GUIDE 2.3), which acp-chat does not: no command line from the agent is shown.
        self.assertEqual(lines[1:5], ["the agent requires authentication; it offers:",
                                      "  demo-login (Demo login: Always succeeds)",
                                      "  demo-terminal (Demo terminal login): ignored, a terminal login acp-chat did not ask for",
                                      "run acp-chat with --login METHOD"])
        self.assertNotIn("--login-terminal", "\n".join(lines))
        code, lines = self.run_chat(["/echo in"], "--login", "demo-login", agent=self.agent("--auth-required"))
        self.assertEqual(code, 0)
        self.assertIn("logged in with demo-login", lines)
        self.assertIn("in", lines)


class CatalogueCase(ChatCase):
    """A registry file with an npx agent and one for another platform, a fake npx on the
    PATH that records its arguments and runs the demo agent, and the user's agents.json."""

    def setUp(self):
        super().setUp()
        self.bin = os.path.join(self.dir, "bin")
        os.makedirs(self.bin)
        self.argv_file = os.path.join(self.dir, "argv")
        # A fake npx (and a user's agent script): records its arguments and runs the demo agent.
        recorder = ("#!/bin/sh\nprintf '%%s\\n' \"$0\" \"$@\" > %s\nexec %s --state-dir %s\n"
                    % (self.argv_file, AGENT, self.state))
        for name in ("npx", "my-agent"):
            path = os.path.join(self.bin, name)
            with open(path, "w") as f:
                f.write(recorder)
            os.chmod(path, 0o755)
        self.registry = os.path.join(self.dir, "registry.json")
        with open(self.registry, "w") as f:
            json.dump({"version": "1.0.0", "agents": [
                {"id": "claude", "name": "Claude Agent", "version": "0.85.1",
                 # Registry text is display data: an escape sequence must not reach the terminal.
                 "description": "ACP wrapper \u001b[2J\u001b]0;owned\u0007for Claude",
                 "distribution": {"npx": {"package": "@agentclientprotocol/claude-agent-acp@0.85.1",
                                          "args": ["--acp"], "env": {"CLAUDE_MODE": "acp"}}}},
                {"id": "far-away", "name": "Far Away", "version": "1.0.0", "description": "only for another platform",
                 "distribution": {"binary": {"plan9-mips": {"archive": "https://example.com/a.tar.gz", "cmd": "./a"}}}},
            ]}, f)
        os.makedirs(os.path.join(self.dir, "xdg-config", "acp"))
        self.env = dict(os.environ, PATH=self.bin + ":/usr/bin:/bin")

    def user_agents(self, document):
        with open(os.path.join(self.dir, "xdg-config", "acp", "agents.json"), "w") as f:
            json.dump(document, f)

    def recorded(self):
        with open(self.argv_file) as f:
            return f.read().split("\n")[:-1]


class AgentsByName(CatalogueCase):
    """acp-chat NAME, --agent NAME, the default and /agents, through libacp's catalogue:
    a registry file given with --registry and the user's agents.json."""

    def test_a_registry_name_runs_its_npx_distribution(self):
        # The issue's "acp-chat claude": a local registry file, npx found on the PATH.
        code, lines = self.run_chat(["hello there"], "--registry", self.registry, agent=["claude"], env=self.env)
        self.assertEqual(code, 0, lines)
        self.assertEqual(self.recorded(), [os.path.join(self.bin, "npx"), "-y",
                                           "@agentclientprotocol/claude-agent-acp@0.85.1", "--acp"])
        self.assertIn("You said: hello there", lines)
        # --agent NAME is the same.
        os.unlink(self.argv_file)
        code, lines = self.run_chat([], "--registry", self.registry, "--agent", "claude", agent=[], env=self.env)
        self.assertEqual(code, 0, lines)
        self.assertEqual(self.recorded()[1:3], ["-y", "@agentclientprotocol/claude-agent-acp@0.85.1"])

    def test_a_user_agent_wins_and_is_the_default(self):
        self.user_agents({"default": "claude", "agents": {
            "claude": {"command": os.path.join(self.bin, "my-agent"), "args": ["--mine"]}}})
        # No agent on the command line: the agents file's default, which is the user's own.
        code, lines = self.run_chat(["hello there"], "--registry", self.registry, agent=[], env=self.env)
        self.assertEqual(code, 0, lines)
        self.assertEqual(self.recorded(), [os.path.join(self.bin, "my-agent"), "--mine"])
        self.assertIn("You said: hello there", lines)

    def test_words_after_double_dash_are_a_command(self):
        code, lines = self.run_chat([], "--registry", self.registry, agent=["--", "claude"], env=self.env)
        self.assertEqual(code, 3)
        self.assertIn("could not start the agent `claude`", lines[0])
        self.assertFalse(os.path.exists(self.argv_file))

    def test_agents_lists_them_sanitised(self):
        self.user_agents({"agents": {"mine": {"command": os.path.join(self.bin, "my-agent")}}})
        code, lines = self.run_chat(["/agents"], "--registry", self.registry, agent=["claude"], env=self.env)
        self.assertEqual(code, 0, lines)
        listing = [line for line in lines if line.startswith(("* ", "  mine", "  far-away"))]
        self.assertEqual(listing[0], "  mine  (agents.json)")
        self.assertTrue(listing[1].startswith("* claude  Claude Agent 0.85.1  (npx): ACP wrapper "), listing)
        self.assertTrue(listing[1].endswith("for Claude"), listing)
        self.assertEqual(listing[2], "  far-away  Far Away 1.0.0  (binary): only for another platform")
        self.assertNotIn("\x1b", "\n".join(lines))
        self.assertNotIn("\x07", "\n".join(lines))

    def test_what_is_missing_is_said(self):
        code, _ = self.run_chat([], "--registry", self.registry, "--agent", "nobody", agent=[], env=self.env)
        self.assertEqual(code, 2)
        result = subprocess.run([CHAT, "--registry", self.registry, "claude"], capture_output=True, text=True,
                                timeout=GUARD_SECONDS, env=dict(self.env, PATH="/nonexistent"))
        self.assertEqual(result.returncode, 3)
        self.assertIn("agent 'claude' cannot run here: npx is not on the PATH (/nonexistent)", result.stderr)
        result = subprocess.run([CHAT, "--registry", self.registry, "far-away"], capture_output=True, text=True,
                                timeout=GUARD_SECONDS, env=self.env)
        self.assertEqual(result.returncode, 3)
        self.assertIn("no build for", result.stderr)
        result = subprocess.run([CHAT, "--registry", os.path.join(self.dir, "missing.json")], capture_output=True,
                                text=True, timeout=GUARD_SECONDS, env=self.env)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--registry", result.stderr)


class RegistryFetch(CatalogueCase):
    """--registry URL: fetched over https from a TLS server on 127.0.0.1 (a test CA given
    with --ca-file), cached with its age, the cache used while fresh and when the fetch
    fails, then the bundled snapshot; http is refused."""

    def setUp(self):
        super().setUp()
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers"))
        from registry_server import RegistryServer
        with open(self.registry, "rb") as f:
            self.server = RegistryServer(self.dir, f.read())
        self.ca, self.url, self.requests = self.server.ca_file, self.server.url, self.server.requests
        self.cache = os.path.join(self.dir, "xdg-cache", "acp", "registry.json")
        self.env["XDG_CACHE_HOME"] = os.path.join(self.dir, "xdg-cache")

    def tearDown(self):
        self.server.stop()
        super().tearDown()

    def chat(self, url, *flags):
        return subprocess.run([CHAT, "--cwd", "/tmp/project", "--registry", url, "--ca-file", self.ca, *flags, "claude"],
                              input="hello there\n", capture_output=True, text=True, timeout=GUARD_SECONDS, env=self.env)

    def test_fetched_cached_and_reused(self):
        result = self.chat(self.url)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "")
        self.assertIn("You said: hello there", result.stdout)
        self.assertEqual(self.recorded()[2], "@agentclientprotocol/claude-agent-acp@0.85.1")
        self.assertEqual(self.requests, ["/registry.json"])
        self.assertTrue(os.path.isfile(self.cache))
        # Younger than --registry-max-age: from the cache, no request.
        result = self.chat(self.url)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.requests, ["/registry.json"])
        # Older (max age 0): fetched again.
        result = self.chat(self.url, "--registry-max-age", "0")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(len(self.requests), 2)

    def test_a_failed_fetch_falls_back_to_the_cache_then_the_snapshot(self):
        missing = self.url.replace("registry.json", "missing.json")
        # No cache yet: the snapshot built into libacp, which has no "claude" (it has claude-acp).
        result = self.chat(missing)
        self.assertEqual(result.returncode, 3, result.stderr)  # "claude" is not known there: a command
        self.assertIn("fetching %s failed" % missing, result.stderr)
        self.assertIn("using the registry snapshot built into libacp", result.stderr)
        self.assertIn("could not start the agent `claude`", result.stdout)
        self.assertFalse(os.path.exists(self.cache))
        self.assertEqual(self.chat(self.url).returncode, 0)
        # The cache, however old, when the fetch fails.
        result = self.chat(missing, "--registry-max-age", "0")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("using the cached registry %s" % self.cache, result.stderr)
        self.assertIn("You said: hello there", result.stdout)

    def test_a_registry_files_binary_agent_installs_with_the_ca(self):
        # A registry file (no URL): its binary build's archive is still fetched over https,
        # with the CAs of --ca-file. An agent command after -- has no use for them.
        with tarfile.open(os.path.join(self.server.archives, "demo.tar.gz"), "w:gz") as t:
            t.add(AGENT, arcname="bin/agent")
        with open(os.path.join(self.server.archives, "demo.tar.gz"), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        target = "linux-" + {"x86_64": "x86_64", "aarch64": "aarch64"}[platform.machine()]
        registry = os.path.join(self.dir, "binary-registry.json")
        with open(registry, "w") as f:
            json.dump({"version": "1.0.0", "agents": [{"id": "demo-bin", "name": "Demo", "version": "1.0.0",
                "distribution": {"binary": {target: {"archive": self.server.archive_url + "demo.tar.gz",
                                                     "sha256": digest, "cmd": "./bin/agent",
                                                     "args": ["--state-dir", self.state]}}}}]}, f)
        result = subprocess.run([CHAT, "--cwd", "/tmp/project", "--registry", registry, "--ca-file", self.ca, "demo-bin"],
                                input="/echo installed\n", capture_output=True, text=True, timeout=GUARD_SECONDS,
                                env=self.env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"(?m)^installed$")  # the turn's reply, from the installed agent
        self.assertEqual(self.requests, ["/archives/demo.tar.gz"])
        result = subprocess.run([CHAT, "--ca-file", self.ca, "--", AGENT], input="", capture_output=True, text=True,
                                timeout=GUARD_SECONDS, env=self.env)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--ca-file goes with --connect, a --registry URL or an agent by name", result.stderr)

    def test_http_and_a_wrong_ca_are_refused(self):
        # Plain http is never fetched, not even from 127.0.0.1.
        result = self.chat(self.url.replace("https:", "http:"))
        self.assertIn("the registry URL is not https", result.stderr)
        # The system's CAs do not know the test CA.
        result = subprocess.run([CHAT, "--registry", self.url, "claude"], input="", capture_output=True, text=True,
                                timeout=GUARD_SECONDS, env=self.env)
        self.assertIn("fetching %s failed" % self.url, result.stderr)
        self.assertFalse(os.path.exists(self.cache))


class Screen:
    """acp-chat in a pseudo-terminal: what it printed so far, and keys to type."""

    def __init__(self, argv, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(argv[0], argv, env)
        self.output = b""

    def wait_for(self, pattern, after=0):
        """Reads until pattern (a regex) matches the output after offset `after`; returns the match end."""
        deadline = time.monotonic() + GUARD_SECONDS
        regex = re.compile(pattern.encode())
        while True:
            m = regex.search(self.output, after)
            if m:
                return m.end()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"never saw {pattern!r}; the screen shows:\n{self.text()}")
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if ready:
                try:
                    data = os.read(self.fd, 4096)
                except OSError:
                    data = b""
                if not data:
                    raise AssertionError(f"acp-chat ended before {pattern!r}; the screen shows:\n{self.text()}")
                self.output += data

    def type(self, keys):
        """Types keys, reading the screen meanwhile so neither side waits on a full buffer."""
        data = keys.encode()
        while data:
            _, writable, _ = select.select([], [self.fd], [], GUARD_SECONDS)
            if writable:
                written = os.write(self.fd, data[:512])
                data = data[written:]
            ready, _, _ = select.select([self.fd], [], [], 0)
            if ready:
                try:
                    self.output += os.read(self.fd, 65536)
                except OSError:
                    pass

    def text(self):
        return self.output.decode(errors="replace")

    def exit_code(self):
        # Drain what is left so the child never blocks on a full terminal; a child that
        # does not end within GUARD_SECONDS is killed and the test fails saying so.
        deadline = time.monotonic() + GUARD_SECONDS
        while True:
            remaining = deadline - time.monotonic()
            ready = select.select([self.fd], [], [], max(remaining, 0))[0] if remaining > 0 else []
            if not ready:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                os.close(self.fd)
                raise AssertionError(f"acp-chat did not end; the screen shows:\n{self.text()}")
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                break
            if not data:
                break
            self.output += data
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


class Terminal(ChatCase):
    def screen(self, *, no_color=False, delay=30):
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env["TERM"] = "xterm"
        if no_color:
            env["NO_COLOR"] = "1"
        argv = [CHAT, "--cwd", "/tmp/project", *self.agent(delay=delay)]
        return Screen(argv, env)

    def test_permission_key_streaming_and_ctrl_c(self):
        s = self.screen()
        at = s.wait_for(r"session demo-1 in /tmp/project")
        at = s.wait_for(r"> ", at)
        s.type("hello there\r")
        # The reply streams in, coloured; the permission question takes a single key.
        at = s.wait_for(r"\[1\] \(allow_once\) Allow once\r\n  \[2\] \(allow_always\) Always allow\r\n"
                        r"  \[3\] \(reject_once\) Reject\r\n"
                        r"  \(press 1-3, y = allow_once, n = reject_once; Ctrl-C cancels\) ", at)
        self.assertIn("\x1b[2mthinking: \x1b[0m", s.text())  # thoughts dimmed
        self.assertIn("  | \x1b[0m\x1b[32m+- hello there\x1b[0m", s.text())  # diffs coloured
        s.type("2")
        at = s.wait_for(r"Always allow\x1b\[0m", at)
        at = s.wait_for(r"\| \x1b\[0m1 file checked, 0 problems", at)  # terminal output
        # Usage and cost as the agent reports them, during the turn (before its status line).
        at = s.wait_for(r"\x1b\[2musage: 1044/200000 tokens \| 0.0010 USD\x1b\[0m", at)
        # On a terminal the status line also says how long the turn took.
        at = s.wait_for(r"-- end_turn \| demo-1 \| hello there \| 1044/200000 tokens \| 0.0010 USD \| \d+\.\d s --", at)
        at = s.wait_for(r"> ", at)

        # A long streaming turn: numbers arrive one by one until Ctrl-C cancels it.
        # The first line follows the blanked "waiting for the agent..." (a carriage return).
        s.type("/count 1000\r")
        at = s.wait_for(r"[\r\n]1\r?\n", at)
        at = s.wait_for(r"\n3\r?\n", at)
        s.type("\x03")
        at = s.wait_for(r"\^C cancelling the turn", at)
        at = s.wait_for(r"-- cancelled \| demo-1", at)
        self.assertNotIn("\n1000", s.text())

        # Ctrl-C at the prompt asks first, the second one quits.
        at = s.wait_for(r"> ", at)
        s.type("\x03")
        at = s.wait_for(r"press Ctrl-C again to quit", at)
        s.type("\x03")
        self.assertEqual(s.exit_code(), 0)

    def test_ctrl_c_at_the_permission_prompt_cancels_the_turn(self):
        s = self.screen(delay=0)
        at = s.wait_for(r"session demo-1 in /tmp/project")
        s.type("edit it\r")
        at = s.wait_for(r"Ctrl-C cancels\) ", at)
        s.type("\x03")
        at = s.wait_for(r"Add a line to NOTES.md \(edit\) \x1b\[31mcancelled", at)
        at = s.wait_for(r"-- cancelled \| demo-1", at)
        # The terminal is back in line mode: a whole line is read again.
        at = s.wait_for(r"> ", at)
        s.type("/echo back\r")
        at = s.wait_for(r"[\r\n]back\r?\n", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)

    def test_keys_typed_before_the_prompt_never_answer_it(self):
        s = self.screen(delay=30)
        at = s.wait_for(r"session demo-1 in /tmp/project")
        at = s.wait_for(r"> ", at)
        # "1" typed while the turn streams, before the question is on screen: discarded.
        s.type("hello there\r1")
        at = s.wait_for(r"permission: Edit NOTES.md\?", at)
        at = s.wait_for(r"Ctrl-C cancels\) ", at)
        s.type("3")
        at = s.wait_for(r"-> \(reject_once\) Reject", at)
        at = s.wait_for(r"-- end_turn \| demo-1", at)
        self.assertNotIn("Allow once\x1b[0m\r\n", s.text()[s.text().index("Ctrl-C cancels"):])
        self.assertNotIn("-> (allow_once) Allow once", s.text())
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)

    def test_a_second_permission_request_waits_its_turn(self):
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env["TERM"] = "xterm"
        s = Screen([CHAT, "--cwd", "/tmp/project", *self.agent("--two-permissions")], env)
        at = s.wait_for(r"session demo-1 in /tmp/project")
        s.type("edit it\r")
        at = s.wait_for(r"Edit NOTES.md\?", at)
        first = s.wait_for(r"Ctrl-C cancels\) ", at)
        # The second request is announced, not shown over the first.
        at = s.wait_for(r"another permission request waits its turn: Also run the checks\?", first)
        # The question on screen is asked again below the note: a key still answers it.
        at = s.wait_for(r"\[3\] \(reject_once\) Reject\r\n  \(press 1-3, y = allow_once, n = reject_once; Ctrl-C cancels\) ", at)
        s.type("1")
        at = s.wait_for(r"-> \(allow_once\) Allow once", at)
        at = s.wait_for(r"permission: Also run the checks\?", at)
        at = s.wait_for(r"Ctrl-C cancels\) ", at)
        s.type("3")
        at = s.wait_for(r"-> \(reject_once\) Reject", at)
        at = s.wait_for(r"The second question got reject-once.", at)
        at = s.wait_for(r"-- end_turn \| demo-1", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)

    def test_a_flood_of_permission_requests_is_bounded(self):
        # An agent asking 40 questions at once: one on screen, a bounded number waiting, the
        # rest answered "cancelled" at once; Ctrl-C answers the waiting ones.
        answers_file = os.path.join(self.dir, "answers.json")
        flood = f"""
import json, sys
answers = {{}}
def send(m):
    sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
def update(u):
    send({{"jsonrpc": "2.0", "method": "session/update", "params": {{"sessionId": "s1", "update": u}}}})
for line in sys.stdin:
    m = json.loads(line)
    method = m.get("method")
    if method == "initialize":
        send({{"jsonrpc": "2.0", "id": m["id"], "result": {{"protocolVersion": 2,
              "info": {{"name": "flood", "version": "1"}}, "capabilities": {{"session": {{}}}}}}}})
    elif method == "session/new":
        send({{"jsonrpc": "2.0", "id": m["id"], "result": {{"sessionId": "s1"}}}})
    elif method == "session/prompt":
        update({{"sessionUpdate": "state_update", "state": "running"}})
        send({{"jsonrpc": "2.0", "id": m["id"], "result": {{"messageId": "u1"}}}})
        for i in range(40):
            send({{"jsonrpc": "2.0", "id": "p%d" % i, "method": "session/request_permission",
                  "params": {{"sessionId": "s1", "title": "Question %d" % i,
                             "options": [{{"optionId": "ok", "name": "OK", "kind": "allow_once"}}]}}}})
    elif str(m.get("id", "")).startswith("p"):
        answers[m["id"]] = m["result"]["outcome"]["outcome"]
        if len(answers) == 40:
            with open({answers_file!r}, "w") as f:
                json.dump(answers, f)
            update({{"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled"}})
"""
        env = {k: v for k, v in os.environ.items()}
        env["TERM"] = "xterm"
        s = Screen([CHAT, "--cwd", "/tmp/project", "--", sys.executable, "-c", flood], env)
        at = s.wait_for(r"session s1 in /tmp/project")
        s.type("go\r")
        at = s.wait_for(r"permission: Question 0", at)
        at = s.wait_for(r"too many permission requests waiting", at)
        self.assertNotIn("permission: Question 1", s.text())
        s.type("\x03")
        at = s.wait_for(r"-- cancelled \| s1", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        with open(answers_file) as f:
            answers = json.load(f)
        self.assertEqual(sorted(set(answers.values())), ["cancelled"])

    def test_ctrl_c_at_a_prompt_sends_session_cancel_before_the_answer(self):
        log = os.path.join(self.dir, "traffic.ndjson")
        env = {k: v for k, v in os.environ.items()}
        env["TERM"] = "xterm"
        s = Screen([CHAT, "--cwd", "/tmp/project", "--log", log, *self.agent("--two-permissions")], env)
        at = s.wait_for(r"session demo-1 in /tmp/project")
        s.type("edit it\r")
        at = s.wait_for(r"waits its turn: Also run the checks\?", at)
        s.type("\x03")
        at = s.wait_for(r"-- cancelled \| demo-1", at)
        self.assertNotIn("permission: Also run the checks?", s.text())  # answered "cancelled" too, never shown
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        with open(log) as f:
            sent = [json.loads(line)["msg"] for line in f if json.loads(line)["dir"] == "in"]
        cancel = [i for i, m in enumerate(sent) if m.get("method") == "session/cancel"]
        answers = [i for i, m in enumerate(sent)
                   if "result" in m and m["result"].get("outcome", {}).get("outcome") == "cancelled"]
        self.assertEqual(len(cancel), 1, sent)
        self.assertEqual(len(answers), 2, sent)
        self.assertLess(cancel[0], answers[0])

    def test_ctrl_c_while_quitting_stops_the_agent_not_acp_chat(self):
        # An agent that outlives its stdin and ignores SIGTERM: each Ctrl-C during shutdown
        # takes the next step against its process group; acp-chat itself ends normally.
        pid_file = os.path.join(self.dir, "agent.pid")
        stubborn = (f"echo $$ > {pid_file}; trap '' TERM; {AGENT} --state-dir {self.state} --delay-ms 0; "
                    "while :; do sleep 1; done")
        env = {k: v for k, v in os.environ.items()}
        env["TERM"] = "xterm"
        s = Screen([CHAT, "--cwd", "/tmp/project", "--", "sh", "-c", stubborn], env)
        at = s.wait_for(r"session demo-1 in /tmp/project")
        s.type("/quit\r")
        at = s.wait_for(r"\(closing the agent\)", at)
        s.type("\x03")
        at = s.wait_for(r"asked the agent to stop; Ctrl-C again kills it", at)
        s.type("\x03")
        at = s.wait_for(r"killed the agent", at)
        self.assertEqual(s.exit_code(), 0)
        with open(pid_file) as f:
            group = int(f.read())
        # The group is gone once its last zombie is reaped (by init for the orphans).
        deadline = time.monotonic() + GUARD_SECONDS
        while True:
            try:
                os.killpg(group, 0)
            except ProcessLookupError:
                break
            self.assertLess(time.monotonic(), deadline, "the agent's process group outlived acp-chat")
            time.sleep(0.05)

    def test_no_color_turns_colours_off(self):
        s = self.screen(no_color=True, delay=0)
        at = s.wait_for(r"session demo-1 in /tmp/project")
        s.type("/echo plain\r")
        at = s.wait_for(r"-- end_turn \| demo-1 \| \d+\.\d s --", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        # Only the bracketed paste mode, on and off: that is not a colour.
        self.assertNotIn("\x1b[", re.sub("\x1b\\[\\?2004[hl]", "", s.text()))



def prompts_sent(log):
    """The text of every session/prompt in a --log file, in order."""
    with open(log) as f:
        records = [json.loads(line) for line in f]
    return ["".join(block.get("text", "") for block in r["msg"]["params"]["prompt"])
            for r in records if r["dir"] == "in" and r.get("msg", {}).get("method") == "session/prompt"]


# An agent that says something on its own a second after the session started, while the
# user is typing at the prompt.
LATE_AGENT = """
import json, sys, threading, time
lock = threading.Lock()
def send(m):
    with lock:
        sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
def update(u):
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": u}})
def later():
    time.sleep(1.0)
    update({"sessionUpdate": "agent_message_chunk", "messageId": "late",
            "content": {"type": "text", "text": "late news"}})  # no newline: still shown
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": 2,
              "info": {"name": "late", "version": "1"}, "capabilities": {"session": {}}}})
    elif m.get("method") == "session/new":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"sessionId": "s1"}})
        threading.Thread(target=later).start()
    elif m.get("method") == "session/prompt":
        update({"sessionUpdate": "state_update", "state": "running"})
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"messageId": "u1"}})
        update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
"""


class Editing(ChatCase):
    """The prompt line on a terminal: libedit's history and keys, bracketed paste, long lines."""

    def screen(self, *args):
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env["TERM"] = "xterm"
        self.log = os.path.join(self.dir, "traffic.ndjson")
        return Screen([CHAT, "--cwd", "/tmp/project", "--log", self.log, *args, *self.agent()], env)

    def test_up_arrow_recalls_the_previous_prompt_also_in_the_next_run(self):
        s = self.screen()
        at = s.wait_for(r"session demo-1 in /tmp/project")
        s.type("/echo first time\r")
        at = s.wait_for(r"-- end_turn \| demo-1", at)
        s.type("/echo second\r")
        at = s.wait_for(r"-- end_turn \| demo-1", at)
        # Keys before the prompt is up meet the terminal's cooked mode (a Ctrl-D there is
        # the kernel's end of file, not a key): wait for the prompt before each.
        at = s.wait_for(r"> ", at)
        # Up twice: the prompt before the last one, sent again as it was.
        s.type("\x1b[A\x1b[A\r")
        at = s.wait_for(r"-- end_turn \| demo-1", at)
        at = s.wait_for(r"> ", at)
        s.type("\x04")  # Ctrl-D on an empty line: the end of the input
        self.assertEqual(s.exit_code(), 0)
        self.assertEqual(prompts_sent(self.log), ["/echo first time", "/echo second", "/echo first time"])
        # The history outlives the run: the next acp-chat recalls it.
        with open(os.path.join(self.dir, "xdg-state", "acp-chat", "history")) as f:
            self.assertIn("second", f.read())
        s = self.screen()
        at = s.wait_for(r"session demo-\d in /tmp/project")
        at = s.wait_for(r"> ", at)
        s.type("\x1b[A\x1b[A\r")
        at = s.wait_for(r"-- end_turn", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        self.assertEqual(prompts_sent(self.log), ["/echo second"])

    def test_editing_keys_move_in_the_line(self):
        s = self.screen()
        at = s.wait_for(r"session demo-1 in /tmp/project")
        # Keys typed before the prompt is up meet the terminal's own line editing (a
        # Backspace would be the kernel's): wait for the prompt.
        at = s.wait_for(r"> ", at)
        # Left arrow three times, insert, Home, Ctrl-E (end), Backspace.
        s.type("/echo helo!!\x1b[D\x1b[D\x1b[Dl\x1b[H\x05\x7f\r")
        at = s.wait_for(r"-- end_turn \| demo-1", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        self.assertEqual(prompts_sent(self.log), ["/echo hello!"])

    def test_a_bracketed_paste_of_three_lines_is_one_prompt(self):
        s = self.screen()
        at = s.wait_for(r"session demo-1 in /tmp/project")
        at = s.wait_for(r"> ", at)  # in raw mode: no line discipline in the way
        self.assertIn("\x1b[?2004h", s.text())  # the terminal was asked to mark pastes
        # Terminals send a pasted newline as a carriage return, the same as Enter.
        s.type("\x1b[200~/echo line one\rline two\rline three\x1b[201~")
        at = s.wait_for(r"line two", at)
        with open(self.log) as f:
            self.assertNotIn("session/prompt", f.read())  # not sent before Enter
        s.type("\r")
        at = s.wait_for(r"-- end_turn \| demo-1", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        self.assertEqual(prompts_sent(self.log), ["/echo line one\nline two\nline three"])
        self.assertIn("\x1b[?2004l", s.text())  # and told to stop at the end

    def test_a_prompt_over_4_kib(self):
        s = self.screen()
        at = s.wait_for(r"session demo-1 in /tmp/project")
        at = s.wait_for(r"> ", at)  # in raw mode: no line discipline in the way
        long_text = "".join(chr(ord("a") + i % 26) for i in range(6000))
        s.type("/echo " + long_text + "\r")
        at = s.wait_for(r"-- end_turn \| demo-1", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        self.assertEqual(prompts_sent(self.log), ["/echo " + long_text])

    def test_output_while_typing_leaves_the_line_being_typed_intact(self):
        env = {k: v for k, v in os.environ.items()}
        env["TERM"] = "xterm"
        log = os.path.join(self.dir, "traffic.ndjson")
        s = Screen([CHAT, "--cwd", "/tmp/project", "--log", log, "--", sys.executable, "-c", LATE_AGENT], env)
        at = s.wait_for(r"session s1 in /tmp/project")
        at = s.wait_for(r"> ", at)
        s.type("typed so far")
        at = s.wait_for(r"typed so far", at)
        # The prompt line is erased, the news printed, the prompt and the text drawn below it.
        at = s.wait_for(r"\r\x1b\[Jlate news\r?\n", at)
        at = s.wait_for(r"> (\x1b\[0m)?typed so far", at)
        s.type(" and more\r")
        at = s.wait_for(r"-- end_turn \| s1", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        self.assertEqual(prompts_sent(log), ["typed so far and more"])

    def test_a_line_wrapped_on_a_narrow_terminal_is_erased_whole(self):
        env = {k: v for k, v in os.environ.items()}
        env["TERM"] = "xterm"
        log = os.path.join(self.dir, "traffic.ndjson")
        s = Screen([CHAT, "--cwd", "/tmp/project", "--log", log, "--", sys.executable, "-c", LATE_AGENT], env)
        fcntl.ioctl(s.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 20, 0, 0))  # 20 columns
        at = s.wait_for(r"session s1 in /tmp/project")
        at = s.wait_for(r"> ", at)
        typed = "y" * 50  # with the prompt, 52 columns: the cursor is two rows below the prompt's
        s.type(typed)
        at = s.wait_for(r"y{10}", at)
        at = s.wait_for(r"\r\x1b\[2A\x1b\[Jlate news\r?\n", at)
        s.type("\r")
        at = s.wait_for(r"-- end_turn \| s1", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        self.assertEqual(prompts_sent(log), [typed])

    def test_a_resized_terminal_gets_the_prompt_line_drawn_again(self):
        s = self.screen()
        at = s.wait_for(r"session demo-1 in /tmp/project")
        at = s.wait_for(r"> ", at)
        s.type("/echo " + "z" * 24)  # 30 characters
        at = s.wait_for(r"z{24}", at)
        fcntl.ioctl(s.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 20, 0, 0))  # SIGWINCH
        # Erased for the new width (32 columns are two rows of 20), drawn again.
        at = s.wait_for(r"\r\x1b\[1A\x1b\[J(\x1b\[[0-9;]*m)?> (\x1b\[0m)?/echo z", at)
        s.type("\r")
        at = s.wait_for(r"-- end_turn \| demo-1", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        self.assertEqual(prompts_sent(self.log), ["/echo " + "z" * 24])

    def test_a_paste_never_answers_a_permission_question(self):
        s = self.screen()
        at = s.wait_for(r"session demo-1 in /tmp/project")
        s.type("edit it\r")
        at = s.wait_for(r"Ctrl-C cancels\) ", at)
        s.type("\x1b[200~1 and 2\x1b[201~")
        s.type("3")
        at = s.wait_for(r"-> \(reject_once\) Reject", at)
        at = s.wait_for(r"-- end_turn \| demo-1", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        self.assertNotIn("-> (allow_once) Allow once", s.text())


class Markdown(ChatCase):
    def screen(self, *args):
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env["TERM"] = "xterm"
        return Screen([CHAT, "--cwd", "/tmp/project", *args, *self.agent()], env)

    def markdown_reply(self, *args):
        s = self.screen(*args)
        at = s.wait_for(r"session demo-1 in /tmp/project")
        s.type("/markdown\r")
        at = s.wait_for(r"-- end_turn \| demo-1", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        return s.text()

    def test_headings_emphasis_lists_code_and_links_are_styled(self):
        text = self.markdown_reply()
        self.assertIn("\x1b[0;1;35mMarkdown from the demo agent", text)  # a heading, without its #
        self.assertNotIn("# Markdown", text)
        self.assertIn("Some \x1b[0;1mbold\x1b[0m text, some \x1b[0;3memphasis\x1b[0m and a \x1b[0;36mcode span", text)
        self.assertNotIn("**bold**", text)
        self.assertIn("\u2022 first item", text)
        self.assertIn("\u2022 second item with a \x1b[0;4mlink\x1b[0m\x1b[0;2m (https://example.com/acp)", text)
        self.assertIn("1. one", text)
        self.assertIn("2. two", text)
        self.assertIn("| a quoted line", text)
        self.assertIn("  \x1b[36mint main() { return 0; }\x1b[0m", text)
        self.assertNotIn("```", text)
        self.assertIn("That is all.", text)  # the tail without a newline, at the end of the turn

    def test_plain_shows_the_markdown_as_sent(self):
        text = self.markdown_reply("--plain")
        self.assertIn("# Markdown from the demo agent", text)
        self.assertIn("Some **bold** text, some *emphasis* and a `code span`.", text)
        self.assertIn("```cpp", text)
        self.assertIn("- second item with a [link](https://example.com/acp)", text)
        self.assertNotIn("\x1b[0;", text)

    def test_markdown_into_a_pipe_has_no_colours(self):
        code, lines = self.run_chat(["/markdown"], "--markdown")
        self.assertEqual(code, 0)
        text = "\n".join(lines)
        self.assertIn("\n# Markdown from the demo agent\n", text)
        self.assertIn("\nSome bold text, some emphasis and a code span.\n", text)
        self.assertIn("\n\u2022 second item with a link (https://example.com/acp)\n", text)
        self.assertIn("\n  int main() { return 0; }\nThat is all.\n-- end_turn", text)
        self.assertNotIn("\x1b", text)


TERMINAL_AUTH_AGENT = """
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": 2,
              "info": {"name": "needs-login", "version": "1"}, "capabilities": {"session": {}},
              "authMethods": [
                  {"type": "terminal", "methodId": "quoted", "name": "Quoted login",
                   "args": ["--login", "it's $(here)"], "env": [{"name": "LOGIN_MODE", "value": "a b;c"}]},
                  {"type": "terminal", "methodId": "preload", "name": "Preloaded",
                   "env": [{"name": "LD_PRELOAD", "value": "/tmp/x.so"}, {"name": "LOGIN_MODE", "value": "1"},
                           {"name": "NODE_OPTIONS", "value": "--require /tmp/x.js"}, {"name": "PATH", "value": "/tmp"},
                           {"name": "PYTHONSTARTUP", "value": "/tmp/x.py"}, {"name": "BASH_ENV", "value": "/tmp/x.sh"},
                           {"name": "DYLD_INSERT_LIBRARIES", "value": "/tmp/x.dylib"}]},
                  {"type": "terminal", "methodId": "one", "name": "One",
                   "env": [{"name": "PERL5OPT", "value": "-Mx"}]},
                  {"type": "terminal", "methodId": "bad-env", "name": "Bad env",
                   "env": [{"name": "X;touch /tmp/pwned", "value": "1"}]}]}})
    elif m.get("method") == "session/new":
        send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32000, "message": "Authentication required"}})
"""


class TerminalAuth(ChatCase):
    def agent_file(self):
        path = os.path.join(self.dir, "needs_login.py")
        with open(path, "w") as f:
            f.write(TERMINAL_AUTH_AGENT)
        return path

    def test_terminal_logins_are_quoted_and_bad_env_names_refused(self):
        env = {k: v for k, v in os.environ.items()}
        env["TERM"] = "xterm"
        log = os.path.join(self.dir, "traffic.ndjson")
        s = Screen([CHAT, "--cwd", "/tmp/project", "--log", log, "--", sys.executable, self.agent_file()], env)
        self.assertEqual(s.exit_code(), 6)
        text = s.text().replace("\r\n", "\n")
        self.assertIn("  quoted (Quoted login): run this in a terminal, then start acp-chat again:\n"
                      f"    env LOGIN_MODE='a b;c' '{sys.executable}' '{self.agent_file()}' '--login' 'it'\\''s $(here)'\n",
                      text)
        self.assertIn("  bad-env (Bad env): refused, an environment name that is not [A-Za-z_][A-Za-z0-9_]*", text)
        # Variables that change what runs are named before the user runs the command; a
        # plain one (LOGIN_MODE) is not, nor is a method without any.
        self.assertIn("    env LD_PRELOAD='/tmp/x.so' LOGIN_MODE='1' NODE_OPTIONS='--require /tmp/x.js' PATH='/tmp' "
                      "PYTHONSTARTUP='/tmp/x.py' BASH_ENV='/tmp/x.sh' DYLD_INSERT_LIBRARIES='/tmp/x.dylib' "
                      f"'{sys.executable}' '{self.agent_file()}'\n"
                      "    careful: it sets LD_PRELOAD, NODE_OPTIONS, PATH, PYTHONSTARTUP, BASH_ENV, DYLD_INSERT_LIBRARIES,"
                      " which change what code runs (programs, libraries, startup files); check their values before"
                      " you run it\n", text)
        self.assertIn("\n    careful: it sets PERL5OPT, which changes what code runs (programs, libraries, startup files);"
                      " check its value before you run it\n", text)
        self.assertEqual(text.count("careful:"), 2, text)
        self.assertNotIn("touch /tmp/pwned", text)
        # Advertised: acp-chat on a terminal shows terminal logins.
        with open(log) as f:
            initialize = next(json.loads(line)["msg"] for line in f if '"initialize"' in line)
        self.assertEqual(initialize["params"]["capabilities"].get("auth"), {"terminal": {}})

    def test_not_advertised_in_scripted_mode(self):
        log = os.path.join(self.dir, "traffic.ndjson")
        code, lines = self.run_chat([], "--log", log, agent=["--", sys.executable, self.agent_file()])
        self.assertEqual(code, 6)
        self.assertIn("  quoted (Quoted login): ignored, a terminal login acp-chat did not ask for", lines)
        self.assertNotIn("it's", "\n".join(lines))
        with open(log) as f:
            initialize = next(json.loads(line)["msg"] for line in f if '"initialize"' in line)
        self.assertNotIn("auth", initialize["params"]["capabilities"])


# An agent that advertises embedded context and a command of its own and, given a file name,
# holds each turn until that file exists (the test creates it), so the test can type while
# a turn runs. It answers with the kinds of the prompt's blocks.
HOLDING_AGENT = """
import json, os, sys, time
RELEASE = sys.argv[1] if len(sys.argv) > 1 else None
def send(m):
    sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
def update(u):
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": u}})
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": 2,
              "info": {"name": "holding", "version": "1"},
              "capabilities": {"session": {"prompt": {"embeddedContext": {}, "image": {}}}}}})
    elif m.get("method") == "session/new":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"sessionId": "s1"}})
        update({"sessionUpdate": "available_commands_update", "availableCommands": [
            {"type": "command", "name": "summarize", "description": "Summarise"}]})
    elif m.get("method") == "session/prompt":
        update({"sessionUpdate": "state_update", "state": "running"})
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"messageId": "u1"}})
        while RELEASE and not os.path.exists(RELEASE):
            time.sleep(0.02)
        if RELEASE:
            os.unlink(RELEASE)
        kinds = " ".join(b["type"] for b in m["params"]["prompt"])
        update({"sessionUpdate": "agent_message_chunk", "messageId": "a" + str(m["id"]),
                "content": {"type": "text", "text": "blocks: " + kinds + "\\n"}})
        update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
"""


def prompt_blocks(log):
    """The content blocks of every session/prompt in a --log file, in order."""
    with open(log) as f:
        records = [json.loads(line) for line in f]
    return [r["msg"]["params"]["prompt"] for r in records
            if r["dir"] == "in" and r.get("msg", {}).get("method") == "session/prompt"]


class DailyDriver(ChatCase):
    """What a new user meets first on a terminal (issue 30): keys that send escape sequences,
    type-ahead during a turn, a sign of work, Tab completion and files in prompts."""

    def setUp(self):
        super().setUp()
        self.project = os.path.join(self.dir, "project")
        os.makedirs(os.path.join(self.project, "src"))
        with open(os.path.join(self.project, "notes-file.md"), "w") as f:
            f.write("# Notes\nremember the milk\n")
        with open(os.path.join(self.project, "src", "main.c"), "w") as f:
            f.write("int main(void) { return 0; }\n")
        with open(os.path.join(self.dir, "secret.txt"), "w") as f:
            f.write("outside the project\n")
        self.log = os.path.join(self.dir, "traffic.ndjson")
        self.release = os.path.join(self.dir, "release")

    def screen(self, term="xterm-256color", agent=None):
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env["TERM"] = term
        return Screen([CHAT, "--cwd", self.project, "--log", self.log, *(agent or self.agent())], env)

    def fresh_run(self, name):
        """A run of its own: the demo agent's state and the log start empty."""
        self.state = os.path.join(self.dir, name + "-state")
        self.log = os.path.join(self.dir, name + ".ndjson")

    def holding_agent(self, hold=True):
        path = os.path.join(self.dir, "holding_agent.py")
        with open(path, "w") as f:
            f.write(HOLDING_AGENT)
        return ["--", sys.executable, path, *([self.release] if hold else [])]

    def test_keys_that_send_escape_sequences_insert_nothing(self):
        # What xterm, tmux and screen send for these keys, in their normal and application
        # modes: Ctrl/Alt/Shift-arrows, PageUp/PageDown, Home/End in both forms, Insert,
        # F1-F12, Shift-Tab, Alt through a second Esc, rxvt's Ctrl-arrows.
        keys = ["\x1b[1;5D", "\x1b[1;5C", "\x1b[1;3D", "\x1b[1;3C", "\x1b[1;2A", "\x1b[1;5A", "\x1b[5~",
                "\x1b[6~", "\x1b[5;5~", "\x1b[1~", "\x1b[4~", "\x1b[7~", "\x1b[8~", "\x1bOH", "\x1bOF",
                "\x1b[H", "\x1b[F", "\x1b[2~", "\x1bOP", "\x1bOQ", "\x1b[15~", "\x1b[24~", "\x1b[Z",
                "\x1b\x1b[D", "\x1b\x1b[C", "\x1bOd", "\x1bOc", "\x1bOC", "\x1bOD", "\x1b[1;5H", "\x1b[99;9z"]
        for term in ("xterm-256color", "screen-256color"):
            with self.subTest(term=term):
                self.fresh_run(term)
                s = self.screen(term)
                at = s.wait_for(r"session demo-1 in ")
                at = s.wait_for(r"> ", at)
                s.type("/echo kept" + "".join(keys) + "\x1b[F\r")
                at = s.wait_for(r"-- end_turn \| demo-1", at)
                s.type("/quit\r")
                self.assertEqual(s.exit_code(), 0)
                self.assertEqual(prompts_sent(self.log), ["/echo kept"])

    def test_ctrl_left_and_right_move_by_word(self):
        forms = {"xterm-256color": ("\x1b[1;5D", "\x1b[1;5C"), "screen-256color": ("\x1b[1;3D", "\x1b[1;3C")}
        for term, (left, right) in forms.items():
            with self.subTest(term=term):
                self.fresh_run(term)
                s = self.screen(term)
                at = s.wait_for(r"session demo-1 in ")
                at = s.wait_for(r"> ", at)
                # Two words left: before "two"; one right: past it; End, Left, Delete: the "!" goes.
                s.type("/echo one two three!" + left + left + "X" + right + "Y" + "\x1b[4~\x1b[D\x1b[3~" + "\r")
                at = s.wait_for(r"-- end_turn \| demo-1", at)
                s.type("/quit\r")
                self.assertEqual(s.exit_code(), 0)
                self.assertEqual(prompts_sent(self.log), ["/echo one XtwoY three"])

    def test_type_ahead_waits_unechoed_and_a_sign_of_work_comes_first(self):
        s = self.screen(agent=self.holding_agent())
        at = s.wait_for(r"session s1 in ")
        at = s.wait_for(r"> ", at)
        s.type("first\r")
        # Between Enter and the agent's first output: a sign of work, erased when output starts.
        at = s.wait_for(r"waiting for the agent\.\.\.", at)
        s.type("typed ahead")
        with open(self.release, "w"):
            pass
        at = s.wait_for(r"\r {24}\rblocks: text", at)
        at = s.wait_for(r"-- end_turn \| s1", at)
        turn = s.output[:at].decode(errors="replace")
        self.assertNotIn("typed ahead", turn)  # the terminal did not echo it into the turn
        # It is the next prompt's text, in the prompt line.
        at = s.wait_for(r"> (\x1b\[0m)?typed ahead", at)
        s.type(" too\r")
        with open(self.release, "w"):
            pass
        at = s.wait_for(r"-- end_turn \| s1", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        self.assertEqual(prompts_sent(self.log), ["first", "typed ahead too"])

    def test_tab_completes_commands_and_paths(self):
        s = self.screen()
        at = s.wait_for(r"session demo-1 in ")
        at = s.wait_for(r"> ", at)
        # acp-chat's own command, then the agent's (/echo), then a file and a directory.
        s.type("/he\t\r")
        at = s.wait_for(r"commands:", at)
        at = s.wait_for(r"> ", at)
        # libedit redraws only what changed: the line is checked where it arrives.
        s.type("/ec\tsee @no\t@sr\tma\t\r")
        at = s.wait_for(r"-- end_turn \| demo-1", at)
        # Ambiguous: the choices (acp-chat's and the agent's /count) are listed above the
        # line, which is drawn again.
        at = s.wait_for(r"> ", at)
        s.type("/c\t")
        at = s.wait_for(r"/close  /config  /count  /cwd\r*\n", at)
        s.type("\x15/quit\r")  # Ctrl-U: the line emptied first
        self.assertEqual(s.exit_code(), 0)
        self.assertEqual(prompts_sent(self.log), ["/echo see @notes-file.md @src/main.c "])
        # Paths complete only inside the cwd: no "..".
        self.assertEqual(prompt_blocks(self.log)[0][1]["type"], "resource_link")

    def test_tab_completes_session_ids_after_resume(self):
        # A session of an earlier run, known only from session/list.
        code, lines = self.run_chat(["/echo first run"], "--cwd", self.project)
        self.assertEqual(code, 0, lines)
        s = self.screen()
        at = s.wait_for(r"session demo-2 in ", 0)
        at = s.wait_for(r"> ", at)
        s.type("/resume d\t")
        at = s.wait_for(r"emo-", at)  # what both share, then the choices
        s.type("\t")
        at = s.wait_for(r"demo-1  demo-2\r*\n", at)
        s.type("1\r")
        at = s.wait_for(r"first run", at)  # its history replayed
        at = s.wait_for(r"> ", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)

    def test_agent_text_wraps_at_word_boundaries_at_60_columns_then_40(self):
        text = " ".join("word%d" % i + "x" * (i % 7) for i in range(40))  # 40 words of 5 to 12 letters
        s = self.screen()
        fcntl.ioctl(s.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 60, 0, 0))
        at = s.wait_for(r"session demo-1 in ")
        at = s.wait_for(r"> ", at)
        for columns in (60, 40):  # 40: the terminal resized (SIGWINCH) between two turns
            if columns != 60:
                fcntl.ioctl(s.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
            s.type("/echo " + text + "\r")
            start = s.wait_for(r"\r {24}\r", at)  # the sign of work erased: the reply follows
            end = s.wait_for(r"-- end_turn \| demo-1", start)
            reply = re.sub(r"\x1b\[[0-9;]*m", "", s.output[start:end].decode(errors="replace"))
            rows = [row for row in reply.split("\r\n") if row and not row.startswith("--")]
            self.assertGreater(len(rows), 2, rows)
            for row in rows:
                self.assertLessEqual(len(row), columns, rows)
            self.assertTrue(any(len(row) > columns - 12 for row in rows), rows)  # the whole width is used
            # Broken only between words: every word whole, in order.
            self.assertEqual(" ".join(rows).split(), text.split())
            at = s.wait_for(r"> ", end)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)

    def test_resume_shows_the_last_turns_and_history_all_of_them(self):
        words = ["one", "two", "three", "four", "five"]
        code, lines = self.run_chat(["/echo turn " + w for w in words], "--cwd", self.project)
        self.assertEqual(code, 0, lines)
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env["TERM"] = "xterm-256color"
        s = Screen([CHAT, "--cwd", self.project, "--resume", "demo-1", *self.agent()], env)
        at = s.wait_for(r"resumed demo-1, its last 3 turns \(2 turns before not shown; /history shows all\):")
        at = s.wait_for(r"\nturn five\r\n", at)
        at = s.wait_for(r"> ", at)
        resumed = s.output[:at].decode(errors="replace")
        # A summary, not the whole history: the first two turns are not on screen.
        self.assertNotIn("turn one", resumed)
        self.assertNotIn("turn two", resumed)
        self.assertLess(resumed.index("/echo turn three"), resumed.index("/echo turn four"))
        self.assertLess(resumed.index("/echo turn four"), resumed.index("/echo turn five"))
        # /history: every turn, in order.
        s.type("/history\r")
        start = s.wait_for(r"session demo-1, its history \(5 turns\):", at)
        at = s.wait_for(r"\nturn five\r\n", start)
        shown = s.output[start:at].decode(errors="replace")
        positions = [shown.index("/echo turn " + w) for w in words]
        self.assertEqual(positions, sorted(positions), shown)
        for w in words:
            self.assertIn("\nturn " + w + "\r\n", shown)
        # /history N: the last N.
        s.type("/history 1\r")
        start = s.wait_for(r"session demo-1, its last 1 turn \(4 turns before not shown; /history shows all\):", at)
        at = s.wait_for(r"\nturn five\r\n", start)
        self.assertNotIn("turn four", s.output[start:at].decode(errors="replace"))
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)

    def test_image_sends_an_image_block_typed_by_its_bytes(self):
        png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 20
        with open(os.path.join(self.project, "shot.dat"), "wb") as f:
            f.write(png)
        with open(os.path.join(self.project, "big.png"), "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + b"\x00" * (5 * 1024 * 1024))
        code, lines = self.run_chat(["/image shot.dat what is this", "/image notes-file.md", "/image big.png"],
                                    "--cwd", self.project, "--log", self.log, agent=self.holding_agent(hold=False))
        self.assertEqual(code, 0, lines)
        self.assertIn("blocks: text image", lines)
        self.assertIn("not sent: " + os.path.join(self.project, "notes-file.md") +
                      " is not a PNG, JPEG, GIF or WebP image", lines)
        self.assertTrue(any(line.startswith("not sent: ") and "is larger than 5242880 bytes" in line for line in lines))
        blocks = prompt_blocks(self.log)
        self.assertEqual(len(blocks), 1)
        self.assertEqual(blocks[0][0], {"type": "text", "text": "what is this"})
        self.assertEqual(blocks[0][1]["mimeType"], "image/png")
        self.assertEqual(base64.b64decode(blocks[0][1]["data"]), png)
        # The demo agent advertises no images: refused before sending.
        code, lines = self.run_chat(["/image shot.dat"], "--cwd", self.project)
        self.assertIn("the agent takes no images (it does not advertise prompt.image)", lines)

    def test_a_file_in_a_prompt_is_a_resource_where_the_agent_allows_it(self):
        # The agent advertises embeddedContext: the file's text goes with the prompt.
        code, lines = self.run_chat(["look at @notes-file.md.", "and @src/main.c @notes-file.md @src/main.c"],
                                    "--cwd", self.project, "--log", self.log, agent=self.holding_agent(hold=False))
        self.assertEqual(code, 0, lines)
        self.assertIn("blocks: text resource", lines)
        self.assertIn("blocks: text resource resource", lines)  # each file once
        blocks = prompt_blocks(self.log)
        self.assertEqual(blocks[0][0], {"type": "text", "text": "look at @notes-file.md."})
        resource = blocks[0][1]
        self.assertEqual(resource["type"], "resource")
        self.assertEqual(resource["resource"]["text"], "# Notes\nremember the milk\n")
        self.assertEqual(resource["resource"]["uri"], "file://" + os.path.realpath(self.project) + "/notes-file.md")
        self.assertEqual(blocks[1][1]["resource"]["text"], "int main(void) { return 0; }\n")

    @with_ts_peer
    def test_a_file_arrives_as_a_resource_at_the_typescript_sdk_peer(self):
        # The peer advertises embeddedContext and refuses a resource block otherwise: the
        # turn ending is the TypeScript SDK taking the block; its record shows what came.
        record = os.path.join(self.dir, "peer.ndjson")
        code, lines = self.run_chat(["hello @notes-file.md"], "--cwd", self.project,
                                    agent=["--", NODE, TS_AGENT, "--record=" + record])
        self.assertEqual(code, 0, lines)
        self.assertTrue(any(line.startswith("-- end_turn | sess-1") for line in lines), lines)
        with open(record) as f:
            received = [json.loads(line)["msg"] for line in f if json.loads(line)["dir"] == "in"]
        prompt = [m["params"]["prompt"] for m in received if m.get("method") == "session/prompt"][0]
        self.assertEqual(prompt[0], {"type": "text", "text": "hello @notes-file.md"})
        self.assertEqual(prompt[1]["type"], "resource")
        self.assertEqual(prompt[1]["resource"]["text"], "# Notes\nremember the milk\n")

    def test_a_file_is_a_link_without_embedded_context_and_never_from_outside(self):
        os.symlink(os.path.join(self.dir, "secret.txt"), os.path.join(self.project, "escape.txt"))
        # /echo: the demo agent asks no permission question, which would take the next lines.
        code, lines = self.run_chat(["/echo read @notes-file.md", "/echo read @../secret.txt", "/echo read @escape.txt",
                                     "/echo read @" + os.path.join(self.dir, "secret.txt"), "/echo read @src",
                                     "/echo ask @someone"],
                                    "--cwd", self.project, "--log", self.log)
        self.assertEqual(code, 0, lines)
        self.assertIn("attached notes-file.md (26 bytes, as a link)", lines)
        self.assertEqual(lines.count("not sent: @../secret.txt is outside the session's directories"), 1, lines)
        self.assertEqual(lines.count("not sent: @escape.txt is outside the session's directories"), 1, lines)
        self.assertIn("not sent: @src is not a regular file", lines)
        blocks = prompt_blocks(self.log)
        self.assertEqual(len(blocks), 2, lines)  # the first and "ask @someone" (no such file: text)
        self.assertEqual(blocks[0][1], {"type": "resource_link", "name": "notes-file.md", "size": 26,
                                        "uri": "file://" + os.path.realpath(self.project) + "/notes-file.md"})
        self.assertEqual(blocks[1], [{"type": "text", "text": "/echo ask @someone"}])
        self.assertNotIn("outside the project", open(self.log).read())



HOSTILE_REMOTE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers", "hostile_remote",
                              "server.py")


class RemoteTerminalLogin(ChatCase):
    def test_connect_never_advertises_or_shows_terminal_logins(self):
        # AGENT-MUST-04 / CLIENT-GUIDE 2.1: auth.terminal means "the client can re-run the
        # configured agent command"; with --connect acp-chat started no command.
        server = subprocess.Popen([sys.executable, HOSTILE_REMOTE, "--mode=terminal-login"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.addCleanup(server.wait)
        self.addCleanup(server.stdout.close)
        self.addCleanup(server.stdin.close)
        urls = json.loads(server.stdout.readline())
        env = dict(os.environ, TERM="xterm")
        log = os.path.join(self.dir, "traffic.ndjson")
        s = Screen([CHAT, "--log", log, "--connect", urls["ws"]], env)
        self.assertEqual(s.exit_code(), 6)
        text = s.text().replace("\r\n", "\n")
        self.assertIn("  tty-login (Terminal login): ignored, a terminal login acp-chat did not ask for", text)
        self.assertNotIn("--login", text)
        with open(log) as f:
            initialize = next(json.loads(line)["msg"] for line in f if '"initialize"' in line)
        self.assertNotIn("auth", initialize["params"]["capabilities"])


# Runs a foreground tool call and a background watcher; asks permission for the first
# (p1); after session/cancel asks again for both (p-bg for the watcher, p-fg for the
# foreground tool call), then ends the turn once every question is answered.
BACKGROUND_AGENT = """
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
def update(u):
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s-1", "update": u}})
def ask(rid, tool, title):
    send({"jsonrpc": "2.0", "id": rid, "method": "session/request_permission", "params": {
          "sessionId": "s-1", "title": title, "subject": {"type": "tool_call", "toolCall": {"toolCallId": tool}},
          "options": [{"optionId": "y", "name": "Yes", "kind": "allow_once"}]}})
background = [{"type": "tool_call", "toolCallId": "watch"}]
answered = set()
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": 2,
              "info": {"name": "background", "version": "1"}, "capabilities": {"session": {}}}})
    elif m.get("method") == "session/new":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"sessionId": "s-1"}})
    elif m.get("method") == "session/prompt":
        update({"sessionUpdate": "state_update", "state": "running", "background": background})
        update({"sessionUpdate": "user_message", "messageId": "u1", "content": [{"type": "text", "text": "go"}]})
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"messageId": "u1"}})
        update({"sessionUpdate": "tool_call_update", "toolCallId": "watch", "title": "Watch files", "status": "in_progress"})
        update({"sessionUpdate": "tool_call_update", "toolCallId": "edit", "title": "Edit a file", "status": "pending"})
        ask("p1", "edit", "First question")
    elif m.get("method") == "session/cancel":
        ask("p-bg", "watch", "Question of the watcher")
        ask("p-fg", "edit", "Question of the cancelled edit")
    elif "id" in m and "method" not in m:
        answered.add(m["id"])
        if answered >= {"p1", "p-bg", "p-fg"}:
            update({"sessionUpdate": "tool_call_update", "toolCallId": "edit", "status": "cancelled"})
            update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled",
                    "background": background})
"""


class ForegroundPermissions(ChatCase):
    def test_only_the_cancelled_turns_questions_are_answered_cancelled_unseen(self):
        # CLIENT-MUST-68: after session/cancel only requests known to be the cancelled
        # foreground work's may be answered "cancelled" without the user; the background
        # watcher's question is still put to the user.
        path = os.path.join(self.dir, "background.py")
        with open(path, "w") as f:
            f.write(BACKGROUND_AGENT)
        log = os.path.join(self.dir, "traffic.ndjson")
        code, lines = self.run_chat(["go"], "--log", log, agent=["--", sys.executable, path])
        text = "\n".join(lines)
        self.assertIn("permission: First question", text)
        self.assertIn("permission: Question of the watcher", text)
        self.assertNotIn("Question of the cancelled edit", text)
        with open(log) as f:
            sent = [json.loads(line)["msg"] for line in f if json.loads(line)["dir"] == "in"]
        answers = {m["id"]: m["result"]["outcome"]["outcome"] for m in sent if "result" in m and "id" in m
                   and isinstance(m["result"], dict) and "outcome" in m["result"]}
        self.assertEqual(answers.get("p-fg"), "cancelled", sent)
        self.assertIn("-- cancelled", text)


if __name__ == "__main__":
    unittest.main()
