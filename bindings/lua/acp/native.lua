-- SPDX-License-Identifier: Apache-2.0
-- Loads libacp.so through LuaJIT's FFI with the declarations the build generated from
-- acp.h (acp_cdef.h): no C glue, no hand-copied cdef. Looked up, first found wins:
--   library: ACP_LIBRARY, then "acp" through the system's library search;
--   cdef:    ACP_CDEF, then beside the library (build tree: generated/acp/acp_cdef.h;
--            install: ../include/acp/acp_cdef.h), then /usr/local/include, /usr/include.
-- acp.load{library=..., cdef=...} (before the first require("acp").spawn) overrides both.
local ffi = require("ffi")

local native = {}

local function readable(path)
  local file = path and io.open(path, "r")
  if not file then return nil end
  local text = file:read("*a")
  file:close()
  return text
end

local function dirname(path)
  return path:match("^(.*)/[^/]*$") or "."
end

local function cdef_candidates(library)
  local list = { os.getenv("ACP_CDEF") }
  if library and library:find("/") then
    local dir = dirname(library)
    list[#list + 1] = dir .. "/generated/acp/acp_cdef.h"
    list[#list + 1] = dir .. "/acp_cdef.h"
    list[#list + 1] = dir .. "/../include/acp/acp_cdef.h"
    list[#list + 1] = dir .. "/../../include/acp/acp_cdef.h"  -- lib/<multiarch>/
  end
  list[#list + 1] = "/usr/local/include/acp/acp_cdef.h"
  list[#list + 1] = "/usr/include/acp/acp_cdef.h"
  return list
end

-- Returns the loaded library (native.lib), or nil and why. Loads once per process: the
-- cdef cannot be declared twice in one LuaJIT state.
function native.load(options)
  if native.lib then return native.lib end
  options = options or {}
  local library = options.library or os.getenv("ACP_LIBRARY")
  local cdef_text, cdef_path, tried = nil, nil, {}
  for _, path in ipairs(options.cdef and { options.cdef } or cdef_candidates(library)) do
    tried[#tried + 1] = path
    cdef_text = readable(path)
    if cdef_text then cdef_path = path break end
  end
  if not cdef_text then
    return nil, "acp_cdef.h not found (tried " .. table.concat(tried, ", ") .. "): set ACP_CDEF"
  end
  local ok, err = pcall(ffi.cdef, cdef_text)
  if not ok then return nil, "acp_cdef.h: " .. tostring(err) end
  local loaded, lib = pcall(ffi.load, library or "acp")
  if not loaded then return nil, "cannot load libacp (" .. (library or "acp") .. "): " .. tostring(lib) .. " (set ACP_LIBRARY)" end
  native.lib = lib
  native.library = library or "acp"
  native.cdef = cdef_path
  return lib
end

-- A Lua string of a C string, or nil for NULL.
function native.string(pointer, size)
  if pointer == nil then return nil end
  if size then return ffi.string(pointer, size) end
  return ffi.string(pointer)
end

return native
