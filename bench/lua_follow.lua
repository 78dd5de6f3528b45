-- SPDX-License-Identifier: Apache-2.0
-- One round of the Lua binding following a flood (run by bench/lua_follow_bench.py under
-- luajit): the README's way, change events only ("default"), or with an "update" handler
-- as well ("events", one decoded session/update per chunk). Prints one JSON line.
--   luajit bench/lua_follow.lua AGENT UPDATES MODE
local agent, updates, mode = arg[1], tonumber(arg[2]), arg[3] or "default"
local acp = require("acp")
assert(acp.load({ library = os.getenv("ACP_LIBRARY"), cdef = os.getenv("ACP_CDEF") }))

local client = assert(acp.spawn({ agent }))
local pieces, ended = {}, false
client:on("change", function(change)
  if change.appended then pieces[#pieces + 1] = change.appended end
  if change.type == "turn_ended" then ended = true end
end)
local update_events = 0
if mode == "events" then client:on("update", function() update_events = update_events + 1 end) end
assert(client:await(client:initialize()))
local session = assert(client:await(client:new_session({ cwd = "/tmp" })))
local ffi = require("ffi")
ffi.cdef("struct acp_bench_timespec { long sec; long nsec; };" ..
  "int clock_gettime(int clock, struct acp_bench_timespec *out);")
local now = ffi.new("struct acp_bench_timespec")
local function seconds()
  ffi.C.clock_gettime(1, now)  -- CLOCK_MONOTONIC
  return tonumber(now.sec) + tonumber(now.nsec) / 1e9
end
local start, cpu_start = seconds(), os.clock()
assert(client:await(session:prompt("flood " .. updates)))
assert(client:wait_until(function() return ended end))
local elapsed, cpu = seconds() - start, os.clock() - cpu_start
local text = table.concat(pieces)
client:free()
io.write(string.format('{"updates": %d, "seconds": %.6f, "cpu": %.6f, "events": %d, "bytes": %d, ' ..
  '"update_events": %d, "peak_rss_kib": 0}\n', updates, elapsed, cpu, #pieces, #text, update_events))
