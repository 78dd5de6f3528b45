-- SPDX-License-Identifier: Apache-2.0
-- Catalogue:install: the demo agent packed into a tar.gz by this test, served over https from
-- 127.0.0.1 (its CA given as ca_file), installed into the cache and started; a wrong sha256
-- and an http:// archive are refused with nothing left in the cache. Run under
-- tests/peers/registry_server.py, which serves ACP_TEST_ARCHIVES and sets ACP_TEST_*.
-- Usage: luajit install_test.lua BINDINGS_DIR LIBACP_SO DEMO_AGENT
local bindings, library, demo_agent = unpack(arg)
package.path = bindings .. "/?.lua;" .. package.path
local acp = assert(require("acp").load({ library = library }))
local json = require("acp.json")

local failures = 0
local function check(cond, what, detail)
  io.write(cond and "ok    " or "FAIL  ", what, (not cond and detail) and (": " .. tostring(detail)) or "", "\n")
  if not cond then failures = failures + 1 end
end
local function env(name) return assert(os.getenv(name), name .. " is not set: run under registry_server.py") end
local function shell(command)
  local pipe = assert(io.popen(command))
  local out = pipe:read("*a")
  assert(pipe:close(), "failed: " .. command)
  return out
end

local scratch, archives, url = env("ACP_TEST_SCRATCH"), env("ACP_TEST_ARCHIVES"), env("ACP_TEST_ARCHIVE_URL")
local xdg = scratch .. "/lua-xdg-cache"
local ffi = require("ffi")
ffi.cdef("int setenv(const char *name, const char *value, int overwrite);")
ffi.C.setenv("XDG_CACHE_HOME", xdg, 1)  -- the cache: $XDG_CACHE_HOME/acp/agents
local target = "linux-" .. shell("uname -m"):gsub("%s+$", "")

shell("mkdir -p '" .. scratch .. "/lua-pkg/bin' && cp '" .. demo_agent .. "' '" .. scratch ..
  "/lua-pkg/bin/agent' && tar -czf '" .. archives .. "/demo.tar.gz' -C '" .. scratch .. "/lua-pkg' bin")
local digest = shell("sha256sum '" .. archives .. "/demo.tar.gz'"):match("^(%x+)")

local function build(archive_url, sha256)
  return { binary = { [target] = { archive = archive_url, sha256 = sha256, cmd = "./bin/agent" } } }
end
local registry = json.encode({ agents = {
  { id = "demo", version = "1.0", distribution = build(url .. "demo.tar.gz", digest) },
  { id = "bad-digest", version = "1.0", distribution = build(url .. "demo.tar.gz", string.rep("0", 64)) },
  { id = "plain-http", version = "1.0", distribution = build(url:gsub("^https:", "http:") .. "demo.tar.gz") },
} })
local agents = assert(acp.catalogue(registry, ""))
local function leftovers(id)
  return shell("ls -A '" .. xdg .. "/acp/agents/" .. id .. "/1.0' 2>/dev/null || true")
end

local before = agents:resolve("demo")
check(before and before.needs_install == true, "before: the build needs an install", before)

local agent, err = agents:install("demo", { ca_file = env("ACP_TEST_CA_FILE") })
check(agent and agent.needs_install == false, "installed over https with the test CA", err)
if agent then
  check(agent.argv[1] == xdg .. "/acp/agents/demo/1.0/" .. target .. "/bin/agent", "argv is the unpacked agent",
    agent.argv[1])
  check(leftovers("demo") == target .. "\n", "only the platform's folder is in the cache", leftovers("demo"))
  local client, spawn_err = acp.spawn(agent.argv, { env = agent.env, cwd = scratch })
  check(client ~= nil, "the installed agent starts", spawn_err)
  if client then
    local init, init_err = client:await(client:initialize())
    check(init and init.protocolVersion == 2, "the installed agent answers initialize", init_err)
    client:free()
  end
end

local refused, why = agents:install("bad-digest", { ca_file = env("ACP_TEST_CA_FILE") })
check(refused == nil and tostring(why):find("the registry says 0000", 1, true) ~= nil, "a wrong sha256 is refused",
  why)
check(leftovers("bad-digest") == "", "nothing of it stays in the cache", leftovers("bad-digest"))

local problems = agents:list().problems
check(#problems == 1 and problems[1]:find("plain-http", 1, true) ~= nil, "an http:// archive is left out", problems[1])
refused, why = agents:install("plain-http", { ca_file = env("ACP_TEST_CA_FILE") })
check(refused == nil and why ~= nil, "and cannot be installed", why)

-- An editor's own folder: resolved there first (not installed yet), then installed there.
local own = scratch .. "/lua-editor-agents"
local there = agents:resolve("demo", { cache_dir = own })
check(there and there.needs_install == true, "resolve in another cache_dir: not installed there yet", there)
local mine, mine_err = agents:install("demo", { ca_file = env("ACP_TEST_CA_FILE"), cache_dir = own })
check(mine and mine.argv[1] == own .. "/demo/1.0/" .. target .. "/bin/agent", "installed into cache_dir",
  mine and mine.argv[1] or mine_err)
there = agents:resolve("demo", { cache_dir = own })
check(there and there.needs_install == false, "and resolved there", there)
local foreign, foreign_err = agents:resolve("demo", { platform = "windows-aarch64" })
check(foreign == nil and foreign_err.name == "ACP_EUNSUPPORTED", "no build for another platform", foreign_err)

agents:free()
io.write(failures == 0 and "all passed\n" or (failures .. " failed\n"))
os.exit(failures == 0 and 0 or 1)
