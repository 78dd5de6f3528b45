-- SPDX-License-Identifier: Apache-2.0
-- One prompt with libacp from LuaJIT, through its FFI alone (no C glue): spawn an agent,
-- open a session, send a prompt, print the reply as it streams, allow what the agent asks
-- permission for, wait for the end of the turn.
--
--   luajit prompt.lua AGENT [ARGS...]        e.g. luajit prompt.lua acp-demo-agent
--
-- ACP_CDEF names acp_cdef.h (installed beside acp/acp.h; default: looked for under
-- /usr/local/include and /usr/include), ACP_LIBRARY the shared library (default: "acp",
-- found by the system's library search).
local ffi = require("ffi")

local function read_cdef()
  local candidates = { os.getenv("ACP_CDEF"), "/usr/local/include/acp/acp_cdef.h", "/usr/include/acp/acp_cdef.h" }
  for _, path in pairs(candidates) do
    local file = io.open(path, "r")
    if file then
      local text = file:read("*a")
      file:close()
      return text
    end
  end
  error("acp_cdef.h not found: set ACP_CDEF")
end
ffi.cdef(read_cdef())
local acp = ffi.load(os.getenv("ACP_LIBRARY") or "acp")

if #arg < 1 then
  io.stderr:write("usage: luajit prompt.lua AGENT [ARGS...]\n")
  os.exit(2)
end
local client
local function fail(what)
  io.stderr:write("error: " .. what .. ": " .. ffi.string(acp.acp_error_last()) .. "\n")
  if client ~= nil then acp.acp_client_free(ffi.gc(client, nil)) end
  os.exit(1)
end

local argv = ffi.new("const char*[?]", #arg + 1)
for i = 1, #arg do argv[i - 1] = arg[i] end
local agent = ffi.new("acp_spawn_options")
acp.acp_spawn_options_init(agent, acp.ACP_SPAWN_OPTIONS_VERSION)
agent.argv = argv
local out = ffi.new("acp_client*[1]")
if acp.acp_client_spawn(out, agent, nil) < 0 then fail("spawn") end
client = ffi.gc(out[0], acp.acp_client_free)
acp.acp_client_observe_sessions(client, 1)

local state = { waiting = 0, session = nil, stop_reason = nil }
local function allow_once(event)
  local responder = ffi.new("acp_responder*[1]")
  if acp.acp_event_take_responder(responder, event) ~= 0 then return end
  for i = 0, acp.acp_event_option_count(event) - 1 do
    if ffi.string(acp.acp_event_option_kind(event, i)) == "allow_once" then
      io.write("\n[" .. ffi.string(acp.acp_event_option_name(event, i)) .. "]\n")
      acp.acp_responder_select(responder[0], acp.acp_event_option_id(event, i))
      break
    end
  end
  acp.acp_responder_free(responder[0])  -- unanswered: "cancelled", never an approval
end

local function handle(event)
  local kind = acp.acp_event_type(event)
  if kind == acp.ACP_EVENT_RESULT and acp.acp_event_request(event) == state.waiting then
    local status = acp.acp_event_status(event)
    if status.code ~= 0 then fail(ffi.string(status.message)) end
    if acp.acp_event_session_id(event) ~= nil then state.session = ffi.string(acp.acp_event_session_id(event)) end
    state.waiting = 0
  elseif kind == acp.ACP_EVENT_PERMISSION_REQUEST then
    allow_once(event)
  elseif kind == acp.ACP_EVENT_SESSION_CHANGED then
    local size = ffi.new("size_t[1]")
    local text = acp.acp_event_appended_text(event, size)
    if text ~= nil and acp.acp_event_item_kind(event) == acp.ACP_ITEM_AGENT_MESSAGE then
      if acp.acp_event_change(event) == acp.ACP_CHANGE_ITEM_INSERTED then io.write("\n") end
      io.write(ffi.string(text, size[0]))
      io.flush()
    end
    if acp.acp_event_change(event) == acp.ACP_CHANGE_TURN_ENDED then
      local reason = acp.acp_event_stop_reason(event)
      state.stop_reason = reason ~= nil and ffi.string(reason) or "?"
    end
  elseif kind == acp.ACP_EVENT_CLOSED then
    fail("the agent went away: " .. ffi.string(acp.acp_event_status(event).message))
  end
end

-- Runs the loop and handles events until done() holds.
local event = ffi.new("acp_event*[1]")
local function wait(done)
  while not done() do
    if acp.acp_client_next_event(event, client) == 0 then
      handle(event[0])
      acp.acp_event_free(event[0])
    elseif acp.acp_client_run_once(client, -1) <= 0 then
      fail("the loop ran out of work")
    end
  end
end
local request = ffi.new("unsigned long[1]")
local function call(started, what)
  if started < 0 then fail(what) end
  state.waiting = request[0]
  wait(function() return state.waiting == 0 end)
end

call(acp.acp_client_initialize(request, client, nil, nil), "initialize")
local function json_string(s)
  return '"' .. (s:gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end)) .. '"'
end
local cwd = io.popen("pwd"):read("*l")
local new_session = '{"cwd":' .. json_string(cwd) .. ',"mcpServers":[]}'
call(acp.acp_client_new_session(request, client, new_session, nil, nil), "new session")
call(acp.acp_client_prompt_text(request, client, state.session, "Hello!", nil, nil), "prompt")
wait(function() return state.stop_reason ~= nil end)
io.write("\n[turn ended: " .. state.stop_reason .. "]\n")
acp.acp_client_free(ffi.gc(client, nil))  -- waits for the agent to end
os.exit(state.stop_reason == "end_turn" and 0 or 1)
