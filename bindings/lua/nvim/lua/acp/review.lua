-- SPDX-License-Identifier: Apache-2.0
-- Reviewing an agent's edits in real buffers. A permission request for a tool call that
-- carries a diff opens one tab per file: the file's buffer (unsaved changes and all)
-- beside a scratch buffer with the proposed text, both in 'diff' mode. Accept (ga) and
-- reject (gr) in the proposed buffer, or :AcpAccept / :AcpReject, answer the request with
-- its allow_once / reject_once option and close the tabs. A diff that does not apply to
-- the file as it is now is asked about the usual way (vim.ui.select).
-- At the end of each turn the files its tool calls changed (diffs of tool calls that did
-- not fail, and the files a v1 agent wrote, see acp.files) become the quickfix list.
local render = require("acp.render")

local api = vim.api
local review = { keys = { accept = "ga", reject = "gr" } }

-- Proposed texts -----------------------------------------------------------------------------

-- Files bigger than this are not reviewed in buffers (the question is asked as usual).
local MAX_FILE_BYTES = 16 * 1024 * 1024

-- The file's current lines: its loaded buffer's (unsaved changes included), else the disk's;
-- nil when it does not exist or is no regular file of a bounded size (the path is the
-- agent's: never a device or a pipe).
local function current_lines(path)
  local buf = require("acp.files").buffer_of(vim.loop.fs_realpath(path) or path)
  if buf then return api.nvim_buf_get_lines(buf, 0, -1, false) end
  local stat = vim.loop.fs_stat(path)
  if not stat or stat.type ~= "file" or stat.size > MAX_FILE_BYTES then return nil end
  return vim.fn.readfile(path)
end

-- Lines of a text whose last line ends with a newline (or not).
local function split(text)
  local lines = vim.split(text, "\n", { plain = true })
  if lines[#lines] == "" then lines[#lines] = nil end
  return lines
end

-- The sections of a git_patch: { {path, old_missing, hunks = {{old_start, lines}}} }.
-- Paths are absolute (CLIENT-GUIDE 8.3); a quoted path is not followed (nil: no review).
local function parse_patch(text)
  local files, file, hunk = {}, nil, nil
  for _, line in ipairs(split(text)) do
    if line:match("^diff %-%-git ") then
      file, hunk = { hunks = {} }, nil
      files[#files + 1] = file
    elseif file and not hunk and line:match("^%-%-%- ") then
      file.old_missing = line == "--- /dev/null"
    elseif file and not hunk and line:match("^%+%+%+ ") then
      file.path = line:sub(5)
      if file.path:sub(1, 1) == '"' then return nil end
    elseif file and line:match("^@@ ") then
      local start = line:match("^@@ %-(%d+)")
      if not start then return nil end
      hunk = { old_start = tonumber(start), lines = {} }
      file.hunks[#file.hunks + 1] = hunk
    elseif hunk and (line:match("^[ +-]") or line == "") then
      hunk.lines[#hunk.lines + 1] = line
    end
  end
  return files
end

-- old lines with the hunks applied, or nil when a context or removed line differs.
local function apply(old, hunks)
  local new, at = {}, 1
  for _, hunk in ipairs(hunks) do
    local start = math.max(hunk.old_start, 1)  -- 0: a file that was empty
    if start < at then return nil end
    for i = at, start - 1 do new[#new + 1] = old[i] end
    at = start
    for _, line in ipairs(hunk.lines) do
      local mark, body = line:sub(1, 1), line:sub(2)
      if mark == "+" then
        new[#new + 1] = body
      else
        if old[at] ~= body then return nil end
        if mark ~= "-" then new[#new + 1] = body end
        at = at + 1
      end
    end
  end
  for i = at, #old do new[#new + 1] = old[i] end
  return new
end

-- A v1 diff's proposed lines: newText replaces oldText, which is the whole file or (as
-- some agents send) an excerpt found once in it; without oldText newText is the whole
-- file. nil when oldText is not in the file as it is now, or found more than once.
local function apply_v1(path, old_text, new_text)
  local exists = vim.loop.fs_stat(path) ~= nil
  local lines = exists and current_lines(path)
  if exists and not lines then return nil end
  if type(old_text) ~= "string" then return split(new_text) end
  if not lines then return nil end
  local text = table.concat(lines, "\n") .. "\n"
  if old_text == text or old_text .. "\n" == text then return split(new_text) end
  local at = old_text ~= "" and text:find(old_text, 1, true)
  if not at or text:find(old_text, at + 1, true) then return nil end
  return split(text:sub(1, at - 1) .. new_text .. text:sub(at + #old_text))
end

-- The paths an agent's diffs name are its own: a review opens only files inside the
-- session's directories, by the same guard as its fs requests (libacp's confine_path:
-- absolute, symlinks and ".." resolved). confine(path) -> the real path, or nil.
function review.confine(chat, session_id)
  return function(path)
    local real = chat.client:confine_path(session_id or chat.session_id, path, true)
    return real
  end
end

-- The files a tool call's diffs propose: { {path, lines} }, or nil when one of them cannot
-- be shown (no text, a path outside the session's directories, a patch that does not
-- apply to the file as it is). confine: see review.confine.
function review.proposals(tool_call, confine)
  local content = tool_call and type(tool_call.data) == "table" and tool_call.data.content
  if type(content) ~= "table" then return nil end
  local out = {}
  for _, block in ipairs(content) do
    if type(block) == "table" and block.type == "diff" then
      if type(block.path) == "string" and type(block.newText) == "string" then  -- v1's texts
        local real = confine(block.path)
        local lines = real and apply_v1(real, block.oldText, block.newText)
        if not lines then return nil end
        out[#out + 1] = { path = real, lines = lines }
      elseif type(block.patch) == "table" and block.patch.format == "git_patch" and type(block.patch.text) == "string" then
        for _, file in ipairs(parse_patch(block.patch.text) or { {} }) do
          if type(file.path) ~= "string" or file.path == "/dev/null" then return nil end
          file.path = confine(file.path)
          if not file.path then return nil end
          local old
          if file.old_missing then
            old = not vim.loop.fs_stat(file.path) and {} or nil  -- an added file that exists: no review
          else
            old = current_lines(file.path)
          end
          local new = old and apply(old, file.hunks)
          if not new then return nil end
          out[#out + 1] = { path = file.path, lines = new }
        end
      else
        return nil
      end
    end
  end
  return #out > 0 and out or nil
end

-- The review ---------------------------------------------------------------------------------

local function close(chat)
  local open = chat.review
  chat.review = nil
  if not open then return end
  open.closing = true
  for _, tab in ipairs(open.tabs) do
    if api.nvim_tabpage_is_valid(tab) then
      for _, win in ipairs(api.nvim_tabpage_list_wins(tab)) do
        api.nvim_win_call(win, function() vim.cmd("diffoff") end)
      end
      if #api.nvim_list_tabpages() > 1 then
        vim.cmd("tabclose " .. api.nvim_tabpage_get_number(tab))
      end
    end
  end
  for _, buf in ipairs(open.scratch) do
    if api.nvim_buf_is_valid(buf) then api.nvim_buf_delete(buf, { force = true }) end
  end
end

-- The chat whose review shows the current buffer, else fallback.
function review.chat_of_current(chats, fallback)
  local buf = api.nvim_get_current_buf()
  for _, chat in ipairs(chats) do
    for _, scratch in ipairs(chat.review and chat.review.scratch or {}) do
      if scratch == buf then return chat end
    end
  end
  return fallback
end

-- Answers the request under review: "accept" (allow_once, else allow_always) or "reject"
-- (reject_once, else reject_always); then the next question of the chat.
function review.answer(chat, verdict)
  local open = chat.review
  if not open then return vim.notify("acp: no edit under review", vim.log.levels.WARN) end
  local request = open.request
  close(chat)
  chat.asking = nil
  if request.answered or request.withdrawn then
    chat:note("permission already settled: " .. open.title)
  else
    local ok, err
    if verdict == "accept" then ok, err = request:allow() else ok, err = request:reject() end
    if ok then chat:note("permission: " .. (verdict == "accept" and "accepted" or "rejected") .. " in review")
    else chat:error("permission", err) end
  end
  chat:ask_next()
end

local function scratch_buffer(chat, path, lines, filetype)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  api.nvim_buf_set_name(buf, "acp://proposed/" .. chat.id .. path)
  api.nvim_buf_set_option(buf, "buftype", "nofile")
  api.nvim_buf_set_option(buf, "bufhidden", "wipe")
  api.nvim_buf_set_option(buf, "modifiable", false)
  if filetype and filetype ~= "" then api.nvim_buf_set_option(buf, "filetype", filetype) end
  local opts = { buffer = buf, silent = true }
  vim.keymap.set("n", review.keys.accept, function() review.answer(chat, "accept") end,
    vim.tbl_extend("force", opts, { desc = "Accept the agent's edit" }))
  vim.keymap.set("n", review.keys.reject, function() review.answer(chat, "reject") end,
    vim.tbl_extend("force", opts, { desc = "Reject the agent's edit" }))
  return buf
end

-- The user closed a review without answering: the question is asked the usual way.
local function closed_by_user(chat, open)
  if open.closing or chat.review ~= open then return end
  close(chat)
  chat.asking = nil
  open.request.no_review = true
  table.insert(chat.questions, 1, open.request)
  chat:ask_next()
end

-- Opens the review of a permission request whose tool call carries diffs: true, or false
-- when it has none that can be shown (then the caller asks the usual way).
function review.open(chat, request)
  if request.no_review then return false end
  local proposals = review.proposals(request.tool_call, review.confine(chat, request.session_id))
  if not proposals then return false end
  close(chat)
  local title = render.clean(request.tool_call.title or request.tool_call.id or "an edit", true)
  local open = { request = request, title = title, tabs = {}, scratch = {} }
  chat.review = open
  for _, proposal in ipairs(proposals) do
    local file_buf = require("acp.files").buffer_of(vim.loop.fs_realpath(proposal.path) or proposal.path)
      or vim.fn.bufadd(proposal.path)
    vim.fn.bufload(file_buf)
    vim.cmd("tab sbuffer " .. file_buf)
    vim.cmd("diffthis")
    local proposed = scratch_buffer(chat, proposal.path, proposal.lines, api.nvim_buf_get_option(file_buf, "filetype"))
    vim.cmd("rightbelow vsplit")
    api.nvim_win_set_buf(0, proposed)
    vim.cmd("diffthis")
    open.tabs[#open.tabs + 1] = api.nvim_get_current_tabpage()
    open.scratch[#open.scratch + 1] = proposed
    api.nvim_create_autocmd("BufWipeout", { buffer = proposed, once = true,
      callback = function() vim.schedule(function() closed_by_user(chat, open) end) end })
  end
  chat:note("review: " .. title .. " (" .. #proposals .. " file" .. (#proposals == 1 and "" or "s") .. "): " ..
    review.keys.accept .. " accepts, " .. review.keys.reject .. " rejects")
  return true
end

-- Files the turn changed --------------------------------------------------------------------

-- Notes a tool call of the running turn (a change of the session model).
function review.track(chat, change)
  if change.type == "session_reset" or change.type == "replay_ended" then chat.turn_tool_calls = {} end
  if change.kind ~= "tool_call" or (change.type ~= "item_inserted" and change.type ~= "item_changed") then return end
  chat.turn_tool_calls = chat.turn_tool_calls or {}
  chat.turn_tool_calls[change.index] = true
end

-- Notes a file the agent wrote (acp.files) for the turn's list.
function review.wrote(chat, path)
  chat.turn_files = chat.turn_files or {}
  chat.turn_files[#chat.turn_files + 1] = { filename = path, lnum = 1, text = "written by the agent" }
end

-- At the end of a turn: the quickfix list of the files it changed (left alone when none);
-- an open review whose question was settled meanwhile is closed.
function review.turn_ended(chat)
  if chat.review and (chat.review.request.answered or chat.review.request.withdrawn) then
    close(chat)
    chat.asking = nil
  end
  local items, seen = {}, {}
  local indices = vim.tbl_keys(chat.turn_tool_calls or {})
  table.sort(indices)
  for _, index in ipairs(indices) do
    local item = chat.client:item(chat.session_id, index)
    local content = item and type(item.data) == "table" and item.data.content
    if type(content) == "table" and item.status ~= "failed" and item.status ~= "cancelled" then
      for _, block in ipairs(content) do
        local changes = type(block) == "table" and block.type == "diff" and
          (type(block.changes) == "table" and block.changes or { { path = block.path } }) or {}
        for _, c in ipairs(changes) do
          if type(c) == "table" and type(c.path) == "string" then
            items[#items + 1] = { filename = c.path, lnum = 1,
              text = render.clean((c.operation or "modify") .. ": " .. (item.title or item.id or ""), true) }
          end
        end
      end
    end
  end
  for _, written in ipairs(chat.turn_files or {}) do items[#items + 1] = written end
  chat.turn_tool_calls, chat.turn_files = {}, {}
  local unique = {}
  for _, entry in ipairs(items) do
    if not seen[entry.filename] then
      seen[entry.filename] = true
      unique[#unique + 1] = entry
    end
  end
  if #unique == 0 then return end
  vim.fn.setqflist({}, " ", { title = "ACP: files the turn changed", items = unique })
  chat:note(#unique .. " file" .. (#unique == 1 and "" or "s") .. " changed (:copen)")
end

return review
