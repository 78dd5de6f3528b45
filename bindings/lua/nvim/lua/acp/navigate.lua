-- SPDX-License-Identifier: Apache-2.0
-- Moving around the chat buffer: ]] / [[ jump to the next / previous turn (a "## You"
-- header), gy yanks the fenced code block under the cursor (else the next one below it)
-- without its fences, into the unnamed register and "+ where there is a clipboard.
local api = vim.api

local M = {}

local TURN = "## You"

-- The row (1-based) of the next (step 1) or previous (step -1) turn from the cursor's.
function M.turn(buf, row, step)
  local lines = api.nvim_buf_get_lines(buf, 0, -1, false)
  local r = row + step
  while r >= 1 and r <= #lines do
    if lines[r] == TURN then return r end
    r = r + step
  end
  return nil
end

function M.jump_turn(step)
  local row = M.turn(0, api.nvim_win_get_cursor(0)[1], step)
  if row then api.nvim_win_set_cursor(0, { row, 0 }) end
end

-- The fenced code block around row, else the first one after it: its lines, or nil.
function M.code_block(buf, row)
  local lines = api.nvim_buf_get_lines(buf, 0, -1, false)
  local open
  for r = 1, #lines do
    local fence = lines[r]:match("^%s*```")
    if fence and not open then
      open = r
    elseif fence and open then
      if row <= r then return vim.list_slice(lines, open + 1, r - 1) end
      open = nil
    end
  end
  return nil
end

function M.yank_code_block()
  local block = M.code_block(0, api.nvim_win_get_cursor(0)[1])
  if not block then return vim.notify("acp: no code block here or below", vim.log.levels.WARN) end
  vim.fn.setreg('"', block, "l")
  if vim.fn.has("clipboard") == 1 then pcall(vim.fn.setreg, "+", block, "l") end
  vim.notify(string.format("acp: yanked %d lines", #block))
end

return M
