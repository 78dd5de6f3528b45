-- SPDX-License-Identifier: Apache-2.0
-- Agents by name for :AcpChat. Looked up, first found wins:
--   setup{agents = {claude = {cmd = "claude-agent-acp", args = {...}, env = {...}}}};
--   "demo": libacp's demo agent, built beside the library;
--   a command (a path, an executable on PATH, or a ws:// / http:// URL) with its arguments;
--   libacp's agent catalogue (docs/agents.md: the ACP registry and ~/.config/acp/agents.json),
--   by id or id.."-acp" ("claude" finds "claude-acp").
-- :AcpChat with no argument opens setup{default_agent = name} (default "demo").
local acp = require("acp")

local M = {}

local function executable(path) return path ~= nil and vim.fn.executable(path) == 1 end

-- The demo agent beside libacp.so (build trees put it in samples/), else on PATH.
function M.demo_argv(library)
  if library then
    local demo = library:gsub("[^/]*$", "") .. "samples/acp-demo-agent"
    if executable(demo) then return { demo } end
  end
  return { "acp-demo-agent" }
end

-- An entry of setup{agents}: {cmd = "prog" or {"prog", ...}, args = {...}, env = {...}}.
local function from_entry(name, entry)
  if type(entry) ~= "table" then return nil, "agents." .. name .. " is not a table" end
  local argv = type(entry.cmd) == "table" and vim.deepcopy(entry.cmd) or { entry.cmd }
  if type(argv[1]) ~= "string" or argv[1] == "" then return nil, "agents." .. name .. ".cmd is missing" end
  for _, arg in ipairs(type(entry.args) == "table" and entry.args or {}) do argv[#argv + 1] = tostring(arg) end
  return { name = name, argv = argv, env = type(entry.env) == "table" and entry.env or nil, cwd = entry.cwd }
end

local catalogue
local function the_catalogue()
  if not catalogue then catalogue = acp.catalogue() end
  return catalogue
end

-- An agent of libacp's catalogue: {name, argv, env, cwd}, or nil and why.
local function from_catalogue(name)
  local agents, err = the_catalogue()
  if not agents then return nil, err end
  local resolved, resolve_err
  for _, id in ipairs({ name, name .. "-acp" }) do
    resolved, resolve_err = agents:resolve(id, { login_shell = true })
    if resolved then break end
  end
  if not resolved then return nil, resolve_err end
  local env = next(resolved.env or {}) and resolved.env or nil
  return { name = name, argv = resolved.argv, env = env, cwd = resolved.cwd ~= "" and resolved.cwd or nil }
end

-- What :AcpChat ARGS starts: {name, argv, env, cwd}, or nil and why. A name may be followed
-- by more arguments for the agent.
function M.resolve(config, args, library)
  args = args or {}
  if #args == 0 then
    if config.agent and not config.default_agent then return { argv = vim.deepcopy(config.agent) } end
    args = { config.default_agent or "demo" }
  end
  local first, rest = args[1], vim.list_slice(args, 2)
  local spec, err
  local configured = config.agents or {}
  if configured[first] ~= nil then
    spec, err = from_entry(first, configured[first])
  elseif first == "demo" then
    spec = { name = "demo", argv = M.demo_argv(library) }
  elseif first:match("^%a+://") or first:find("/", 1, true) or executable(first) then
    return { argv = vim.deepcopy(args) }
  else
    spec, err = from_catalogue(first)
    if not spec then return nil, first .. " is neither an agent name nor a command: " .. tostring(err) end
  end
  if not spec then return nil, err end
  vim.list_extend(spec.argv, rest)
  return spec
end

-- Names for :AcpChat's completion: setup{agents}, "demo", then the catalogue's ids.
function M.names(config)
  local names, seen = {}, {}
  local function add(name)
    if type(name) == "string" and not seen[name] then
      seen[name] = true
      names[#names + 1] = name
    end
  end
  local configured = vim.tbl_keys(config.agents or {})
  table.sort(configured)
  for _, name in ipairs(configured) do add(name) end
  add("demo")
  local agents = the_catalogue()
  local list = agents and agents:list()
  for _, agent in ipairs(list and list.agents or {}) do add(agent.id) end
  return names
end

-- :AcpChat's completion: agent names for the first argument, files after it.
function M.complete(config, lead, line)
  local before = line:sub(1, #line - #lead)
  if before:match("^%s*%S+%s+%S") then return vim.fn.getcompletion(lead, "file") end
  local matches = {}
  for _, name in ipairs(M.names(config)) do
    if name:sub(1, #lead) == lead then matches[#matches + 1] = name end
  end
  return matches
end

return M
