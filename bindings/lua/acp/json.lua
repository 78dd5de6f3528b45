-- SPDX-License-Identifier: Apache-2.0
-- A small JSON codec for the Lua binding: plain LuaJIT has none, and libacp hands
-- results, updates and model items out as JSON text. Decoding is bounded (nesting depth)
-- because the text comes from an untrusted agent; libacp has already checked that it is
-- valid UTF-8 and one JSON value.
local json = {}

-- A value that encodes as JSON null and decodes from it, so arrays keep their holes.
json.null = setmetatable({}, { __tostring = function() return "null" end })

local MAX_DEPTH = 200

local escapes = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
local function encode_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function is_array(t)
  local n = 0
  for k in pairs(t) do
    if type(k) ~= "number" or k <= 0 or k % 1 ~= 0 then return false end
    n = n + 1
  end
  for i = 1, n do
    if t[i] == nil then return false end
  end
  return true, n
end

local encode
function encode(value, depth)
  local kind = type(value)
  if value == nil or value == json.null then return "null" end
  if kind == "boolean" then return value and "true" or "false" end
  if kind == "number" then
    if value ~= value or value == math.huge or value == -math.huge then error("json: cannot encode " .. tostring(value), 0) end
    if value % 1 == 0 and math.abs(value) < 2 ^ 53 then return string.format("%d", value) end
    return string.format("%.17g", value)
  end
  if kind == "string" then return encode_string(value) end
  if kind ~= "table" then error("json: cannot encode a " .. kind, 0) end
  if depth > MAX_DEPTH then error("json: nested too deeply", 0) end
  local array, n = is_array(value)
  local parts = {}
  -- An empty table encodes as an object unless marked: ACP requests use objects far more.
  if array and (n > 0 or getmetatable(value) == json.array_mt) then
    for i = 1, n do parts[i] = encode(value[i], depth + 1) end
    return "[" .. table.concat(parts, ",") .. "]"
  end
  local keys = {}
  for k in pairs(value) do
    if type(k) ~= "string" then error("json: object keys must be strings", 0) end
    keys[#keys + 1] = k
  end
  table.sort(keys)
  for i, k in ipairs(keys) do parts[i] = encode_string(k) .. ":" .. encode(value[k], depth + 1) end
  return "{" .. table.concat(parts, ",") .. "}"
end

json.array_mt = {}
-- Marks a table to encode as an array even when empty.
function json.array(t) return setmetatable(t or {}, json.array_mt) end

function json.encode(value) return encode(value, 0) end

-- Decoding -------------------------------------------------------------------------------

local function utf8_of(code)
  if code < 0x80 then return string.char(code) end
  if code < 0x800 then return string.char(0xC0 + math.floor(code / 0x40), 0x80 + code % 0x40) end
  if code < 0x10000 then
    return string.char(0xE0 + math.floor(code / 0x1000), 0x80 + math.floor(code / 0x40) % 0x40, 0x80 + code % 0x40)
  end
  return string.char(0xF0 + math.floor(code / 0x40000), 0x80 + math.floor(code / 0x1000) % 0x40,
    0x80 + math.floor(code / 0x40) % 0x40, 0x80 + code % 0x40)
end

local unescape = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

local decode_value

local function skip(text, pos)
  return text:find("[^ \t\r\n]", pos) or #text + 1
end

local function decode_string(text, pos)
  -- pos is just after the opening quote.
  local parts, start = {}, pos
  while true do
    local stop = text:find('["\\]', pos)
    if not stop then error("json: unterminated string", 0) end
    parts[#parts + 1] = text:sub(pos, stop - 1)
    if text:sub(stop, stop) == '"' then return table.concat(parts), stop + 1 end
    local c = text:sub(stop + 1, stop + 1)
    if c == "u" then
      local code = tonumber(text:sub(stop + 2, stop + 5), 16)
      if not code then error("json: bad \\u escape", 0) end
      pos = stop + 6
      if code >= 0xD800 and code < 0xDC00 and text:sub(pos, pos + 1) == "\\u" then
        local low = tonumber(text:sub(pos + 2, pos + 5), 16)
        if low and low >= 0xDC00 and low < 0xE000 then
          code = 0x10000 + (code - 0xD800) * 0x400 + (low - 0xDC00)
          pos = pos + 6
        end
      end
      if code >= 0xD800 and code < 0xE000 then code = 0xFFFD end  -- a lone surrogate
      parts[#parts + 1] = utf8_of(code)
    else
      local plain = unescape[c]
      if not plain then error("json: bad escape", 0) end
      parts[#parts + 1] = plain
      pos = stop + 2
    end
  end
  return start  -- unreachable
end

function decode_value(text, pos, depth)
  pos = skip(text, pos)
  local c = text:sub(pos, pos)
  if c == '"' then return decode_string(text, pos + 1) end
  if c == "{" or c == "[" then
    if depth >= MAX_DEPTH then error("json: nested too deeply", 0) end
    local result, closing = {}, c == "{" and "}" or "]"
    if c == "[" then setmetatable(result, json.array_mt) end
    pos = skip(text, pos + 1)
    if text:sub(pos, pos) == closing then return result, pos + 1 end
    local n = 0
    while true do
      if c == "{" then
        pos = skip(text, pos)
        if text:sub(pos, pos) ~= '"' then error("json: expected a key", 0) end
        local key
        key, pos = decode_string(text, pos + 1)
        pos = skip(text, pos)
        if text:sub(pos, pos) ~= ":" then error("json: expected ':'", 0) end
        result[key], pos = decode_value(text, pos + 1, depth + 1)
      else
        n = n + 1
        result[n], pos = decode_value(text, pos, depth + 1)
      end
      pos = skip(text, pos)
      local sep = text:sub(pos, pos)
      if sep == closing then return result, pos + 1 end
      if sep ~= "," then error("json: expected ',' or '" .. closing .. "'", 0) end
      pos = pos + 1
    end
  end
  local literal = text:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
  if literal and #literal > 0 then
    local number = tonumber(literal)
    if number == nil then error("json: bad number", 0) end
    return number, pos + #literal
  end
  if text:sub(pos, pos + 3) == "true" then return true, pos + 4 end
  if text:sub(pos, pos + 4) == "false" then return false, pos + 5 end
  if text:sub(pos, pos + 3) == "null" then return json.null, pos + 4 end
  error("json: unexpected input at byte " .. pos, 0)
end

-- Returns the value, or nil and the reason. JSON null decodes as json.null.
function json.decode(text)
  local ok, value, pos = pcall(decode_value, text, 1, 0)
  if not ok then return nil, value end
  if skip(text, pos) <= #text then return nil, "json: trailing characters" end
  return value
end

return json
