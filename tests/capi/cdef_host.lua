-- SPDX-License-Identifier: Apache-2.0
-- LuaJIT loads the generated acp_cdef.h as it is (ffi.cdef, no preprocessor) and drives
-- the TypeScript-SDK peer through libacp: options from acp_client_options_init, a session
-- id from its result, the reply followed through the text each change event appended.
-- Usage: luajit cdef_host.lua ACP_CDEF_H LIBACP_SO NODE AGENT_MJS
local ffi = require("ffi")
local cdef_path, library, node, agent_script = arg[1], arg[2], arg[3], arg[4]
local file = assert(io.open(cdef_path, "r"))
ffi.cdef(file:read("*a"))
file:close()
local acp = ffi.load(library)

local function check(cond, what)
  if not cond then
    io.stderr:write("CHECK failed: " .. what .. " (last error: " .. ffi.string(acp.acp_error_last()) .. ")\n")
    os.exit(1)
  end
end

check(acp.ACP_EVENT_SESSION_CHANGED == 14 and acp.ACP_ENOTFOUND == -12, "enum constants")
local options = ffi.new("acp_client_options")
check(acp.acp_client_options_init(options, acp.ACP_CLIENT_OPTIONS_VERSION) == 0, "options init")
check(options.queue_events == 1 and options.mode == acp.ACP_MODE_POLLED, "option defaults")
local spawn = ffi.new("acp_spawn_options")
check(acp.acp_spawn_options_init(spawn, acp.ACP_SPAWN_OPTIONS_VERSION) == 0, "spawn options init")
local argv = ffi.new("const char*[3]", {node, agent_script, nil})
spawn.argv = argv

local out = ffi.new("acp_client*[1]")
check(acp.acp_client_spawn(out, spawn, options) == 0, "spawn")
local client = out[0]
check(acp.acp_client_observe_sessions(client, 1) == 0, "observe")

local request = ffi.new("unsigned long[1]")
local function next_event()
  local event = ffi.new("acp_event*[1]")
  while acp.acp_client_next_event(event, client) ~= 0 do
    check(acp.acp_client_run_once(client, -1) >= 0, "run_once")
  end
  return event[0]
end

local reply, stop_reason = {}, nil
local function wait(done)
  while not done() do
    local event = next_event()
    local kind = acp.acp_event_type(event)
    if kind == acp.ACP_EVENT_RESULT and acp.acp_event_request(event) == request[0] then
      check(acp.acp_event_status(event).code == 0, "result status")
      local id = acp.acp_event_session_id(event)
      if id ~= nil then reply.session = ffi.string(id) end
      reply.result = true
    elseif kind == acp.ACP_EVENT_SESSION_CHANGED then
      local size = ffi.new("size_t[1]")
      local appended = acp.acp_event_appended_text(event, size)
      if appended ~= nil and acp.acp_event_item_kind(event) == acp.ACP_ITEM_AGENT_MESSAGE then
        reply[#reply + 1] = ffi.string(appended, size[0])
      end
      if acp.acp_event_change(event) == acp.ACP_CHANGE_TURN_ENDED then
        stop_reason = ffi.string(acp.acp_event_stop_reason(event))
      end
    end
    acp.acp_event_free(event)
  end
end

check(acp.acp_client_initialize(request, client, nil, nil) == 0, "initialize")
wait(function() return reply.result end)
reply.result = nil
check(acp.acp_client_new_session(request, client, '{"cwd":"/tmp","mcpServers":[]}', nil, nil) == 0, "new session")
wait(function() return reply.result end)
check(reply.session ~= nil, "session id on the result")
check(acp.acp_client_prompt_text(request, client, reply.session, "hello", nil, nil) == 0, "prompt")
wait(function() return stop_reason ~= nil end)
local text = table.concat(reply)
check(text == "Hello, world!", "followed reply: " .. text)
check(stop_reason == "end_turn", "stop reason")
acp.acp_client_free(client)
print("luajit cdef host: ok (" .. text .. ")")
