-- SPDX-License-Identifier: Apache-2.0
-- require("acp"): libacp for LuaJIT (Neovim, plain luajit) through the FFI and the C API
-- alone. The client runs in libacp's polled mode and never calls back from C: the host
-- watches client:fd() (Neovim: a vim.loop poll handle, see nvim/lua/acp/loop.lua) and calls
-- client:poll(), which runs what is ready and hands every event to the Lua handlers.
-- Plain luajit hosts block in client:await(request) or client:wait_until(fn) instead.
--
-- Calls are asynchronous: each returns its request id (or nil, err when refused at once)
-- and delivers its result to the optional callback fn(result, err). client:await(...)
-- turns one into a blocking call: local session, err = client:await(client:new_session{cwd=...}).
-- Errors are nil, err with err = {code, name, message, rpc_code, data} (tostring-able).
-- Indices of session items are 1-based. See bindings/lua/README.md.
local ffi = require("ffi")
local bit = require("bit")
local json = require("acp.json")
local native = require("acp.native")
local model = require("acp.model")
local tools = require("acp.tools")

local acp = { json = json, null = json.null }

local lib  -- set by acp.load

local error_mt = {
  __tostring = function(e)
    return e.name .. ": " .. e.message .. (e.rpc_code and e.rpc_code ~= 0 and (" (" .. e.rpc_code .. ")") or "")
  end,
}
local function make_error(code, message, rpc_code, data)
  return setmetatable({ code = code, name = native.string(lib.acp_error_name(code)), message = message or "",
    rpc_code = rpc_code ~= 0 and rpc_code or nil, data = data }, error_mt)
end
-- nil and the error of the last failed synchronous call on this thread.
local function fail(code, message)
  return nil, make_error(code, message or native.string(lib.acp_error_last()))
end

-- Loads libacp (options: library = path of libacp.so, cdef = path of acp_cdef.h).
-- Called by spawn on first use; call it first to choose the files. Returns acp or nil, err.
function acp.load(options)
  local loaded, err = native.load(options)
  if not loaded then return nil, err end
  lib = loaded
  acp.version = native.string(lib.acp_version())
  return acp
end

local log_levels = { debug = 0, info = 1, warning = 2, error = 3 }
local log_level_names = { [0] = "debug", "info", "warning", "error" }

local Client = {}
Client.__index = Client
acp.Client = Client

local function c_strings(list)
  if not list or #list == 0 then return nil end
  local array = ffi.new("const char*[?]", #list + 1)
  for i, s in ipairs(list) do array[i - 1] = s end
  return array
end

-- The client options every way of reaching an agent shares.
local function client_options(options)
  local c_options = ffi.new("acp_client_options")
  lib.acp_client_options_init(c_options, lib.ACP_CLIENT_OPTIONS_VERSION)
  c_options.client_name = options.client_name or "libacp-lua"
  c_options.client_version = options.client_version
  c_options.log_level = log_levels[options.log_level or "info"] or 1
  c_options.request_timeout_ms = options.request_timeout_ms or 0
  c_options.max_line_bytes = options.max_line_bytes or 0
  c_options.protocol_version = options.protocol == "v1" and lib.ACP_PROTOCOL_V1 or lib.ACP_PROTOCOL_AUTO
  c_options.unstable = options.unstable and 1 or 0  -- ACP's unstable surface (docs/unstable.md)
  return c_options
end

local function ensure_loaded()
  if lib then return true end
  local ok, err = acp.load()
  if not ok then return nil, setmetatable({ code = -2, name = "ACP_ESPAWN", message = err }, error_mt) end
  return true
end

-- Wraps a client handle acp_client_spawn or acp_client_connect made.
local function new_client(handle, options)
  local self = setmetatable({
    handle = ffi.gc(handle, lib.acp_client_free),
    pending = {},     -- request id -> {convert, callback, done, result, err}
    handlers = {},    -- event name -> function
    session_watchers = {}, -- session id -> {fn, ...}
    tool_servers = {}, -- session id (tools.pending: a session/new in flight) -> server name -> ToolServer
    event_out = ffi.new("acp_event*[1]"),
    request_out = ffi.new("unsigned long[1]"),
  }, Client)
  -- Observing with ACP_UPDATES_AUTO also turns the update events off (client:on("update")).
  self.observing = options.observe_sessions ~= false
  if self.observing then lib.acp_client_observe_sessions(self.handle, 1) end
  if options.elicitation then
    lib.acp_client_enable_elicitation(self.handle, options.elicitation.form and 1 or 0, options.elicitation.url and 1 or 0)
  end
  return self
end

-- Spawns an agent: argv = {"agent", "--flag", ...}. options: cwd, env ({NAME = value}),
-- unset_env ({NAME, ...}), client_name, client_version, log_level ("debug".."error",
-- default "info"), request_timeout_ms, protocol ("auto" | "v1"), max_line_bytes,
-- shutdown_grace_ms, terminate_grace_ms, observe_sessions (default true: change events),
-- elicitation ({form = bool, url = bool}: advertised, handled by client:on("elicitation")).
-- Returns the client, or nil and the error.
function acp.spawn(argv, options)
  local loaded, load_err = ensure_loaded()
  if not loaded then return nil, load_err end
  options = options or {}
  if type(argv) ~= "table" or #argv == 0 then return fail(-1, "spawn needs argv = {agent, args...}") end
  local env_set = {}
  for name, value in pairs(options.env or {}) do env_set[#env_set + 1] = name .. "=" .. value end
  local keep = { c_strings(argv), c_strings(env_set), c_strings(options.unset_env) }
  local agent = ffi.new("acp_spawn_options")
  lib.acp_spawn_options_init(agent, lib.ACP_SPAWN_OPTIONS_VERSION)
  agent.argv, agent.env_set, agent.env_unset = keep[1], keep[2], keep[3]
  agent.cwd = options.cwd
  agent.shutdown_grace_ms = options.shutdown_grace_ms or 0
  agent.terminate_grace_ms = options.terminate_grace_ms or 0
  local out = ffi.new("acp_client*[1]")
  local code = lib.acp_client_spawn(out, agent, client_options(options))
  if code < 0 then return fail(code) end
  return new_client(out[0], options)
end

-- Connects to an agent on the network (docs/remote.md): url = "ws://", "wss://" (WebSocket),
-- "http://" or "https://" (Streamable HTTP). options: those of spawn that concern the
-- client, plus headers ({Name = value}, sent with every request, never logged), ca_file
-- and connect_timeout_ms. Returns the client, or nil and the error.
function acp.connect(url, options)
  local loaded, load_err = ensure_loaded()
  if not loaded then return nil, load_err end
  options = options or {}
  if type(url) ~= "string" then return fail(-1, "connect needs a url") end
  local header_lines = {}
  for name, value in pairs(options.headers or {}) do header_lines[#header_lines + 1] = name .. ": " .. value end
  local keep = c_strings(header_lines)
  local agent = ffi.new("acp_remote_options")
  lib.acp_remote_options_init(agent, lib.ACP_REMOTE_OPTIONS_VERSION)
  agent.url = url
  agent.headers = keep
  agent.ca_file = options.ca_file
  agent.connect_timeout_ms = options.connect_timeout_ms or 0
  local out = ffi.new("acp_client*[1]")
  local code = lib.acp_client_connect(out, agent, client_options(options))
  if code < 0 then return fail(code) end
  return new_client(out[0], options)
end

-- Hosting -------------------------------------------------------------------------------

function Client:fd() return lib.acp_client_fd(self.handle) end
function Client:timeout_ms() return lib.acp_client_timeout_ms(self.handle) end

-- Called after every call into the client (calls post work for the loop): a host driving
-- the client from its own loop sets client.wakeup to schedule a poll.
function Client:_posted()
  if self.wakeup then self.wakeup() end
end

local dispatch  -- (client, event) -> delivers one event to its handler

local function drain(self)
  local out = self.event_out
  -- A handler may free the client: check before every take.
  while not self.freed and lib.acp_client_next_event(out, self.handle) == 0 do
    local event = out[0]
    local ok, err = pcall(dispatch, self, event)
    lib.acp_event_free(event)
    if not ok then error(err, 0) end
  end
end

-- Runs what is ready without blocking and delivers the events. Returns true while the
-- loop has work left (then poll again when client:fd() is readable or after timeout_ms).
function Client:poll()
  if self.freed then return false end
  local more = lib.acp_client_run_nowait(self.handle)
  drain(self)
  return more > 0
end

-- Blocks up to timeout_ms (-1: no limit) for something to happen, then delivers it.
function Client:run_once(timeout_ms)
  if self.freed then return false end
  local more = lib.acp_client_run_once(self.handle, timeout_ms or -1)
  drain(self)
  return more > 0
end

-- Blocks (running the loop) until done() is true: true, or nil and the error (the
-- connection closed first, or timeout_ms passed).
function Client:wait_until(done, timeout_ms)
  local deadline = timeout_ms and (os.time() + math.ceil(timeout_ms / 1000)) or nil
  drain(self)
  while not done() do
    if self.freed then return fail(-4, "the client was freed") end
    local more = self:run_once(deadline and 100 or -1)
    if not done() then
      if not more and self:is_closed() then return fail(-4, "the connection is closed") end
      if deadline and os.time() > deadline then return fail(-5, "timed out waiting") end
    end
  end
  return true
end

-- Waits for the result of one call: await(client:initialize()) -> result or nil, err.
function Client:await(request, err, timeout_ms)
  if not request then return nil, err end
  local entry = self.pending[request]
  if not entry then return fail(-12, "no such request (or it has a callback): " .. tostring(request)) end
  local ok, wait_err = self:wait_until(function() return entry.done end, timeout_ms)
  if not ok then return nil, wait_err end
  self.pending[request] = nil
  return entry.result, entry.err
end

-- Registers fn for one kind of event (one handler per kind; nil removes it):
--   "permission"  fn(request): request.options {id,name,kind}, .tool_call (an item),
--                 request:select(id) / :allow() / :reject() / :cancel(); unanswered and
--                 dropped it is answered "cancelled", never an approval
--   "elicitation" fn(request): request.params, :accept(content) / :decline() / :cancel()
--   "change"      fn(change) for every model change of any session (see acp.model)
--   "update"      fn(session_id, update) the raw session/update params
--   "log"         fn{level, source, text} (source "agent-stderr" is the agent's stderr)
--   "closed"      fn(err): the connection ended (err nil for a clean close)
--   "withdrawn"   fn(request_id): the agent withdrew a permission or elicitation
--   "client_request" fn(request): a v1 agent's fs/ or terminal/ request (after
--                 client:serve_client_methods): request.method, .params (v1 shape),
--                 .session_id, request:respond(result) / :fail(rpc_code, message);
--                 unanswered and dropped it fails with -32603
--   "notification" fn(method, params): an extension or unknown notification
--   "auth_status_update" fn(params): the agent's auth/status_update (unstable = true only;
--                 without it that notification is an unknown one)
-- Update events cost a decode and an encode per session/update: the client asks for them
-- only while an "update" handler is set (or the sessions are not observed), so a host that
-- follows the model gets coalesced "change" events without asking.
function Client:on(kind, fn)
  self.handlers[kind] = fn
  if kind == "update" and not self.freed then
    lib.acp_client_report_updates(self.handle, (fn or not self.observing) and 1 or 0)
  end
  return self
end

-- Starting calls ----------------------------------------------------------------------------

-- Registers the call a C function just started (code: what it returned). Without a
-- callback the result is kept until client:await(request) takes it.
function Client:_start(code, convert, callback)
  if code < 0 then return fail(code) end
  local request = tonumber(self.request_out[0])
  self.pending[request] = { convert = convert, callback = callback }
  self:_posted()
  return request
end

local function decode(text)
  if text == nil or text == "null" then return nil end
  local value = json.decode(text)
  return value
end

function Client:initialize(callback)
  return self:_start(lib.acp_client_initialize(self.request_out, self.handle, nil, nil), decode, callback)
end

-- The JSON text a C call writes into its char** (freed here), decoded; or nil and the error.
local function json_out(call)
  local out = ffi.new("char*[1]")
  local code = call(out)
  if code < 0 then return fail(code) end
  local text = ffi.string(out[0])
  lib.acp_string_free(out[0])
  return json.decode(text)
end

-- The agent's InitializeResponse (info, capabilities, auth methods) after initialize.
function Client:agent_info()
  return json_out(function(out) return lib.acp_client_agent_json(out, self.handle) end)
end

function Client:negotiated_version() return lib.acp_client_negotiated_version(self.handle) end

function Client:login(method_id, callback)
  return self:_start(lib.acp_client_login(self.request_out, self.handle, method_id, nil, nil), decode, callback)
end

local Session = {}
Session.__index = Session
acp.Session = Session

-- Editor tools (docs/tools.md, acp/tools.lua): an MCP server the host offers the agent with
-- client:new_session{cwd = ..., tools = {server}} or resume_session(id, {tools = {server}}).
-- options: version, max_concurrent_calls, max_message_bytes. Returns it, or nil and the error.
function acp.tool_server(name, options)
  local ok, err = ensure_loaded()
  if not ok then return nil, err end
  return tools.server(name, options, fail)
end

-- The C array of tool servers and their table by name (nil for none), or nil, nil, why.
local function tool_array(list)
  if list == nil or #list == 0 then return nil end
  local array, by_name = ffi.new("acp_tool_server*[?]", #list), {}
  for i, server in ipairs(list) do
    if getmetatable(server) ~= tools.ToolServer then return nil, nil, "tools holds acp.tool_server objects" end
    array[i - 1] = server.handle
    by_name[server.name] = server
  end
  return array, by_name
end

-- The Session object for an id this client holds (or will hold).
function Client:session(session_id)
  return setmetatable({ client = self, id = session_id }, Session)
end

-- request: a NewSessionRequest table ({cwd = "/abs", mcpServers = {}} at least cwd), and
-- tools = {server, ...} (acp.tool_server) to offer the agent, not sent as such.
-- Result: a Session (session.response holds the agent's answer).
function Client:new_session(request, callback)
  request = request or {}
  local servers, by_name, bad = tool_array(request.tools)
  if bad then return fail(lib.ACP_EINVAL, bad) end
  local wire = {}
  for key, value in pairs(request) do
    if key ~= "tools" then wire[key] = value end
  end
  wire.cwd = wire.cwd or os.getenv("PWD") or "/"
  wire.mcpServers = wire.mcpServers or json.array()
  local convert = function(text, event_session)
    local session = self:session(event_session)
    session.response = decode(text)
    if by_name then self.tool_servers[event_session] = by_name end
    return session
  end
  local code
  if servers then
    code = lib.acp_client_new_session_with_tools(self.request_out, self.handle, json.encode(wire), servers,
      #request.tools, nil, nil)
    if code >= 0 then self.tool_servers[tools.pending] = by_name end
  else
    code = lib.acp_client_new_session(self.request_out, self.handle, json.encode(wire), nil, nil)
  end
  return self:_start(code, convert, callback)
end

-- Resumes session_id: options = {cwd = ... (required: the session's own directory),
-- replay = true (history replayed into the model before the result),
-- additionalDirectories, mcpServers, tools = {server, ...} (the tool servers offered from
-- now on, replacing those offered before)}. Result: a Session.
function Client:resume_session(session_id, options, callback)
  options = options or {}
  -- The agent restores the session in the directory it is told: never guess it from the
  -- process's, which may be any other project.
  if type(options.cwd) ~= "string" or options.cwd == "" then
    return fail(lib.ACP_EINVAL, "resume_session needs options.cwd, the directory the session works in")
  end
  local request = { sessionId = session_id, cwd = options.cwd,
    mcpServers = options.mcpServers or json.array(), additionalDirectories = options.additionalDirectories }
  if options.replay then request.replayFrom = { type = "start" } end
  local servers, by_name, bad = tool_array(options.tools)
  if bad then return fail(lib.ACP_EINVAL, bad) end
  local convert = function(text)
    local session = self:session(session_id)
    session.response = decode(text)
    self.tool_servers[session_id] = by_name  -- once the agent accepted (none: dropped)
    return session
  end
  local code
  if servers then
    code = lib.acp_client_resume_session_with_tools(self.request_out, self.handle, json.encode(request), servers,
      #options.tools, nil, nil)
    if code >= 0 then  -- the agent may call them before it answers
      local both = {}
      for name, server in pairs(self.tool_servers[session_id] or {}) do both[name] = server end
      for name, server in pairs(by_name) do both[name] = server end
      self.tool_servers[session_id] = both
    end
  else
    code = lib.acp_client_resume_session(self.request_out, self.handle, json.encode(request), nil, nil)
  end
  return self:_start(code, convert, callback)
end

-- ACP's unstable surface, with the client option unstable = true (docs/unstable.md).
-- What the agent offers of it: {fork = bool, archive, status, title, systemPrompt,
-- systemPromptOverride, authStatus, providers}.
function Client:unstable_offer()
  return json_out(function(out) return lib.acp_client_unstable_offer(out, self.handle) end)
end

-- One call by method ("session/archive", "session/status", "session/set_title",
-- "auth/status", "providers/list", "providers/set", "providers/disable", or "session/new",
-- "session/resume", "session/list" with systemPrompt / archived); refused before sending
-- when the agent did not advertise it. Result: the response table.
function Client:unstable_call(method, params, callback)
  local text = params and json.encode(params) or nil
  return self:_start(lib.acp_client_unstable_call(self.request_out, self.handle, method, text, nil, nil), decode,
    callback)
end

-- session/fork: a new session with session_id's context, active at once. options = {cwd =
-- ... (required), additionalDirectories, mcpServers, systemPrompt, tools = {server, ...}
-- (offered to the fork only)}. Result: the fork's Session.
function Client:fork_session(session_id, options, callback)
  options = options or {}
  if type(options.cwd) ~= "string" or options.cwd == "" then
    return fail(lib.ACP_EINVAL, "fork_session needs options.cwd, the directory the fork works in")
  end
  local servers, by_name, bad = tool_array(options.tools)
  if bad then return fail(lib.ACP_EINVAL, bad) end
  local request = { sessionId = session_id }
  for key, value in pairs(options) do
    if key ~= "tools" then request[key] = value end
  end
  local convert = function(text, event_session)
    local session = self:session(event_session)
    session.response = decode(text)
    if by_name then self.tool_servers[event_session] = by_name end
    return session
  end
  local code = lib.acp_client_unstable_call_with_tools(self.request_out, self.handle, "session/fork",
    json.encode(request), servers, servers and #options.tools or 0, nil, nil)
  if code >= 0 and by_name then self.tool_servers[tools.pending] = by_name end
  return self:_start(code, convert, callback)
end

-- Every page of session/list: an array of SessionInfo tables ({sessionId, cwd, title, ...}).
function Client:list_sessions(cwd, callback)
  return self:_start(lib.acp_client_list_all_sessions(self.request_out, self.handle, cwd, nil, nil), decode, callback)
end

function Client:close_session(session_id, callback)
  self.tool_servers[session_id] = nil  -- libacp ends their service with the session
  return self:_start(lib.acp_client_close_session(self.request_out, self.handle, session_id, nil, nil), decode, callback)
end

function Client:delete_session(session_id, callback)
  self.tool_servers[session_id] = nil
  return self:_start(lib.acp_client_delete_session(self.request_out, self.handle, session_id, nil, nil), decode, callback)
end

-- content: a string (one text block) or an array of ContentBlock tables. The result
-- acknowledges the user message; the turn ends with a "turn_ended" change.
function Client:prompt(session_id, content, callback)
  local code
  if type(content) == "string" then
    code = lib.acp_client_prompt_text(self.request_out, self.handle, session_id, content, nil, nil)
  else
    code = lib.acp_client_prompt(self.request_out, self.handle,
      json.encode({ sessionId = session_id, prompt = json.array(content) }), nil, nil)
  end
  return self:_start(code, decode, callback)
end

-- ACP v1's client methods (v2 has none), served by the host through "client_request"
-- events: methods = {"read_text_file", "write_text_file", "terminal"}. Before initialize:
-- each is advertised to a v1 agent (clientCapabilities.fs, .terminal) only when served.
local client_methods = { read_text_file = 1, write_text_file = 2, terminal = 4 }
function Client:serve_client_methods(methods)
  local mask = 0
  for _, name in ipairs(methods or {}) do
    if not client_methods[name] then return fail(lib.ACP_EINVAL, "no such client method: " .. tostring(name)) end
    mask = bit.bor(mask, client_methods[name])
  end
  local code = lib.acp_client_serve_client_methods(self.handle, mask)
  if code < 0 then return fail(code) end
  return true
end

-- libacp's fs guard for a host answering fs requests itself: the real path that path
-- names inside session_id's directories (cwd and additional directories), or nil and the
-- error, whose rpc_code is the JSON-RPC code to fail the request with. for_write: the
-- file (and its directories) may not exist yet.
function Client:confine_path(session_id, path, for_write)
  local out, rpc_code = ffi.new("char*[1]"), ffi.new("int[1]")
  local code = lib.acp_client_confine_path(out, rpc_code, self.handle, session_id, path, for_write and 1 or 0)
  if code < 0 then
    return nil, make_error(code, native.string(lib.acp_error_last()), rpc_code[0] ~= 0 and rpc_code[0] or -32603)
  end
  local real = ffi.string(out[0])
  lib.acp_string_free(out[0])
  return real
end

-- session/cancel: stops the session's running turn. true, or nil and the error.
function Client:cancel(session_id)
  local code = lib.acp_client_cancel(self.handle, session_id)
  if code < 0 then return fail(code) end
  self:_posted()
  return true
end

-- value: a string (select options) or a boolean (boolean options).
function Client:set_config_option(session_id, config_id, value, callback)
  local request = { sessionId = session_id, configId = config_id, value = value }
  request.type = type(value) == "boolean" and "boolean" or "id"
  return self:_start(lib.acp_client_set_config_option(self.request_out, self.handle, json.encode(request), nil, nil),
    decode, callback)
end

function Client:cancel_request(request)
  local code = lib.acp_client_cancel_request(self.handle, request)
  if code < 0 then return fail(code) end
  self:_posted()
  return true
end

-- The session model -----------------------------------------------------------------------

function Client:item(session_id, index) return model.read_item(self.handle, session_id, index, fail) end
function Client:find_item(session_id, kind, item_id)
  return model.find_item(self.handle, session_id, kind, item_id, fail)
end
function Client:item_count(session_id)
  local n = lib.acp_client_item_count(self.handle, session_id)
  if n < 0 then return fail(n) end
  return n
end
function Client:snapshot(session_id) return model.snapshot(self.handle, session_id, fail) end
function Client:session_ids()
  return json_out(function(out) return lib.acp_client_session_ids(out, self.handle) end)
end

-- Lifetime ------------------------------------------------------------------------------

-- Closes the connection (stdin, then SIGTERM, then SIGKILL); a "closed" event follows.
function Client:close()
  lib.acp_client_close(self.handle)
  self:_posted()
  return true
end
-- A "stop the agent" pressed again: closes, and once closing takes the shutdown's next
-- step now instead of after its grace (terminate, then kill the agent's tree).
function Client:hasten_close()
  lib.acp_client_hasten_close(self.handle)
  self:_posted()
  return true
end
function Client:is_closed() return self.freed or lib.acp_client_is_closed(self.handle) ~= 0 end

-- Frees the client now: closes, waits for the agent to end (bounded by the shutdown
-- grace periods) and completes outstanding calls with ACP_ECLOSED. Idempotent.
function Client:free()
  if self.freed then return end
  self.freed = true
  lib.acp_client_free(ffi.gc(self.handle, nil))
  self.tool_servers = {}
  for request, entry in pairs(self.pending) do
    if not entry.done and entry.callback then
      pcall(entry.callback, nil, make_error(-4, "the client was freed"))
    end
    self.pending[request] = nil
  end
end

-- Watches one session's changes: fn(change); returns a function that stops watching.
function Client:watch(session_id, fn)
  local list = self.session_watchers[session_id] or {}
  self.session_watchers[session_id] = list
  list[#list + 1] = fn
  return function()
    for i, f in ipairs(list) do
      if f == fn then table.remove(list, i) return end
    end
  end
end

-- Session: the calls about one session, bound to it ------------------------------------------

function Session:prompt(content, callback) return self.client:prompt(self.id, content, callback) end
function Session:cancel() return self.client:cancel(self.id) end
function Session:close(callback) return self.client:close_session(self.id, callback) end
function Session:set_config_option(config_id, value, callback)
  return self.client:set_config_option(self.id, config_id, value, callback)
end
function Session:item(index) return self.client:item(self.id, index) end
function Session:find_item(kind, item_id) return self.client:find_item(self.id, kind, item_id) end
function Session:snapshot() return self.client:snapshot(self.id) end
function Session:on_change(fn) return self.client:watch(self.id, fn) end
-- Items of the snapshot, optionally only those of one kind ("tool_call", "plan", ...).
function Session:items(kind)
  local snapshot, err = self:snapshot()
  if not snapshot then return nil, err end
  if not kind then return snapshot.items end
  local list = {}
  for _, item in ipairs(snapshot.items) do
    if item.kind == kind then list[#list + 1] = item end
  end
  return list
end
function Session:tool_calls() return self:items("tool_call") end
function Session:plans() return self:items("plan") end
-- The agent's messages of the session, concatenated (one per line).
function Session:text()
  local messages, err = self:items("agent_message")
  if not messages then return nil, err end
  local parts = {}
  for _, item in ipairs(messages) do parts[#parts + 1] = item.text or "" end
  return table.concat(parts, "\n")
end
function Session:state()
  local snapshot, err = self:snapshot()
  if not snapshot then return nil, err end
  return snapshot.state, snapshot.stop_reason
end
function Session:config_options()
  local snapshot, err = self:snapshot()
  if not snapshot then return nil, err end
  return snapshot.config_options or {}
end

-- Delivering events -------------------------------------------------------------------------

local requests = require("acp.requests")

local function status_error(event)
  local status = lib.acp_event_status(event)
  if status.code == 0 then return nil end
  local data = native.string(status.rpc_data_json)
  return make_error(status.code, native.string(status.message), status.rpc_code,
    data and data ~= "" and json.decode(data) or nil)
end

local function call_handler(self, kind, ...)
  local fn = self.handlers[kind]
  if fn then fn(...) return true end
  return false
end

local event_handlers = {}

event_handlers[1] = function(self, event)  -- RESULT
  local request = tonumber(lib.acp_event_request(event))
  local entry = self.pending[request]
  if not entry then return end
  local err = status_error(event)
  local result
  if not err then result = entry.convert(native.string(lib.acp_event_json(event)), native.string(lib.acp_event_session_id(event))) end
  entry.done, entry.result, entry.err = true, result, err
  if entry.callback then
    self.pending[request] = nil
    entry.callback(result, err)
  end  -- else kept for client:await(request)
end

event_handlers[2] = function(self, event)  -- SESSION_UPDATE
  if self.handlers.update then
    self.handlers.update(native.string(lib.acp_event_session_id(event)), decode(native.string(lib.acp_event_json(event))))
  end
end

event_handlers[3] = function(self, event)  -- PERMISSION_REQUEST
  if not self.handlers.permission then return end  -- freed untaken: answered "cancelled"
  self.handlers.permission(requests.permission(self, event, make_error))
end

event_handlers[4] = function(self, event)  -- ELICITATION_REQUEST
  if not self.handlers.elicitation then return end
  self.handlers.elicitation(requests.elicitation(self, event, make_error))
end

event_handlers[6] = function(self, event)  -- REQUEST_WITHDRAWN
  call_handler(self, "withdrawn", tonumber(lib.acp_event_request(event)))
end

local function notification(self, event)
  call_handler(self, "notification", native.string(lib.acp_event_method(event)),
    decode(native.string(lib.acp_event_json(event))))
end
event_handlers[5], event_handlers[8], event_handlers[9] = notification, notification, notification

event_handlers[10] = function(self, event)  -- LOG
  call_handler(self, "log", { level = log_level_names[lib.acp_event_log_level(event)] or "info",
    source = native.string(lib.acp_event_method(event)), text = native.string(lib.acp_event_text(event)) or "" })
end

event_handlers[12] = function(self, event)  -- CLOSED
  call_handler(self, "closed", status_error(event))
end

event_handlers[13] = function(self, event)  -- CLIENT_REQUEST
  if not self.handlers.client_request then return end  -- freed untaken: fails with -32603
  self.handlers.client_request(requests.client_request(self, event, make_error))
end

event_handlers[14] = function(self, event)  -- SESSION_CHANGED
  local change = model.change_of(event)
  local watchers = self.session_watchers[change.session_id]
  if watchers then
    for _, fn in ipairs(watchers) do fn(change) end
  end
  call_handler(self, "change", change)
end

event_handlers[15] = function(self, event)  -- TOOL_CALL
  tools.dispatch(self, event, self.tool_servers, fail)
end

event_handlers[16] = function(self, event)  -- AUTH_STATUS_UPDATE (unstable = true only)
  call_handler(self, "auth_status_update", decode(native.string(lib.acp_event_json(event))))
end

function dispatch(self, event)
  local handler = event_handlers[lib.acp_event_type(event)]
  if handler then handler(self, event) end
end

-- After client:free() the C client is gone: every method that would reach it answers
-- nil, ACP_ECLOSED instead (the Lua object may live on in a host's tables).
local usable_after_free = { free = true, is_closed = true, on = true, watch = true, poll = true, run_once = true,
  wait_until = true, await = true, session = true, _posted = true, _start = true }
for name, method in pairs(Client) do
  if type(method) == "function" and not usable_after_free[name] then
    Client[name] = function(self, ...)
      if self.freed then return fail(-4, "the client was freed") end
      return method(self, ...)
    end
  end
end

-- Agents by name (docs/agents.md): the ACP registry and the user's agents file.
--   local agents = acp.catalogue()             -- bundled snapshot + ~/.config/acp/agents.json
--   local agent, err = agents:resolve("claude-acp", { login_shell = true })
--   if agent then acp.spawn(agent.argv, { env = agent.env, cwd = agent.cwd ~= "" and agent.cwd or nil }) end
--   local built = agents:install("some-binary-agent")  -- downloads and unpacks a binary build once
-- registry_json: registry JSON text (nil: the snapshot built into libacp); user_agents_path:
-- nil for the default path, "" for none. Returns the catalogue or nil, err.
local Catalogue = {}
Catalogue.__index = Catalogue

function acp.catalogue(registry_json, user_agents_path)
  local ok, err = ensure_loaded()
  if not ok then return nil, err end
  local out = ffi.new("acp_catalogue*[1]")
  local code = lib.acp_catalogue_new(out, registry_json, user_agents_path)
  if code < 0 then return fail(code) end
  return setmetatable({ handle = ffi.gc(out[0], lib.acp_catalogue_free) }, Catalogue)
end

-- The ACP registry fetched over https (options.url, https:// only; nil: the ACP registry's),
-- kept in options.cache_file (nil: $XDG_CACHE_HOME/acp/registry.json) and taken from there
-- while younger than options.max_age_seconds (nil: a day; 0: always fetch); options.ca_file,
-- options.timeout_ms, options.user_agents_path as for acp.catalogue. A failed fetch falls
-- back to the cache of any age, then to the bundled snapshot: catalogue.fetched says which
-- ({ source = "network"|"cache"|"bundled", age_seconds, notes }). Blocks for the fetch.
function acp.fetch_catalogue(options)
  local ok, err = ensure_loaded()
  if not ok then return nil, err end
  options = options or {}
  local c_options = ffi.new("acp_registry_fetch_options")
  lib.acp_registry_fetch_options_init(c_options, lib.ACP_REGISTRY_FETCH_OPTIONS_VERSION)
  c_options.url = options.url
  c_options.cache_file = options.cache_file
  if options.max_age_seconds then c_options.max_age_seconds = options.max_age_seconds end
  c_options.ca_file = options.ca_file
  c_options.timeout_ms = options.timeout_ms or 0
  local out = ffi.new("acp_catalogue*[1]")
  local info = ffi.new("char*[1]")
  local code = lib.acp_catalogue_fetch(out, info, c_options, options.user_agents_path)
  if code < 0 then return fail(code) end
  local text = ffi.string(info[0])
  lib.acp_string_free(info[0])
  return setmetatable({ handle = ffi.gc(out[0], lib.acp_catalogue_free), fetched = json.decode(text) }, Catalogue)
end

-- { default, problems, agents = { { id, name, version, description, icon, user, kinds } } }
function Catalogue:list()
  return json_out(function(out) return lib.acp_catalogue_list_json(out, self.handle) end)
end

-- The C install options from a Lua table: the limits, ca_file, and where and for what the
-- agent resolves (cache_dir, platform, path).
local function install_options(options)
  local c_options = ffi.new("acp_install_options")
  lib.acp_install_options_init(c_options, lib.ACP_INSTALL_OPTIONS_VERSION)
  c_options.ca_file = options.ca_file
  c_options.max_download_bytes = options.max_download_bytes or 0
  c_options.max_unpacked_bytes = options.max_unpacked_bytes or 0
  c_options.connect_timeout_ms = options.connect_timeout_ms or 0
  c_options.cache_dir, c_options.platform, c_options.path = options.cache_dir, options.platform, options.path
  return c_options
end

-- { id, kind, argv, env, cwd, needs_install, install_dir, notes }, or nil, err saying what
-- is missing (ACP_EUNSUPPORTED) or that the id is unknown (ACP_EINVAL). options:
-- login_shell, cache_dir (where binary agents are unpacked; nil: $XDG_CACHE_HOME/acp/agents),
-- platform (the registry's target, "linux-aarch64"; nil: this machine's), path (the PATH to
-- look the command up on; nil: the host's, or the login shell's).
function Catalogue:resolve(id, options)
  options = options or {}
  local flags = (options.login_shell and 1 or 0) + 2  -- ACP_RESOLVE_NO_INSTALL
  local c_options = install_options(options)
  return json_out(function(out) return lib.acp_catalogue_install(out, self.handle, id, flags, c_options) end)
end

-- resolve(), and when that is a binary build still to be installed, its archive downloaded
-- over https (options.ca_file: a PEM file of CAs to trust instead of the system's), checked
-- against the registry's sha256 and unpacked into the per-user cache ($XDG_CACHE_HOME/acp/
-- agents): the same table as resolve's, with needs_install false. options also takes
-- resolve's, and max_download_bytes, max_unpacked_bytes and connect_timeout_ms (nil: 512 MiB,
-- 2 GiB, 30 s). nil, err for a refused archive (ACP_EINVAL: a wrong sha256, a path out of
-- its folder, too large; nothing is left in the cache) or a failed download (ACP_EIO).
-- Blocks for the download.
function Catalogue:install(id, options)
  options = options or {}
  local c_options = install_options(options)
  local flags = options.login_shell and 1 or 0
  return json_out(function(out) return lib.acp_catalogue_install(out, self.handle, id, flags, c_options) end)
end

function Catalogue:free()
  if self.handle ~= nil then
    lib.acp_catalogue_free(ffi.gc(self.handle, nil))
    self.handle = nil
  end
end

acp.item_kinds = model.item_kinds
return acp
