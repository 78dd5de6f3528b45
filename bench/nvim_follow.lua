-- SPDX-License-Identifier: Apache-2.0
-- What following a streamed reply costs the Neovim plugin (bench/nvim_follow.sh runs it
-- in `nvim --headless`): the demo agent streams `/count N` (N chunks into one message)
-- after a few turns of history, and the editor's CPU time for the turn is measured
-- (os.clock: this process only, the agent excluded) for three ways of showing it:
--   append     the plugin as it is: each change's appended text at the block's end
--   item       re-render the message's block from the model on every chunk
--   buffer     re-render the whole buffer from a session snapshot on every chunk (the
--              naive plugin the change events exist to avoid)
-- Each mode gets a fresh agent; rounds are interleaved, best of ROUNDS. Prints the ratios.
local agent = os.getenv("ACP_BENCH_AGENT")
local chunks = math.min(tonumber(os.getenv("ACP_BENCH_CHUNKS") or "1000"), 1000)  -- the demo counts to 1000 at most
local rounds = tonumber(os.getenv("ACP_BENCH_ROUNDS") or "3")
local history = tonumber(os.getenv("ACP_BENCH_HISTORY") or "5")
local scratch = os.getenv("ACP_BENCH_SCRATCH") or "/tmp/acp-nvim-bench"
local api = vim.api
local chat_module = require("acp.chat")
local render = require("acp.render")
vim.ui.select = function(items, _, on_choice) on_choice(items[1]) end

local function text_of(chat) return table.concat(api.nvim_buf_get_lines(chat.view.buf, 0, -1, false), "\n") end
local function ended(chat, n)
  return (chat.turns_ended or 0) >= n
end

local modes = {}
function modes.append() end
function modes.item(chat)
  chat.view.append_to_item = function(_, index) chat:render_item(index, false) end
end
function modes.buffer(chat)
  chat.view.append_to_item = function()
    local snapshot = chat.client:snapshot(chat.session_id)
    local lines = {}
    for _, item in ipairs(snapshot.items) do
      for _, line in ipairs(render.item(item)) do lines[#lines + 1] = line end
    end
    api.nvim_buf_set_option(chat.view.buf, "modifiable", true)
    api.nvim_buf_set_lines(chat.view.buf, 0, -1, false, lines)
    api.nvim_buf_set_option(chat.view.buf, "modifiable", false)
  end
end

local function run(mode, round)
  vim.cmd("AcpChat " .. agent .. " --delay-ms 0 --state-dir " .. scratch .. "/" .. mode .. round)
  local chat = chat_module.current()
  table.insert(chat.on_turn_end, function() chat.turns_ended = (chat.turns_ended or 0) + 1 end)
  vim.wait(10000, function() return chat.session_id ~= nil end, 1)
  for i = 1, history do
    chat:send("history turn " .. i)
    vim.wait(20000, function() return ended(chat, i) end, 1)
  end
  modes[mode](chat)
  local start = os.clock()
  chat:send("/count " .. chunks)
  vim.wait(600000, function() return ended(chat, history + 1) end, 1)
  local cpu = os.clock() - start
  assert(text_of(chat):find("\n" .. chunks .. "\n", 1, true) or mode == "buffer", "the whole count arrived")
  chat:shutdown()
  vim.cmd("bwipeout! " .. chat.view.buf)
  return cpu
end

local function main()
  local best = {}
  for round = 1, rounds do
    for _, mode in ipairs({ "append", "item", "buffer" }) do
      local cpu = run(mode, round)
      best[mode] = math.min(best[mode] or math.huge, cpu)
    end
  end
  local out = io.stderr
  out:write(string.format("a /count %d reply (%d chunks) after %d turns, editor CPU time, best of %d interleaved rounds\n",
    chunks, chunks, history, rounds))
  for _, mode in ipairs({ "append", "item", "buffer" }) do
    out:write(string.format("  %-7s %8.1f ms  %7.1f us/chunk\n", mode, best[mode] * 1000, best[mode] * 1e6 / chunks))
  end
  out:write(string.format("  item re-render / append: %.1fx   whole-buffer re-render / append: %.1fx\n",
    best.item / best.append, best.buffer / best.append))
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  io.stderr:write("bench failed: ", tostring(err), "\n")
  vim.cmd("cquit! 1")
end
vim.cmd("qa!")
