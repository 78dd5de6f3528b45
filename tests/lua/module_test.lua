-- SPDX-License-Identifier: Apache-2.0
-- The Lua module require("acp") under plain LuaJIT, against libacp's demo agent and the
-- TypeScript-SDK peer: calls, errors as nil/err, permissions, elicitation, the session
-- model followed by change events, cancel, list/resume, and a turn driven only by
-- client:fd(), client:timeout_ms() and client:poll() (the way Neovim hosts it).
-- Usage: luajit module_test.lua BINDINGS_DIR LIBACP_SO DEMO_AGENT NODE TS_AGENT_MJS SCRATCH_DIR
local bindings, library, demo_agent, node, ts_agent, scratch = unpack(arg)
package.path = bindings .. "/?.lua;" .. package.path
local ffi = require("ffi")
local acp = assert(require("acp").load({ library = library }))

local failures = 0
local function check(cond, what, detail)
  if cond then
    io.write("ok    ", what, "\n")
  else
    failures = failures + 1
    io.write("FAIL  ", what, detail and (": " .. tostring(detail)) or "", "\n")
  end
  return cond
end
local function must(value, err, what)
  if value == nil then
    io.write("FAIL  ", what, ": ", tostring(err), "\n")
    os.exit(1)
  end
  return value
end

os.execute("rm -rf '" .. scratch .. "' && mkdir -p '" .. scratch .. "/state' '" .. scratch .. "/slow'")

-- Follows every session's agent messages by the text each change appended.
local function follower(client)
  local f = { text = {}, turns = {}, changes = 0 }
  client:on("change", function(change)
    f.changes = f.changes + 1
    if change.appended and (change.kind == "agent_message" or change.kind == "agent_thought") then
      f.text[change.index] = (f.text[change.index] or "") .. change.appended
    elseif change.type == "item_inserted" or change.type == "item_changed" then
      -- a change that did not say what it appended: read the item again
      local item = client:item(change.session_id, change.index)
      if item and item.text then f.text[change.index] = item.text end
    elseif change.type == "turn_ended" then
      f.turns[#f.turns + 1] = change.stop_reason
    end
  end)
  return f
end

local function wait_turns(client, f, n)
  return client:wait_until(function() return #f.turns >= n end, 20000)
end

-- 1. The demo agent: a whole turn -----------------------------------------------------------------
local client = must(acp.spawn({ demo_agent, "--delay-ms", "0", "--state-dir", scratch .. "/state" }, { cwd = scratch }),
  nil, "spawn the demo agent")
local f = follower(client)
local asked = {}
client:on("permission", function(request)
  asked[#asked + 1] = request
  request:allow()
end)
local init = must(client:await(client:initialize()), nil, "initialize")
check(init.protocolVersion == 2 and client:negotiated_version() == 2, "initialize negotiates ACP v2")
local info = client:agent_info()
check(info and (info.info or info.agentInfo), "agent_info returns the InitializeResponse")

local session = must(client:await(client:new_session({ cwd = scratch })), nil, "new session")
check(type(session.id) == "string" and session.id:match("^demo%-"), "new_session gives a Session with its id", session.id)
must(client:await(session:prompt("Hello from Lua")), nil, "prompt")
check(wait_turns(client, f, 1), "the turn ends")
check(f.turns[1] == "end_turn", "stop reason end_turn", f.turns[1])
check(#asked == 1 and asked[1].options[1].id and asked[1].tool_call and asked[1].tool_call.kind == "tool_call",
  "one permission request, with its options and its tool call item")
local snapshot = must(session:snapshot())
local followed_all = true
for _, item in ipairs(snapshot.items) do
  if item.kind == "agent_message" or item.kind == "agent_thought" then
    if f.text[item.index] ~= item.text then followed_all = false end
  end
end
check(followed_all, "text followed by appended changes equals the model's text")
check(session:text():find("You said: Hello from Lua", 1, true), "session:text() holds the reply")
local tools = session:tool_calls()
check(#tools == 2 and tools[1].title == "Add a line to NOTES.md" and tools[1].status == "completed",
  "tool calls with title and status", tools[1] and tools[1].status)
check(tools[1].data.content[1].type == "diff", "a tool call's diff is in item.data.content")
local plans = session:plans()
local entries = plans[1] and plans[1].data.plan.entries or {}
check(#entries == 3 and entries[3].status == "completed", "the plan's entries, all completed at the end")
check(#session:items("agent_thought") == 1, "a thought")
local state, reason = session:state()
check(state == "idle" and reason == "end_turn", "session:state()", state)
local options = session:config_options()
check(#options >= 2, "config options reported")

-- Config option, then a turn without thoughts; a rejected permission.
must(client:await(session:set_config_option("thoughts", false)), nil, "set_config_option")
client:on("permission", function(request) request:reject() end)
must(client:await(session:prompt("again")), nil, "second prompt")
check(wait_turns(client, f, 2), "the second turn ends")
check(#session:items("agent_thought") == 1, "no thought after thoughts were switched off")
local tool = session:find_item("tool_call", session:tool_calls()[3].id)
check(tool and tool.status == "failed", "the rejected tool call failed", tool and tool.status)

-- Errors as nil, err.
local r, err = client:await(client:prompt("no-such-session", "x"))
check(r == nil and err and err.code < 0 and tostring(err):match("^ACP_E"), "a prompt to an unknown session: nil, err", err)
r, err = client:await(client:new_session({ cwd = "relative/path" }))
check(r == nil and err and err.code < 0, "a relative cwd is refused", err)
r, err = session:item(9999)
check(r == nil and err and err.name == "ACP_ENOTFOUND", "an item out of range: nil, ACP_ENOTFOUND", err)

local list = must(client:await(client:list_sessions()), nil, "list sessions")
check(#list == 1 and list[1].sessionId == session.id, "list_sessions lists the session")
local live = session:snapshot()
local ids = client:session_ids()
check(ids and ids[1] == session.id and client:item_count(session.id) == #live.items, "session_ids and item_count")
must(client:await(session:close()), nil, "close session")
client:free()
check(client:is_closed(), "free closes the client")

-- 2. A restarted agent: resume with replay rebuilds the same model ----------------------------------
local again = must(acp.spawn({ demo_agent, "--delay-ms", "0", "--state-dir", scratch .. "/state" }, { cwd = scratch }),
  nil, "spawn again")
must(again:await(again:initialize()), nil, "initialize again")
local resumed = must(again:await(again:resume_session(session.id, { cwd = scratch, replay = true })), nil, "resume")
local replayed = must(resumed:snapshot())
check(#replayed.items > #snapshot.items, "the replay brought both turns back", #replayed.items)
check(replayed.items[#replayed.items].kind ~= nil and resumed:text():find("You said: Hello from Lua", 1, true),
  "the replayed model holds the first turn's reply")
local same = #replayed.items == #live.items
for i, item in ipairs(live.items) do
  if not replayed.items[i] or replayed.items[i].json ~= item.json then same = false end
end
check(same, "the replayed items equal the live ones, item by item")
must(again:await(again:delete_session(session.id)), nil, "delete the session")
check(#must(again:await(again:list_sessions()), nil, "list after delete") == 0, "a deleted session is no longer listed")
again:free()

-- 3. Cancel a running turn, driven by fd/timeout/poll only (no blocking helper) ---------------------
ffi.cdef([[struct pollfd { int fd; short events; short revents; };
int poll(struct pollfd *fds, unsigned long nfds, int timeout);]])
local slow = must(acp.spawn({ demo_agent, "--delay-ms", "20", "--state-dir", scratch .. "/slow" }, { cwd = scratch }),
  nil, "spawn a slow agent")
local fs = follower(slow)
local pfd = ffi.new("struct pollfd[1]")
pfd[0].fd, pfd[0].events = slow:fd(), 1
local function pump_until(done)
  local deadline = os.time() + 20
  while not done() and os.time() < deadline do
    local timeout = slow:timeout_ms()
    ffi.C.poll(pfd, 1, (timeout < 0 or timeout > 200) and 200 or timeout)
    slow:poll()
  end
  return done()
end
local state_box = {}
slow:initialize(function(result, e) state_box.init = result or e end)
check(pump_until(function() return state_box.init end) and state_box.init.protocolVersion == 2,
  "initialize completes by callback under fd polling")
slow:new_session({ cwd = scratch }, function(s) state_box.session = s end)
pump_until(function() return state_box.session end)
local counting = state_box.session
counting:prompt("/count 1000")
check(pump_until(function()
  for _, text in pairs(fs.text) do if text:find("3\n", 1, true) then return true end end
end), "the counting turn streams")
check(counting:cancel(), "cancel")
check(pump_until(function() return #fs.turns == 1 end) and fs.turns[1] == "cancelled", "the turn ends cancelled", fs.turns[1])
local counted = counting:text()
check(not counted:find("1000", 1, true), "cancelled before the end")
slow:free()

-- 4. The TypeScript-SDK peer --------------------------------------------------------------------
local peer = must(acp.spawn({ node, ts_agent }, { cwd = scratch, elicitation = { form = true } }), nil, "spawn the TS peer")
local fp = follower(peer)
local logs = {}
peer:on("log", function(record) logs[#logs + 1] = record end)
must(peer:await(peer:initialize()), nil, "initialize the peer")
local ps = must(peer:await(peer:new_session({ cwd = scratch })), nil, "peer session")
check(ps.response and ps.response.configOptions and #ps.response.configOptions == 2, "new_session's response kept")
must(peer:await(ps:prompt("tool")), nil, "prompt tool")
check(wait_turns(peer, fp, 1), "the tool turn ends")
local terminal = ps:items("terminal")[1]
check(terminal and terminal.text == "$ make check\r\nbuild: \226\156\147 ok\r\n", "terminal output decoded whole", terminal and terminal.text)
check(ps:text():find("Done: hello.txt now says Hello!", 1, true), "the peer's reply")
must(peer:await(ps:set_config_option("model", "model-b")), nil, "set the model")
local effort = false
for _, option in ipairs(ps:config_options()) do effort = effort or option.configId == "effort" end
check(effort, "the config options after set_config_option (model-b adds effort)")
local r_model, err_model = peer:await(ps:set_config_option("model", "no-such-model"))
check(r_model == nil and err_model and err_model.name == "ACP_EINVAL", "a value not offered is refused by libacp", err_model)
local r_resume, err_resume = peer:await(peer:resume_session("sess-99", { cwd = scratch }))
check(r_resume == nil and err_resume and err_resume.rpc_code == -32002, "an agent error carries its JSON-RPC code", err_resume)
-- Issue 27: what the host hands over is checked before sending.
local r_gated, err_gated = peer:await(peer:new_session({ cwd = scratch,
  systemPrompt = { mode = "append", content = { { type = "text", text = "be brief" } } } }))
check(r_gated == nil and err_gated and err_gated.name == "ACP_EINVAL" and err_gated.message:find("systemPrompt", 1, true),
  "an unknown member the protocol gates is refused", err_gated)
local r_latin1, err_latin1 = peer:await(peer:new_session({ cwd = scratch .. "/caf\233" }))
check(r_latin1 == nil and err_latin1 and err_latin1.name == "ACP_EINVAL" and err_latin1.message:find("UTF-8", 1, true),
  "a cwd that is not UTF-8 is refused before sending", err_latin1)
local r_nocwd, err_nocwd = peer:resume_session("sess-99", { replay = true })
check(r_nocwd == nil and err_nocwd and err_nocwd.name == "ACP_EINVAL" and err_nocwd.message:find("cwd", 1, true),
  "resume_session without a cwd is an error, not the process's directory", err_nocwd)

-- No permission handler: answered "cancelled", never approved.
must(peer:await(ps:prompt("permission")), nil, "prompt permission")
check(wait_turns(peer, fp, 2) and fp.turns[2] == "cancelled", "an unhandled permission is cancelled", fp.turns[2])
peer:on("permission", function(request) request:select("allow-once") end)
must(peer:await(ps:prompt("permission")), nil, "prompt permission again")
check(wait_turns(peer, fp, 3) and fp.turns[3] == "end_turn", "an allowed permission ends the turn")
check(ps:text():find("Permission granted (allow-once)", 1, true), "the agent saw the option chosen")

peer:on("elicitation", function(request)
  check(request.params and request.params.mode == "form", "the elicitation's params")
  request:accept({ name = "lua", count = 2, debug = true, color = "green" })
end)
must(peer:await(ps:prompt("elicit-form")), nil, "prompt elicit-form")
check(wait_turns(peer, fp, 4) and fp.turns[4] == "end_turn", "the elicitation turn ends")
check(ps:text():find("lua", 1, true), "the agent got the accepted content", ps:text())
-- Freed from inside a handler: the events still queued are dropped, nothing is touched after.
local spare = must(acp.spawn({ demo_agent, "--delay-ms", "0", "--state-dir", scratch .. "/spare" }, { cwd = scratch }),
  nil, "spawn a spare agent")
local freed_in_handler = false
spare:on("change", function() if not spare.freed then spare:free() freed_in_handler = true end end)
local spare_session = must(spare:await(spare:initialize()), nil, "initialize the spare") and
  spare:await(spare:new_session({ cwd = scratch }))
if spare_session then spare_session:prompt("hi") end
pcall(spare.wait_until, spare, function() return freed_in_handler end, 10000)
check(freed_in_handler and spare:is_closed() and not spare:poll(), "a client freed inside a handler stays usable as a Lua object")
local _, freed_err = spare:item_count("demo-1")
check(spare:item("demo-1", 1) == nil and spare:snapshot("demo-1") == nil and spare:prompt("demo-1", "x") == nil
  and spare:fd() == nil and freed_err and freed_err.name == "ACP_ECLOSED", "after free: nil, ACP_ECLOSED", freed_err)

peer:close()
local closed = false
peer:on("closed", function() closed = true end)
check(peer:wait_until(function() return closed end, 10000), "close delivers a closed event")
peer:free()

-- "Stop the agent" pressed again: an agent that reads no stdin and ignores SIGTERM, with
-- graces no test waits out, ends only by client:hasten_close(): it closes, then
-- terminates, then kills the agent's tree.
local stubborn = must(acp.spawn({ "sh", "-c", "trap '' TERM; exec sleep 600" },
  { shutdown_grace_ms = 600000, terminate_grace_ms = 600000 }), nil, "spawn an agent that ignores the ladder")
local ending
stubborn:on("closed", function(err) ending = err or { message = "a clean close" } end)
local function run_for(rounds) -- about 10 ms each, or until the closed event
  for _ = 1, rounds do
    if ending then return end
    stubborn:run_once(10)
  end
end
stubborn:hasten_close() -- not closing yet: close(), stdin closed
run_for(20)
check(ending == nil and stubborn:is_closed(), "hasten_close first closes", ending and ending.message)
stubborn:hasten_close() -- SIGTERM: ignored
run_for(20)
check(ending == nil, "hasten_close then terminates (ignored here)", ending and ending.message)
stubborn:hasten_close() -- SIGKILL to the tree
run_for(6000)
check(ending and tostring(ending.message):find("killed by signal 9", 1, true),
  "hasten_close then kills the agent's tree", ending and ending.message)
stubborn:free()
local after, after_err = stubborn:hasten_close()
check(after == nil and after_err and after_err.name == "ACP_ECLOSED", "hasten_close after free: nil, ACP_ECLOSED", after_err)

-- An agent on the network: the same TS peer served by the SDK's server side over WebSocket
-- and Streamable HTTP (server.mjs, kept alive by the pipe to its stdin).
local server_mjs = ts_agent:gsub("agent%.mjs$", "server.mjs")
local url_file = scratch .. "/server-urls"
local server = io.popen("'" .. node .. "' '" .. server_mjs .. "' --port=0 --require-token=lua-token > '" .. url_file
  .. "' 2>/dev/null", "w")
local urls
for _ = 1, 200 do
  local file = io.open(url_file)
  local line = file and file:read("*l")
  if file then file:close() end
  if line and line:find("}") then urls = line break end
  os.execute("sleep 0.05")
end
check(urls ~= nil, "server.mjs prints its URLs")
for _, scheme in ipairs({ "ws", "http" }) do
  local url = urls and urls:match('"' .. scheme .. '":"([^"]+)"')
  local remote = must(acp.connect(url, { headers = { Authorization = "Bearer lua-token" } }), nil, "connect " .. scheme)
  local fr = follower(remote)
  must(remote:await(remote:initialize()), nil, "initialize over " .. scheme)
  local rs = must(remote:await(remote:new_session({ cwd = scratch })), nil, "session over " .. scheme)
  must(remote:await(rs:prompt("hello")), nil, "prompt over " .. scheme)
  check(wait_turns(remote, fr, 1) and rs:text() == "Hello, world!", "a turn over " .. scheme, rs:text())
  remote:free()
end
local bad, bad_err = acp.connect("ftp://127.0.0.1/acp")
check(bad == nil and bad_err and bad_err.name == "ACP_EUNSUPPORTED", "an unsupported scheme is refused", bad_err)
server:close()

io.write(failures == 0 and "all passed\n" or (failures .. " failed\n"))
-- Agents by name: a registry given as JSON, a user agents file, resolutions as tables.
do
  local registry = '{"agents": [{"id": "npx-agent", "version": "1.0", "distribution": {"npx": {"package": "npx-agent@1.0"}}}]}'
  local file = io.open(scratch .. "/agents.json", "w")
  file:write('{"agents": {"mine": {"command": "/opt/mine", "args": ["--acp"], "env": {"A": "1"}}}}')
  file:close()
  local agents = must(acp.catalogue(registry, scratch .. "/agents.json"))
  local listed = agents:list()
  check(listed and #listed.agents == 2 and listed.agents[1].id == "mine", "the catalogue lists user and registry agents")
  local mine = agents:resolve("mine")
  check(mine and mine.kind == "user" and mine.argv[1] == "/opt/mine" and mine.argv[2] == "--acp" and mine.env.A == "1",
    "a user agent resolves to its command line")
  local nobody, err = agents:resolve("nobody")
  check(nobody == nil and err and err.name == "ACP_EINVAL", "an unknown agent is an error", err)
  agents:free()
end

-- ACP's unstable surface against the TypeScript-SDK peer with --caps=unstable: only with the
-- opt-in, each call round-trips; without it nothing unstable is offered or sent.
do
  local un = must(acp.spawn({ node, ts_agent, "--caps=unstable" }, { cwd = scratch, unstable = true }), nil,
    "spawn the unstable peer")
  must(un:await(un:initialize()), nil, "initialize the unstable peer")
  local offer = un:unstable_offer()
  check(offer and offer.fork and offer.title and offer.archive, "the opt-in reads the agent's unstable offer")
  local source = must(un:await(un:new_session({ cwd = "/tmp" })), nil, "a session to fork")
  local titled = un:await(un:unstable_call("session/set_title", { sessionId = source.id, title = "Lua" }))
  check(titled and titled.title == "Lua", "session/set_title round-trips", titled)
  local fork = un:await(un:fork_session(source.id, { cwd = "/tmp" }))
  check(fork and fork.id and fork.id ~= source.id, "session/fork makes a new session", fork and fork.id)
  -- auth/status_update (the peer's "auth-update" turn) reaches client:on("auth_status_update").
  local updates, unknown = {}, {}
  un:on("auth_status_update", function(params) updates[#updates + 1] = params end)
  un:on("notification", function(method) unknown[#unknown + 1] = method end)
  must(un:await(un:prompt(source.id, "auth-update")), nil, "the auth-update turn")
  un:wait_until(function() return #updates + #unknown > 0 end, 10000)
  check(#updates == 1 and #unknown == 0 and updates[1].state == "unauthenticated"
    and updates[1].accounts[1].label == "Pushed account", "auth/status_update is an auth_status_update event", updates)
  local nocwd, nocwd_err = un:fork_session(source.id, {})
  check(nocwd == nil and nocwd_err and nocwd_err.name == "ACP_EINVAL", "a fork without cwd is an error", nocwd_err)
  un:free()
  local plain = must(acp.spawn({ node, ts_agent, "--caps=unstable" }, { cwd = scratch }), nil, "spawn without opt-in")
  must(plain:await(plain:initialize()), nil, "initialize without opt-in")
  check(plain:unstable_offer().fork == false, "without the opt-in nothing is offered")
  local s2 = must(plain:await(plain:new_session({ cwd = "/tmp" })), nil, "a session without opt-in")
  local plain_updates, plain_unknown = 0, {}
  plain:on("auth_status_update", function() plain_updates = plain_updates + 1 end)
  plain:on("notification", function(method) plain_unknown[#plain_unknown + 1] = method end)
  must(plain:await(plain:prompt(s2.id, "auth-update")), nil, "the auth-update turn without opt-in")
  plain:wait_until(function() return plain_updates + #plain_unknown > 0 end, 10000)
  check(plain_updates == 0 and plain_unknown[1] == "auth/status_update",
    "without the opt-in auth/status_update is an unknown notification", plain_unknown)
  local refused, refused_err = plain:await(plain:unstable_call("session/status", { sessionId = s2.id }))
  check(refused == nil and refused_err and refused_err.name == "ACP_EUNSUPPORTED", "without the opt-in a call is refused",
    refused_err)
  plain:free()
end

os.exit(failures == 0 and 0 or 1)
