-- SPDX-License-Identifier: Apache-2.0
-- acp.fetch_catalogue: the ACP registry over https from 127.0.0.1 (its CA given as ca_file),
-- cached and resolved; http refused. Run under tests/peers/registry_server.py, which
-- serves the registry and sets ACP_TEST_* in the environment.
-- Usage: luajit registry_fetch_test.lua BINDINGS_DIR LIBACP_SO
local bindings, library = unpack(arg)
package.path = bindings .. "/?.lua;" .. package.path
local acp = assert(require("acp").load({ library = library }))

local failures = 0
local function check(cond, what, detail)
  io.write(cond and "ok    " or "FAIL  ", what, (not cond and detail) and (": " .. tostring(detail)) or "", "\n")
  if not cond then failures = failures + 1 end
end
local function env(name) return assert(os.getenv(name), name .. " is not set: run under registry_server.py") end

local scratch = env("ACP_TEST_SCRATCH")
local cache = scratch .. "/lua-cache/registry.json"
-- Resolving an npx distribution needs npx on the PATH: a fake one, and a PATH of only it.
os.execute("mkdir -p '" .. scratch .. "/lua-bin' && printf '#!/bin/sh\\n' > '" .. scratch ..
  "/lua-bin/npx' && chmod 755 '" .. scratch .. "/lua-bin/npx'")
local ffi = require("ffi")
ffi.cdef("int setenv(const char *name, const char *value, int overwrite);")
ffi.C.setenv("PATH", scratch .. "/lua-bin", 1)

local options = { url = env("ACP_TEST_REGISTRY_URL"), ca_file = env("ACP_TEST_CA_FILE"), cache_file = cache,
  user_agents_path = "" }
local agents, err = acp.fetch_catalogue(options)
check(agents ~= nil, "fetch_catalogue answers", err)
if agents then
  check(agents.fetched.source == "network", "the registry came over https", agents.fetched.source)
  local agent, why = agents:resolve("fetched-agent")
  check(agent and agent.argv[2] == "-y" and agent.argv[3] == "fetched-agent@2.0", "its agent resolves to npx", why)
  check(io.open(cache) ~= nil, "the registry is cached")
  agents:free()
end

-- Plain http is refused (max age 0: the cache is stale, so it would be fetched).
options.url = env("ACP_TEST_REGISTRY_HTTP_URL")
options.max_age_seconds = 0
agents, err = acp.fetch_catalogue(options)
check(agents and agents.fetched.source == "cache", "http is refused, the cache used", err)
check(agents and agents.fetched.notes[1] and agents.fetched.notes[1]:find("not https", 1, true) ~= nil,
  "the note says why", agents and agents.fetched.notes[1])

options.max_age_seconds = -1
agents, err = acp.fetch_catalogue(options)
check(agents == nil and err ~= nil, "a negative max age is refused", err)

io.write(failures == 0 and "all passed\n" or (failures .. " failed\n"))
os.exit(failures == 0 and 0 or 1)
