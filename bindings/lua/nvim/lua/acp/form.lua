-- SPDX-License-Identifier: Apache-2.0
-- A form elicitation in Neovim (CLIENT-GUIDE 8.6; CLIENT-MUST-73..75): the agent that
-- asks is named, decline and cancel are offered at every step, fields start from the
-- schema's defaults, enums and multi-selects are choices, every answer is checked
-- against the schema (a bad one is asked again, with the reason), and the answers are
-- shown for review before anything is sent. A property kind the form does not know is
-- never dressed up as a known control: it is asked as a JSON value, named by its type.
--
--   form.run({ agent = "Demo agent", message = "...", schema = requestedSchema, note = fn },
--     function(action, content) ... end)  -- action: "accept" (content), "decline" or "cancel"
local json = require("acp").json

local M = {}

local ACCEPT, DECLINE, CANCEL = "accept", "decline", "cancel"

local function is_array(value) return type(value) == "table" and (#value > 0 or next(value) == nil) end

-- UTF-8 characters, as the schema's lengths count them.
local function length(text) return select(2, text:gsub("[^\128-\191]", "")) end

-- The kind of control a property gets: string, number, integer, boolean, enum, multi, or
-- "unknown" (anything else, CLIENT-MUST-75).
function M.kind_of(property)
  if type(property) ~= "table" then return "unknown" end
  local t = property.type
  if t == "string" then
    if is_array(property.enum) or is_array(property.oneOf) then return "enum" end
    return "string"
  elseif t == "number" or t == "integer" or t == "boolean" then
    return t
  elseif t == "array" then
    local items = type(property.items) == "table" and property.items or {}
    if is_array(items.enum) or is_array(items.anyOf) then return "multi" end
  end
  return "unknown"
end

-- The choices of an enum or a multi-select: { {value = "x", label = "X"}, ... }.
function M.choices_of(property)
  local list, titled
  if property.type == "array" then
    local items = property.items
    list, titled = items.enum, false
    if not is_array(list) then list, titled = items.anyOf, true end
  else
    list, titled = property.enum, false
    if not is_array(list) then list, titled = property.oneOf, true end
  end
  local choices = {}
  for _, entry in ipairs(list or {}) do
    if titled and type(entry) == "table" and type(entry.const) == "string" then
      choices[#choices + 1] = { value = entry.const, label = type(entry.title) == "string" and entry.title or entry.const }
    elseif not titled and type(entry) == "string" then
      choices[#choices + 1] = { value = entry, label = entry }
    end
  end
  return choices
end

local function among(choices, value)
  for _, choice in ipairs(choices) do
    if choice.value == value then return true end
  end
  return false
end

local formats = {
  email = function(v) return v:match("^[^@%s]+@[^@%s]+$") ~= nil end,
  uri = function(v) return v:match("^%a[%w+.-]*:%S+$") ~= nil end,
  date = function(v) return v:match("^%d%d%d%d%-%d%d%-%d%d$") ~= nil end,
  ["date-time"] = function(v) return v:match("^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d") ~= nil end,
}

-- nil when value fits the property, else the reason (CLIENT-MUST-74).
function M.check_value(property, value)
  local kind = M.kind_of(property)
  if kind == "string" then
    if type(value) ~= "string" then return "expected text" end
    if type(property.minLength) == "number" and length(value) < property.minLength then
      return "at least " .. property.minLength .. " character(s)"
    end
    if type(property.maxLength) == "number" and length(value) > property.maxLength then
      return "at most " .. property.maxLength .. " character(s)"
    end
    local format = formats[property.format]
    if format and not format(value) then return "not a valid " .. property.format end
  elseif kind == "number" or kind == "integer" then
    if type(value) ~= "number" or value ~= value then return "expected a number" end
    if kind == "integer" and value ~= math.floor(value) then return "expected a whole number" end
    if type(property.minimum) == "number" and value < property.minimum then return "at least " .. property.minimum end
    if type(property.maximum) == "number" and value > property.maximum then return "at most " .. property.maximum end
  elseif kind == "boolean" then
    if type(value) ~= "boolean" then return "expected yes or no" end
  elseif kind == "enum" then
    if not among(M.choices_of(property), value) then return "not one of the choices" end
  elseif kind == "multi" then
    if type(value) ~= "table" then return "expected a list of choices" end
    local choices, seen = M.choices_of(property), {}
    for _, v in ipairs(value) do
      if not among(choices, v) then return "not one of the choices: " .. tostring(v) end
      if seen[v] then return "chosen twice: " .. v end
      seen[v] = true
    end
    if type(property.minItems) == "number" and #value < property.minItems then
      return "choose at least " .. property.minItems
    end
    if type(property.maxItems) == "number" and #value > property.maxItems then
      return "choose at most " .. property.maxItems
    end
  end
  return nil
end

-- The property names in a stable order, required ones first.
function M.names_of(schema)
  local properties = type(schema.properties) == "table" and schema.properties or {}
  local required = {}
  for _, name in ipairs(is_array(schema.required) and schema.required or {}) do
    if type(name) == "string" then required[name] = true end
  end
  local names = {}
  for name in pairs(properties) do
    if type(name) == "string" then names[#names + 1] = name end
  end
  table.sort(names, function(a, b)
    if (required[a] or false) ~= (required[b] or false) then return required[a] or false end
    return a < b
  end)
  return names, properties, required
end

-- nil when content answers the schema (required present, every value fits), else the
-- name of the first field that does not and why.
function M.check(schema, content)
  local names, properties, required = M.names_of(schema)
  for _, name in ipairs(names) do
    local value = content[name]
    if value == nil then
      if required[name] then return name, "required" end
    else
      local why = M.check_value(properties[name], value)
      if why then return name, why end
    end
  end
  return nil
end

-- What a value looks like in the review and as a field's default.
function M.show(property, value, clean)
  if value == nil then return "(no answer)" end
  local kind = M.kind_of(property)
  if kind == "boolean" then return value and "yes" or "no" end
  if kind == "enum" or kind == "multi" then
    local labels = {}
    for _, choice in ipairs(M.choices_of(property)) do labels[choice.value] = choice.label end
    if kind == "enum" then return clean(labels[value] or tostring(value)) end
    local shown = {}
    for _, v in ipairs(value) do shown[#shown + 1] = clean(labels[v] or tostring(v)) end
    return table.concat(shown, ", ")
  end
  if kind == "unknown" then return clean(json.encode(value)) end
  return clean(tostring(value))
end

-- Runs the form. spec = {agent, message, schema, note = fn(text), clean = fn(text)};
-- done(action, content) runs once.
function M.run(spec, done)
  local schema = type(spec.schema) == "table" and spec.schema or {}
  local clean = spec.clean or function(text) return text end
  local note = spec.note or function() end
  local names, properties, required = M.names_of(schema)
  local agent = clean(spec.agent or "the agent")
  local content = {}
  for _, name in ipairs(names) do
    local property = properties[name]
    if type(property) == "table" and property.default ~= nil and M.check_value(property, property.default) == nil then
      content[name] = vim.deepcopy(property.default)
    end
  end
  local finished = false
  local function finish(action)
    if finished then return end
    finished = true
    done(action, action == ACCEPT and content or nil)
  end

  local review, ask_field

  -- Esc anywhere: the user chooses what it means, never taken as an answer.
  local function interrupted(back)
    vim.ui.select({ "back", DECLINE, CANCEL }, {
      prompt = agent .. "'s form: what now?", kind = "acp.elicitation.action",
      format_item = function(item)
        return item == "back" and "Back to the form" or item == DECLINE and "Decline (say no)"
          or "Cancel (dismiss)"
      end,
    }, function(choice)
      if choice == DECLINE or choice == CANCEL then return finish(choice) end
      back()
    end)
  end

  local function label_of(name)
    local property = properties[name]
    local title = type(property) == "table" and type(property.title) == "string" and property.title or name
    return clean(title) .. (required[name] and " (required)" or "")
  end

  -- Asks one field, then runs next_step; a bad answer is asked again with the reason.
  ask_field = function(name, next_step, reason)
    local property = type(properties[name]) == "table" and properties[name] or {}
    local kind = M.kind_of(property)
    local label = label_of(name) .. (reason and (" [" .. reason .. "]") or "")
    local function answered(value)
      if value == nil and not required[name] then
        content[name] = nil
        return next_step()
      end
      local why = value == nil and "required" or M.check_value(property, value)
      if why then return ask_field(name, next_step, why) end
      content[name] = value
      next_step()
    end
    if kind == "boolean" or kind == "enum" then
      local items = kind == "boolean" and { { value = true, label = "yes" }, { value = false, label = "no" } }
        or M.choices_of(property)
      vim.ui.select(items, {
        prompt = label, kind = "acp.elicitation",
        format_item = function(item) return clean(item.label) end,
      }, function(choice)
        if choice == nil then return interrupted(function() ask_field(name, next_step, reason) end) end
        answered(choice.value)
      end)
    elseif kind == "multi" then
      local chosen = {}
      for _, v in ipairs(type(content[name]) == "table" and content[name] or {}) do chosen[v] = true end
      local function toggle()
        local items = {}
        for _, choice in ipairs(M.choices_of(property)) do items[#items + 1] = choice end
        items[#items + 1] = { done = true, label = "Done" }
        vim.ui.select(items, {
          prompt = label .. " (choose any)", kind = "acp.elicitation.multi",
          format_item = function(item)
            if item.done then return "Done" end
            return (chosen[item.value] and "[x] " or "[ ] ") .. clean(item.label)
          end,
        }, function(choice)
          if choice == nil then return interrupted(toggle) end
          if not choice.done then
            chosen[choice.value] = not chosen[choice.value] or nil
            return toggle()
          end
          local value = {}
          for _, c in ipairs(M.choices_of(property)) do
            if chosen[c.value] then value[#value + 1] = c.value end
          end
          answered(#value > 0 and value or (required[name] and value or nil))
        end)
      end
      toggle()
    else
      local current = content[name]
      local default
      if current ~= nil then default = kind == "unknown" and json.encode(current) or tostring(current) end
      local hint = kind == "unknown" and (" (a JSON value of type " .. clean(tostring(property.type)) .. ")") or ""
      vim.ui.input({ prompt = label .. hint .. ": ", default = default and clean(default) or nil }, function(text)
        if text == nil then return interrupted(function() ask_field(name, next_step, reason) end) end
        if text == "" then return answered(nil) end
        if kind == "number" or kind == "integer" then
          local number = tonumber(text)
          if number == nil then return ask_field(name, next_step, "expected a number") end
          return answered(number)
        elseif kind == "unknown" then
          local value = json.decode(text)
          if value == nil then return ask_field(name, next_step, "not JSON") end
          return answered(value)
        end
        answered(text)
      end)
    end
  end

  -- CLIENT-MUST-73: the answers as they would be sent, then send, edit, decline or cancel.
  review = function()
    note(agent .. "'s form, your answers:")
    for _, name in ipairs(names) do note("  " .. label_of(name) .. ": " .. M.show(properties[name], content[name], clean)) end
    vim.ui.select({ ACCEPT, "edit", DECLINE, CANCEL }, {
      prompt = "Send these answers to " .. agent .. "?", kind = "acp.elicitation.review",
      format_item = function(item)
        return item == ACCEPT and "Send" or item == "edit" and "Edit an answer"
          or item == DECLINE and "Decline (say no)" or "Cancel (dismiss)"
      end,
    }, function(choice)
      if choice == nil then return interrupted(review) end
      if choice == DECLINE or choice == CANCEL then return finish(choice) end
      if choice == "edit" then
        return vim.ui.select(names, {
          prompt = "Edit which answer?", kind = "acp.elicitation.field", format_item = label_of,
        }, function(name)
          if name == nil then return review() end
          ask_field(name, review)
        end)
      end
      local bad, why = M.check(schema, content)
      if bad then return ask_field(bad, review, why) end
      finish(ACCEPT)
    end)
  end

  -- First who asks and why, with decline and cancel right there; then field by field.
  local message = clean(type(spec.message) == "string" and spec.message or "")
  local title = type(schema.title) == "string" and (" (" .. clean(schema.title) .. ")") or ""
  note(agent .. " asks" .. title .. ": " .. message)
  vim.ui.select({ "fill", DECLINE, CANCEL }, {
    prompt = agent .. " asks: " .. message, kind = "acp.elicitation.start",
    format_item = function(item)
      return item == "fill" and "Answer the form" or item == DECLINE and "Decline (say no)" or "Cancel (dismiss)"
    end,
  }, function(choice)
    if choice == DECLINE then return finish(DECLINE) end
    if choice ~= "fill" then return finish(CANCEL) end
    local i = 0
    local function next_field()
      i = i + 1
      if names[i] == nil then return review() end
      ask_field(names[i], next_field)
    end
    next_field()
  end)
end

return M
