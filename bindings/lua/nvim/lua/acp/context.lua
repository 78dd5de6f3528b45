-- SPDX-License-Identifier: Apache-2.0
-- Context for a chat's next prompt: the current buffer (its text as it is, unsaved changes
-- included), a file, the visual selection with its line range, the buffer's diagnostics.
-- Each is kept until the chat sends its next prompt, then goes before the prompt's text
-- as the richest content block the agent's prompt capabilities allow (CLIENT-GUIDE 8.1):
-- text as an embedded `resource` (session.prompt.embeddedContext), a file on disk as a
-- `resource_link` (always allowed), else as text; png/jpeg files as `image` blocks
-- (session.prompt.image), else as links.
local render = require("acp.render")

local api = vim.api
local context = {}

-- Files bigger than this go as links, never inline: a prompt is one JSON-RPC line.
local MAX_INLINE_BYTES = 1024 * 1024
local IMAGE_TYPES = { png = "image/png", jpg = "image/jpeg", jpeg = "image/jpeg" }

-- The agent's prompt capabilities ({} before initialize or without any).
local function prompt_caps(chat)
  local info = chat.client:agent_info()
  local caps = type(info) == "table" and info.capabilities
  local session = type(caps) == "table" and caps.session
  local prompt = type(session) == "table" and session.prompt
  return type(prompt) == "table" and prompt or {}
end

local function buffer_path(buf)
  local name = api.nvim_buf_get_name(buf)
  if name == "" or name:match("^%a[%w+.-]*://") then return nil end
  return vim.fn.fnamemodify(name, ":p")
end

local function uri_of(buf)
  local path = buffer_path(buf)
  return path and vim.uri_from_fname(path) or ("untitled:" .. buf), path
end

-- The buffer's text as the agent should see it: its lines, and the final newline the
-- file gets when written.
local function buffer_text(buf, first, last)
  local lines = api.nvim_buf_get_lines(buf, first or 0, last or -1, false)
  local text = table.concat(lines, "\n")
  if api.nvim_buf_get_option(buf, "eol") or api.nvim_buf_get_option(buf, "fixeol") or first then text = text .. "\n" end
  return text
end

-- Text in a Markdown fence longer than any backtick run inside it.
local function fenced(header, text, language)
  local fence = "```"
  for run in text:gmatch("`+") do
    if #run >= #fence then fence = string.rep("`", #run + 1) end
  end
  if text:sub(-1) ~= "\n" then text = text .. "\n" end
  return header .. "\n" .. fence .. (language or "") .. "\n" .. text .. fence
end

-- A context's text ends with a blank line: agents and the chat's "## You" join the
-- prompt's text blocks as they are.
local function text_block(text) return { type = "text", text = text .. "\n\n" } end

-- An embedded text resource, else the text in a fence (with what it is in the header).
local function text_or_resource(caps, uri, text, header, language)
  if caps.embeddedContext then return { type = "resource", resource = { uri = uri, text = text } } end
  return text_block(fenced(header, text, language))
end

local function read_file(path, limit)
  local file = io.open(path, "rb")
  if not file then return nil end
  local data = file:read(limit + 1)
  file:close()
  return data or ""
end

local base64_chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function base64(data)
  local out, b = {}, base64_chars
  for i = 1, #data, 3 do
    local x, y, z = data:byte(i, i + 2)
    local n = x * 65536 + (y or 0) * 256 + (z or 0)
    local c1, c2 = math.floor(n / 262144) % 64, math.floor(n / 4096) % 64
    local c3, c4 = math.floor(n / 64) % 64, n % 64
    out[#out + 1] = b:sub(c1 + 1, c1 + 1) .. b:sub(c2 + 1, c2 + 1) ..
      (y and b:sub(c3 + 1, c3 + 1) or "=") .. (z and b:sub(c4 + 1, c4 + 1) or "=")
  end
  return table.concat(out)
end
context.base64 = base64

local function link(path, mime)
  local stat = vim.loop.fs_stat(path)
  return { type = "resource_link", uri = vim.uri_from_fname(path), name = vim.fn.fnamemodify(path, ":t"),
    mimeType = mime, size = stat and stat.size or nil }
end

-- Adding ------------------------------------------------------------------------------------

-- Each entry: label (shown in the chat) and build(caps) -> the content block, run when the
-- prompt is sent (a buffer is sent as it is then).
local function add(chat, label, build)
  chat.context = chat.context or {}
  chat.context[#chat.context + 1] = { label = label, build = build }
  chat:note("context for the next prompt: " .. render.clean(label, true))
end

function context.add_buffer(chat, buf)
  buf = (buf == nil or buf == 0) and api.nvim_get_current_buf() or buf
  local _, path = uri_of(buf)
  add(chat, "buffer " .. (path or ("#" .. buf)), function(caps)
    if not api.nvim_buf_is_valid(buf) then return nil end
    local uri, now_path = uri_of(buf)
    local modified = api.nvim_buf_get_option(buf, "modified")
    if not caps.embeddedContext and now_path and not modified and vim.loop.fs_stat(now_path) then
      return link(now_path)
    end
    local header = (now_path or ("buffer " .. buf)) .. (modified and " (unsaved changes)" or "") .. ":"
    return text_or_resource(caps, uri, buffer_text(buf), header, api.nvim_buf_get_option(buf, "filetype"))
  end)
end

-- Lines first..last (1-based, inclusive) of buf, as they are now. The resource's URI says
-- the range: file:///path#L<first>-L<last>.
function context.add_selection(chat, buf, first, last)
  buf = (buf == nil or buf == 0) and api.nvim_get_current_buf() or buf
  if first > last then first, last = last, first end
  local uri, path = uri_of(buf)
  local text = buffer_text(buf, first - 1, last)
  local language = api.nvim_buf_get_option(buf, "filetype")
  local range = "#L" .. first .. "-L" .. last
  add(chat, (path or ("buffer " .. buf)) .. " lines " .. first .. "-" .. last, function(caps)
    return text_or_resource(caps, uri .. range, text,
      (path or ("buffer " .. buf)) .. " lines " .. first .. "-" .. last .. ":", language)
  end)
end

-- A file: its buffer's text when it is loaded (unsaved changes included), else the file.
function context.add_file(chat, path)
  path = vim.fn.fnamemodify(vim.fn.expand(path), ":p")
  local buf = require("acp.files").buffer_of(vim.loop.fs_realpath(path) or path)
  if buf then return context.add_buffer(chat, buf) end
  local stat = vim.loop.fs_stat(path)
  if not stat or stat.type ~= "file" then return chat:note("no such regular file: " .. path) end
  local image = IMAGE_TYPES[(path:match("%.(%w+)$") or ""):lower()]
  add(chat, (image and "image " or "file ") .. path, function(caps)
    local data = read_file(path, MAX_INLINE_BYTES)
    if not data or #data > MAX_INLINE_BYTES then return link(path, image) end
    if image then
      if not caps.image then return link(path, image) end
      return { type = "image", mimeType = image, data = base64(data), uri = vim.uri_from_fname(path) }
    end
    if data:find("%z") then return link(path) end
    if not caps.embeddedContext then return link(path) end
    return { type = "resource", resource = { uri = vim.uri_from_fname(path), text = data } }
  end)
end

local severities = { "error", "warning", "info", "hint" }

-- The buffer's diagnostics (vim.diagnostic) as they are now, one per line as
-- path:line:col: severity: message [source]. Always text: they are not a file's content.
function context.add_diagnostics(chat, buf)
  buf = (buf == nil or buf == 0) and api.nvim_get_current_buf() or buf
  local _, path = uri_of(buf)
  local name = path or ("buffer " .. buf)
  local lines = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    lines[#lines + 1] = string.format("%s:%d:%d: %s: %s%s", name, d.lnum + 1, d.col + 1,
      severities[d.severity] or "note", d.message, d.source and (" [" .. d.source .. "]") or "")
  end
  local text = #lines == 0 and ("No diagnostics in " .. name .. ".") or
    ("Diagnostics in " .. name .. ":\n" .. table.concat(lines, "\n"))
  add(chat, #lines .. " diagnostics of " .. name, function() return text_block(text) end)
end

function context.clear(chat)
  chat.context = {}
  chat:note("context cleared")
end

function context.list(chat)
  if not chat.context or #chat.context == 0 then return chat:note("no context for the next prompt") end
  for _, entry in ipairs(chat.context) do chat:note("context: " .. render.clean(entry.label, true)) end
end

-- The prompt for text with the context added since the last one (taken): text alone, or
-- the context's blocks and then the text.
function context.take(chat, text)
  local entries = chat.context or {}
  if #entries == 0 then return text end
  chat.context = {}
  local caps = prompt_caps(chat)
  local blocks = {}
  for _, entry in ipairs(entries) do
    local ok, block = pcall(entry.build, caps)
    if ok and block then blocks[#blocks + 1] = block
    elseif not ok then chat:error("context " .. entry.label, block) end
  end
  blocks[#blocks + 1] = { type = "text", text = text }
  return blocks
end

-- :AcpAdd buffer | file PATH | selection | diagnostics | clear; no argument: the list.
-- With a range (:'<,'>AcpAdd) the lines of the range.
function context.command(chat, opts)
  local what, arg = opts.fargs[1], opts.fargs[2]
  if opts.range > 0 and (what == nil or what == "selection") then
    return context.add_selection(chat, 0, opts.line1, opts.line2)
  end
  if what == nil then return context.list(chat) end
  if what == "buffer" then return context.add_buffer(chat, 0) end
  if what == "selection" then
    return context.add_selection(chat, 0, vim.fn.line("'<"), vim.fn.line("'>"))
  end
  if what == "diagnostics" then return context.add_diagnostics(chat, 0) end
  if what == "file" and arg then return context.add_file(chat, arg) end
  if what == "clear" then return context.clear(chat) end
  vim.notify("acp: :AcpAdd buffer | file PATH | selection | diagnostics | clear", vim.log.levels.WARN)
end

function context.complete(lead, line)
  if line:match("^%S*AcpAdd%s+file%s") then return vim.fn.getcompletion(lead, "file") end
  return vim.tbl_filter(function(word) return word:sub(1, #lead) == lead end,
    { "buffer", "file", "selection", "diagnostics", "clear" })
end

return context
