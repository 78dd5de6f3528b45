-- SPDX-License-Identifier: Apache-2.0
-- What the chat buffer shows for each item of the session model, as lines. Every string
-- the agent sent goes through render.clean first: the agent is untrusted, and control
-- characters (escape sequences, NUL, C1 controls, bidirectional overrides) have no place
-- in a buffer a user reads or copies from.
local render = {}

-- Text with the control characters removed; newlines kept unless single_line (then
-- they become spaces). Tabs become spaces; carriage returns go (terminal output's \r\n).
function render.clean(text, single_line)
  if text == nil then return "" end
  text = tostring(text)
  text = text:gsub("\r\n", "\n"):gsub("\t", "    ")
  text = text:gsub("[%z\1-\9\11-\31\127]", "")
  text = text:gsub("\194[\128-\159]", "")             -- C1 controls U+0080..U+009F
  text = text:gsub("\226\128[\168-\174]", "")         -- U+2028..U+202E: separators, bidi embeddings
  text = text:gsub("\226\129[\166-\169]", "")         -- U+2066..U+2069: bidi isolates
  text = text:gsub("\239\187\191", "")                -- U+FEFF
  if single_line then text = text:gsub("\n", " ") end
  return text
end

-- The lines of a (cleaned) text, split at newlines; prefix before each.
function render.lines(text, prefix)
  local lines = {}
  prefix = prefix or ""
  for line in (render.clean(text) .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = prefix .. line end
  return lines
end

local function append_all(lines, more)
  for _, line in ipairs(more) do lines[#lines + 1] = line end
end

local plan_marks = { completed = "[x]", in_progress = "[>]", pending = "[ ]", cancelled = "[-]" }

local function plan_lines(item)
  local lines = { "## Plan" }
  local plan = item.data.plan or {}
  for _, entry in ipairs(type(plan.entries) == "table" and plan.entries or {}) do
    if type(entry) == "table" then
      local mark = plan_marks[entry.status] or ("[" .. render.clean(entry.status, true) .. "]")
      lines[#lines + 1] = "  " .. mark .. " " .. render.clean(entry.content, true)
    end
  end
  if plan.type == "text" or plan.text then append_all(lines, render.lines(plan.text, "  ")) end
  return lines
end

local function content_lines(block)
  local lines = {}
  if type(block) ~= "table" then return lines end
  if block.type == "diff" then
    for _, change in ipairs(type(block.changes) == "table" and block.changes or {}) do
      if type(change) == "table" then
        lines[#lines + 1] = "  diff: " .. render.clean(change.operation, true) .. " " .. render.clean(change.path, true)
      end
    end
    if type(block.patch) == "table" and block.patch.text then
      append_all(lines, render.lines(block.patch.text, "  "))
      if lines[#lines] == "  " then lines[#lines] = nil end
    end
    -- ACP v1 diffs: path, oldText, newText (libacp keeps them beside the lifted changes).
    if block.path and block.newText then
      if type(block.changes) ~= "table" then lines[#lines + 1] = "  diff: " .. render.clean(block.path, true) end
      -- A file's text ends with a newline, which is no line of its own.
      local function text_lines(text, prefix) return render.lines(tostring(text):gsub("\n$", ""), prefix) end
      if type(block.oldText) == "string" then append_all(lines, text_lines(block.oldText, "  - ")) end
      append_all(lines, text_lines(block.newText, "  + "))
    end
  elseif block.type == "terminal" then
    lines[#lines + 1] = "  terminal " .. render.clean(block.terminalId, true)
  elseif block.type == "content" and type(block.content) == "table" and block.content.type == "text" then
    append_all(lines, render.lines(block.content.text, "  "))
  elseif block.type == "text" then
    append_all(lines, render.lines(block.text, "  "))
  end
  return lines
end

local function tool_call_lines(item)
  local data = item.data
  local header = "## Tool: " .. render.clean(item.title or data.title or item.id, true)
  local kind = item.tool_kind or data.toolKind
  if kind then header = header .. " (" .. render.clean(kind, true) .. ")" end
  header = header .. " [" .. render.clean(item.status or data.status or "?", true) .. "]"
  local lines = { header }
  for _, block in ipairs(type(data.content) == "table" and data.content or {}) do
    append_all(lines, content_lines(block))
  end
  return lines
end

local function terminal_lines(item)
  local data = item.data
  local lines = { "## Terminal " .. render.clean(item.id, true) .. ": " .. render.clean(data.command or "", true) }
  append_all(lines, render.lines(item.text or ""))
  if type(data.exitStatus) == "table" then
    if #lines > 1 and lines[#lines] == "" then lines[#lines] = nil end  -- output's last newline
    lines[#lines + 1] = "  [exit " .. render.clean(data.exitStatus.exitCode or data.exitStatus.signal or "?", true) .. "]"
  end
  return lines
end

-- Headers of the items whose body is their text (followed by appended text).
render.text_headers = {
  user_message = "## You",
  agent_message = "## Agent",
  agent_thought = "## Thinking",
}

-- The lines of one item (a table from acp.model: kind, id, text, title, status, data).
function render.item(item)
  local header = render.text_headers[item.kind]
  if header then
    local lines = { header }
    append_all(lines, render.lines(item.text or ""))
    return lines
  end
  if item.kind == "tool_call" then return tool_call_lines(item) end
  if item.kind == "plan" then return plan_lines(item) end
  if item.kind == "terminal" then return terminal_lines(item) end
  if item.kind == "compaction" then return { "## Compaction [" .. render.clean(item.status or "?", true) .. "]" } end
  return { "## (" .. render.clean(item.id or item.kind, true) .. ")" }
end

-- Whether appended text can go straight to the end of the item's block (a terminal
-- block ends with its exit line once exited: that one is re-rendered instead).
function render.appends_in_place(item_kind)
  return render.text_headers[item_kind] ~= nil or item_kind == "terminal"
end

return render
