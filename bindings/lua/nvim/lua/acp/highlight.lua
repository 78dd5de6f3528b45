-- SPDX-License-Identifier: Apache-2.0
-- Highlighting of the chat buffer: the agent's text is Markdown, highlighted by treesitter
-- where a markdown parser is installed, else by Neovim's markdown syntax (Debian's 0.7
-- has no parser); the chat's own lines (headers, notes, diff lines) by syntax matches on
-- top. Both highlight at redraw time: appending a chunk costs them nothing.
local api = vim.api

local M = {}

-- Whether a treesitter markdown parser is installed (0.7: require_language; 0.9+: language.add).
function M.has_parser()
  local language = vim.treesitter.language
  if language and language.add then
    local ok, added = pcall(language.add, "markdown")
    return ok and added ~= false
  end
  local ok, loaded = pcall(vim.treesitter.require_language, "markdown", nil, true)
  return ok and loaded == true
end

local CHAT_SYNTAX = {
  [[syntax match AcpChatHeader /^## .*/]],
  [[syntax match AcpChatNote /^-- .*/]],
  [[syntax match AcpChatAdded /^  +.*/]],
  [[syntax match AcpChatRemoved /^  -.*/]],
  [[highlight default link AcpChatHeader Title]],
  [[highlight default link AcpChatNote Comment]],
  [[highlight default link AcpChatAdded DiffAdd]],
  [[highlight default link AcpChatRemoved DiffDelete]],
}

-- Highlights buf; returns "treesitter" or "syntax", what highlights the Markdown.
function M.attach(buf)
  local how = "syntax"
  if M.has_parser() then
    local ok = pcall(function() vim.treesitter.highlighter.new(vim.treesitter.get_parser(buf, "markdown")) end)
    if ok then how = "treesitter" end
  end
  api.nvim_buf_call(buf, function()
    if how == "syntax" then
      vim.b.current_syntax = nil
      vim.cmd("silent! runtime! syntax/markdown.vim")
    end
    for _, command in ipairs(CHAT_SYNTAX) do vim.cmd(command) end
  end)
  api.nvim_buf_set_var(buf, "acp_markdown", how)
  return how
end

return M
