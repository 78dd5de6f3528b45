-- SPDX-License-Identifier: Apache-2.0
-- A status line item for the chat: the agent, the session's state and its context usage
-- (and the cost, when the agent reports one) as the session model has them, e.g.
--   set statusline=%f\ %{v:lua.require'acp.status'.line()}
-- -> "ACP Demo Agent running 1.2k/200k $0.03". Recomputed only on the session model's
-- usage changes, never per streamed chunk.
local render = require("acp.render")

local M = {}

local function count(n)
  if n >= 1000000 then return string.format("%.1fM", n / 1000000) end
  if n >= 1000 then return string.format("%.1fk", n / 1000) end
  return string.format("%d", n)
end

-- Usage and cost from the session's snapshot, kept on the chat (chat.usage).
function M.refresh_usage(chat)
  local snapshot = chat.session_id and chat.client:snapshot(chat.session_id)
  if not snapshot then return end
  local text = snapshot.usage and (count(snapshot.usage.used) .. "/" .. count(snapshot.usage.size)) or nil
  local dump = snapshot.json and require("acp").json.decode(snapshot.json)
  local usage = type(dump) == "table" and type(dump.usage) == "table" and dump.usage or {}
  local cost = type(usage.cost) == "table" and usage.cost or nil
  if cost and type(cost.amount) == "number" then
    local currency = type(cost.currency) == "string" and render.clean(cost.currency, true) or ""
    local amount = currency == "USD" and string.format("$%.2f", cost.amount) or string.format("%.2f %s", cost.amount, currency)
    text = (text and (text .. " ") or "") .. amount
  end
  chat.usage = text
end

-- The item for chat (default: the current buffer's chat, else the latest), "" without one.
function M.line(chat)
  chat = chat or require("acp.chat").current()
  if not chat then return "" end
  local parts = { render.clean(chat.agent_name or chat.label or "agent", true), chat.state or "starting" }
  if chat.usage then parts[#parts + 1] = chat.usage end
  return table.concat(parts, " ")
end

return M
