-- SPDX-License-Identifier: Apache-2.0
-- A v1 agent's fs/read_text_file and fs/write_text_file (ACP v1's client methods; v2
-- agents reach files themselves) go through the editor's buffers: a read returns a loaded
-- buffer's text, unsaved changes included, else the file's; a write lands in the file's
-- buffer (loaded if need be) as one undoable change, and is saved when the buffer had no
-- unsaved changes of the user's (then the disk agrees with what the agent wrote), else
-- left unsaved for the user to review. Every path first goes through libacp's fs guard
-- (client:confine_path): absolute, inside the session's cwd or additional directories
-- after resolving symlinks and "..", else the request fails with the guard's error.
local render = require("acp.render")
local review = require("acp.review")

local api = vim.api
local files = {}

-- What a read returns and a write accepts at most: a response is one JSON-RPC line.
local MAX_BYTES = 16 * 1024 * 1024

-- The loaded buffer of a real (symlink-free, absolute) path, if any.
function files.buffer_of(real)
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) then
      local name = api.nvim_buf_get_name(buf)
      if name ~= "" and (name == real or vim.loop.fs_realpath(name) == real) then return buf end
    end
  end
end

local function buffer_text(buf)
  local text = table.concat(api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  if api.nvim_buf_get_option(buf, "eol") or api.nvim_buf_get_option(buf, "fixeol") then text = text .. "\n" end
  return text
end

-- Lines line .. line+limit-1 (1-based) of text, each with its newline.
local function slice(text, line, limit)
  if not line and not limit then return text end
  local first, count, parts, n = line or 1, limit or math.huge, {}, 0
  for piece in text:gmatch("[^\n]*\n?") do
    if piece == "" then break end
    n = n + 1
    if n >= first and n < first + count then parts[#parts + 1] = piece end
  end
  return table.concat(parts)
end

local function read(chat, request, real)
  local params = request.params
  local buf = files.buffer_of(real)
  local text
  if buf then
    text = buffer_text(buf)
  else
    local stat = vim.loop.fs_stat(real)
    if not stat or stat.type ~= "file" then return request:fail(-32002, "not a regular file: " .. real) end
    local file = io.open(real, "rb")
    if not file then return request:fail(-32002, "cannot read " .. real) end
    text = file:read(MAX_BYTES + 1) or ""
    file:close()
  end
  if #text > MAX_BYTES then return request:fail(-32603, "the file is larger than " .. MAX_BYTES .. " bytes") end
  local line = type(params.line) == "number" and params.line >= 1 and math.floor(params.line) or nil
  local limit = type(params.limit) == "number" and params.limit >= 0 and math.floor(params.limit) or nil
  request:respond({ content = slice(text, line, limit) })
  chat:log_line("fs: read " .. real .. (buf and " (from its buffer)" or ""))
end

local function write(chat, request, real)
  local content = request.params.content
  if type(content) ~= "string" then return request:fail(-32602, "content must be a string") end
  if #content > MAX_BYTES then return request:fail(-32603, "the content is larger than " .. MAX_BYTES .. " bytes") end
  local buf = files.buffer_of(real)
  local stat = vim.loop.fs_stat(real)
  if not buf and stat and stat.type ~= "file" then return request:fail(-32602, "not a regular file: " .. real) end
  if not buf then
    vim.fn.mkdir(vim.fn.fnamemodify(real, ":h"), "p")
    buf = vim.fn.bufadd(real)
    vim.fn.bufload(buf)
    api.nvim_buf_set_option(buf, "buflisted", true)
  end
  local had_changes = api.nvim_buf_get_option(buf, "modified")
  local lines = vim.split(content, "\n", { plain = true })
  local eol = lines[#lines] == ""
  if eol and #lines > 1 then lines[#lines] = nil end
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  api.nvim_buf_set_option(buf, "eol", eol)
  if not eol then api.nvim_buf_set_option(buf, "fixeol", false) end
  local saved = false
  if not had_changes then
    -- noautocmd: a formatter on BufWritePre must not change what the agent wrote.
    saved = pcall(api.nvim_buf_call, buf, function() vim.cmd("silent noautocmd keepalt write!") end)
  end
  request:respond({})
  review.wrote(chat, real)
  chat:note("the agent wrote " .. render.clean(real, true) ..
    (saved and " (saved; u in its buffer undoes)" or " into its buffer, unsaved (u undoes)"))
end

function files.handle(chat, request)
  local params = type(request.params) == "table" and request.params or {}
  request.params = params
  local for_write = request.method == "fs/write_text_file"
  if request.method ~= "fs/read_text_file" and not for_write then
    return request:fail(-32601, "not served: " .. tostring(request.method))
  end
  local session_id = request.session_id or params.sessionId
  local real, err = chat.client:confine_path(session_id, type(params.path) == "string" and params.path or "", for_write)
  if not real then
    chat:log_line("fs: refused " .. render.clean(params.path, true) .. ": " .. tostring(err))
    return request:fail(err.rpc_code or -32602, err.message)
  end
  local ok, failure = pcall(for_write and write or read, chat, request, real)
  if not ok then
    chat:error(request.method, failure)
    if not request.answered then request:fail(-32603, "the editor failed: " .. tostring(failure)) end
  end
end

-- Before initialize: serve a v1 agent's fs methods from the buffers.
function files.attach(chat)
  local ok, err = chat.client:serve_client_methods({ "read_text_file", "write_text_file" })
  if not ok then return chat:error("serving files", err) end
  chat.client:on("client_request", function(request) files.handle(chat, request) end)
end

return files
