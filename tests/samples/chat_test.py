#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""acp-chat end to end, against the demo agent.

Scripted: stdin is a pipe, so acp-chat reads one prompt or command per line and prints
plain lines, which are compared line by line. Terminal: acp-chat runs in a pseudo-terminal
(the stdlib pty module) and the test types at it like a user: a prompt whose permission
question is answered with one key, Ctrl-C cancelling a streaming turn, Ctrl-C twice to quit.

Paths come from the environment (CTest sets them): ACP_CHAT, ACP_DEMO_AGENT, and, for the
schema check of the --log traffic and a run against the TypeScript-SDK peer, ACP_NODE,
ACP_VALIDATE and ACP_TS_AGENT (optional).

Waits have a guard (the test fails instead of hanging) but nothing asserts on timing.
"""
import json
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

CHAT = os.environ["ACP_CHAT"]
AGENT = os.environ["ACP_DEMO_AGENT"]
NODE = os.environ.get("ACP_NODE", "")
VALIDATE = os.environ.get("ACP_VALIDATE", "")
TS_AGENT = os.environ.get("ACP_TS_AGENT", "")
GUARD_SECONDS = 30


class ChatCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="acp-chat-test-")
        self.state = os.path.join(self.dir, "state")

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
    "  diff --git /tmp/project/NOTES.md /tmp/project/NOTES.md",
    "  --- /tmp/project/NOTES.md",
    "  +++ /tmp/project/NOTES.md",
    "  @@ -1,2 +1,2 @@",
    "   # Notes",
    "  -- (nothing yet)",
    "  +- hello there",
    "permission: Edit NOTES.md?",
    "  The agent wants to add a line to NOTES.md.",
    "  [1] Allow once  [2] Always allow  [3] Reject",
    "1",
    "-> Allow once",
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
        self.assertIn("  [1] Allow once  [2] Always allow  [3] Reject\nn\n-> Reject\ntool: Add a line to NOTES.md (edit) failed\nOK, I left NOTES.md alone.\n"
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
        self.assertIn("resuming demo-1, its history:\nyou: hello there\nthinking: ", replay)
        self.assertIn("  +- hello there\n", replay)
        self.assertIn("you: /echo more\nmore\nresumed demo-1", replay)
        self.assertNotIn("permission:", replay)
        with open(first_dump) as f:
            first = json.load(f)
        with open(second_dump) as f:
            second = json.load(f)
        # The model rebuilt from the restarted agent's replay equals the live one.
        self.assertEqual(second["demo-1"], first["demo-1"])

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
        if NODE and VALIDATE:
            result = subprocess.run([NODE, VALIDATE, "--agent", log], capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            self.assertIn(" 0 invalid", result.stdout)

    @unittest.skipUnless(NODE and TS_AGENT, "needs node and the TypeScript-SDK peer")
    def test_another_agent(self):
        # Not only the demo agent: the peer built on the official TypeScript SDK.
        code, lines = self.run_chat(["hello", "permission", "1", "/quit"], agent=["--", NODE, TS_AGENT])
        self.assertEqual(code, 0)
        self.assertRegex(lines[0], r"^connected to libacp TS peer agent 1.0.0 \(ACP v2\)")
        text = "\n".join(lines)
        self.assertIn("> hello\nHello, world!\n-- end_turn | sess-1 --", text)
        self.assertIn("permission: Allow running rm -rf build?", text)
        self.assertIn("Permission granted (allow-once); the command ran.", text)


    @unittest.skipUnless(NODE and TS_AGENT, "needs node and the TypeScript-SDK peer")
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


class ExitCodes(ChatCase):
    def test_usage(self):
        code, _ = self.run_chat([], "--bogus")
        self.assertEqual(code, 2)

    def test_agent_cannot_start(self):
        code, lines = self.run_chat([], agent=["--", "/nonexistent/agent"])
        self.assertEqual(code, 3)
        self.assertIn("could not start the agent `/nonexistent/agent`", lines[0])

    def test_agent_exits_with_its_stderr_shown(self):
        code, lines = self.run_chat(["hello"], agent=["--", "sh", "-c", "echo 'no model configured' >&2; exit 7"])
        self.assertEqual(code, 4)
        self.assertEqual(lines[:2], ["the agent exited with code 7; its last output on stderr:", "no model configured"])

    def test_protocol_version_unsupported(self):
        # libacp speaks 2 and falls back to 1; an agent answering 7 is refused.
        code, lines = self.run_chat([], agent=self.agent("--protocol-version", "7"))
        self.assertEqual(code, 5)
        self.assertIn("protocolVersion 7", lines[0])

    def test_authentication_required_lists_the_methods(self):
        code, lines = self.run_chat(["hello"], agent=self.agent("--auth-required"))
        self.assertEqual(code, 6)
        self.assertEqual(lines[1:6], ["the agent requires authentication; it offers:",
                                      "  demo-login (Demo login: Always succeeds)",
                                      "  demo-terminal (Demo terminal login), in a terminal run:",
                                      f"    DEMO_LOGIN_USER=demo {AGENT} --state-dir {self.state} --delay-ms 0 --auth-required"
                                      " --login-terminal",
                                      "run acp-chat with --login METHOD"])
        # The terminal method works as printed: run it, and the agent lets sessions start.
        login = subprocess.run(lines[4].strip(), shell=True, capture_output=True, text=True, timeout=GUARD_SECONDS)
        self.assertEqual(login.returncode, 0, login.stderr)
        self.assertIn("logged in as demo", login.stdout)
        code, lines = self.run_chat(["/echo after terminal login"], agent=self.agent("--auth-required"))
        self.assertEqual(code, 0)
        self.assertIn("after terminal login", lines)
        shutil.rmtree(self.state)
        code, lines = self.run_chat(["/echo in"], "--login", "demo-login", agent=self.agent("--auth-required"))
        self.assertEqual(code, 0)
        self.assertIn("logged in with demo-login", lines)
        self.assertIn("in", lines)


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
        os.write(self.fd, keys.encode())

    def text(self):
        return self.output.decode(errors="replace")

    def exit_code(self):
        # Drain what is left so the child never blocks on a full terminal.
        while True:
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
        at = s.wait_for(r"\[1\] Allow once  \[2\] Always allow  \[3\] Reject  \(press a key; Ctrl-C cancels\) ", at)
        self.assertIn("\x1b[2mthinking: \x1b[0m", s.text())  # thoughts dimmed
        self.assertIn("  \x1b[32m+- hello there\x1b[0m", s.text())  # diffs coloured
        s.type("2")
        at = s.wait_for(r"Always allow\x1b\[0m", at)
        at = s.wait_for(r"\| \x1b\[0m1 file checked, 0 problems", at)  # terminal output
        at = s.wait_for(r"-- end_turn \| demo-1 \| hello there \| 1044/200000 tokens \| 0.0010 USD --", at)
        at = s.wait_for(r"> ", at)

        # A long streaming turn: numbers arrive one by one until Ctrl-C cancels it.
        s.type("/count 1000\r")
        at = s.wait_for(r"\n1\r?\n", at)
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
        at = s.wait_for(r"\(press a key; Ctrl-C cancels\) ", at)
        s.type("\x03")
        at = s.wait_for(r"Add a line to NOTES.md \(edit\) \x1b\[31mcancelled", at)
        at = s.wait_for(r"-- cancelled \| demo-1", at)
        # The terminal is back in line mode: a whole line is read again.
        at = s.wait_for(r"> ", at)
        s.type("/echo back\r")
        at = s.wait_for(r"\nback\r?\n", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)

    def test_no_color_turns_colours_off(self):
        s = self.screen(no_color=True, delay=0)
        at = s.wait_for(r"session demo-1 in /tmp/project")
        s.type("/echo plain\r")
        at = s.wait_for(r"-- end_turn \| demo-1 --", at)
        s.type("/quit\r")
        self.assertEqual(s.exit_code(), 0)
        self.assertNotIn("\x1b[", s.text())


if __name__ == "__main__":
    unittest.main()
