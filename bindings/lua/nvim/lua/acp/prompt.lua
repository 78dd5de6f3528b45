-- SPDX-License-Identifier: Apache-2.0
-- The prompt is written in a buffer under the chat (acp://prompt/N, filetype markdown, as
-- many lines as it takes) and sent with <C-s> (normal and insert mode) or <CR> in normal
-- mode. The prompts sent are kept (the last HISTORY_MAX, shared by all chats) and brought
-- back with <C-p> / <C-n> in normal mode; the text being written is kept while paging.
-- The agent's slash commands (its available_commands) complete with <C-x><C-o>.
local render = require("acp.render")

local api = vim.api
local M = { history = {} }
local HISTORY_MAX = 100

local function lines_of(buf) return api.nvim_buf_get_lines(buf, 0, -1, false) end

local function set_text(buf, text)
  api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, "\n", { plain = true }))
end

-- The prompt buffer's text, trailing blank lines dropped.
function M.text(buf)
  local lines = lines_of(buf)
  while #lines > 0 and lines[#lines]:match("^%s*$") do lines[#lines] = nil end
  return table.concat(lines, "\n")
end

function M.remember(text)
  if M.history[#M.history] ~= text then M.history[#M.history + 1] = text end
  if #M.history > HISTORY_MAX then table.remove(M.history, 1) end
end

-- Sends the buffer's text to the chat's agent and empties the buffer.
function M.send(chat)
  local state = chat.prompt
  local text = M.text(state.buf)
  if text:match("^%s*$") then return end
  M.remember(text)
  state.position, state.draft = nil, nil
  set_text(state.buf, "")
  chat:send(text)
end

-- Pages through the history: step -1 older, +1 newer; past the newest, the draft again.
function M.page(chat, step)
  local state = chat.prompt
  local count = #M.history
  if count == 0 then return end
  local position = state.position or (count + 1)
  if position == count + 1 then state.draft = M.text(state.buf) end
  position = math.max(1, math.min(count + 1, position + step))
  state.position = position
  set_text(state.buf, position == count + 1 and (state.draft or "") or M.history[position])
end

-- The session's slash commands: { {name, description} }, names and descriptions safe text.
function M.commands(chat)
  if not chat.session_id then return {} end
  local snapshot = chat.client:snapshot(chat.session_id)
  local list = {}
  for _, command in ipairs(snapshot and type(snapshot.commands) == "table" and snapshot.commands or {}) do
    if type(command) == "table" and type(command.name) == "string" then
      list[#list + 1] = {
        name = render.clean(command.name, true),
        description = type(command.description) == "string" and render.clean(command.description, true) or "",
      }
    end
  end
  return list
end

-- 'omnifunc' of the prompt buffer: "/name" at the start of a line completes from the
-- session's available commands.
function M.omnifunc(findstart, base)
  local buf = api.nvim_get_current_buf()
  local chat = M.chat_of[buf]
  if findstart == 1 then
    local line = api.nvim_get_current_line():sub(1, api.nvim_win_get_cursor(0)[2])
    if chat and line:match("^/%S*$") then return 0 end
    return -3
  end
  local items = {}
  for _, command in ipairs(chat and M.commands(chat) or {}) do
    local word = "/" .. command.name
    if word:sub(1, #base) == base then
      items[#items + 1] = { word = word, menu = command.description, icase = 0 }
    end
  end
  return items
end

M.chat_of = setmetatable({}, { __mode = "v" })

local function prompt_buffer(chat)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_name(buf, "acp://prompt/" .. chat.id)
  api.nvim_buf_set_option(buf, "bufhidden", "hide")
  api.nvim_buf_set_option(buf, "filetype", "markdown")
  api.nvim_buf_set_option(buf, "omnifunc", "v:lua.require'acp.prompt'.omnifunc")
  M.chat_of[buf] = chat
  local opts = { buffer = buf, silent = true }
  vim.keymap.set({ "n", "i" }, "<C-s>", function()
    vim.cmd("stopinsert")
    M.send(chat)
  end, opts)
  vim.keymap.set("n", "<CR>", function() M.send(chat) end, opts)
  vim.keymap.set("n", "<C-p>", function() M.page(chat, -1) end, opts)
  vim.keymap.set("n", "<C-n>", function() M.page(chat, 1) end, opts)
  vim.keymap.set("n", "<C-c>", function() chat:cancel() end, opts)
  -- The prompt goes with its chat.
  api.nvim_create_autocmd("BufWipeout", { buffer = chat.view.buf, once = true, callback = function()
    vim.schedule(function()
      if api.nvim_buf_is_valid(buf) then api.nvim_buf_delete(buf, { force = true }) end
    end)
  end })
  return buf
end

-- Opens the chat's prompt window (below the chat's window if shown) and goes to it.
function M.open(chat)
  chat.prompt = chat.prompt or {}
  local state = chat.prompt
  if not (state.buf and api.nvim_buf_is_valid(state.buf)) then state.buf = prompt_buffer(chat) end
  for _, win in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_buf(win) == state.buf then
      api.nvim_set_current_win(win)
      return state.buf
    end
  end
  for _, win in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_buf(win) == chat.view.buf then api.nvim_set_current_win(win) break end
  end
  vim.cmd("belowright 6split")
  api.nvim_win_set_buf(0, state.buf)
  return state.buf
end

return M
