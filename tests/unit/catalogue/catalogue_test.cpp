// SPDX-License-Identifier: Apache-2.0
// The agent catalogue: registry JSON and agents.json to spawn options, and what a hostile
// registry cannot do.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "acp/catalogue.hpp"

using namespace acp;

namespace {

struct Scratch {
    Scratch() {
        char path[] = "/tmp/acp-catalogue-XXXXXX";
        REQUIRE(mkdtemp(path) != nullptr);
        dir = path;
        REQUIRE(mkdir((dir + "/bin").c_str(), 0700) == 0);
        REQUIRE(mkdir((dir + "/empty").c_str(), 0700) == 0);
    }
    ~Scratch() { (void)std::system(("rm -rf '" + dir + "'").c_str()); }

    void write(const std::string& relative, const std::string& text, bool executable = false) const {
        std::ofstream(dir + "/" + relative, std::ios::binary) << text;
        if (executable) REQUIRE(chmod((dir + "/" + relative).c_str(), 0700) == 0);
    }
    std::string tool(const std::string& name) const {
        write("bin/" + name, "#!/bin/sh\n", true);
        return dir + "/bin/" + name;
    }

    std::string dir;
};

const char* kRegistry = R"({
  "version": "1.0.0",
  "agents": [
    {"id": "npx-agent", "name": "Npx Agent", "version": "1.2.3", "description": "runs with npx",
     "icon": "https://example.org/npx-agent.svg",
     "distribution": {"npx": {"package": "@scope/npx-agent@1.2.3", "args": ["--acp"], "env": {"NO_COLOR": "1"}}}},
    {"id": "cmd-agent", "version": "2.0.0",
     "distribution": {"npx": {"package": "@scope/tools@2.0.0", "cmd": "tool-acp"},
                      "uvx": {"package": "tools==2.0.0", "cmd": "tool-acp", "args": ["serve"]}}},
    {"id": "uvx-agent", "version": "0.1.0", "distribution": {"uvx": {"package": "uvx-agent==0.1.0"}}},
    {"id": "bin-agent", "version": "3.0.0",
     "distribution": {"binary": {
        "linux-x86_64": {"archive": "https://example.org/bin-agent-linux.tar.gz", "cmd": "./bin/agent", "args": ["acp"],
                         "sha256": "ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789"},
        "darwin-aarch64": {"archive": "https://example.org/bin-agent-mac.zip", "cmd": "agent"}}}}
  ]
})";

Catalogue registry() {
    auto c = Catalogue::from_registry_json(kRegistry);
    REQUIRE(c.ok());
    CHECK(c->problems().empty());
    return c.value();
}

std::vector<std::string> argv_of(const Result<Resolution>& r) {
    REQUIRE_MESSAGE(r.ok(), r.status().to_string());
    return r->spawn.argv;
}

}  // namespace

TEST_CASE("catalogue: registry entries keep their display fields") {
    Catalogue c = registry();
    REQUIRE(c.entries().size() == 4);
    const CatalogueEntry* e = c.find("npx-agent");
    REQUIRE(e != nullptr);
    CHECK(e->name == "Npx Agent");
    CHECK(e->version == "1.2.3");
    CHECK(e->description == "runs with npx");
    CHECK(e->icon == "https://example.org/npx-agent.svg");
    CHECK(c.find("cmd-agent")->name == "cmd-agent");  // no name: the id
    CHECK(c.find("bin-agent")->binaries.size() == 2);
    CHECK(c.find("bin-agent")->binaries[0].sha256 ==
          "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789");
}

TEST_CASE("catalogue: an npx distribution resolves to npx -y PACKAGE ARGS with its env") {
    Scratch s;
    std::string npx = s.tool("npx");
    ResolveOptions how;
    how.path = s.dir + "/bin";
    auto r = registry().resolve("npx-agent", how);
    CHECK(argv_of(r) == std::vector<std::string>{npx, "-y", "@scope/npx-agent@1.2.3", "--acp"});
    CHECK(r->kind == DistributionKind::npx);
    CHECK(r->spawn.env_set == EnvList{{"NO_COLOR", "1"}});
}

TEST_CASE("catalogue: a cmd runs through npx --package and uvx --from") {
    Scratch s;
    ResolveOptions how;
    how.path = s.dir + "/bin";
    std::string uvx = s.tool("uvx");
    CHECK(argv_of(registry().resolve("cmd-agent", how)) ==
          std::vector<std::string>{uvx, "--from", "tools==2.0.0", "tool-acp", "serve"});
    std::string npx = s.tool("npx");
    CHECK(argv_of(registry().resolve("cmd-agent", how)) ==
          std::vector<std::string>{npx, "-y", "--package", "@scope/tools@2.0.0", "tool-acp"});
}

TEST_CASE("catalogue: a uvx distribution resolves to uvx PACKAGE") {
    Scratch s;
    std::string uvx = s.tool("uvx");
    ResolveOptions how;
    how.path = s.dir + "/empty:" + s.dir + "/bin";
    auto r = registry().resolve("uvx-agent", how);
    CHECK(argv_of(r) == std::vector<std::string>{uvx, "uvx-agent==0.1.0"});
    CHECK(r->kind == DistributionKind::uvx);
}

TEST_CASE("catalogue: a missing npx is reported with the PATH searched") {
    Scratch s;
    ResolveOptions how;
    how.path = s.dir + "/empty";
    auto r = registry().resolve("npx-agent", how);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Errc::unsupported);
    CHECK(r.status().message() == "agent 'npx-agent' cannot run here: npx is not on the PATH (" + s.dir + "/empty)");
}

TEST_CASE("catalogue: a binary build is found for the platform, to install or installed") {
    Scratch s;
    ResolveOptions how;
    how.path = s.dir + "/empty";
    how.platform = "linux-x86_64";
    how.cache_dir = s.dir + "/cache";
    auto r = registry().resolve("bin-agent", how);
    std::string dir = s.dir + "/cache/bin-agent/3.0.0/linux-x86_64";
    CHECK(argv_of(r) == std::vector<std::string>{dir + "/bin/agent", "acp"});
    CHECK(r->kind == DistributionKind::binary);
    CHECK(r->needs_install);
    CHECK(r->install_dir == dir);
    REQUIRE(r->binary.has_value());
    CHECK(r->binary->archive == "https://example.org/bin-agent-linux.tar.gz");

    REQUIRE(std::system(("mkdir -p '" + dir + "/bin'").c_str()) == 0);
    std::ofstream(dir + "/bin/agent") << "#!/bin/sh\n";
    REQUIRE(chmod((dir + "/bin/agent").c_str(), 0700) == 0);
    auto installed = registry().resolve("bin-agent", how);
    REQUIRE(installed.ok());
    CHECK_FALSE(installed->needs_install);
}

TEST_CASE("catalogue: no build for this platform says which builds exist") {
    Scratch s;
    ResolveOptions how;
    how.path = s.dir + "/empty";
    how.platform = "windows-x86_64";
    auto r = registry().resolve("bin-agent", how);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message() ==
          "agent 'bin-agent' cannot run here: no build for windows-x86_64 (builds: linux-x86_64, darwin-aarch64)");
}

TEST_CASE("catalogue: an unknown or unsafe id is refused") {
    auto unknown = registry().resolve("nobody");
    CHECK(unknown.status().code() == Errc::invalid_argument);
    CHECK(unknown.status().message() ==
          "no agent 'nobody' in the catalogue (agents: npx-agent, cmd-agent, uvx-agent, bin-agent)");
    CHECK(registry().resolve("../etc").status().code() == Errc::invalid_argument);
}

TEST_CASE("catalogue: hostile registry entries are left out, each with a reason") {
    const char* hostile = R"({"agents": [
      {"id": "ok", "distribution": {"npx": {"package": "ok@1"}}},
      {"id": "Upper", "distribution": {"npx": {"package": "x"}}},
      {"id": "../up", "distribution": {"npx": {"package": "x"}}},
      {"id": "dash", "distribution": {"npx": {"package": "--registry=https://evil.example"}}},
      {"id": "space", "distribution": {"npx": {"package": "a b"}}},
      {"id": "http", "distribution": {"binary": {"linux-x86_64": {"archive": "http://evil.example/a.tgz", "cmd": "a"}}}},
      {"id": "abs", "distribution": {"binary": {"linux-x86_64": {"archive": "https://e.example/a.tgz", "cmd": "/bin/sh"}}}},
      {"id": "dots", "distribution": {"binary": {"linux-x86_64": {"archive": "https://e.example/a.tgz", "cmd": "x/../../sh"}}}},
      {"id": "sha", "distribution": {"binary": {"linux-x86_64": {"archive": "https://e.example/a.tgz", "cmd": "a", "sha256": "zz"}}}},
      {"id": "envname", "distribution": {"npx": {"package": "x", "env": {"A=B": "c"}}}},
      {"id": "version", "version": "../../x", "distribution": {"npx": {"package": "x"}}},
      {"id": "nodist", "distribution": {}},
      {"id": "args", "distribution": {"npx": {"package": "x", "args": [1]}}},
      {"id": "ok", "distribution": {"npx": {"package": "second@1"}}},
      42
    ]})";
    auto c = Catalogue::from_registry_json(hostile);
    REQUIRE(c.ok());
    REQUIRE(c->entries().size() == 1);
    CHECK(c->find("ok")->npx->package == "ok@1");
    const auto& p = c->problems();
    REQUIRE(p.size() == 14);
    CHECK(p[0] == "agent #1: id is not [a-z0-9][a-z0-9._-]*");
    CHECK(p[2] == "agent 'dash': distribution.npx.package begins with '-'");
    CHECK(p[4] == "agent 'http': distribution.binary.linux-x86_64.archive is not an https URL");
    CHECK(p[5] == "agent 'abs': distribution.binary.linux-x86_64.cmd is an absolute path");
    CHECK(p[6] == "agent 'dots': distribution.binary.linux-x86_64.cmd leads out of the archive (..)");
    CHECK(p[7] == "agent 'sha': distribution.binary.linux-x86_64.sha256 is not 64 hex digits");
    CHECK(p[9] == "agent 'version': version is not [A-Za-z0-9._+-]*");
    CHECK(p[10] == "agent 'nodist': distribution has none of npx, uvx, binary");
    CHECK(p[12] == "agent #14: is not an object");
    CHECK(p[13] == "agent 'ok': listed twice; the first is kept");
}

TEST_CASE("catalogue: control characters in display text become spaces") {
    auto c = Catalogue::from_registry_json(
        "{\"agents\": [{\"id\": \"a\", \"name\": \"A\\u001b[2Jx\", \"description\": \"d\\u009bq\\nz\","
        " \"distribution\": {\"npx\": {\"package\": \"a\"}}}]}");
    REQUIRE(c.ok());
    CHECK(c->find("a")->name == "A [2Jx");
    CHECK(c->find("a")->description == "d q z");
}

TEST_CASE("catalogue: unusable registry text fails as a whole") {
    CHECK(Catalogue::from_registry_json("not json").status().code() == Errc::invalid_argument);
    CHECK(Catalogue::from_registry_json("{\"agents\": {}}").status().message() ==
          "the registry has no \"agents\" array");
    CHECK(Catalogue::from_registry_json("{\"agents\": [\"\xff\"]}").status().code() == Errc::invalid_argument);
    std::string deep = "{\"agents\": [" + std::string(100000, '[') + std::string(100000, ']') + "]}";
    auto nested = Catalogue::from_registry_json(deep);  // iterative parse: no stack overflow
    REQUIRE(nested.ok());
    CHECK(nested->entries().empty());
    std::string big = "{\"agents\": [], \"pad\": \"" + std::string(5 * 1024 * 1024, 'x') + "\"}";
    CHECK(Catalogue::from_registry_json(big).status().message() == "the registry is larger than 4194304 bytes");
    CHECK(Catalogue::from_registry_file("/nonexistent/registry.json").status().code() == Errc::unsupported);
}

TEST_CASE("catalogue: the bundled snapshot lists the well-known agents through npx") {
    Catalogue c = Catalogue::bundled();
    CHECK(c.problems().empty());
    REQUIRE(c.find("claude-acp") != nullptr);
    CHECK(c.find("claude-acp")->npx->package.rfind("@agentclientprotocol/claude-agent-acp@", 0) == 0);
    REQUIRE(c.find("gemini") != nullptr);
    CHECK(c.find("gemini")->npx->args == std::vector<std::string>{"--acp"});
    CHECK(c.find("codex-acp") != nullptr);
}

TEST_CASE("catalogue: user agents win over registry ids and carry command, env and cwd") {
    Scratch s;
    Catalogue c = registry();
    s.write("agents.json", R"({"default": "mine", "agents": {
        "mine": {"command": "/opt/mine", "args": ["--acp"], "env": {"TOKEN_FILE": "/x"}, "cwd": "/work"},
        "npx-agent": {"command": "my-npx-agent", "name": "Mine instead"},
        "BAD": {"command": "x"},
        "nocommand": {"args": []}}})");
    REQUIRE(c.add_user_agents_file(s.dir + "/agents.json").ok());
    CHECK(c.default_agent() == "mine");
    auto mine = c.resolve("mine");
    CHECK(argv_of(mine) == std::vector<std::string>{"/opt/mine", "--acp"});
    CHECK(mine->kind == DistributionKind::user);
    CHECK(mine->spawn.cwd == "/work");
    CHECK(mine->spawn.env_set == EnvList{{"TOKEN_FILE", "/x"}});
    CHECK(argv_of(c.resolve("npx-agent")) == std::vector<std::string>{"my-npx-agent"});
    CHECK(c.find("npx-agent")->name == "Mine instead");
    auto entries = c.entries();
    REQUIRE(entries.size() == 5);  // mine, npx-agent (the user's), cmd-agent, uvx-agent, bin-agent
    CHECK(entries[0]->id == "mine");
    CHECK(entries[1]->user.has_value());
    CHECK(c.problems() == std::vector<std::string>{"a user agent's name is not [a-z0-9][a-z0-9._-]*",
                                                   "user agent 'nocommand': command is missing"});
}

TEST_CASE("catalogue: a missing agents file adds nothing, a broken one says where") {
    Scratch s;
    Catalogue c;
    CHECK(c.add_user_agents_file(s.dir + "/none.json").ok());
    CHECK(c.entries().empty());
    s.write("broken.json", "{");
    Status broken = c.add_user_agents_file(s.dir + "/broken.json");
    CHECK(broken.code() == Errc::invalid_argument);
    CHECK(broken.message().rfind(s.dir + "/broken.json: the agents file is not JSON", 0) == 0);
}

TEST_CASE("catalogue: per-user paths follow XDG, then HOME") {
    std::string old_config = std::getenv("XDG_CONFIG_HOME") ? std::getenv("XDG_CONFIG_HOME") : "";
    std::string old_cache = std::getenv("XDG_CACHE_HOME") ? std::getenv("XDG_CACHE_HOME") : "";
    std::string old_home = std::getenv("HOME") ? std::getenv("HOME") : "";
    setenv("XDG_CONFIG_HOME", "/cfg", 1);
    setenv("XDG_CACHE_HOME", "relative", 1);  // relative: ignored, as the XDG spec says
    setenv("HOME", "/home/u", 1);
    CHECK(user_agents_path() == "/cfg/acp/agents.json");
    CHECK(agents_cache_dir() == "/home/u/.cache/acp/agents");
    auto restore = [](const char* name, const std::string& value) {
        if (value.empty()) {
            unsetenv(name);
        } else {
            setenv(name, value.c_str(), 1);
        }
    };
    restore("XDG_CONFIG_HOME", old_config);
    restore("XDG_CACHE_HOME", old_cache);
    restore("HOME", old_home);
}
