-- SPDX-License-Identifier: Apache-2.0
-- Editor tools for the agent: MCP servers the host offers (docs/tools.md).
--
--   local editor = assert(acp.tool_server("editor"))
--   editor:add_tool({ name = "current_selection", description = "The selected text" },
--     function(args, call) return selection() end)
--   client:new_session({ cwd = root, tools = { editor } })
--
-- libacp serves the server over the MCP transport the agent advertised and checks each
-- call's arguments against the tool's input schema before the handler sees them. The
-- handler gets the arguments (a table) and the call, and answers by what it returns: a
-- string (a text result), a table (a structured result, also sent as its JSON text), or
-- nil and a message (a failed call, isError, whose message the model reads). Returning
-- nothing leaves the answer for later: call:text(s), call:structured(t), call:error(msg)
-- (once; a call dropped unanswered is answered an internal error when collected).
local ffi = require("ffi")
local json = require("acp.json")
local native = require("acp.native")

local tools = {}

local ToolServer = {}
ToolServer.__index = ToolServer
tools.ToolServer = ToolServer

local Call = {}
Call.__index = Call
tools.Call = Call

-- name: what the agent sees (e.g. "editor"); options: version (serverInfo.version),
-- max_concurrent_calls (per session, default 64), max_message_bytes (default 1 MiB).
-- Returns the server, or nil and the error.
function tools.server(name, options, fail)
  local lib = native.lib
  options = options or {}
  if type(name) ~= "string" then return fail(-1, "tool_server needs a name") end
  local c_options = ffi.new("acp_tool_server_options")
  lib.acp_tool_server_options_init(c_options, lib.ACP_TOOL_SERVER_OPTIONS_VERSION)
  c_options.server_version = options.version  -- the string lives in options while the call runs
  c_options.max_concurrent_calls = options.max_concurrent_calls or 0
  c_options.max_message_bytes = options.max_message_bytes or 0
  local out = ffi.new("acp_tool_server*[1]")
  local code = lib.acp_tool_server_new(out, name, c_options)
  if code < 0 then return fail(code) end
  return setmetatable({ handle = ffi.gc(out[0], lib.acp_tool_server_free), name = name, handlers = {},
    fail = fail }, ToolServer)
end

-- tool = { name, title, description, input_schema, output_schema, annotations } (the
-- schemas and annotations as tables); handler(args, call). true, or nil and the error
-- (a bad or duplicate name, a schema that is not an object).
function ToolServer:add_tool(tool, handler)
  if type(tool) ~= "table" or type(tool.name) ~= "string" or type(handler) ~= "function" then
    return self.fail(-1, "add_tool needs a tool table with a name and a handler function")
  end
  local function encoded(value) return value ~= nil and json.encode(value) or nil end
  local code = native.lib.acp_tool_server_add_tool(self.handle, tool.name, tool.title, tool.description,
    encoded(tool.input_schema), encoded(tool.output_schema), encoded(tool.annotations))
  if code < 0 then return self.fail(code) end
  self.handlers[tool.name] = handler
  return true
end

-- One call: call.server, call.tool, call.session_id, call.arguments.
function Call:_answer(answer)
  if not self.responder then return self.fail(-13, "already answered") end
  local responder = self.responder
  self.responder = nil
  local code = answer(responder)
  native.lib.acp_responder_free(ffi.gc(responder, nil))
  self.client:_posted()
  if code < 0 then return self.fail(code) end
  return true
end

function Call:text(text)
  return self:_answer(function(r) return native.lib.acp_responder_tool_text(r, text) end)
end

-- A structured result: a table encoded as a JSON object (refused when it does not match
-- the tool's output schema: then nothing is sent and the call stays unanswered).
function Call:structured(value)
  if not self.responder then return self.fail(-13, "already answered") end
  local code = native.lib.acp_responder_tool_structured(self.responder, json.encode(value))
  if code < 0 then return self.fail(code) end
  return self:_answer(function() return 0 end)
end

function Call:error(message)
  return self:_answer(function(r) return native.lib.acp_responder_tool_error(r, tostring(message)) end)
end

-- notifications/progress, when the agent asked for progress; total nil or <= 0: unknown.
function Call:progress(progress, total, message)
  if not self.responder then return end
  native.lib.acp_responder_tool_progress(self.responder, progress, total or 0, message)
  self.client:_posted()
end

-- The agent cancelled the call, or its session or connection ended: an answer goes nowhere.
function Call:withdrawn()
  return self.responder ~= nil and native.lib.acp_responder_withdrawn(self.responder) ~= 0
end

-- Answers a call by what its handler returned (see the top of this file). A handler that
-- raised, or returned what is no answer, leaves the call to be freed unanswered (the agent
-- gets the MCP error -32603) and the error goes on to the host, as any handler's does.
local function answer_with(call, ok, value, message)
  local problem
  if not ok then
    problem = value
  elseif type(value) == "string" then
    call:text(value)
  elseif type(value) == "table" then
    local _, err = call:structured(value)
    problem = err and ("the tool's structured result was refused: " .. tostring(err.message or err))
  elseif value == nil and message ~= nil then
    call:error(message)
  elseif value ~= nil then
    problem = "a tool handler returns a string, a table or nil, message; not a " .. type(value)
  end
  if problem then
    if call.responder then call:_answer(function() return 0 end) end
    error(problem, 0)
  end
end

-- The key of the servers offered with a session/new still pending (no session id yet).
tools.pending = setmetatable({}, { __tostring = function() return "pending session/new" end })

-- Delivers one tool call event to its server's handler. offered: session id (or
-- tools.pending) -> server name -> ToolServer, what this client offered.
function tools.dispatch(client, event, offered, fail)
  local lib = native.lib
  local session_id = native.string(lib.acp_event_session_id(event))
  local server_name = native.string(lib.acp_event_tool_server(event))
  local tool_name = native.string(lib.acp_event_tool_name(event))
  local server = (offered[session_id or tools.pending] or {})[server_name]
  local handler = server and server.handlers[tool_name]
  if not handler then return end  -- the event is freed unanswered: -32603
  local out = ffi.new("acp_responder*[1]")
  if lib.acp_event_take_responder(out, event) ~= 0 then return end
  local call = setmetatable({ client = client, fail = fail, responder = ffi.gc(out[0], lib.acp_responder_free),
    server = server_name, tool = tool_name, session_id = session_id,
    arguments = json.decode(native.string(lib.acp_event_json(event))) }, Call)
  answer_with(call, pcall(handler, call.arguments, call))
end

return tools
