-- SPDX-License-Identifier: Apache-2.0
-- One prompt with libacp from LuaJIT through the module require("acp") (bindings/lua):
-- spawn an agent, open a session, send a prompt, print the reply as it streams, allow what
-- the agent asks permission for, wait for the end of the turn.
--
--   luajit prompt.lua AGENT [ARGS...]        e.g. luajit prompt.lua acp-demo-agent
--
-- The module is found on package.path (installed: share/lua/5.1; in the repository:
-- LUA_PATH="bindings/lua/?.lua;;"), libacp.so and acp_cdef.h as bindings/lua/README.md says.
local acp = require("acp")
if #arg < 1 then
  io.stderr:write("usage: luajit prompt.lua AGENT [ARGS...]\n")
  os.exit(2)
end

local client = assert(acp.spawn({ unpack(arg) }))
client:on("change", function(change)  -- the session model, chunk by chunk
  if change.kind == "agent_message" and change.appended then
    io.write((change.type == "item_inserted" and "\n" or "") .. change.appended)
    io.flush()
  end
end)
client:on("permission", function(request)
  for _, option in ipairs(request.options) do
    if option.kind == "allow_once" then
      io.write("\n[" .. option.name .. "]\n")
      return request:select(option.id)
    end
  end
  request:cancel()
end)

assert(client:await(client:initialize()))
local session = assert(client:await(client:new_session({ cwd = os.getenv("PWD") })))
assert(client:await(session:prompt("Hello!")))
client:wait_until(function() return session:state() == "idle" end)
local stop_reason = session:snapshot().stop_reason
io.write("\n[turn ended: " .. tostring(stop_reason) .. "]\n")
client:free()  -- waits for the agent to end
os.exit(stop_reason == "end_turn" and 0 or 1)
