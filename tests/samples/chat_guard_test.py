#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""acp-chat against an agent that turns on libacp's guard process (issue 25).

The hostile agent (tests/peers/hostile_agent.cpp) starts children that ignore SIGTERM and
SIGHUP, then stops (SIGSTOP) or kills (SIGKILL) its parent, the guard. acp-chat must then
still exit at the end of its input, say what happened, and leave no process of the
agent's tree running.

Paths come from the environment (CTest sets them): ACP_CHAT, ACP_HOSTILE_AGENT.
Waits have a guard (the test fails instead of hanging) but nothing asserts on timing.
"""
import os
import shutil
import subprocess
import tempfile
import time
import unittest

CHAT = os.environ["ACP_CHAT"]
HOSTILE_AGENT = os.environ["ACP_HOSTILE_AGENT"]
GUARD_SECONDS = 30
ROLES = ("agent", "child-ignoring-sigterm", "orphan-ignoring-sigterm", "guard")


def recorded(pid_file):
    """{role: pid} the agent's processes appended to the pid file so far."""
    entries = {}
    try:
        with open(pid_file) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    entries[parts[0]] = int(parts[1])
    except FileNotFoundError:
        pass
    return entries


def alive(pid):
    """Running (a zombie nobody reaped yet counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


class GuardAttack(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="acp-chat-guard-")
        self.pids = os.path.join(self.dir, "pids")

    def tearDown(self):
        for pid in recorded(self.pids).values():
            if alive(pid):
                os.kill(pid, 9)
        shutil.rmtree(self.dir, ignore_errors=True)

    def chat_until_end_of_input(self, mode):
        """acp-chat's stdin closes once the attack is done; returns (exit code, output)."""
        chat = subprocess.Popen([CHAT, "--", HOSTILE_AGENT, mode, "--pid-file", self.pids],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + GUARD_SECONDS
        while not all(role in recorded(self.pids) for role in ROLES) and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertTrue(all(role in recorded(self.pids) for role in ROLES), recorded(self.pids))
        try:
            # Closes acp-chat's stdin (the end of its input), then reads until it exits.
            output, _ = chat.communicate(timeout=GUARD_SECONDS)
        except subprocess.TimeoutExpired:
            chat.kill()
            self.fail("acp-chat did not exit at the end of its input")
        return chat.returncode, output.decode("utf-8", "replace")

    def survivors(self):
        deadline = time.monotonic() + 20
        left = {}
        while time.monotonic() < deadline:
            left = {role: pid for role, pid in recorded(self.pids).items() if alive(pid)}
            if not left:
                break
            time.sleep(0.02)
        return left

    def test_stopped_guard(self):
        code, output = self.chat_until_end_of_input("stop-guard")
        self.assertEqual(self.survivors(), {})
        self.assertIn("the agent stopped the guard process", output)

    def test_killed_guard(self):
        code, output = self.chat_until_end_of_input("kill-guard")
        self.assertEqual(self.survivors(), {})
        self.assertIn("the guard process was killed by signal 9", output)
        self.assertNotEqual(code, 0)


if __name__ == "__main__":
    unittest.main()
