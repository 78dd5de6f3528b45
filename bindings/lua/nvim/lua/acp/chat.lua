-- SPDX-License-Identifier: Apache-2.0
-- :AcpChat — a chat buffer on one agent, rendered from libacp's session model and its
-- change events: items appear as they are inserted, streamed text is appended as it
-- arrives (the change's appended text), other changes re-render that item's block only.
-- Thoughts are folded; permission requests go through vim.ui.select; the agent's stderr
-- and libacp's log go to a log buffer (:AcpLog). Agents by name: acp.agents; the prompt
-- buffer: acp.prompt; highlighting, moving around and the status line: acp.highlight,
-- acp.navigate, acp.status.
local acp = require("acp")
local render = require("acp.render")
local form = require("acp.form")
local loop = require("acp.loop")
local Buffer = require("acp.buffer")
local agents = require("acp.agents")
local prompt = require("acp.prompt")
local highlight = require("acp.highlight")
local navigate = require("acp.navigate")
local status = require("acp.status")

local api = vim.api
local M = { chats = {}, config = {} }
local counter = 0

local Chat = {}
Chat.__index = Chat

-- Files ----------------------------------------------------------------------------------

local function exists(path) return path and vim.loop.fs_stat(path) ~= nil end

-- libacp.so: setup{library=...}, ACP_LIBRARY, else the plugin's own build trees, else the
-- system's ("acp").
function M.library()
  if M.config.library then return M.config.library end
  if os.getenv("ACP_LIBRARY") then return os.getenv("ACP_LIBRARY") end
  for _, dir in ipairs({ "build/nvim", "build/dev", "build", "build/release" }) do
    local path = (M.config.root or ".") .. "/" .. dir .. "/libacp.so"
    if exists(path) then return path end
  end
  return nil
end

-- Loads libacp with the library and acp_cdef.h of setup (or found): acp, or nil, err.
function M.load()
  return acp.load({ library = M.library(), cdef = M.config.cdef })
end

-- The chat of the current buffer, else the most recent one.
function M.current()
  local buf = api.nvim_get_current_buf()
  for _, chat in ipairs(M.chats) do
    if chat.view.buf == buf or (chat.log and chat.log.buf == buf) then return chat end
  end
  return M.chats[#M.chats]
end

-- Beside the chat, hooked in below: context for the next prompt (acp.context), edits
-- reviewed in buffers (acp.review), v1 agents' files through the buffers (acp.files) and
-- the tools offered to the agent (acp.editor_tools).
local context = require("acp.context")
local review = require("acp.review")
local files = require("acp.files")
local editor_tools = require("acp.editor_tools")

-- Log and notes ------------------------------------------------------------------------------

-- The log keeps the last LOG_LINES lines, each cut at LOG_LINE_BYTES: an agent flooding
-- its stderr must not grow the editor's memory without bound.
local LOG_LINES, LOG_LINE_BYTES = 2000, 2000

function Chat:log_line(text)
  local buf = self.log.buf
  if not api.nvim_buf_is_valid(buf) then return end
  local lines = render.lines(text)
  for i, line in ipairs(lines) do
    if #line > LOG_LINE_BYTES then lines[i] = line:sub(1, LOG_LINE_BYTES):gsub("[\192-\255][\128-\191]*$", "") .. " [...]" end
  end
  api.nvim_buf_set_option(buf, "modifiable", true)
  local empty = api.nvim_buf_line_count(buf) == 1 and api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ""
  api.nvim_buf_set_lines(buf, empty and 0 or -1, -1, false, lines)
  local excess = api.nvim_buf_line_count(buf) - LOG_LINES
  if excess > 0 then api.nvim_buf_set_lines(buf, 0, excess, false, {}) end
  api.nvim_buf_set_option(buf, "modifiable", false)
end

function Chat:note(text)
  self.view:add({ "-- " .. render.clean(text, true) })
end

function Chat:error(what, err)
  local message = what .. ": " .. tostring(err)
  self:note(message)
  self:log_line("error: " .. message)
end

-- The session model on screen ------------------------------------------------------------------

-- The model is read when its change event is handled, so it may already hold the text of
-- chunks whose events are still queued: streamed[index] = {shown = bytes of the item's
-- text on screen, seen = bytes the events delivered so far}; a later chunk is appended
-- only for its part beyond what was shown.
function Chat:render_item(index, inserted, appended)
  local item = self.client:item(self.session_id, index)
  if not item then return end
  local length = type(item.text) == "string" and #item.text or 0
  local seen = (inserted and appended) and #appended or length
  self.streamed[index] = { shown = length, seen = seen }
  if inserted or not self.view:has_item(index) then
    self.view:add(render.item(item), index, item.kind)
  else
    self.view:replace_item(index, render.item(item))
  end
end

function Chat:on_change(change)
  if change.session_id ~= self.session_id then return end
  local t = change.type
  review.track(self, change)
  if t == "item_inserted" then
    self:render_item(change.index, true, change.appended)
  elseif t == "item_changed" then
    local streamed = self.streamed[change.index]
    if change.appended and render.appends_in_place(change.kind) and self.view:has_item(change.index) and streamed then
      local from = streamed.shown - streamed.seen
      streamed.seen = streamed.seen + #change.appended
      if streamed.seen > streamed.shown then
        local text = from > 0 and change.appended:sub(from + 1) or change.appended
        streamed.shown = streamed.seen
        self.view:append_to_item(change.index, render.clean(text))
      end
    else
      self:render_item(change.index, false)
    end
  elseif t == "session_reset" then
    self.streamed = {}
    self.view:clear()
    self:note("session " .. self.session_id .. " (history replayed)")
  elseif t == "state_changed" then
    self.state = change.state
    api.nvim_buf_set_var(self.view.buf, "acp_state", render.clean(change.state or "", true))
  elseif t == "turn_ended" then
    self.state = "idle"
    self:note("turn ended: " .. (change.stop_reason or "?"))
    review.turn_ended(self)
    for _, fn in ipairs(self.on_turn_end) do fn(change.stop_reason) end
  elseif t == "usage" then
    status.refresh_usage(self)
  end
end

-- Permission requests, one question at a time ----------------------------------------------------

function Chat:ask_next()
  if self.asking or #self.questions == 0 then return end
  local request = table.remove(self.questions, 1)
  if request.answered or request.withdrawn then return self:ask_next() end
  self.asking = request
  if request.kind == "elicitation" then return self:ask_form(request) end
  if M.config.review ~= false and review.open(self, request) then return end
  local title = request.tool_call and (request.tool_call.title or request.tool_call.id) or "a tool call"
  title = render.clean(title, true)
  self:note("permission asked: " .. title)
  vim.ui.select(request.options, {
    prompt = "Allow " .. title .. "?",
    kind = "acp.permission",
    format_item = function(option) return render.clean(option.name, true) end,
  }, function(choice)
    self.asking = nil
    if request.answered or request.withdrawn then
      self:note("permission already settled: " .. title)
    elseif choice then
      request:select(choice.id)
      self:note("permission: " .. render.clean(choice.name, true))
    else
      request:cancel()
      self:note("permission: cancelled")
    end
    self:ask_next()
  end)
end

-- A form elicitation, through acp.form (CLIENT-MUST-73..75): the agent named, decline
-- and cancel offered, answers checked and reviewed before they are sent. Only forms are
-- advertised; another mode is never shown as a form.
function Chat:ask_form(request)
  local params = type(request.params) == "table" and request.params or {}
  local function settle(action, content)
    self.asking = nil
    if request.answered or request.withdrawn then
      self:note("question already settled")
    elseif action == "accept" then
      request:accept(content)
      self:note("answers sent")
    elseif action == "decline" then
      request:decline()
      self:note("declined")
    else
      request:cancel()
      self:note("cancelled")
    end
    self:ask_next()
  end
  if params.mode ~= "form" then return settle("cancel") end
  form.run({
    agent = self.agent_name, message = params.message, schema = params.requestedSchema,
    note = function(text) self:note(text) end,
    clean = function(text) return render.clean(text, true) end,
  }, settle)
end

-- Sessions and turns ----------------------------------------------------------------------------

function Chat:send(text)
  if not self.session_id then
    self.unsent[#self.unsent + 1] = text
    return
  end
  self.state = "running"
  local ok, err = self.client:prompt(self.session_id, context.take(self, text), function(_, err)
    if err then self:error("prompt", err) end
  end)
  if not ok then self:error("prompt", err) end
end

-- CLIENT-MUST-68: whether a permission request is known to be the foreground work's. An
-- agent that never reported background work has none (the guide's repo model), nor has
-- one that reports an empty list: then every request is. Otherwise a request about a
-- tool call (or a command a tool call or terminal runs) is the foreground's unless that
-- work is listed; one about nothing listed stays open (the agent withdraws the
-- foreground's own questions itself, $/cancel_request). Forms are never cancelled here.
function Chat:of_foreground(request)
  if request.kind == "elicitation" then return false end
  local snapshot = self.client:snapshot(request.session_id or self.session_id)
  local dump = snapshot and snapshot.json and acp.json.decode(snapshot.json)
  local foreground = type(dump) == "table" and dump.foreground
  local background = type(foreground) == "table" and foreground.background
  if type(background) ~= "table" or background == acp.json.null or #background == 0 then return true end
  local params = type(request.params) == "table" and request.params or {}
  local subject = type(params.subject) == "table" and params.subject or {}
  local tool_call = request.tool_call and request.tool_call.id
  local terminal
  if subject.type == "command" then tool_call, terminal = subject.toolCallId, subject.terminalId end
  if type(tool_call) ~= "string" and type(terminal) ~= "string" then return false end
  for _, work in ipairs(background) do
    if type(work) ~= "table" or (work.type ~= "tool_call" and work.type ~= "terminal") then return false end
    if work.type == "tool_call" and tool_call ~= nil and work.toolCallId == tool_call then return false end
    if work.type == "terminal" and terminal ~= nil and work.terminalId == terminal then return false end
  end
  return true
end

-- Cancels the running turn: session/cancel, then the permission requests of that turn
-- answered "cancelled" (CLIENT-GUIDE 7.4: the agent then records its tool calls as
-- cancelled); those of background work and forms stay open.
function Chat:cancel()
  if not self.session_id then return end
  local ok, err = self.client:cancel(self.session_id)
  if not ok then return self:error("cancel", err) end
  local keep = {}
  for _, request in ipairs(self.questions) do
    if self:of_foreground(request) then request:cancel() else keep[#keep + 1] = request end
  end
  self.questions = keep
  if self.asking and self:of_foreground(self.asking) then self.asking:cancel() end
end

function Chat:start_session()
  self.client:new_session({ cwd = self.cwd, tools = editor_tools.servers(self, M.config) }, function(session, err)
    if err then return self:error("new session", err) end
    self.session_id = session.id
    self:note("session " .. session.id)
    local unsent = self.unsent
    self.unsent = {}
    for _, text in ipairs(unsent) do self:send(text) end
  end)
end

-- Resumes a session of the agent with its history replayed into this buffer.
function Chat:resume(session_id, cwd)
  if not cwd then
    return self.client:list_sessions(nil, function(list, err)
      if err then return self:error("list sessions", err) end
      for _, info in ipairs(list or {}) do
        if info.sessionId == session_id then return self:resume(session_id, info.cwd or self.cwd) end
      end
      self:resume(session_id, self.cwd)
    end)
  end
  self.session_id = session_id
  self.view:clear()
  self:note("resuming " .. session_id)
  local options = { cwd = cwd, replay = true, tools = editor_tools.servers(self, M.config) }
  self.client:resume_session(session_id, options, function(_, err)
    if err then return self:error("resume " .. session_id, err) end
    self:note("resumed " .. session_id)
    for _, fn in ipairs(self.on_resumed) do fn(session_id) end
  end)
end

function Chat:pick_session()
  self.client:list_sessions(nil, function(list, err)
    if err then return self:error("list sessions", err) end
    vim.ui.select(list or {}, {
      prompt = "Resume which session?",
      kind = "acp.session",
      format_item = function(info)
        return render.clean(info.sessionId, true) .. "  " .. render.clean(info.title or "", true)
      end,
    }, function(choice)
      if choice then self:resume(choice.sessionId, choice.cwd) end
    end)
  end)
end

-- Config options: listed as notes, or one set (booleans as true/false).
function Chat:config(config_id, value)
  if not self.session_id then return end
  local session = self.client:session(self.session_id)
  if not config_id then
    for _, option in ipairs(session:config_options() or {}) do
      local values = {}
      for _, choice in ipairs(type(option.options) == "table" and option.options or {}) do
        if type(choice) == "table" then values[#values + 1] = render.clean(choice.value, true) end
      end
      self:note("config " .. render.clean(option.configId, true) .. " = " .. render.clean(option.currentValue, true) ..
        (#values > 0 and (" (" .. table.concat(values, ", ") .. ")") or ""))
    end
    return
  end
  if value == "true" or value == "false" then value = value == "true" end
  local ok, err = session:set_config_option(config_id, value, function(_, set_err)
    if set_err then return self:error("config " .. config_id, set_err) end
    self:note("config " .. config_id .. " = " .. tostring(value))
  end)
  if not ok then self:error("config " .. config_id, err) end
end

-- Lifetime ---------------------------------------------------------------------------------------

-- The chats on one agent: the one :AcpChat opened and its forks (:AcpFork).
local function chats_of(client)
  local list = {}
  for _, chat in ipairs(M.chats) do
    if chat.client == client then list[#list + 1] = chat end
  end
  return list
end

-- The chat of a session of the client (a request or change names it), else the first.
local function chat_of(client, session_id)
  local list = chats_of(client)
  for _, chat in ipairs(list) do
    if session_id and chat.session_id == session_id then return chat end
  end
  return list[1]
end

-- Forgets the chat; the last chat on its agent ends the agent (waits for it, bounded by
-- libacp's shutdown ladder), a fork's agent runs on while another chat uses it.
function Chat:shutdown()
  if self.closed then return end
  self.closed = true
  for i, chat in ipairs(M.chats) do
    if chat == self then table.remove(M.chats, i) break end
  end
  if #chats_of(self.client) > 0 then return end
  if self.shared.stop_loop then self.shared.stop_loop() end
  self.client:free()
end

-- ACP's unstable surface (setup{unstable = true}, docs/unstable.md) --------------------------------

-- Why the chat cannot use one feature of the unstable surface ("fork", "title": keys of
-- client:unstable_offer()), or nil when it can.
function Chat:unstable_refused(feature, what)
  if not M.config.unstable then
    return what .. " needs ACP's unstable surface: setup{ unstable = true } (:help acp-option-unstable)"
  end
  if not self.session_id then return what .. ": the chat has no session yet" end
  local offer = self.client:unstable_offer()
  if type(offer) ~= "table" or offer[feature] ~= true then
    return what .. ": the agent does not offer it (session." .. feature .. " not advertised)"
  end
  return nil
end

local function refuse(message)
  vim.notify("acp: " .. message, vim.log.levels.WARN)
  return nil, message
end

-- :AcpFork — session/fork of the chat's session into a new chat buffer on the same agent,
-- with the editor tools offered to the fork as to a new session. Returns the new chat.
function Chat:fork()
  local refused = self:unstable_refused("fork", "fork")
  if refused then return refuse(refused) end
  local fork = M.new_chat(self.client, self.shared, { argv = self.argv, cwd = self.cwd, label = self.label,
    agent_name = self.agent_name, tool_server = self.tool_server })
  fork.view:add({ "# ACP chat: fork of " .. render.clean(self.session_id, true) })
  local source = self.session_id
  local ok, err = self.client:fork_session(source, { cwd = self.cwd, tools = editor_tools.servers(fork, M.config) },
    function(session, fork_err)
      if fork_err then return fork:error("fork " .. source, fork_err) end
      fork.session_id = session.id
      fork:note("session " .. session.id .. " (forked from " .. source .. ")")
      local unsent = fork.unsent
      fork.unsent = {}
      for _, text in ipairs(unsent) do fork:send(text) end
    end)
  if not ok then fork:error("fork " .. source, err) end
  return fork
end

-- :AcpTitle — session/set_title; the note shows the title the agent stored (it may trim).
function Chat:set_title(text)
  local refused = self:unstable_refused("title", "title")
  if refused then return refuse(refused) end
  local ok, err = self.client:unstable_call("session/set_title", { sessionId = self.session_id, title = text },
    function(result, set_err)
      if set_err then return self:error("title", set_err) end
      local title = type(result) == "table" and type(result.title) == "string" and result.title or text
      self.title = title
      api.nvim_buf_set_var(self.view.buf, "acp_title", render.clean(title, true))
      self:note("title: " .. render.clean(title, true))
    end)
  if not ok then self:error("title", err) end
  return ok
end

local function setup_buffer(chat)
  local buf = chat.view.buf
  api.nvim_buf_set_option(buf, "filetype", "acpchat")
  highlight.attach(buf)
  -- A thought is folded once it is complete (the next block began), in every window.
  chat.view.on_block_closed = function(kind, k)
    if kind ~= "agent_thought" then return end
    local first, last = chat.view:range(k)
    for _, win in ipairs(api.nvim_list_wins()) do
      if api.nvim_win_get_buf(win) == buf then M.fold(win, first + 1, last + 1) end
    end
  end
  chat.view.on_clear = function()
    for _, win in ipairs(api.nvim_list_wins()) do
      if api.nvim_win_get_buf(win) == buf then api.nvim_win_call(win, function() vim.cmd("silent! normal! zE") end) end
    end
  end
  local opts = { buffer = buf, silent = true }
  vim.keymap.set("n", "i", function() prompt.open(chat) end, opts)
  vim.keymap.set("n", "<CR>", function() prompt.open(chat) end, opts)
  vim.keymap.set("n", "<C-c>", function() chat:cancel() end, opts)
  vim.keymap.set("n", "]]", function() navigate.jump_turn(1) end, opts)
  vim.keymap.set("n", "[[", function() navigate.jump_turn(-1) end, opts)
  vim.keymap.set("n", "gy", navigate.yank_code_block, opts)
  vim.keymap.set("n", "gl", function() M.show_log(chat) end, opts)
  api.nvim_create_autocmd("BufWinEnter", { buffer = buf, callback = function() M.fold_window(0) end })
  api.nvim_create_autocmd("BufWipeout", { buffer = buf, callback = function() chat:shutdown() end })
end

-- Thoughts are folded: manual folds, made when a thought is complete (folds are per
-- window, so also for a window that shows the chat later). Manual folds move with the
-- lines around them and are never re-evaluated while text streams in.
function M.fold(win, first, last)
  if last <= first then return end
  api.nvim_win_call(win, function() vim.cmd(string.format("silent! %d,%dfold", first, last)) end)
end

function M.fold_window(win)
  win = win == 0 and api.nvim_get_current_win() or win
  api.nvim_win_set_option(win, "foldmethod", "manual")
  api.nvim_win_set_option(win, "foldenable", true)
  local chat
  for _, c in ipairs(M.chats) do
    if c.view.buf == api.nvim_win_get_buf(win) then chat = c end
  end
  if not chat then return end
  api.nvim_win_call(win, function() vim.cmd("silent! normal! zE") end)
  for _, range in ipairs(chat.view:ranges_of("agent_thought")) do M.fold(win, range[1], range[2]) end
end

function M.show_log(chat)
  vim.cmd("botright split")
  api.nvim_win_set_buf(0, chat.log.buf)
end

-- A chat buffer on a client, in a new window: shared = {log = Buffer, stop_loop} of the
-- agent (one per client, a fork shares its source's), fields = argv, cwd, label, ...
function M.new_chat(client, shared, fields)
  counter = counter + 1
  local chat = setmetatable({
    client = client, shared = shared, log = shared.log, id = counter, view = Buffer.new("acp://chat/" .. counter),
    questions = {}, unsent = {}, on_turn_end = {}, on_resumed = {}, streamed = {},
  }, Chat)
  for key, value in pairs(fields) do chat[key] = value end
  M.chats[#M.chats + 1] = chat
  setup_buffer(chat)
  vim.cmd("botright vsplit")
  api.nvim_win_set_buf(0, chat.view.buf)
  M.fold_window(0)
  return chat
end

-- Opens a chat in a new window on an agent by name or a command with its arguments
-- (acp.agents; none: the default agent). A single argument that is a ws://, wss://,
-- http:// or https:// URL is an agent on the network, reached with the headers and CA
-- file of setup({headers = {...}, ca_file = ...}) (docs/remote.md).
function M.open(args)
  local loaded, load_err = M.load()
  if not loaded then
    vim.notify("acp: " .. tostring(load_err), vim.log.levels.ERROR)
    return nil, load_err
  end
  local spec, spec_err = agents.resolve(M.config, args, M.library())
  if not spec then
    vim.notify("acp: " .. tostring(spec_err), vim.log.levels.ERROR)
    return nil, spec_err
  end
  local argv = spec.argv
  local cwd = vim.fn.getcwd()
  local options = { cwd = cwd, client_name = "libacp-nvim", elicitation = { form = true }, unstable = M.config.unstable == true }
  local client, err
  if #argv == 1 and argv[1]:match("^%a+://") then
    options.headers, options.ca_file = M.config.headers, M.config.ca_file
    client, err = acp.connect(argv[1], options)
  else
    options.env = spec.env
    if spec.cwd then options.cwd = spec.cwd end
    client, err = acp.spawn(argv, options)
  end
  if not client then
    vim.notify("acp: cannot start " .. table.concat(argv, " ") .. ": " .. tostring(err), vim.log.levels.ERROR)
    return nil, err
  end
  local chat = M.new_chat(client, { log = Buffer.new("acp://log/" .. (counter + 1)) },
    { argv = argv, cwd = cwd, label = spec.name or vim.fn.fnamemodify(argv[1], ":t") })

  -- Events go to the chat of their session (a fork has its own, on the same agent).
  client:on("change", function(change)
    for _, each in ipairs(chats_of(client)) do each:on_change(change) end
  end)
  local function ask(request)
    local target = chat_of(client, request.session_id)
    if not target then return request:cancel() end
    target.questions[#target.questions + 1] = request
    target:ask_next()
  end
  client:on("permission", ask)
  client:on("elicitation", function(request)
    request.kind = "elicitation"
    ask(request)
  end)
  client:on("withdrawn", function(id)
    for _, each in ipairs(chats_of(client)) do
      local mine = each.asking and each.asking.id == id
      for _, request in ipairs(each.questions) do
        if request.id == id then request.withdrawn, mine = true, true end
      end
      if each.asking and each.asking.id == id then each.asking.withdrawn = true end
      if mine then each:note("the agent withdrew its question") end
    end
  end)
  client:on("log", function(record)
    chat:log_line(record.level .. " " .. (record.source or "") .. ": " .. record.text)
  end)
  client:on("closed", function(closed_err)
    for _, each in ipairs(chats_of(client)) do
      each:note("agent gone" .. (closed_err and (": " .. tostring(closed_err)) or ""))
    end
    chat:log_line("closed" .. (closed_err and (": " .. tostring(closed_err)) or ""))
  end)
  if M.config.fs ~= false then files.attach(chat) end
  chat.shared.stop_loop = loop.attach(client, function(message) chat:error("handler", message) end)

  chat.view:add({ "# ACP chat: " .. render.clean(table.concat(argv, " "), true) })
  client:initialize(function(_, init_err)
    if init_err then return chat:error("initialize", init_err) end
    local info = client:agent_info() or {}
    local agent = type(info.agentInfo) == "table" and info.agentInfo or type(info.info) == "table" and info.info or {}
    chat.agent_name = type(agent.title) == "string" and agent.title or type(agent.name) == "string" and agent.name or nil
    chat:note("agent " .. render.clean(agent.title or agent.name or "?", true) .. " " ..
      render.clean(agent.version or "", true) .. ", ACP v" .. client:negotiated_version())
    chat:start_session()
  end)
  return chat
end

function M.setup(config)
  M.config = vim.tbl_extend("force", M.config, config or {})
end

function M.shutdown_all()
  for i = #M.chats, 1, -1 do M.chats[i]:shutdown() end
end

M.Chat = Chat
return M
