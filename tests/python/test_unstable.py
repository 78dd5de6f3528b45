# SPDX-License-Identifier: Apache-2.0
"""ACP's unstable surface in the Python binding (unstable=True, unstable_call,
fork_session) against the TypeScript-SDK peer with --caps=unstable, which implements the
unstable methods with the SDK's own handlers (ACP_NODE, ACP_TS_AGENT)."""
import json
import os
import tempfile
import unittest

import libacp

NODE = os.environ.get("ACP_NODE", "node")
AGENT = os.environ.get("ACP_TS_AGENT", os.path.join(os.path.dirname(__file__), "..", "peers", "ts-agent",
                                                    "agent.mjs"))
TOOLS_AGENT = os.path.join(os.path.dirname(AGENT), "tools-agent.mjs")
V1_AGENT = os.path.join(os.path.dirname(AGENT), "agent-v1.mjs")


class UnstableTest(unittest.TestCase):
    def test_each_call_round_trips_with_the_opt_in(self):
        with libacp.Client([NODE, AGENT, "--caps=unstable"], unstable=True) as client:
            client.initialize()
            offer = client.unstable_offer()
            self.assertTrue(offer["fork"] and offer["title"] and offer["status"] and offer["providers"])
            created = client.unstable_call("session/new", {
                "cwd": "/tmp", "systemPrompt": {"mode": "append", "content": [{"type": "text", "text": "Be brief."}]}})
            source = created["sessionId"]
            titled = client.unstable_call("session/set_title", {"sessionId": source, "title": "First"})
            self.assertEqual(titled["title"], "First")
            status = client.unstable_call("session/status", {"sessionId": source})
            self.assertEqual(status["status"], "open")
            fork = client.fork_session(source, cwd="/tmp")
            self.assertNotEqual(fork.id, source)
            self.assertIn(fork.id, client.session_ids())
            client.unstable_call("session/archive", {"sessionId": fork.id})
            archived = client.unstable_call("session/list", {"archived": "only"})
            self.assertEqual([s["sessionId"] for s in archived["sessions"]], [fork.id])
            providers = client.unstable_call("providers/list")
            required = [p["providerId"] for p in providers["providers"] if p["required"]]
            self.assertTrue(required)
            # A required provider is never disabled: refused before sending.
            with self.assertRaises(libacp.InvalidArgument):
                client.unstable_call("providers/disable", {"providerId": required[0]})

    def test_auth_status_update_reaches_its_handler_with_the_opt_in(self):
        for unstable in (True, False):
            updates, notifications = [], []
            with libacp.Client([NODE, AGENT, "--caps=unstable"], unstable=unstable) as client:
                client.on_auth_status_update = updates.append
                client.on_notification = lambda method, params: notifications.append(method)
                client.initialize()
                session = client.new_session(cwd="/tmp")
                self.assertEqual(session.prompt("auth-update").wait(), "end_turn")
                if unstable:
                    self.assertEqual(updates, [{"state": "unauthenticated",
                                                "accounts": [{"label": "Pushed account", "active": False}]}])
                    self.assertNotIn("auth/status_update", notifications)
                    client.unstable_call("auth/status")
                    session.prompt("hello").wait()  # the update follows the answer
                    self.assertEqual(updates[-1], {"state": "authenticated"})
                else:
                    self.assertEqual(updates, [])
                    self.assertEqual(notifications, ["auth/status_update"])

    def test_without_the_opt_in_nothing_unstable_is_sent(self):
        with libacp.Client([NODE, AGENT, "--caps=unstable"]) as client:
            client.initialize()
            self.assertFalse(any(client.unstable_offer().values()))
            session = client.new_session(cwd="/tmp")
            with self.assertRaises(libacp.Unsupported):
                client.unstable_call("session/status", {"sessionId": session.id})
            with self.assertRaises(libacp.Unsupported):
                client.fork_session(session.id, cwd="/tmp")

    def test_a_fork_is_offered_its_own_tool_servers(self):
        calls = []
        other = libacp.ToolServer("other")

        @other.tool
        def where(args, call):
            """Where the call went"""
            calls.append(call.session_id)
            return "in the fork"
        with libacp.Client([NODE, TOOLS_AGENT], unstable=True) as client:
            client.initialize()
            source = client.new_session(cwd="/tmp")
            fork = client.fork_session(source.id, cwd="/tmp", tools=[other])
            self.assertEqual(fork.prompt("call where").wait(), "end_turn")
            texts = [item.text for item in fork.model().items if item.kind == "agent_message"]
            self.assertTrue(any('"text":"in the fork"' in text for text in texts), texts)
            self.assertEqual(calls, [fork.id])

    def test_a_v1_agent_through_the_c_api_keeps_the_hosts_meta(self):
        # The SDK's v1 unstable entry point: the same calls, v1 shapes on the wire.
        with tempfile.NamedTemporaryFile(suffix=".jsonl") as record:
            meta = {"host": "python"}
            with libacp.Client([NODE, V1_AGENT, "--caps=unstable", "--record=" + record.name], unstable=True) as client:
                self.assertEqual(client.initialize()["protocolVersion"], 1)
                offer = client.unstable_offer()
                self.assertTrue(offer["fork"] and offer["archive"] and offer["authStatus"] and offer["providers"])
                source = client.new_session(cwd="/tmp").id
                self.assertEqual(client.unstable_call("session/status", {"sessionId": source, "_meta": meta}),
                                 {"status": "open"})  # v1 has no state
                client.unstable_call("session/archive", {"sessionId": source, "_meta": meta})
                client.unstable_call("session/unarchive", {"sessionId": source, "_meta": meta})
                titled = client.unstable_call("session/set_title", {"sessionId": source, "title": " T ", "_meta": meta})
                self.assertEqual(titled["title"], "T")
                fork = client.fork_session(source, cwd="/tmp")
                self.assertIn(fork.id, client.session_ids())
                self.assertEqual(client.unstable_call("auth/status", {"_meta": meta})["state"], "authenticated")
            with open(record.name, encoding="utf-8") as lines:
                sent = [entry["msg"] for entry in map(json.loads, lines) if entry["dir"] == "in" and "msg" in entry]
            for method in ("session/status", "session/archive", "session/unarchive", "session/set_title", "auth/status"):
                self.assertEqual([m["params"].get("_meta") for m in sent if m.get("method") == method], [meta], method)


if __name__ == "__main__":
    unittest.main()
