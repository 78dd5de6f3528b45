# SPDX-License-Identifier: Apache-2.0
"""The agent catalogue from Python: a registry given as JSON, a user agents file, and the
errors a host shows (docs/agents.md)."""
import hashlib
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

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
        # The PATH to look npx up on, given instead of the environment's.
        with tempfile.TemporaryDirectory() as tools:
            npx = os.path.join(tools, "npx")
            with open(npx, "w") as f:
                f.write("#!/bin/sh\n")
            os.chmod(npx, 0o755)
            self.assertEqual(agents.resolve("npx-agent", path=tools)["argv"][0], npx)
            with self.assertRaises(libacp.Unsupported):
                agents.resolve("npx-agent", path=os.path.join(tools, "nothing-here"))

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


class InstallTest(unittest.TestCase):
    """Catalogue.install: binary builds served over https from 127.0.0.1 (a test CA), packed
    here from the test peer (ACP_TEST_AGENT); hostile archives refused over https too, with
    nothing left in the cache or written outside it. Needs ACP_WITH_REMOTE; without it the
    install must say so."""

    TARGET = "linux-" + platform.machine()

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="acp-python-install-")
        self.server = RegistryServer(self.dir)
        self.cache = os.path.join(self.dir, "xdg-cache")  # $XDG_CACHE_HOME/acp/agents
        self.old_cache = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = self.cache
        self.outside = os.path.join(self.dir, "outside")
        self.remote = os.environ.get("ACP_WITH_REMOTE") == "1"

    def tearDown(self):
        if self.old_cache is None:
            del os.environ["XDG_CACHE_HOME"]
        else:
            os.environ["XDG_CACHE_HOME"] = self.old_cache
        self.server.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def catalogue(self, archive, sha256=None, url=None):
        """A registry of one binary agent, "tool" 1.0, whose archive is served as `archive`."""
        build = {"archive": url or self.server.archive_url + archive, "cmd": "./bin/agent"}
        if sha256 is not None:
            build["sha256"] = sha256
        return libacp.Catalogue(json.dumps({"agents": [{"id": "tool", "version": "1.0", "distribution": {
            "binary": {self.TARGET: build}}}]}), "")

    def left_in_cache(self):
        folder = os.path.join(self.cache, "acp", "agents", "tool", "1.0")
        return os.listdir(folder) if os.path.isdir(folder) else []

    def tar(self, name, members):
        """members: (TarInfo fields, data) pairs."""
        with tarfile.open(os.path.join(self.server.archives, name), "w:gz") as t:
            for fields, data in members:
                info = tarfile.TarInfo(fields.pop("name"))
                info.size = len(data)
                info.mode = 0o755
                for key, value in fields.items():
                    setattr(info, key, value)
                t.addfile(info, io.BytesIO(data) if data else None)

    def test_a_good_archive_installs_over_https_and_its_agent_runs(self):
        with open(os.environ["ACP_TEST_AGENT"], "rb") as f:
            peer = f.read()
        self.tar("good.tar.gz", [({"name": "bin", "type": tarfile.DIRTYPE}, b""), ({"name": "bin/agent"}, peer)])
        with open(os.path.join(self.server.archives, "good.tar.gz"), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        agents = self.catalogue("good.tar.gz", digest)
        self.assertTrue(agents.resolve("tool")["needs_install"])
        if not self.remote:
            with self.assertRaises(libacp.Unsupported):
                agents.install("tool", ca_file=self.server.ca_file)
            return
        agent = agents.install("tool", ca_file=self.server.ca_file)
        self.assertEqual(self.server.requests, ["/archives/good.tar.gz"])
        self.assertFalse(agent["needs_install"])
        self.assertEqual(agent["argv"], [os.path.join(agent["install_dir"], "bin", "agent")])
        self.assertTrue(agent["install_dir"].startswith(self.cache + "/"))
        self.assertEqual(self.left_in_cache(), [self.TARGET])
        with libacp.Client(agent["argv"], env=agent["env"]) as client:
            self.assertEqual(client.initialize().protocol_version, 2)
        # Installed once: resolve finds it, and install does not download again.
        self.assertFalse(agents.resolve("tool")["needs_install"])
        self.assertEqual(agents.install("tool")["argv"], agent["argv"])
        self.assertEqual(self.server.requests, ["/archives/good.tar.gz"])
        # An editor's own folder: resolved there first (not installed yet), installed there.
        own = os.path.join(self.dir, "editor-agents")
        self.assertTrue(agents.resolve("tool", cache_dir=own)["needs_install"])
        mine = agents.install("tool", ca_file=self.server.ca_file, cache_dir=own)
        self.assertEqual(mine["install_dir"], os.path.join(own, "tool", "1.0", self.TARGET))
        self.assertTrue(os.access(mine["argv"][0], os.X_OK))
        self.assertFalse(agents.resolve("tool", cache_dir=own)["needs_install"])
        # No build for another platform.
        with self.assertRaises(libacp.Unsupported):
            agents.resolve("tool", platform="windows-aarch64")

    def test_a_wrong_sha256_is_refused(self):
        self.tar("good.tar.gz", [({"name": "bin/agent"}, b"#!/bin/sh\n")])
        agents = self.catalogue("good.tar.gz", "0" * 64)
        if not self.remote:
            with self.assertRaises(libacp.Unsupported):
                agents.install("tool", ca_file=self.server.ca_file)
            return
        with self.assertRaises(libacp.InvalidArgument) as raised:
            agents.install("tool", ca_file=self.server.ca_file)
        self.assertIn("the registry says 0000", str(raised.exception))
        self.assertEqual(self.server.requests, ["/archives/good.tar.gz"])
        self.assertEqual(self.left_in_cache(), [])

    def test_http_is_refused(self):
        self.tar("good.tar.gz", [({"name": "bin/agent"}, b"#!/bin/sh\n")])
        url = self.server.archive_url.replace("https:", "http:") + "good.tar.gz"
        agents = self.catalogue("good.tar.gz", url=url)
        self.assertTrue(any("https" in problem for problem in agents.list()["problems"]), agents.list())
        with self.assertRaises(libacp.InvalidArgument):
            agents.install("tool", ca_file=self.server.ca_file)
        self.assertEqual(self.server.requests, [])

    def test_the_system_cas_do_not_trust_the_test_server(self):
        self.tar("good.tar.gz", [({"name": "bin/agent"}, b"#!/bin/sh\n")])
        with self.assertRaises(libacp.IoError if self.remote else libacp.Unsupported):
            self.catalogue("good.tar.gz").install("tool")
        self.assertEqual(self.left_in_cache(), [])

    def test_hostile_archives_are_refused_over_https(self):
        if not self.remote:
            with self.assertRaises(libacp.Unsupported):
                self.catalogue("slip.zip").install("tool", ca_file=self.server.ca_file)
            return
        with zipfile.ZipFile(os.path.join(self.server.archives, "slip.zip"), "w") as z:
            z.writestr("bin/agent", b"#!/bin/sh\n")
            z.writestr("../../../../outside", b"x")
        self.tar("absolute.tgz", [({"name": self.outside}, b"x")])
        self.tar("link-out.tgz", [({"name": "bin", "type": tarfile.SYMTYPE, "linkname": "../../../.."},
                                   b""), ({"name": "bin/outside"}, b"x")])
        # GNU tar stores the holes of a 10 GB file, so the archive is tiny.
        src = os.path.join(self.dir, "sparse")
        os.makedirs(os.path.join(src, "bin"))
        subprocess.run(["truncate", "-s", "10G", os.path.join(src, "bin", "agent")], check=True)
        subprocess.run(["tar", "-S", "-czf", os.path.join(self.server.archives, "sparse.tgz"), "-C", src, "bin"],
                       check=True)
        shutil.rmtree(src)
        for archive, says in [("slip.zip", "a path out of its folder"), ("absolute.tgz", "a path out of its folder"),
                              ("link-out.tgz", "a link out of its folder"),
                              ("sparse.tgz", "unpacks to more than 2147483648 bytes")]:
            with self.subTest(archive=archive):
                with self.assertRaises(libacp.InvalidArgument) as raised:
                    self.catalogue(archive).install("tool", ca_file=self.server.ca_file)
                self.assertIn(says, str(raised.exception))
                self.assertIn("/archives/" + archive, self.server.requests)
                self.assertEqual(self.left_in_cache(), [])
                self.assertFalse(os.path.lexists(self.outside))


if __name__ == "__main__":
    unittest.main()
