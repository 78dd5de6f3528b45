-- SPDX-License-Identifier: Apache-2.0
-- The chat buffer as a list of blocks in buffer order, each starting at an extmark (so
-- blocks above can grow without bookkeeping here): an item of the session model or a
-- note. A block ends where the next one starts. Streamed text is appended at the end of
-- its block with nvim_buf_set_text: work of the chunk's size, never a re-render.
local Buffer = {}
Buffer.__index = Buffer

local api = vim.api
local ns = api.nvim_create_namespace("acp_chat")

function Buffer.new(name)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_name(buf, name)
  api.nvim_buf_set_option(buf, "buftype", "nofile")
  api.nvim_buf_set_option(buf, "bufhidden", "hide")
  api.nvim_buf_set_option(buf, "swapfile", false)
  api.nvim_buf_set_option(buf, "modifiable", false)
  return setmetatable({ buf = buf, blocks = {}, by_item = {} }, Buffer)
end

function Buffer:valid() return api.nvim_buf_is_valid(self.buf) end

-- Runs edit with the buffer modifiable; windows whose cursor was on the last line follow
-- the new end.
function Buffer:_edit(edit)
  if not self:valid() then return end
  local last_before = api.nvim_buf_line_count(self.buf)
  local following = {}
  for _, win in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_buf(win) == self.buf and api.nvim_win_get_cursor(win)[1] >= last_before then
      following[#following + 1] = win
    end
  end
  api.nvim_buf_set_option(self.buf, "modifiable", true)
  local ok, err = pcall(edit)
  api.nvim_buf_set_option(self.buf, "modifiable", false)
  local last = api.nvim_buf_line_count(self.buf)
  for _, win in ipairs(following) do pcall(api.nvim_win_set_cursor, win, { last, 0 }) end
  if not ok then error(err, 0) end
end

function Buffer:_start_row(k)
  return api.nvim_buf_get_extmark_by_id(self.buf, ns, self.blocks[k].mark, {})[1]
end

-- First and last row (0-based, inclusive) of block k.
function Buffer:range(k)
  local first = self:_start_row(k)
  local last
  if self.blocks[k + 1] then
    last = self:_start_row(k + 1) - 1
  else
    -- While a block is being added, its lines are in the buffer before it is listed
    -- (and 'foldexpr' may be evaluated in between): they are not the last block's.
    last = (self.adding_at or api.nvim_buf_line_count(self.buf)) - 1
  end
  return first, last
end

-- Appends a block of lines at the end; item (a 1-based item index) or nil for a note.
function Buffer:add(lines, item, kind)
  self:_edit(function()
    local first
    if #self.blocks == 0 then
      first = 0
      api.nvim_buf_set_lines(self.buf, 0, -1, false, lines)
    else
      first = api.nvim_buf_line_count(self.buf)
      self.adding_at = first
      local ok, err = pcall(api.nvim_buf_set_lines, self.buf, -1, -1, false, lines)
      self.adding_at = nil
      if not ok then error(err, 0) end
    end
    local mark = api.nvim_buf_set_extmark(self.buf, ns, first, 0, {})
    self.blocks[#self.blocks + 1] = { mark = mark, item = item, kind = kind }
    if item then self.by_item[item] = #self.blocks end
  end)
  -- The block before is complete now (the chat folds a finished thought).
  local before = #self.blocks - 1
  if before > 0 and self.on_block_closed then self.on_block_closed(self.blocks[before].kind, before) end
end

function Buffer:has_item(item) return self.by_item[item] ~= nil end

-- Replaces the lines of item's block.
function Buffer:replace_item(item, lines)
  local k = self.by_item[item]
  if not k then return end
  self:_edit(function()
    local first, last = self:range(k)
    api.nvim_buf_set_lines(self.buf, first, last + 1, false, lines)
    api.nvim_buf_set_extmark(self.buf, ns, first, 0, { id = self.blocks[k].mark })
  end)
end

-- Appends text (already cleaned; may hold newlines) to the end of item's block.
function Buffer:append_to_item(item, text)
  local k = self.by_item[item]
  if not k or text == "" then return end
  self:_edit(function()
    local _, last = self:range(k)
    local line = api.nvim_buf_get_lines(self.buf, last, last + 1, false)[1] or ""
    local pieces = {}
    for piece in (text .. "\n"):gmatch("([^\n]*)\n") do pieces[#pieces + 1] = piece end
    api.nvim_buf_set_text(self.buf, last, #line, last, #line, pieces)
  end)
end

-- Removes every block (a session reset before a replay, a switch of session).
function Buffer:clear()
  self:_edit(function()
    api.nvim_buf_clear_namespace(self.buf, ns, 0, -1)
    api.nvim_buf_set_lines(self.buf, 0, -1, false, {})
  end)
  self.blocks, self.by_item = {}, {}
  if self.on_clear then self.on_clear() end
end

-- Row ranges (1-based, inclusive) of the finished blocks of one kind: for folding thoughts.
function Buffer:ranges_of(kind)
  local ranges = {}
  for k, block in ipairs(self.blocks) do
    if block.kind == kind and self.blocks[k + 1] then
      local first, last = self:range(k)
      ranges[#ranges + 1] = { first + 1, last + 1 }
    end
  end
  return ranges
end

-- The whole text (tests and :AcpChat users copying it).
function Buffer:text()
  return table.concat(api.nvim_buf_get_lines(self.buf, 0, -1, false), "\n")
end

return Buffer
