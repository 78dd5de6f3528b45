-- SPDX-License-Identifier: Apache-2.0
-- :AcpMode and :AcpModel: the session's config option of that category (or id) chosen from
-- its list of values through vim.ui.select (kind "acp.config"), then set on the session.
local render = require("acp.render")

local M = {}

-- The config option for "mode" or "model": its category, else its id.
function M.option(chat, category)
  if not chat.session_id then return nil end
  local options = chat.client:session(chat.session_id):config_options() or {}
  for _, key in ipairs({ "category", "configId" }) do
    for _, option in ipairs(options) do
      if type(option) == "table" and option[key] == category then return option end
    end
  end
  return nil
end

function M.choose(chat, category)
  local option = M.option(chat, category)
  if not option then return chat:note("the agent offers no " .. category .. " to choose") end
  local values = {}
  for _, choice in ipairs(type(option.options) == "table" and option.options or {}) do
    if type(choice) == "table" and choice.value ~= nil then values[#values + 1] = choice end
  end
  local id = render.clean(option.configId, true)
  vim.ui.select(values, {
    prompt = render.clean(option.name or option.configId, true) .. " (now " .. render.clean(option.currentValue, true) .. ")",
    kind = "acp.config",
    format_item = function(choice)
      local text = render.clean(choice.name or choice.value, true)
      if type(choice.description) == "string" then text = text .. " - " .. render.clean(choice.description, true) end
      return text
    end,
  }, function(choice)
    if choice then chat:config(option.configId, choice.value) else chat:note(id .. " unchanged") end
  end)
end

return M
