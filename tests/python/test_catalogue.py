# SPDX-License-Identifier: Apache-2.0
"""The agent catalogue from Python: a registry given as JSON, a user agents file, and the
errors a host shows (docs/agents.md)."""
import json
import os
import tempfile
import unittest

import libacp

REGISTRY = json.dumps({"agents": [{"id": "npx-agent", "version": "1.0",
                                   "distribution": {"npx": {"package": "npx-agent@1.0", "args": ["--acp"]}}}]})


class CatalogueTest(unittest.TestCase):
    def test_user_agent_resolves_and_wins(self):
        with tempfile.TemporaryDirectory() as home:
            path = os.path.join(home, "agents.json")
            with open(path, "w") as f:
                json.dump({"default": "npx-agent", "agents": {"npx-agent": {"command": "/opt/mine", "args": ["--acp"],
                                                                            "env": {"A": "1"}}}}, f)
            agents = libacp.Catalogue(REGISTRY, path)
            listed = agents.list()
            self.assertEqual(listed["default"], "npx-agent")
            self.assertEqual([a["id"] for a in listed["agents"]], ["npx-agent"])
            self.assertTrue(listed["agents"][0]["user"])
            agent = agents.resolve("npx-agent")
            self.assertEqual(agent["kind"], "user")
            self.assertEqual(agent["argv"], ["/opt/mine", "--acp"])
            self.assertEqual(agent["env"], {"A": "1"})

    def test_missing_npx_and_unknown_ids_raise(self):
        agents = libacp.Catalogue(REGISTRY, "")
        old_path = os.environ["PATH"]
        with tempfile.TemporaryDirectory() as empty:
            os.environ["PATH"] = empty
            try:
                with self.assertRaises(libacp.Unsupported) as raised:
                    agents.resolve("npx-agent")
            finally:
                os.environ["PATH"] = old_path
        self.assertIn("npx is not on the PATH", str(raised.exception))
        with self.assertRaises(libacp.InvalidArgument):
            agents.resolve("nobody")

    def test_the_bundled_snapshot(self):
        ids = [a["id"] for a in libacp.Catalogue(None, "").list()["agents"]]
        self.assertIn("claude-acp", ids)


if __name__ == "__main__":
    unittest.main()
