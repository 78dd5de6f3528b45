# SPDX-License-Identifier: Apache-2.0
"""The agent catalogue from Python: a registry given as JSON, a user agents file, and the
errors a host shows (docs/agents.md)."""
import json
import os
import sys
import tempfile
import unittest

import libacp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers"))
from registry_server import RegistryServer  # noqa: E402

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


class FetchTest(unittest.TestCase):
    """Catalogue.fetch: the registry over https from 127.0.0.1 (a test CA), cached, and
    resolved; http refused. Needs a build with ACP_WITH_REMOTE (CTest says so in
    ACP_WITH_REMOTE); without it the fetch must fall back and say why."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="acp-python-fetch-")
        self.server = RegistryServer(self.dir)
        self.cache = os.path.join(self.dir, "cache", "registry.json")
        bin_dir = os.path.join(self.dir, "bin")
        os.makedirs(bin_dir)
        with open(os.path.join(bin_dir, "npx"), "w") as f:  # resolving npx needs one on the PATH
            f.write("#!/bin/sh\n")
        os.chmod(os.path.join(bin_dir, "npx"), 0o755)
        self.old_path = os.environ["PATH"]
        os.environ["PATH"] = bin_dir

    def tearDown(self):
        os.environ["PATH"] = self.old_path
        self.server.stop()
        import shutil
        shutil.rmtree(self.dir, ignore_errors=True)

    def fetch(self, url, **kwargs):
        return libacp.Catalogue.fetch(url, cache_file=self.cache, ca_file=self.server.ca_file, user_agents_path="",
                                      **kwargs)

    def test_fetched_over_https_and_resolved(self):
        agents = self.fetch(self.server.url)
        if os.environ.get("ACP_WITH_REMOTE") != "1":
            self.assertEqual(agents.fetched["source"], "bundled")
            self.assertTrue(agents.fetched["notes"])
            return
        self.assertEqual(agents.fetched["source"], "network", agents.fetched)
        self.assertEqual(self.server.requests, ["/registry.json"])
        self.assertTrue(os.path.isfile(self.cache))
        agent = agents.resolve("fetched-agent")
        self.assertEqual(agent["argv"][1:], ["-y", "fetched-agent@2.0", "--acp"])
        # Fresh in the cache: no second request.
        self.assertEqual(self.fetch(self.server.url).fetched["source"], "cache")
        self.assertEqual(self.server.requests, ["/registry.json"])

    def test_http_is_refused(self):
        agents = self.fetch(self.server.url.replace("https:", "http:"), max_age_seconds=0)
        self.assertEqual(agents.fetched["source"], "bundled")
        self.assertTrue(any("not https" in note for note in agents.fetched["notes"]), agents.fetched)
        self.assertEqual(self.server.requests, [])
        with self.assertRaises(libacp.InvalidArgument):
            agents.resolve("fetched-agent")
        with self.assertRaises(libacp.InvalidArgument):
            self.fetch(self.server.url, max_age_seconds=-1)


if __name__ == "__main__":
    unittest.main()
