-- SPDX-License-Identifier: Apache-2.0
-- :checkhealth acp — what the plugin found and what is missing: LuaJIT's FFI, libacp.so,
-- the acp_cdef.h it loads, and each configured agent's command. Neovim 0.7 reports through
-- health#report_*; later versions through vim.health (report_* until 0.9, then start/ok/...).
local M = {}

local function reporter(name)
  local health = vim.health or {}
  local fn = health[name] or health["report_" .. name]
  if fn then return fn end
  return function(...) vim.fn["health#report_" .. name](...) end
end
local start, ok, fail = reporter("start"), reporter("ok"), reporter("error")

local BUILD_ADVICE = { "Run scripts/nvim-build.sh in the libacp repository (the plugin manager's build step)",
  "or set setup{library = ...} / $ACP_LIBRARY and $ACP_CDEF" }

local function check_agent(label, spec, err)
  if not spec then return fail(label .. ": " .. tostring(err)) end
  local command = spec.argv[1]
  if command:match("^%a+://") then return ok(label .. ": network agent at " .. command) end
  if vim.fn.executable(command) == 1 then
    ok(label .. ": " .. vim.fn.exepath(command) .. (#spec.argv > 1 and (" " .. table.concat(spec.argv, " ", 2)) or ""))
  else
    fail(label .. ": " .. command .. " is not executable", { "Install it, or fix setup{agents = ...}" })
  end
end

function M.check()
  local chat = require("acp.chat")
  local agents = require("acp.agents")
  start("acp: libacp through LuaJIT's FFI")
  local has_ffi, ffi = pcall(require, "ffi")
  if not has_ffi or not jit then
    fail("LuaJIT's FFI is not available: this Neovim is not built with LuaJIT")
    return
  end
  ok("LuaJIT FFI (" .. jit.version .. ", " .. ffi.os .. "/" .. ffi.arch .. ")")

  local library = chat.library()
  local acp, err = chat.load()
  local native = require("acp.native")
  if native.cdef then ok("acp_cdef.h: " .. native.cdef)
  elseif err and tostring(err):find("acp_cdef.h", 1, true) then fail(tostring(err), BUILD_ADVICE) end
  if not acp then
    if not tostring(err):find("acp_cdef.h", 1, true) then fail(tostring(err), BUILD_ADVICE) end
    return
  end
  ok("libacp " .. tostring(acp.version) .. ": " .. (library or "the system's libacp (ld.so search)"))

  start("acp: agents")
  local default = chat.config.default_agent or (chat.config.agent and "setup{agent}") or "demo"
  check_agent("default agent (" .. default .. ")", agents.resolve(chat.config, {}, library))
  local names = vim.tbl_keys(chat.config.agents or {})
  table.sort(names)
  for _, name in ipairs(names) do
    if name ~= default then check_agent(name, agents.resolve(chat.config, { name }, library)) end
  end

  start("acp: chat buffer")
  if require("acp.highlight").has_parser() then ok("Markdown highlighting: treesitter")
  else ok("Markdown highlighting: the markdown syntax (no treesitter markdown parser)") end
end

return M
