-- SPDX-License-Identifier: Apache-2.0
-- Editor tools the agent calls on its own: an MCP server named "editor" offered with every
-- session of a chat (docs/tools.md; libacp serves it over the MCP transport the agent
-- advertised), with three read-only tools:
--   current_buffer     the text of the buffer the user last worked in (unsaved changes
--                      included): path, filetype, modified, text
--   current_selection  that buffer's last visual selection: path, start_line, end_line, text
--   diagnostics        vim.diagnostic of that buffer, or of the loaded buffer of `path`
--                      (inside the session's directories)
-- "The buffer the user last worked in" is the last window's buffer that is a file's
-- (the chat, its log and review buffers are not), as the prompt is typed in the chat.
local acp = require("acp")

local api = vim.api
local editor_tools = {}

-- Text beyond this is cut (and said so): a tool result is one message.
local MAX_TEXT_BYTES = 1024 * 1024

local last_buffer

local function is_editor_buffer(buf)
  return api.nvim_buf_is_valid(buf) and api.nvim_buf_get_option(buf, "buftype") == ""
    and not api.nvim_buf_get_name(buf):match("^%a[%w+.-]*://")
end

api.nvim_create_autocmd("BufEnter", {
  group = api.nvim_create_augroup("acp_editor_tools", { clear = true }),
  callback = function(args)
    if is_editor_buffer(args.buf) then last_buffer = args.buf end
  end,
})

local function editor_buffer()
  local current = api.nvim_get_current_buf()
  if is_editor_buffer(current) then return current end
  if last_buffer and is_editor_buffer(last_buffer) then return last_buffer end
  return nil
end

local function name_of(buf)
  local name = api.nvim_buf_get_name(buf)
  return name ~= "" and vim.fn.fnamemodify(name, ":p") or ("[buffer " .. buf .. "]")
end

local function bounded(text)
  if #text <= MAX_TEXT_BYTES then return text, false end
  return text:sub(1, MAX_TEXT_BYTES):gsub("[\192-\255][\128-\191]*$", ""), true
end

local function current_buffer()
  local buf = editor_buffer()
  if not buf then return nil, "no file is open in the editor" end
  local text, cut = bounded(table.concat(api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n")
  return { path = name_of(buf), filetype = api.nvim_buf_get_option(buf, "filetype"),
    modified = api.nvim_buf_get_option(buf, "modified"), line_count = api.nvim_buf_line_count(buf),
    text = text, truncated = cut }
end

-- The last visual selection of the buffer (its '< and '> marks; characterwise selections
-- cut to their columns).
local function current_selection()
  local buf = editor_buffer()
  if not buf then return nil, "no file is open in the editor" end
  local first, last = api.nvim_buf_get_mark(buf, "<"), api.nvim_buf_get_mark(buf, ">")
  if first[1] == 0 or last[1] == 0 then return nil, "nothing is selected in " .. name_of(buf) end
  local lines = api.nvim_buf_get_lines(buf, first[1] - 1, last[1], false)
  if #lines == 0 then return nil, "the selection is gone from " .. name_of(buf) end
  if api.nvim_buf_call(buf, vim.fn.visualmode) == "v" then  -- visualmode() is per buffer
    local tail = lines[#lines]:sub(last[2] + 2):match("^[\128-\191]*")  -- the last character's other bytes
    lines[#lines] = lines[#lines]:sub(1, last[2] + 1) .. tail
    lines[1] = lines[1]:sub(first[2] + 1)
  end
  local text, cut = bounded(table.concat(lines, "\n"))
  return { path = name_of(buf), start_line = first[1], end_line = last[1], text = text, truncated = cut }
end

local severities = { "error", "warning", "info", "hint" }

local function diagnostics(chat, args, session_id)
  local buf = editor_buffer()
  if type(args.path) == "string" and args.path ~= "" then
    local real, err = chat.client:confine_path(session_id, args.path, false)
    if not real then return nil, tostring(err and err.message or err) end
    buf = require("acp.files").buffer_of(real)
    if not buf then return nil, args.path .. " is not open in the editor" end
  end
  if not buf then return nil, "no file is open in the editor" end
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    list[#list + 1] = { line = d.lnum + 1, column = d.col + 1, severity = severities[d.severity] or "hint",
      message = d.message, source = d.source }
  end
  return { path = name_of(buf), diagnostics = acp.json.array(list) }
end

-- Whether the agent takes MCP servers over a transport libacp can serve tools on
-- (CLIENT-MUST-33: none are offered to an agent that takes none).
local function takes_mcp(chat)
  local info = chat.client:agent_info()
  local caps = type(info) == "table" and type(info.capabilities) == "table" and info.capabilities
  local mcp = caps and type(caps.session) == "table" and caps.session.mcp
  return type(mcp) == "table" and (mcp.acp ~= nil or mcp.http ~= nil or mcp.stdio ~= nil)
end

-- The tool servers offered with a session of the chat: { editor }, or nil when
-- setup{tools = false} or the agent takes no MCP servers.
function editor_tools.servers(chat, config)
  if config.tools == false or not takes_mcp(chat) then return nil end
  if chat.tool_server then return { chat.tool_server } end
  local editor, err = acp.tool_server("editor", { version = "1", max_message_bytes = 4 * MAX_TEXT_BYTES })
  if not editor then
    chat:error("editor tools", err)
    return nil
  end
  local read_only = { readOnlyHint = true }
  local function add(tool, handler)
    tool.annotations = read_only
    local ok, add_err = editor:add_tool(tool, handler)
    if not ok then chat:error("editor tool " .. tool.name, add_err) end
  end
  add({ name = "current_buffer", title = "Current buffer",
    description = "The text of the file the user is editing, unsaved changes included, with its path" },
    function() return current_buffer() end)
  add({ name = "current_selection", title = "Current selection",
    description = "The text the user selected last in the file they are editing, with its path and line range" },
    function() return current_selection() end)
  add({ name = "diagnostics", title = "Diagnostics",
    description = "The diagnostics (errors, warnings) of the file the user is editing, or of an open file by path",
    input_schema = { type = "object", properties = { path = { type = "string",
      description = "absolute path of an open file (default: the one the user is editing)" } } } },
    function(args, call) return diagnostics(chat, args or {}, call.session_id) end)
  chat.tool_server = editor
  return { editor }
end

return editor_tools
