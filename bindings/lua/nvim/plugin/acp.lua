-- SPDX-License-Identifier: Apache-2.0
-- The libacp Neovim plugin's commands. The plugin is bindings/lua/nvim of the libacp
-- repository (put it on 'runtimepath'); the Lua module require("acp") lives two levels up
-- (bindings/lua) and is added to package.path here.
if vim.g.loaded_acp then return end
vim.g.loaded_acp = true

local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/plugin/[^/]*$") or "."
here = vim.fn.fnamemodify(here, ":p"):gsub("/$", "")
local bindings = vim.fn.fnamemodify(here, ":h")
package.path = bindings .. "/?.lua;" .. package.path

-- :help acp from a plugin manager's checkout: the tags made once where the plugin can write
-- them (an installed plugin comes with its tags file).
local doc = here .. "/doc"
if not vim.loop.fs_stat(doc .. "/tags") and vim.fn.filewritable(doc) == 2 then
  pcall(vim.cmd, "silent! helptags " .. vim.fn.fnameescape(doc))
end

local chat = require("acp.chat")
chat.config.root = chat.config.root or vim.fn.fnamemodify(bindings, ":h:h")

local command = vim.api.nvim_create_user_command

local function with_chat(fn)
  return function(opts)
    local current = chat.current()
    if not current then
      vim.notify("acp: no chat open (:AcpChat)", vim.log.levels.WARN)
      return
    end
    fn(current, opts)
  end
end

-- Agent names complete from setup{agents}, "demo" and libacp's catalogue (acp.agents).
local function complete_agent(lead, line)
  if not chat.load() then return {} end
  return require("acp.agents").complete(chat.config, lead, line)
end

command("AcpChat", function(opts) chat.open(opts.fargs) end,
  { nargs = "*", complete = complete_agent, desc = "Chat with an ACP agent by name or command (default: setup{default_agent})" })
command("AcpSend", with_chat(function(c, opts)
  if opts.args == "" then require("acp.prompt").open(c) else c:send(opts.args) end
end), { nargs = "*", desc = "Send a prompt to the current chat's agent (none: open the prompt buffer)" })
command("AcpPrompt", with_chat(function(c) require("acp.prompt").open(c) end),
  { desc = "Write the next prompt in the chat's prompt buffer" })
command("AcpMode", with_chat(function(c) require("acp.choose").choose(c, "mode") end),
  { desc = "Choose the session's mode from the agent's list" })
command("AcpModel", with_chat(function(c) require("acp.choose").choose(c, "model") end),
  { desc = "Choose the session's model from the agent's list" })
command("AcpCancel", with_chat(function(c) c:cancel() end), { desc = "Cancel the running turn" })
command("AcpSessions", with_chat(function(c) c:pick_session() end), { desc = "List the agent's sessions and resume one" })
command("AcpResume", with_chat(function(c, opts) c:resume(opts.args) end),
  { nargs = 1, desc = "Resume a session by id, replaying its history" })
command("AcpConfig", with_chat(function(c, opts) c:config(opts.fargs[1], opts.fargs[2]) end),
  { nargs = "*", desc = "List the session's config options, or set one: :AcpConfig ID VALUE" })
command("AcpFork", with_chat(function(c) c:fork() end),
  { desc = "Fork the chat's session into a new chat (unstable: setup{unstable = true})" })
command("AcpTitle", with_chat(function(c, opts) c:set_title(opts.args) end),
  { nargs = "+", desc = "Set the session's title (unstable: setup{unstable = true})" })
command("AcpLog", with_chat(function(c) chat.show_log(c) end), { desc = "The agent's stderr and libacp's log" })

local context = require("acp.context")
command("AcpAdd", with_chat(context.command), { nargs = "*", range = true, complete = context.complete,
  desc = "Add context to the next prompt: buffer, file PATH, selection (or a range), diagnostics; clear" })
vim.keymap.set("n", "<Plug>(acp-add-buffer)", "<Cmd>AcpAdd buffer<CR>", { desc = "Add the buffer to the next prompt" })
vim.keymap.set("x", "<Plug>(acp-add-selection)", ":AcpAdd selection<CR>", { silent = true, desc = "Add the selected lines" })
vim.keymap.set("n", "<Plug>(acp-add-diagnostics)", "<Cmd>AcpAdd diagnostics<CR>", { desc = "Add the buffer's diagnostics" })

local review = require("acp.review")
command("AcpAccept", with_chat(function(c) review.answer(review.chat_of_current(chat.chats, c), "accept") end),
  { desc = "Accept the edit under review" })
command("AcpReject", with_chat(function(c) review.answer(review.chat_of_current(chat.chats, c), "reject") end),
  { desc = "Reject the edit under review" })

-- Agents end with the editor: libacp closes their stdin, then signals them, and waits.
vim.api.nvim_create_autocmd("VimLeavePre", { callback = function() chat.shutdown_all() end })
