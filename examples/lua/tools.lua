-- SPDX-License-Identifier: Apache-2.0
-- Editor tools from LuaJIT through require("acp"): offer the agent an MCP server named
-- "editor" with one tool, current_selection, that returns the text given on the command
-- line; ask the agent what is selected, print its reply, allow what it asks permission for.
--
--   luajit tools.lua SELECTION AGENT [ARGS...]     e.g. luajit tools.lua "int main()" acp-demo-agent
--
-- libacp serves the tool over whatever MCP transport the agent advertised. The module,
-- libacp.so and acp_cdef.h are found as in prompt.lua.
local acp = require("acp")
if #arg < 2 then
  io.stderr:write("usage: luajit tools.lua SELECTION AGENT [ARGS...]\n")
  os.exit(2)
end
local selection = arg[1]

local editor = assert(acp.tool_server("editor"))
assert(editor:add_tool({
  name = "current_selection",
  title = "Current selection",
  description = "The text selected in the editor",
  annotations = { readOnlyHint = true },
}, function(args, call)
  return selection  -- a string: a text result; a table: a structured one; nil, message: an error
end))

local client = assert(acp.spawn({ select(2, unpack(arg)) }))
client:on("change", function(change)
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
local session = assert(client:await(client:new_session({ cwd = os.getenv("PWD"), tools = { editor } })))
assert(client:await(session:prompt("What is selected?")))
client:wait_until(function() return session:state() == "idle" end)
local stop_reason = session:snapshot().stop_reason
io.write("\n[turn ended: " .. tostring(stop_reason) .. "]\n")
client:free()  -- waits for the agent to end
os.exit(stop_reason == "end_turn" and 0 or 1)
