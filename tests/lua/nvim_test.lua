-- SPDX-License-Identifier: Apache-2.0
-- Runs inside `nvim --headless` with the plugin (tests/lua/nvim_test.sh starts it twice).
-- Phase "first": :AcpChat against the demo agent, a prompt, the permission answered
-- through a stubbed vim.ui.select, the reply, tool call, diff, plan and folded thought
-- in the buffer, streamed text appended in place (no re-render), a turn cancelled.
-- Phase "second": a fresh Neovim and agent on the same state directory resume that
-- session through :AcpSessions and find its history in the buffer.
-- Phases "hostile", "peer", "remote", "background", "features", "treesitter", "context",
-- "review", "fs", "v1review", "tools" and "unstable": see below.
-- All: the agent's pid is recorded, and at VimLeave (after the plugin's VimLeavePre)
-- it must be gone. Results go to $ACP_TEST_OUT/<phase>.result, one line per check.
local phase = os.getenv("ACP_TEST_PHASE")
local out = os.getenv("ACP_TEST_OUT")
local agent = os.getenv("ACP_TEST_AGENT")
local state_dir = out .. "/state"
local result_path = out .. "/" .. phase .. ".result"
local api = vim.api

local function write(line)
  local file = assert(io.open(result_path, "a"))
  file:write(line, "\n")
  file:close()
end
local function check(cond, what, detail)
  write((cond and "ok    " or "FAIL  ") .. what .. ((not cond and detail) and (": " .. tostring(detail)) or ""))
  return cond
end

local chat_module = require("acp.chat")

local function buffer_text(chat)
  return table.concat(api.nvim_buf_get_lines(chat.view.buf, 0, -1, false), "\n")
end
local function wait_for(what, cond, ms)
  local ok = vim.wait(ms or 20000, cond, 10)
  if not ok then check(false, "waited for " .. what) end
  return ok
end

-- The processes this Neovim started (libacp runs the agent under a small guard process,
-- so the agent is a grandchild): every descendant, and how many of them are the agent.
local function agent_pids()
  local children = {}
  for _, stat in ipairs(vim.fn.glob("/proc/[0-9]*/stat", false, true)) do
    local file = io.open(stat, "r")
    local line = file and file:read("*l")
    if file then file:close() end
    local pid, ppid
    if line then pid, ppid = line:match("^(%d+) %(.*%) %a (%d+)") end
    if pid then
      children[tonumber(ppid)] = children[tonumber(ppid)] or {}
      table.insert(children[tonumber(ppid)], tonumber(pid))
    end
  end
  local pids, agents, queue = {}, 0, { vim.fn.getpid() }
  while #queue > 0 do
    for _, pid in ipairs(children[table.remove(queue, 1)] or {}) do
      pids[#pids + 1] = pid
      queue[#queue + 1] = pid
      local comm = io.open("/proc/" .. pid .. "/comm", "r")
      local name = comm and comm:read("*l")
      if name == "acp-demo-agent" or name == "node" then agents = agents + 1 end
      if comm then comm:close() end
    end
  end
  return pids, agents
end

local function alive(pid)
  local file = io.open("/proc/" .. pid .. "/stat", "r")
  if not file then return false end
  local line = file:read("*l") or ""
  file:close()
  return not line:match("^%d+ %(.*%) Z")
end

local recorded_pids = {}
api.nvim_create_autocmd("VimLeave", {
  callback = function()
    for _, pid in ipairs(recorded_pids) do
      check(not alive(pid), "process " .. pid .. " (agent or its guard) ended before Neovim exits")
    end
    write("DONE " .. table.concat(recorded_pids, " "))
  end,
})

-- The permission question, answered "allow once"; the session picker, answered with the
-- session of the first phase.
local asked = {}
local pick_session
vim.ui.select = function(items, opts, on_choice)
  asked[#asked + 1] = opts
  if opts.kind == "acp.permission" then
    for _, option in ipairs(items) do
      if option.kind == "allow_once" then return on_choice(option) end
    end
  elseif opts.kind == "acp.session" then
    for _, info in ipairs(items) do
      if info.sessionId == pick_session then return on_choice(info) end
    end
  end
  on_choice(nil)
end

local function start_chat()
  vim.cmd("AcpChat " .. agent .. " --delay-ms 2 --state-dir " .. state_dir)
  local chat = chat_module.current()
  check(chat ~= nil and api.nvim_get_current_buf() == chat.view.buf, ":AcpChat opens the chat buffer")
  wait_for("a session", function() return chat.session_id ~= nil end)
  local agents
  recorded_pids, agents = agent_pids()
  check(agents == 1, "one agent process (" .. table.concat(recorded_pids, " ") .. ")", agents)
  return chat
end

local function first()
  local chat = start_chat()
  -- Every edit of the chat buffer during the turn: a re-render would replace many lines.
  local edits, widest = 0, 0
  api.nvim_buf_attach(chat.view.buf, false, {
    on_lines = function(_, _, _, first_line, last_line, new_last)
      edits = edits + 1
      widest = math.max(widest, last_line - first_line, new_last - first_line)
    end,
  })
  vim.cmd("AcpSend hello nvim")
  wait_for("the end of the turn", function() return buffer_text(chat):find("-- turn ended: end_turn", 1, true) end)
  local text = buffer_text(chat)
  check(text:find("## You\nhello nvim", 1, true), "the prompt is in the buffer")
  check(text:find("You said: hello nvim", 1, true), "the reply is in the buffer")
  check(text:find("## Tool: Add a line to NOTES.md (edit) [completed]", 1, true), "the tool call with its final status")
  check(text:find("  diff: modify ", 1, true) and text:find("\n  +- hello nvim", 1, true), "the tool call's diff")
  check(text:find("## Plan\n  [x] Answer the message\n  [x] Note it down in NOTES.md\n  [x] Run the checks", 1, true),
    "the plan, completed")
  check(text:find("1 file checked, 0 problems", 1, true), "the terminal's output")
  check(text:find("-- permission: Allow once", 1, true), "the permission answered through vim.ui.select")
  check(#asked == 1 and asked[1].kind == "acp.permission", "vim.ui.select asked once")
  check(edits > 10 and widest <= 12, "streamed text appended in place, no re-render (" .. edits .. " edits, widest "
    .. widest .. " lines)", widest)
  -- The thought is folded in the chat window.
  local thought_row
  for row, line in ipairs(api.nvim_buf_get_lines(chat.view.buf, 0, -1, false)) do
    if line == "## Thinking" then thought_row = row break end
  end
  check(thought_row and vim.fn.foldclosed(thought_row) == thought_row, "the thought is folded", thought_row)
  local folded_too = {}
  for row, line in ipairs(api.nvim_buf_get_lines(chat.view.buf, 0, -1, false)) do
    if line:match("^## ") and line ~= "## Thinking" and vim.fn.foldclosed(row) ~= -1 then folded_too[#folded_too + 1] = line end
  end
  check(#folded_too == 0, "nothing but the thought is folded", table.concat(folded_too, ", "))

  -- A cancelled turn.
  vim.cmd("AcpSend /count 1000")
  wait_for("counting", function() return buffer_text(chat):find("\n5\n", 1, true) end)
  vim.cmd("AcpCancel")
  check(wait_for("the cancelled turn", function()
    return buffer_text(chat):find("-- turn ended: cancelled", 1, true)
  end), ":AcpCancel ends the turn cancelled")
  check(not buffer_text(chat):find("\n1000\n", 1, true), "cancelled before the count ended")
  -- Config options: listed, then one set.
  vim.cmd("AcpConfig")
  check(buffer_text(chat):find("-- config model = demo-fast (demo-fast, demo-thorough)", 1, true), ":AcpConfig lists the options")
  vim.cmd("AcpConfig model demo-thorough")
  check(wait_for("the option set", function()
    return buffer_text(chat):find("-- config model = demo-thorough", 1, true)
  end) and chat.client:session(chat.session_id):config_options()[1].currentValue == "demo-thorough",
    ":AcpConfig ID VALUE sets it")
  local file = assert(io.open(out .. "/session", "w"))
  file:write(chat.session_id)
  file:close()
  check(api.nvim_buf_get_name(chat.log.buf):find("acp://log/", 1, true), "a log buffer")
end

local function second()
  local file = assert(io.open(out .. "/session", "r"))
  pick_session = file:read("*a")
  file:close()
  local chat = start_chat()
  check(chat.session_id ~= pick_session, "a new session first")
  vim.cmd("AcpSessions")
  wait_for("the resumed session", function() return buffer_text(chat):find("-- resumed " .. pick_session, 1, true) end)
  local text = buffer_text(chat)
  check(chat.session_id == pick_session, "the chat follows the resumed session")
  check(text:find("You said: hello nvim", 1, true), "the replayed reply")
  check(text:find("## Tool: Add a line to NOTES.md (edit) [completed]", 1, true), "the replayed tool call")
  check(text:find("  [x] Run the checks", 1, true), "the replayed plan")
  vim.cmd("AcpSend second nvim")
  check(wait_for("a turn in the resumed session", function()
    return buffer_text(chat):find("You said: second nvim", 1, true) and buffer_text(chat):find("-- turn ended: end_turn", 1, true)
  end), "a turn in the resumed session")
end

-- The session/prompt requests the TypeScript peer recorded (--record=FILE), in order.
local function recorded_prompts(path)
  local prompts = {}
  for line in io.lines(path) do
    local entry = vim.json.decode(line)
    if entry.dir == "in" and entry.msg and entry.msg.method == "session/prompt" then prompts[#prompts + 1] = entry.msg.params end
  end
  return prompts
end

local function open_file(path, lines)
  local file = assert(io.open(path, "w"))
  file:write(table.concat(lines, "\n") .. "\n")
  file:close()
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  return api.nvim_get_current_buf()
end

-- Phase "context": a buffer with unsaved changes, the selected lines, its diagnostics and
-- an image go with the next prompt to the TypeScript peer, which advertises
-- embeddedContext and image: resources with the buffer's URI (the selection's with its
-- line range) and text, as the peer's record shows. Then a peer without prompt
-- capabilities gets a saved file as a resource_link and an unsaved buffer as text.
local function context_phase()
  local dir = out .. "/context"
  vim.fn.mkdir(dir, "p")
  vim.cmd("cd " .. vim.fn.fnameescape(dir))
  local path = dir .. "/sample.lua"
  local buf = open_file(path, { "local a = 1", "local b = 2", "local c = 3", "return a" })
  api.nvim_buf_set_lines(buf, 3, 4, false, { "return a + b + c -- unsaved" })
  api.nvim_buf_set_option(buf, "filetype", "lua")
  local ns = api.nvim_create_namespace("acp_test")
  vim.diagnostic.set(ns, buf, { { lnum = 1, col = 6, severity = vim.diagnostic.severity.WARN, message = "unused b",
    source = "lint" } })
  local png = dir .. "/dot.png"
  local image = "\137PNG\r\n\26\n\0\0\0\rIHDR"
  local file = assert(io.open(png, "wb"))
  file:write(image)
  file:close()
  local record = dir .. "/record.jsonl"
  vim.cmd("AcpChat " .. os.getenv("ACP_TEST_NODE") .. " " .. os.getenv("ACP_TEST_TS_AGENT") .. " --record=" .. record)
  local chat = chat_module.current()
  wait_for("a session", function() return chat.session_id ~= nil end)
  recorded_pids = agent_pids()
  vim.cmd("wincmd p")
  check(api.nvim_get_current_buf() == buf, "back in the file's window")
  vim.cmd("2,3AcpAdd")
  vim.cmd("AcpAdd buffer")
  vim.cmd("AcpAdd diagnostics")
  vim.cmd("AcpAdd file " .. png)
  vim.cmd("AcpSend hello")
  wait_for("the end of the turn", function() return buffer_text(chat):find("-- turn ended: end_turn", 1, true) end)
  check(buffer_text(chat):find("warning: unused b [lint]\n\nhello", 1, true), "the chat shows the prompt with its context",
    buffer_text(chat))
  local uri = vim.uri_from_fname(path)
  local prompt = recorded_prompts(record)[1].prompt
  check(#prompt == 5, "four context blocks and the text", vim.inspect(prompt))
  local selection, whole, diagnostics, picture, text = unpack(prompt)
  check(selection.type == "resource" and selection.resource.uri == uri .. "#L2-L3"
    and selection.resource.text == "local b = 2\nlocal c = 3\n", "the selection is a resource with its line range",
    vim.inspect(selection))
  check(whole.type == "resource" and whole.resource.uri == uri
    and whole.resource.text == "local a = 1\nlocal b = 2\nlocal c = 3\nreturn a + b + c -- unsaved\n",
    "the buffer is a resource with its unsaved text", vim.inspect(whole))
  check(diagnostics.type == "text" and diagnostics.text:find(path .. ":2:7: warning: unused b [lint]", 1, true),
    "the diagnostics as text", vim.inspect(diagnostics))
  check(picture.type == "image" and picture.mimeType == "image/png" and picture.data == require("acp.context").base64(image)
    and picture.data == "iVBORw0KGgoAAAANSUhEUg==", "the png as an image block", vim.inspect(picture))
  check(text.type == "text" and text.text == "hello", "the prompt's text last", vim.inspect(text))
  vim.cmd("AcpSend hello")
  wait_for("the second turn", function() return #recorded_prompts(record) == 2 end)
  check(#recorded_prompts(record)[2].prompt == 1, "context goes with one prompt only")
  chat_module.shutdown_all()

  -- Without prompt capabilities: links and text.
  local plain = dir .. "/plain.txt"
  local saved = open_file(plain, { "saved" })
  local record2 = dir .. "/record2.jsonl"
  vim.cmd("AcpChat " .. os.getenv("ACP_TEST_NODE") .. " " .. os.getenv("ACP_TEST_TS_AGENT") .. " --caps=stdio-only --record=" .. record2)
  chat = chat_module.current()
  wait_for("a session", function() return chat.session_id ~= nil end)
  vim.cmd("wincmd p")
  check(api.nvim_get_current_buf() == saved, "back in the saved file's window")
  vim.cmd("AcpAdd buffer")
  vim.cmd("buffer " .. buf)
  vim.cmd("AcpAdd buffer")
  vim.cmd("2AcpAdd selection")
  vim.cmd("AcpSend hello")
  wait_for("the end of the turn", function() return buffer_text(chat):find("-- turn ended: end_turn", 1, true) end)
  prompt = recorded_prompts(record2)[1].prompt
  check(#prompt == 4 and prompt[1].type == "resource_link" and prompt[1].uri == vim.uri_from_fname(plain)
    and prompt[1].name == "plain.txt" and prompt[1].size == 6, "a saved buffer is a resource_link", vim.inspect(prompt))
  check(prompt[2].type == "text" and prompt[2].text == path .. " (unsaved changes):\n```lua\nlocal a = 1\nlocal b = 2\n"
    .. "local c = 3\nreturn a + b + c -- unsaved\n```\n\n", "an unsaved buffer is text", vim.inspect(prompt[2]))
  check(prompt[3].type == "text" and prompt[3].text == path .. " lines 2-2:\n```lua\nlocal b = 2\n```\n\n",
    "a selection is text with its lines", vim.inspect(prompt[3]))
  chat_module.shutdown_all()
end

-- Phase "review": the demo agent's edit of NOTES.md (a git_patch diff) opens as a diff of
-- the file's buffer against the proposed text; ga in the proposed buffer accepts (the
-- agent goes on, the tool call completes, NOTES.md is in the quickfix list), gr rejects
-- the next turn's (the agent leaves NOTES.md alone, the tool call fails).
local function review_phase()
  local dir = out .. "/review"
  vim.fn.mkdir(dir, "p")
  vim.cmd("cd " .. vim.fn.fnameescape(dir))
  local notes = dir .. "/NOTES.md"
  local file = assert(io.open(notes, "w"))
  file:write("# Notes\n- (nothing yet)\n")
  file:close()
  local selects = 0
  vim.ui.select = function(items, opts, on_choice)
    selects = selects + 1
    for _, option in ipairs(items) do
      if option.kind == "allow_once" then return on_choice(option) end
    end
    on_choice(nil)
  end
  vim.cmd("AcpChat " .. agent .. " --delay-ms 0 --state-dir " .. state_dir .. "-review")
  local chat = chat_module.current()
  wait_for("a session", function() return chat.session_id ~= nil end)
  recorded_pids = agent_pids()
  local function proposed_window()
    for _, win in ipairs(api.nvim_tabpage_list_wins(0)) do
      if api.nvim_buf_get_name(api.nvim_win_get_buf(win)):find("^acp://proposed/") then return win end
    end
  end
  for turn, verdict in ipairs({ "ga", "gr" }) do
    vim.cmd("AcpSend review " .. turn)
    wait_for("the review", function() return chat.review ~= nil end)
    check(#api.nvim_list_tabpages() == 2, "turn " .. turn .. ": the review is a tab of its own")
    local wins = api.nvim_tabpage_list_wins(0)
    local win = proposed_window()
    check(#wins == 2 and win and vim.wo[wins[1]].diff and vim.wo[wins[2]].diff, "turn " .. turn .. ": two windows in diff mode")
    local file_win = wins[1] == win and wins[2] or wins[1]
    check(api.nvim_buf_get_name(api.nvim_win_get_buf(file_win)) == notes, "turn " .. turn .. ": the file's own buffer")
    check(win and vim.deep_equal(api.nvim_buf_get_lines(api.nvim_win_get_buf(win), 0, -1, false),
      { "# Notes", "- review " .. turn }), "turn " .. turn .. ": the proposed text is the patch applied to the file")
    api.nvim_set_current_win(win)
    vim.cmd("normal " .. verdict)
    wait_for("the end of turn " .. turn, function()
      local _, count = buffer_text(chat):gsub("%-%- turn ended: end_turn", "")
      return count == turn
    end)
    check(#api.nvim_list_tabpages() == 1 and not vim.wo.diff, "turn " .. turn .. ": the review closed")
  end
  check(selects == 0, "no vim.ui.select for a diff that can be shown", selects)
  -- A review closed without an answer: the question is asked through vim.ui.select.
  vim.cmd("AcpSend review 3")
  wait_for("the third review", function() return chat.review ~= nil end)
  vim.cmd("tabclose")
  wait_for("the end of turn 3", function()
    local _, count = buffer_text(chat):gsub("%-%- turn ended: end_turn", "")
    return count == 3
  end)
  check(selects == 1 and buffer_text(chat):find("-- permission: Allow once", 1, true),
    "a review closed unanswered asks through vim.ui.select", buffer_text(chat))
  local text = buffer_text(chat)
  check(text:find("-- permission: accepted in review", 1, true) and text:find("Done: NOTES.md has your line", 1, true)
    and text:find("## Tool: Add a line to NOTES.md (edit) [completed]", 1, true),
    "ga answered allow_once: the agent made the edit", text)
  check(text:find("-- permission: rejected in review", 1, true) and text:find("OK, I left NOTES.md alone.", 1, true)
    and text:find("## Tool: Add a line to NOTES.md (edit) [failed]", 1, true),
    "gr answered reject_once: the agent left the file alone", text)
  local _, changed = text:gsub("%-%- 1 file changed %(:copen%)", "")
  check(changed == 2, "only the accepted turns list a changed file", changed)
  local qf = vim.fn.getqflist({ title = 1, items = 1 })
  check(qf.title == "ACP: files the turn changed" and #qf.items == 1 and api.nvim_buf_get_name(qf.items[1].bufnr) == notes,
    "the quickfix list has NOTES.md", vim.inspect(qf))
  local lines = vim.fn.readfile(notes)
  check(vim.deep_equal(lines, { "# Notes", "- (nothing yet)" }), "NOTES.md is untouched (the demo agent only proposes)")
  -- Diffs that are not reviewed in buffers (asked the usual way): the agent's paths are
  -- untrusted, a patch must apply to the file as it is.
  local review = require("acp.review")
  local confine = review.confine(chat)
  local function patch(path, body)
    return { data = { content = { { type = "diff", changes = { { operation = "modify", path = path } },
      patch = { format = "git_patch", text = "diff --git " .. path .. " " .. path .. "\n--- " .. path .. "\n+++ " .. path
        .. "\n" .. body } } } } }
  end
  check(review.proposals(patch(notes, "@@ -1,2 +1,2 @@\n # Notes\n-- (nothing yet)\n+- x\n"), confine) ~= nil, "a patch that applies")
  check(review.proposals(patch(notes, "@@ -1,2 +1,2 @@\n # Notes\n-- something else\n+- x\n"), confine) == nil,
    "a patch whose removed line differs from the file: no review")
  check(review.proposals(patch("/dev/zero", "@@ -1 +1 @@\n-a\n+b\n"), confine) == nil, "a device: no review")
  check(review.proposals(patch("NOTES.md", "@@ -1 +1 @@\n-a\n+b\n"), confine) == nil, "a relative path: no review")
  -- Outside the session's directories, directly or through a symlink inside them: the
  -- file is never opened (its text would be shown to the user as the agent's proposal).
  local outside = out .. "/outside-review.md"
  vim.fn.writefile({ "secret" }, outside)
  vim.loop.fs_symlink(outside, dir .. "/link.md")
  check(review.proposals(patch(outside, "@@ -1 +1 @@\n-secret\n+x\n"), confine) == nil, "a file outside: no review")
  check(review.proposals(patch(dir .. "/link.md", "@@ -1 +1 @@\n-secret\n+x\n"), confine) == nil,
    "a symlink out of the session's directory: no review")
  check(require("acp.files").buffer_of(outside) == nil, "the file outside was not loaded")
  check(review.proposals({ data = { content = { { type = "diff", changes = { { operation = "modify", path = notes } } } } } },
    confine) == nil, "a diff without text: no review")
  chat_module.shutdown_all()
end

-- Phase "fs": a v1 agent (the TypeScript SDK's v1 peer, script "fs") reads in.txt, which
-- has unsaved changes in its buffer, and writes out.txt, open in a buffer: the read
-- returns the buffer's text, the write lands in the buffer (saved, as the buffer had no
-- unsaved changes) and is undone by u. A path outside the session's directories is refused
-- by libacp's fs guard.
local function fs_phase()
  local dir = out .. "/fs"
  vim.fn.mkdir(dir, "p")
  vim.cmd("cd " .. vim.fn.fnameescape(dir))
  local input = open_file(dir .. "/in.txt", { "disk text" })
  api.nvim_buf_set_lines(input, 0, -1, false, { "unsaved", "text" })
  vim.cmd("split")
  local output = open_file(dir .. "/out.txt", { "old" })
  vim.cmd("AcpChat " .. os.getenv("ACP_TEST_NODE") .. " " .. os.getenv("ACP_TEST_TS_AGENT"):gsub("agent%.mjs$", "agent-v1.mjs"))
  local chat = chat_module.current()
  wait_for("a session", function() return chat.session_id ~= nil end)
  recorded_pids = agent_pids()
  check(chat.client:negotiated_version() == 1, "the peer speaks v1")
  vim.cmd("AcpSend fs")
  wait_for("the end of the turn", function() return buffer_text(chat):find("-- turn ended: end_turn", 1, true) end)
  local text = buffer_text(chat)
  check(text:find("read 13 chars, wrote them reversed", 1, true), "the agent read the unsaved buffer (13 chars)", text)
  check(vim.deep_equal(api.nvim_buf_get_lines(output, 0, -1, false), { "", "txet", "devasnu" }),
    "the write landed in out.txt's buffer", vim.inspect(api.nvim_buf_get_lines(output, 0, -1, false)))
  check(not api.nvim_buf_get_option(output, "modified") and table.concat(vim.fn.readfile(dir .. "/out.txt", "b"), "\n")
    == "\ntxet\ndevasnu", "and was saved, the buffer having no changes of the user's")
  check(vim.deep_equal(vim.fn.readfile(dir .. "/in.txt"), { "disk text" }), "in.txt on disk is untouched")
  check(text:find("-- the agent wrote " .. dir .. "/out.txt (saved; u in its buffer undoes)", 1, true), "the write is noted", text)
  local qf = vim.fn.getqflist({ items = 1 })
  check(#qf.items == 1 and api.nvim_buf_get_name(qf.items[1].bufnr) == dir .. "/out.txt", "out.txt is in the quickfix list")
  api.nvim_buf_call(output, function() vim.cmd("silent undo") end)
  check(vim.deep_equal(api.nvim_buf_get_lines(output, 0, -1, false), { "old" }), "u undoes the agent's write")
  -- The guard, through the plugin's own handler.
  local failed
  require("acp.files").handle(chat, { method = "fs/read_text_file", session_id = chat.session_id,
    params = { path = "/etc/passwd" }, fail = function(_, code, message) failed = { code, message } end,
    respond = function() failed = "answered" end })
  check(type(failed) == "table" and failed[1] == -32602 and failed[2]:find("outside", 1, true),
    "a read outside the session's directories is refused", vim.inspect(failed))
  chat_module.shutdown_all()
end

-- Phase "v1review": the TypeScript SDK's v1 peer edits NOTES.md with v1 diffs (path,
-- oldText, newText, which libacp keeps in the model beside the lifted changes). Turn 1's
-- diff, an excerpt of the file, opens as a review of the file's buffer against the excerpt
-- replaced, and ga accepts it: the agent writes the file through the plugin's buffer.
-- Turn 2's, the whole file, is rejected with gr: the file stays as turn 1 left it. Before
-- them, :AcpMode chooses one of the peer's modes.
local function v1review_phase()
  local dir = out .. "/v1review"
  vim.fn.mkdir(dir, "p")
  vim.cmd("cd " .. vim.fn.fnameescape(dir))
  local notes = dir .. "/NOTES.md"
  vim.fn.writefile({ "# Notes", "- (nothing yet)" }, notes)
  local selects, modes = 0, nil
  vim.ui.select = function(items, opts, on_choice)
    if opts.kind == "acp.config" then
      modes = {}
      for _, item in ipairs(items) do modes[#modes + 1] = item.value end
      return on_choice(items[2])
    end
    selects = selects + 1
    on_choice(nil)
  end
  vim.cmd("AcpChat " .. os.getenv("ACP_TEST_NODE") .. " "
    .. os.getenv("ACP_TEST_TS_AGENT"):gsub("agent%.mjs$", "agent-v1.mjs") .. " --modes")
  local chat = chat_module.current()
  wait_for("a session", function() return chat.session_id ~= nil end)
  recorded_pids = agent_pids()
  check(chat.client:negotiated_version() == 1, "the peer speaks v1")
  -- The peer's v1 modes, a mode option in libacp's model, chosen from their list.
  vim.cmd("AcpMode")
  check(vim.deep_equal(modes, { "ask", "code" }), ":AcpMode offers the agent's modes", vim.inspect(modes))
  check(wait_for("the mode set", function() return require("acp.choose").option(chat, "mode").currentValue == "code" end),
    ":AcpMode sets the one chosen")
  local turns = {
    { prompt = "edit first", verdict = "ga", proposed = { "# Notes", "- first" } },
    { prompt = "rewrite second", verdict = "gr", proposed = { "# Notes", "- first", "- second" } },
  }
  for turn, case in ipairs(turns) do
    vim.cmd("AcpSend " .. case.prompt)
    wait_for("the review of turn " .. turn, function() return chat.review ~= nil end)
    local wins = api.nvim_tabpage_list_wins(0)
    local proposed, file_win
    for _, win in ipairs(wins) do
      if api.nvim_buf_get_name(api.nvim_win_get_buf(win)):find("^acp://proposed/") then proposed = win else file_win = win end
    end
    check(#api.nvim_list_tabpages() == 2 and #wins == 2 and proposed and vim.wo[proposed].diff and vim.wo[file_win].diff
      and api.nvim_buf_get_name(api.nvim_win_get_buf(file_win)) == notes,
      "turn " .. turn .. ": the v1 diff opens as a diff of NOTES.md's buffer")
    local lines = proposed and api.nvim_buf_get_lines(api.nvim_win_get_buf(proposed), 0, -1, false)
    check(vim.deep_equal(lines, case.proposed), "turn " .. turn .. ": the proposed text is the v1 diff applied", vim.inspect(lines))
    if proposed then api.nvim_set_current_win(proposed) end
    vim.cmd("normal " .. case.verdict)
    wait_for("the end of turn " .. turn, function()
      local _, count = buffer_text(chat):gsub("%-%- turn ended: end_turn", "")
      return count == turn
    end)
    check(#api.nvim_list_tabpages() == 1 and not vim.wo.diff, "turn " .. turn .. ": the review closed")
  end
  check(selects == 0, "no vim.ui.select: both v1 diffs are reviewed in buffers", selects)
  local text = buffer_text(chat)
  check(text:find("-- permission: accepted in review", 1, true) and text:find("Done: NOTES.md has - first", 1, true)
    and text:find("## Tool: Edit NOTES.md (edit) [completed]", 1, true), "ga answered allow_once: the agent wrote", text)
  check(text:find("-- permission: rejected in review", 1, true) and text:find("OK, I left NOTES.md alone (reject-once).", 1, true)
    and text:find("## Tool: Edit NOTES.md (edit) [failed]", 1, true), "gr answered reject_once: the agent left the file", text)
  check(vim.deep_equal(vim.fn.readfile(notes), { "# Notes", "- first" }), "NOTES.md has the accepted edit only",
    vim.inspect(vim.fn.readfile(notes)))
  check(text:find("  diff: modify " .. notes .. "\n  - - (nothing yet)\n  + - first\n", 1, true),
    "the chat shows the v1 diff's texts", text)
  local qf = vim.fn.getqflist({ items = 1 })
  check(#qf.items == 1 and api.nvim_buf_get_name(qf.items[1].bufnr) == notes, "NOTES.md is in the quickfix list", vim.inspect(qf))
  -- v1 diffs that cannot be shown (asked the usual way): the excerpt must be found once.
  local review = require("acp.review")
  local function diff(path, old_text, new_text)
    return { data = { content = { { type = "diff", path = path, oldText = old_text, newText = new_text } } } }
  end
  local function proposed(tool_call)
    local proposals = review.proposals(tool_call, review.confine(chat))
    return proposals and proposals[1].lines
  end
  check(vim.deep_equal(proposed(diff(notes, "first", "last")), { "# Notes", "- last" }), "an excerpt within a line")
  check(vim.deep_equal(proposed(diff(notes, nil, "all\nnew\n")), { "all", "new" }), "no oldText: newText is the file")
  check(vim.deep_equal(proposed(diff(dir .. "/NEW.md", nil, "x\n")), { "x" }), "no oldText: a new file")
  check(proposed(diff(notes, "- second\n", "x")) == nil, "an excerpt not in the file: no review")
  check(proposed(diff(notes, "s", "x")) == nil, "an excerpt found twice: no review")
  check(proposed(diff(dir .. "/NEW.md", "a", "b")) == nil, "an excerpt of a file that does not exist: no review")
  check(proposed(diff("NOTES.md", nil, "b")) == nil, "a relative path: no review")
  check(proposed(diff("/dev/zero", nil, "b")) == nil, "a device: no review")
  chat_module.shutdown_all()
end

-- Phase "tools": the plugin offers the demo agent its editor tools (an MCP server "editor");
-- "What is selected?" makes the agent call current_selection, which answers the last
-- visual selection of the file the user worked in; /tool calls current_buffer (unsaved
-- text) and diagnostics.
local function tools_phase()
  local dir = out .. "/tools"
  vim.fn.mkdir(dir, "p")
  vim.cmd("cd " .. vim.fn.fnameescape(dir))
  local path = dir .. "/sample.txt"
  local buf = open_file(path, { "alpha one", "beta two", "gamma three" })
  api.nvim_buf_set_lines(buf, 0, 1, false, { "alpha unsaved" })
  vim.diagnostic.set(api.nvim_create_namespace("acp_tools_test"), buf,
    { { lnum = 2, col = 0, severity = vim.diagnostic.severity.ERROR, message = "no gamma here" } })
  vim.cmd("normal! 2Gwvj\27")
  vim.cmd("AcpChat " .. agent .. " --delay-ms 0 --state-dir " .. state_dir .. "-tools")
  local chat = chat_module.current()
  wait_for("a session", function() return chat.session_id ~= nil end)
  recorded_pids = agent_pids()
  local turns = 0
  local function ask(prompt)
    turns = turns + 1
    vim.cmd("AcpSend " .. prompt)
    wait_for("the end of turn " .. turns, function()
      local _, count = buffer_text(chat):gsub("%-%- turn ended: end_turn", "")
      return count == turns
    end)
    return buffer_text(chat)
  end
  local text = ask("What is selected?")
  check(text:find("## Tool: Ask editor for current_selection", 1, true), "the agent called current_selection", text)
  check(text:find('"end_line":3', 1, true) and text:find('"start_line":2', 1, true)
    and text:find('"text":"two\\ngamma "', 1, true) and text:find('"path":"' .. path .. '"', 1, true),
    "current_selection answered the selection with its path and lines", text)
  text = ask("/tool current_buffer")
  check(text:find('"text":"alpha unsaved\\nbeta two\\ngamma three\\n"', 1, true) and text:find('"modified":true', 1, true),
    "current_buffer answered the unsaved text", text)
  text = ask("/tool diagnostics")
  check(text:find('"message":"no gamma here"', 1, true) and text:find('"line":3', 1, true),
    "diagnostics answered the buffer's diagnostics", text)
  chat_module.shutdown_all()
end

-- Phase "hostile": the demo agent wraps every string it sends in terminal control
-- sequences; none of their control characters may reach the chat or the log buffer.
local function hostile()
  vim.cmd("AcpChat " .. agent .. " --hostile --delay-ms 0 --state-dir " .. state_dir .. "-hostile")
  local chat = chat_module.current()
  wait_for("a session", function() return chat.session_id ~= nil end)
  recorded_pids = agent_pids()
  vim.cmd("AcpSend hello")
  wait_for("the end of the turn", function() return buffer_text(chat):find("-- turn ended: end_turn", 1, true) end)
  local text = buffer_text(chat)
  check(text:find("You said: hello", 1, true) and text:find("## Tool: ", 1, true), "the hostile agent's turn is shown")
  local log = table.concat(api.nvim_buf_get_lines(chat.log.buf, 0, -1, false), "\n")
  for name, shown in pairs({ chat = text, log = log }) do
    local bad = shown:find("[%z\1-\8\11-\31\127]") or shown:find("\194[\128-\159]")
    check(not bad, "no control character in the " .. name .. " buffer", bad and shown:sub(bad - 20, bad + 20))
  end
  check(#log > 0, "the agent's stderr reached the log buffer")
  -- A flood of log lines keeps the last 2000, each cut at 2000 bytes.
  for i = 1, 2500 do chat:log_line("flood " .. i .. " " .. string.rep("\226\156\147", 1000)) end
  local kept = api.nvim_buf_get_lines(chat.log.buf, 0, -1, false)
  check(#kept == 2000 and kept[#kept]:match("^flood 2500 ") and #kept[#kept] <= 2010 and vim.fn.strchars(kept[#kept]) > 0,
    "the log buffer is bounded (lines and bytes)", #kept)
end

-- Phase "peer": the TypeScript-SDK peer asks for a form (elicitation), through stubbed
-- vim.ui.input and vim.ui.select (CLIENT-MUST-73..75): the agent is named, the enum and the
-- multi-select are choices, a value out of range is asked again, the answers are reviewed
-- (and one edited) before they are sent; decline and cancel are separate answers.
local function peer()
  local prompts, script = {}, "accept"
  local reviews, multi_calls = 0, 0
  vim.ui.input = function(opts, on_input)
    prompts[#prompts + 1] = opts.prompt
    if opts.prompt == "Project name (required): " then return on_input("from nvim") end
    if opts.prompt:find("^Worker count") then
      if opts.prompt:find("at most 10", 1, true) then return on_input("4") end
      if reviews > 0 then return on_input("11") end
    end
    on_input(opts.default)
  end
  vim.ui.select = function(items, opts, on_choice)
    prompts[#prompts + 1] = opts.prompt
    if opts.kind == "acp.elicitation.start" then
      return on_choice(script == "decline" and "decline" or "fill")
    elseif opts.kind == "acp.elicitation.review" then
      reviews = reviews + 1
      if script == "cancel" then return on_choice("cancel") end
      return on_choice(reviews == 1 and "edit" or "accept")
    elseif opts.kind == "acp.elicitation.field" then
      return on_choice("count")
    elseif opts.kind == "acp.elicitation.multi" then
      multi_calls = multi_calls + 1
      for _, item in ipairs(items) do
        if (multi_calls == 1 and item.value == "mac") or (multi_calls > 1 and item.done) then return on_choice(item) end
      end
    elseif opts.kind == "acp.elicitation" then
      for _, item in ipairs(items) do
        if item.value == "green" or item.value == true then return on_choice(item) end
      end
    end
    on_choice(items[1])
  end
  vim.cmd("AcpChat " .. os.getenv("ACP_TEST_NODE") .. " " .. os.getenv("ACP_TEST_TS_AGENT"))
  local chat = chat_module.current()
  wait_for("a session", function() return chat.session_id ~= nil end)
  recorded_pids = agent_pids()
  vim.cmd("AcpSend elicit-form")
  wait_for("the end of the turn", function() return buffer_text(chat):find("-- turn ended: end_turn", 1, true) end)
  local text = buffer_text(chat)
  check(text:find('Form result: accept {"color":"green","count":4,"debug":true,"name":"from nvim","targets":["mac"]}', 1, true),
    "the form answered, reviewed and edited reached the agent", text)
  local all = table.concat(prompts, "\n")
  check(all:find("libacp TS peer agent asks: Please configure the project.", 1, true), "the form names the agent", all)
  check(all:find("Worker count [at most 10]", 1, true), "a value out of range is asked again with the reason", all)
  check(text:find("-- libacp TS peer agent's form, your answers:", 1, true) and text:find("--   Targets: macOS", 1, true),
    "the answers are shown for review before they are sent", text)
  check(reviews == 2, "reviewed, edited, reviewed again", reviews)

  script = "decline"
  vim.cmd("AcpSend elicit-form")
  wait_for("the declined form", function() return buffer_text(chat):find("Form result: decline", 1, true) end)
  script = "cancel"
  vim.cmd("AcpSend elicit-form")
  wait_for("the cancelled form", function() return buffer_text(chat):find("Form result: cancel", 1, true) end)
  check(true, "decline and cancel are separate answers")
end

-- Phase "remote": :AcpChat on a URL, the TypeScript-SDK peer served over WebSocket by the
-- SDK's server side, with the bearer token from setup({headers}).
local function remote()
  local url_file = out .. "/remote-urls"
  local server = io.popen("'" .. os.getenv("ACP_TEST_NODE") .. "' '" ..
    os.getenv("ACP_TEST_TS_AGENT"):gsub("agent%.mjs$", "server.mjs") ..
    "' --port=0 --require-token=nvim-token > '" .. url_file .. "' 2>/dev/null", "w")
  local url
  wait_for("server.mjs's URLs", function()
    local file = io.open(url_file)
    local line = file and file:read("*l")
    if file then file:close() end
    url = line and line:match('"ws":"([^"]+)"')
    return url ~= nil
  end)
  chat_module.setup({ headers = { Authorization = "Bearer nvim-token" } })
  vim.cmd("AcpChat " .. url)
  local chat = chat_module.current()
  wait_for("a session", function() return chat.session_id ~= nil end)
  vim.cmd("AcpSend hello")
  wait_for("the end of the turn", function() return buffer_text(chat):find("-- turn ended: end_turn", 1, true) end)
  check(buffer_text(chat):find("Hello, world!", 1, true), "a turn over WebSocket", buffer_text(chat))
  local log = table.concat(api.nvim_buf_get_lines(chat.log.buf, 0, -1, false), "\n")
  check(not log:find("nvim-token", 1, true), "the token is not in the log buffer")
  recorded_pids = {}
  chat_module.shutdown_all()
  server:close()
end

-- Phase "background": an agent with a background watcher asks permission for it and for
-- a tool call of the turn; :AcpCancel answers "cancelled" only the turn's own request
-- (CLIENT-MUST-68). The agent says each answer it gets in its reply.
local BACKGROUND_AGENT = [[
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
def update(u):
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s-1", "update": u}})
def ask(rid, tool, title):
    send({"jsonrpc": "2.0", "id": rid, "method": "session/request_permission", "params": {
          "sessionId": "s-1", "title": title, "subject": {"type": "tool_call", "toolCall": {"toolCallId": tool}},
          "options": [{"optionId": "y", "name": "Yes", "kind": "allow_once"}]}})
background = [{"type": "tool_call", "toolCallId": "watch"}]
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": 2,
              "info": {"name": "background", "version": "1"}, "capabilities": {"session": {}}}})
    elif m.get("method") == "session/new":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"sessionId": "s-1"}})
    elif m.get("method") == "session/prompt":
        update({"sessionUpdate": "state_update", "state": "running", "background": background})
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"messageId": "u1"}})
        update({"sessionUpdate": "tool_call_update", "toolCallId": "watch", "title": "Watch files", "status": "in_progress"})
        update({"sessionUpdate": "tool_call_update", "toolCallId": "edit", "title": "Edit a file", "status": "pending"})
        ask("p-bg", "watch", "Question of the watcher")
        ask("p-fg", "edit", "Question of the edit")
    elif "id" in m and "method" not in m:
        outcome = m.get("result", {}).get("outcome", {}).get("outcome")
        update({"sessionUpdate": "agent_message_chunk", "messageId": "a-" + m["id"],
                "content": {"type": "text", "text": "answer %s: %s" % (m["id"], outcome)}})
        if m["id"] == "p-fg":
            update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled",
                    "background": background})
]]

local function background()
  local path = out .. "/background_agent.py"
  local file = assert(io.open(path, "w"))
  file:write(BACKGROUND_AGENT)
  file:close()
  local held = {}
  vim.ui.select = function(items, opts, on_choice)
    if opts.kind == "acp.permission" then held[#held + 1] = { items = items, on_choice = on_choice } end
  end
  vim.cmd("AcpChat python3 " .. path)
  local chat = chat_module.current()
  wait_for("a session", function() return chat.session_id ~= nil end)
  recorded_pids = {}
  vim.cmd("AcpSend go")
  wait_for("both questions", function() return #held == 1 and #chat.questions == 1 end)
  vim.cmd("AcpCancel")
  wait_for("the cancelled turn", function() return buffer_text(chat):find("-- turn ended: cancelled", 1, true) end)
  local text = buffer_text(chat)
  check(text:find("answer p-fg: cancelled", 1, true), "the turn's own question is answered cancelled", text)
  check(not text:find("answer p-bg", 1, true), "the background watcher's question stays open (CLIENT-MUST-68)", text)
  held[1].on_choice(held[1].items[1])
  wait_for("the watcher's answer", function() return buffer_text(chat):find("answer p-bg: selected", 1, true) end)
  chat_module.shutdown_all()
end

-- Phase "treesitter": with a markdown parser on the runtimepath ($ACP_TEST_TS_RTP, the
-- grammar nvim_test.sh compiled, with the grammar's highlights query) the chat buffer is
-- highlighted by treesitter, not the syntax fallback, and the tree follows appended text.
local function treesitter_phase()
  local rtp = os.getenv("ACP_TEST_TS_RTP")
  check(rtp and vim.loop.fs_stat(rtp .. "/parser/markdown.so"), "the compiled markdown parser is there", rtp)
  vim.opt.runtimepath:append(rtp)
  check(require("acp.highlight").has_parser(), "the plugin finds the markdown parser")
  vim.cmd("AcpChat " .. agent .. " --delay-ms 0 --state-dir " .. state_dir .. "-treesitter")
  local chat = chat_module.current()
  wait_for("a session", function() return chat.session_id ~= nil end)
  recorded_pids = agent_pids()
  local buf = chat.view.buf
  chat:send("/markdown")
  wait_for("the Markdown reply", function() return buffer_text(chat):find("-- turn ended: end_turn", 1, true) end)
  local highlighter = vim.treesitter.highlighter.active[buf]
  check(vim.b[buf].acp_markdown == "treesitter" and highlighter and highlighter.tree:lang() == "markdown",
    "the chat buffer has a treesitter highlighter for markdown", vim.b[buf].acp_markdown)
  check(api.nvim_buf_call(buf, function() return vim.b.current_syntax end) ~= "markdown",
    "the markdown syntax (the fallback) is not loaded")
  local lines = api.nvim_buf_get_lines(buf, 0, -1, false)
  local root = highlighter.tree:parse()[1]:root()
  check(root:end_() >= #lines - 1, "the tree covers the appended reply", root:end_() .. " of " .. #lines)
  -- What the highlighter draws: the highlights query's captures over the chat's tree.
  local query = vim.treesitter.query.get_query("markdown", "highlights")
  local titles, literals = {}, 0
  for id, node in query:iter_captures(root, buf, 0, -1) do
    local row = node:range()
    if query.captures[id] == "text.title" then titles[lines[row + 1]] = true end
    if query.captures[id] == "text.literal" then literals = literals + 1 end
  end
  check(titles["## You"] and titles["## Agent"] and literals > 0, "headings are titles and the code block is literal",
    vim.inspect(titles))
  vim.cmd("checkhealth acp")
  local health = table.concat(api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  check(health:find("OK: Markdown highlighting: treesitter", 1, true), ":checkhealth acp says treesitter", health)
  chat_module.shutdown_all()
end

-- Phase "features": agents by name (setup{agents}, default_agent, :AcpChat completion with
-- the catalogue's names), a multi-line prompt written in the prompt buffer and sent with
-- its key, the history of prompts, slash-command completion from the session's available
-- commands, the model chosen from a list, turn jumps and a code block yanked in the chat
-- buffer, the status line item, :checkhealth acp, and :help tags for every command,
-- option and keymap.
local function features()
  -- A user agent of libacp's catalogue (docs/agents.md), for names setup{agents} lacks.
  vim.fn.mkdir(out .. "/config/acp", "p")
  vim.fn.writefile({ vim.fn.json_encode({ agents = { fromfile = { command = agent, args = { "--delay-ms", "0" } } } }) },
    out .. "/config/acp/agents.json")
  vim.env.XDG_CONFIG_HOME = out .. "/config"
  chat_module.setup({
    agents = {
      mine = { cmd = agent, args = { "--delay-ms", "0", "--state-dir", state_dir .. "-features" } },
      missing = { cmd = out .. "/no-such-agent" },
    },
    default_agent = "mine",
  })
  local names = vim.fn.getcompletion("AcpChat ", "cmdline")
  check(vim.tbl_contains(names, "mine") and vim.tbl_contains(names, "demo") and vim.tbl_contains(names, "claude-acp"),
    ":AcpChat completes the configured names, demo and the catalogue's", table.concat(names, " "))
  check(vim.deep_equal(vim.fn.getcompletion("AcpChat mi", "cmdline"), { "mine", "missing" }), ":AcpChat completes a prefix")
  check(vim.tbl_contains(names, "fromfile"), ":AcpChat completes the user's catalogue agents", table.concat(names, " "))
  vim.cmd("AcpChat fromfile")
  local from_catalogue = chat_module.current()
  check(from_catalogue and from_catalogue.label == "fromfile" and from_catalogue.argv[1] == agent,
    ":AcpChat resolves a name through libacp's catalogue", from_catalogue and table.concat(from_catalogue.argv, " "))
  check(wait_for("a session with the catalogue's agent", function() return from_catalogue.session_id ~= nil end),
    "the catalogue's agent starts a session")
  from_catalogue:shutdown()
  vim.cmd("AcpChat")
  local chat = chat_module.current()
  check(chat and chat.label == "mine", ":AcpChat opens the default agent by name", chat and chat.label)
  wait_for("a session", function() return chat.session_id ~= nil end)
  recorded_pids = agent_pids()

  -- A multi-line prompt written in the prompt buffer, sent with <CR> in normal mode.
  vim.cmd("AcpPrompt")
  local prompt_buf = api.nvim_get_current_buf()
  check(api.nvim_buf_get_name(prompt_buf):find("acp://prompt/", 1, true) and vim.bo.filetype == "markdown",
    "the prompt buffer is Markdown")
  api.nvim_buf_set_lines(prompt_buf, 0, -1, false, { "first line", "", "third line" })
  vim.cmd("normal \r")
  check(table.concat(api.nvim_buf_get_lines(prompt_buf, 0, -1, false), "\n") == "", "the prompt buffer is emptied when sent")
  wait_for("the end of the turn", function() return buffer_text(chat):find("-- turn ended: end_turn", 1, true) end)
  local text = buffer_text(chat)
  check(text:find("## You\nfirst line\n\nthird line\n", 1, true), "the multi-line prompt is in the chat", text)
  check(text:find("You said: first line\n\nthird line\n", 1, true), "the demo agent got the three lines", text)
  -- Each streamed block is the model's text, nothing shown twice.
  local render = require("acp.render")
  local bad = {}
  for i = 1, chat.client:item_count(chat.session_id) do
    local item = chat.client:item(chat.session_id, i)
    if item.kind == "agent_message" or item.kind == "agent_thought" then
      local block = table.concat(render.item(item), "\n") .. "\n"
      local at = text:find(block, 1, true)
      local after = at and text:sub(at + #block, at + #block + 2)
      if after ~= "## " and after ~= "-- " then bad[#bad + 1] = item.kind .. " " .. i end
    end
  end
  check(#bad == 0, "streamed text is shown once, as the model has it", table.concat(bad, ", ") .. "\n" .. text)

  -- History: <C-p> brings the prompt back, <C-n> the text being written.
  api.nvim_buf_set_lines(prompt_buf, 0, -1, false, { "a draft" })
  vim.cmd("normal \16")
  check(table.concat(api.nvim_buf_get_lines(prompt_buf, 0, -1, false), "\n") == "first line\n\nthird line",
    "<C-p> brings the last prompt back")
  vim.cmd("normal \14")
  check(table.concat(api.nvim_buf_get_lines(prompt_buf, 0, -1, false), "\n") == "a draft", "<C-n> returns to the draft")

  -- Slash commands complete from the session's available commands.
  api.nvim_buf_set_lines(prompt_buf, 0, -1, false, { "/co" })
  api.nvim_win_set_cursor(0, { 1, 3 })
  local omnifunc = require("acp.prompt").omnifunc
  local items = omnifunc(0, "/co")
  check(vim.bo.omnifunc ~= "" and omnifunc(1, "") == 0 and #items == 1 and items[1].word == "/count"
    and items[1].menu:find("Count slowly", 1, true), "/co completes to /count with its description", vim.inspect(items))

  -- The model chosen from the agent's list.
  local offered
  vim.ui.select = function(choices, opts, on_choice)
    if opts.kind ~= "acp.config" then return on_choice(choices[1]) end
    offered = {}
    for _, choice in ipairs(choices) do offered[#offered + 1] = choice.value end
    on_choice(choices[2])
  end
  vim.cmd("AcpModel")
  check(offered and table.concat(offered, " ") == "demo-fast demo-thorough", ":AcpModel offers the models", vim.inspect(offered))
  check(wait_for("the model set", function()
    return chat.client:session(chat.session_id):config_options()[1].currentValue == "demo-thorough"
  end), ":AcpModel sets the one chosen")

  -- The chat buffer: turns, a code block, the status line, highlighting.
  chat:send("/markdown")
  wait_for("the Markdown reply", function()
    local _, ends = buffer_text(chat):gsub("-- turn ended: end_turn", "")
    return ends == 2
  end)
  for _, win in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_buf(win) == chat.view.buf then api.nvim_set_current_win(win) end
  end
  local lines = api.nvim_buf_get_lines(chat.view.buf, 0, -1, false)
  api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd("normal ]]")
  local first_turn = api.nvim_win_get_cursor(0)[1]
  vim.cmd("normal ]]")
  local second_turn = api.nvim_win_get_cursor(0)[1]
  vim.cmd("normal [[")
  check(lines[first_turn] == "## You" and lines[second_turn] == "## You" and second_turn > first_turn
    and api.nvim_win_get_cursor(0)[1] == first_turn, "]] and [[ jump between turns", first_turn .. " " .. second_turn)
  api.nvim_win_set_cursor(0, { second_turn, 0 })
  vim.fn.setreg('"', "")
  vim.cmd("normal gy")
  local yanked = vim.fn.getreg('"')
  check(yanked ~= "" and not yanked:find("```", 1, true) and text ~= yanked, "gy yanks the code block below, no fences", yanked)
  vim.cmd("normal gl")
  check(api.nvim_get_current_buf() == chat.log.buf and api.nvim_buf_get_name(0):find("^acp://log/"),
    "gl opens the agent's log", api.nvim_buf_get_name(0))
  vim.cmd("close")
  local line = require("acp.status").line(chat)
  check(line:find("libacp demo agent idle ", 1, true) and line:find("/", 1, true), "the status line item: agent, state, usage", line)
  check(not require("acp.highlight").has_parser() and vim.b[chat.view.buf].acp_markdown == "syntax"
    and api.nvim_buf_call(chat.view.buf, function() return vim.b.current_syntax end) == "markdown"
    and vim.treesitter.highlighter.active[chat.view.buf] == nil,
    "without a markdown parser the chat is highlighted by the markdown syntax, no treesitter")

  -- :checkhealth acp.
  vim.cmd("checkhealth acp")
  local health = table.concat(api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  check(health:find("OK: LuaJIT FFI", 1, true) and health:find("OK: acp_cdef.h: ", 1, true)
    and health:find("OK: libacp ", 1, true), ":checkhealth acp reports the FFI, acp_cdef.h and libacp", health)
  check(health:find("OK: default agent (mine): " .. agent, 1, true), ":checkhealth acp reports the default agent", health)
  check(health:find("ERROR: missing: " .. out .. "/no-such-agent is not executable", 1, true),
    ":checkhealth acp reports an agent whose command is missing", health)

  -- :help: every command, option and keymap has a tag (helptags made in the scratch dir).
  local doc = api.nvim_get_runtime_file("doc/acp.txt", false)[1]
  vim.fn.mkdir(out .. "/help/doc", "p")
  vim.fn.writefile(vim.fn.readfile(doc), out .. "/help/doc/acp.txt")
  vim.cmd("helptags " .. out .. "/help/doc")
  -- Only these tags: not those plugin/acp.lua may have made in the plugin's own doc/.
  local runtimepath = vim.o.runtimepath
  vim.o.runtimepath = out .. "/help," .. vim.env.VIMRUNTIME
  local tags = { "acp", "acp-install", "acp-lazy", "acp-packer", "acp-setup", "acp-health", "acp-statusline" }
  for name in pairs(api.nvim_get_commands({})) do
    if name:match("^Acp") then tags[#tags + 1] = ":" .. name end
  end
  for _, option in ipairs({ "agents", "default_agent", "agent", "library", "cdef", "root", "headers", "ca_file" }) do
    tags[#tags + 1] = "acp-option-" .. option
  end
  for prefix, buf in pairs({ ["acp-chat-"] = chat.view.buf, ["acp-prompt-"] = prompt_buf }) do
    -- Neovim lists <C-S> where the help writes <C-s>.
    for _, map in ipairs(api.nvim_buf_get_keymap(buf, "n")) do
      tags[#tags + 1] = prefix .. map.lhs:gsub("<C%-(%u)>", function(key) return "<C-" .. key:lower() .. ">" end)
    end
  end
  local missing = {}
  for _, tag in ipairs(tags) do
    local ok = pcall(vim.cmd, "help " .. tag)
    local resolved = ok and vim.fn.expand("%:t") == "acp.txt" and vim.fn.getline("."):find("*" .. tag .. "*", 1, true) ~= nil
    if not resolved then missing[#missing + 1] = tag end
  end
  vim.o.runtimepath = runtimepath
  check(#tags > 30 and #missing == 0, ":help resolves a tag for every command, option and keymap (" .. #tags .. " tags)",
    table.concat(missing, " "))

  -- The race of a new item read from a model that already holds the chunks of events still
  -- queued, replayed: the item inserted with its first chunk, then the rest in one change.
  chat.view:clear()
  local index, item
  for i = 1, chat.client:item_count(chat.session_id) do
    local candidate = chat.client:item(chat.session_id, i)
    if candidate.kind == "agent_message" and #candidate.text > 20 then index, item = i, candidate break end
  end
  chat:on_change({ type = "item_inserted", session_id = chat.session_id, index = index, kind = "agent_message",
    appended = item.text:sub(1, 10) })
  chat:on_change({ type = "item_changed", session_id = chat.session_id, index = index, kind = "agent_message",
    appended = item.text:sub(11) })
  check(buffer_text(chat) == table.concat(render.item(item), "\n"),
    "a chunk already in the item read at its insertion is not shown again", buffer_text(chat))
end


-- Phase "unstable": :AcpFork and :AcpTitle on the TypeScript-SDK peer with the unstable
-- surface (--caps=unstable). Without setup{unstable = true}, or with an agent that does not
-- advertise them, both are refused with a message and nothing is sent; with it, a fork
-- after one turn is a second chat on its own session (the editor tools offered to it),
-- prompted apart, and a title round-trips as the agent stored it (trimmed).
local function recorded_methods(path)
  local methods = {}
  for line in io.lines(path) do
    local entry = vim.json.decode(line)
    if entry.dir == "in" and entry.msg and entry.msg.method then
      methods[entry.msg.method] = methods[entry.msg.method] or {}
      table.insert(methods[entry.msg.method], entry.msg.params)
    end
  end
  return methods
end

local function unstable_phase()
  local dir = out .. "/unstable"
  vim.fn.mkdir(dir, "p")
  vim.cmd("cd " .. vim.fn.fnameescape(dir))
  local notes = {}
  vim.notify = function(message) notes[#notes + 1] = message end
  local function turn(chat, count)
    vim.cmd("AcpSend hello")
    wait_for("turn " .. count, function()
      local _, ended = buffer_text(chat):gsub("%-%- turn ended: end_turn", "")
      return ended == count
    end)
  end
  local function refused(record, caps, what)
    vim.cmd("AcpChat " .. os.getenv("ACP_TEST_NODE") .. " " .. os.getenv("ACP_TEST_TS_AGENT") .. " --caps=" .. caps ..
      " --record=" .. record)
    local chat = chat_module.current()
    wait_for("a session", function() return chat.session_id ~= nil end)
    vim.list_extend(recorded_pids, (agent_pids()))
    turn(chat, 1)
    notes = {}
    local chats = #chat_module.chats
    vim.cmd("AcpFork")
    vim.cmd("AcpTitle Never sent")
    local all = table.concat(notes, "\n")
    check(#chat_module.chats == chats, "without " .. what .. " :AcpFork opens no chat")
    check(all:find("fork needs ACP's unstable surface", 1, true) or all:find("fork: the agent does not offer it", 1, true),
      "without " .. what .. " :AcpFork is refused with a message", all)
    check(all:find("title needs ACP's unstable surface", 1, true) or all:find("title: the agent does not offer it", 1, true),
      "without " .. what .. " :AcpTitle is refused with a message", all)
    chat_module.shutdown_all()
    local methods = recorded_methods(record)
    check(methods["session/fork"] == nil and methods["session/set_title"] == nil,
      "without " .. what .. " nothing is sent", vim.inspect(vim.tbl_keys(methods)))
    return all
  end

  local off = refused(dir .. "/off.jsonl", "unstable", "the opt-in")
  check(off:find("setup{ unstable = true }", 1, true), "the refusal names the opt-in", off)
  chat_module.setup({ unstable = true })
  local unoffered = refused(dir .. "/full.jsonl", "full", "the agent's offer")
  check(unoffered:find("does not offer it", 1, true), "the refusal says the agent does not offer it", unoffered)

  local record = dir .. "/on.jsonl"
  vim.cmd("AcpChat " .. os.getenv("ACP_TEST_NODE") .. " " .. os.getenv("ACP_TEST_TS_AGENT") .. " --caps=unstable --record=" .. record)
  local chat = chat_module.current()
  wait_for("a session", function() return chat.session_id ~= nil end)
  vim.list_extend(recorded_pids, (agent_pids()))
  turn(chat, 1)
  vim.cmd("AcpFork")
  local fork = chat_module.current()
  check(fork ~= chat and #chat_module.chats == 2 and api.nvim_get_current_buf() == fork.view.buf,
    ":AcpFork opens a second chat buffer")
  wait_for("the fork's session", function() return fork.session_id ~= nil end)
  check(fork.session_id and fork.session_id ~= chat.session_id, "the fork has a session id of its own",
    tostring(fork.session_id) .. " " .. tostring(chat.session_id))
  check(fork.client == chat.client, "the fork runs on the same agent")
  local forks = recorded_methods(record)["session/fork"] or {}
  local servers = forks[1] and forks[1].mcpServers or {}
  check(#forks == 1 and forks[1].sessionId == chat.session_id and forks[1].cwd == chat.cwd,
    "session/fork names the chat's session and directory", vim.inspect(forks))
  check(#servers == 1 and servers[1].name == "editor", "the editor tools are offered to the fork", vim.inspect(servers))
  turn(fork, 1)
  local _, ended = buffer_text(chat):gsub("%-%- turn ended: end_turn", "")
  check(ended == 1, "the fork's turn is shown in the fork only", buffer_text(chat))

  vim.cmd("AcpTitle   Fixing the parser  ")
  wait_for("the title", function() return buffer_text(fork):find("-- title: Fixing the parser", 1, true) end)
  check(api.nvim_buf_get_var(fork.view.buf, "acp_title") == "Fixing the parser", "b:acp_title holds the stored title")
  local titles = recorded_methods(record)["session/set_title"] or {}
  check(#titles == 1 and titles[1].sessionId == fork.session_id and titles[1].title == "Fixing the parser  ",
    "session/set_title names the fork's session and sends the text as typed", vim.inspect(titles))
  local list
  chat.client:list_sessions(nil, function(result) list = result end)
  wait_for("session/list", function() return list ~= nil end)
  local stored
  for _, info in ipairs(list or {}) do
    if info.sessionId == fork.session_id then stored = info.title end
  end
  check(stored == "Fixing the parser", "the agent lists the fork with its title", vim.inspect(list))

  -- Closing the source chat leaves the fork's agent running; the last chat ends it.
  api.nvim_buf_delete(chat.view.buf, { force = true })
  check(#chat_module.chats == 1 and not fork.client:is_closed(), "the fork outlives its source chat")
  turn(fork, 2)
end

local phases = { first = first, second = second, hostile = hostile, peer = peer, remote = remote, background = background,
  features = features, treesitter = treesitter_phase, context = context_phase, review = review_phase, fs = fs_phase, v1review = v1review_phase, tools = tools_phase,
  unstable = unstable_phase }
local ok, err = xpcall(phases[phase], debug.traceback)
if not ok then check(false, "the test ran", err) end
vim.cmd("qa!")
