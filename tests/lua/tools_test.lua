-- SPDX-License-Identifier: Apache-2.0
-- Tool servers in the Lua module (acp.tool_server, docs/tools.md) against the TypeScript-SDK
-- peer that calls a client's tools over MCP over ACP with the SDK's own McpOverAcpCaller
-- (tests/peers/ts-agent/tools-agent.mjs). A prompt is the peer's script (one MCP request a
-- line); each line's outcome comes back as an agent message "LINE => OUTCOME".
-- Usage: luajit tools_test.lua BINDINGS_DIR LIBACP_SO NODE TOOLS_AGENT_MJS
local bindings, library, node, tools_agent = unpack(arg)
package.path = bindings .. "/?.lua;" .. package.path
local acp = assert(require("acp").load({ library = library }))
local json = acp.json

local failures = 0
local function check(cond, what, detail)
  if cond then
    io.write("ok    ", what, "\n")
  else
    failures = failures + 1
    io.write("FAIL  ", what, detail ~= nil and (": " .. tostring(detail)) or "", "\n")
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

-- Runs one script as a turn; returns the outcome of each line: the decoded inner MCP
-- outcome ({result} or {error}), or the text when the request itself failed.
local function run(client, session, script)
  local messages, err = session:items("agent_message")
  -- A session the agent sent no update about yet is not in the model.
  if not messages and err.name ~= "ACP_ENOTFOUND" then must(nil, err, "items") end
  local before = messages and #messages or 0
  must(client:await(session:prompt(script)), nil, "prompt " .. script)
  must(client:wait_until(function() return session:state() == "idle" end, 20000), nil, "the turn of " .. script)
  local found = {}
  messages = must(session:items("agent_message"))
  for i = before + 1, #messages do
    local outcome = messages[i].text:match(" => (.*)$")
    local ok, decoded = pcall(json.decode, outcome)
    found[#found + 1] = ok and type(decoded) == "table" and decoded or outcome
  end
  return found
end

local open_schema = { type = "object",
  properties = { path = { type = "string" }, line = { type = "integer", minimum = 1 } },
  required = { "path" }, additionalProperties = false }

local calls = {}
local editor = must(acp.tool_server("editor"))
must(editor:add_tool({ name = "current_selection", title = "Current selection",
  description = "The text selected in the editor", annotations = { readOnlyHint = true } }, function(args, call)
  calls[#calls + 1] = { tool = call.tool, server = call.server, session_id = call.session_id }
  return "int answer = 42;"
end), nil, "add current_selection")
must(editor:add_tool({ name = "cursor", output_schema = { type = "object", required = { "line" } } }, function()
  calls[#calls + 1] = { tool = "cursor" }
  return { file = "main.c", line = 7 }
end), nil, "add cursor")
must(editor:add_tool({ name = "save" }, function()
  calls[#calls + 1] = { tool = "save" }
  return nil, "the buffer is read-only"
end), nil, "add save")
must(editor:add_tool({ name = "open_file", input_schema = open_schema }, function(args)
  calls[#calls + 1] = { tool = "open_file", path = args.path, line = args.line }
  return "opened " .. args.path
end), nil, "add open_file")
local deferred = {}
must(editor:add_tool({ name = "later" }, function(_, call)
  deferred[#deferred + 1] = call  -- answered after the handler returned
end), nil, "add later")
must(editor:add_tool({ name = "broken" }, function() error("editor bug") end), nil, "add broken")

local ok_dup, dup_err = editor:add_tool({ name = "save" }, function() end)
check(ok_dup == nil and dup_err.name == "ACP_EINVAL", "a duplicate tool name is refused", dup_err)
local ok_bad, bad_err = editor:add_tool({ name = "bad name" }, function() end)
check(ok_bad == nil and bad_err.name == "ACP_EINVAL", "a bad tool name is refused", bad_err)
local none, none_err = acp.tool_server("")
check(none == nil and none_err ~= nil, "a server needs a name", none_err)

local client = must(acp.spawn({ node, tools_agent }), nil, "spawn the tools peer")
must(client:await(client:initialize()), nil, "initialize")
local session = must(client:await(client:new_session({ cwd = "/tmp", tools = { editor } })), nil, "new session")

-- Listed as declared; answers as text, structured, and a tool error -----------------------------
local listed, text, structured, failed = unpack(run(client, session,
  "list\ncall current_selection\ncall cursor\ncall save"))
local by_name = {}
for _, tool in ipairs(listed.result and listed.result.tools or {}) do by_name[tool.name] = tool end
check(by_name.current_selection and by_name.current_selection.description == "The text selected in the editor"
  and by_name.current_selection.annotations.readOnlyHint == true, "tools/list shows the declarations")
check(by_name.open_file and json.encode(by_name.open_file.inputSchema.required) == '["path"]',
  "the input schema is listed as given")
check(text.result and text.result.content[1].text == "int answer = 42;" and not text.result.isError,
  "a string is a text result", json.encode(text))
check(calls[1].server == "editor" and calls[1].tool == "current_selection" and calls[1].session_id == session.id,
  "the call names its server, tool and session")
check(structured.result and structured.result.structuredContent.line == 7
  and json.decode(structured.result.content[1].text).file == "main.c", "a table is a structured result",
  json.encode(structured))
check(failed.result and failed.result.isError == true and failed.result.content[1].text == "the buffer is read-only",
  "nil, message is a failed call the model reads", json.encode(failed))

-- Bad input never reaches the handler -------------------------------------------------------
calls = {}
local results = run(client, session, table.concat({ 'call open_file {"line": 3}', 'call open_file {"path": 5}',
  'call open_file {"path": "a", "x": 1}', 'call open_file {"path": "a.c", "line": 0}',
  'call open_file {"path": "a.c", "line": 3}' }, "\n"))
for i = 1, 4 do
  check(results[i].error and results[i].error.code == -32602, "schema-breaking call " .. i .. " is refused -32602",
    json.encode(results[i]))
end
check(results[5].result and results[5].result.content[1].text == "opened a.c", "a good call goes through")
check(#calls == 1 and calls[1].path == "a.c" and calls[1].line == 3, "only the good call reached the handler", #calls)

-- An answer given later, through the call -------------------------------------------------------
must(client:await(session:prompt("call later")), nil, "prompt later")
must(client:wait_until(function() return #deferred == 1 end, 20000), nil, "the deferred call arrives")
check(deferred[1]:withdrawn() == false, "a call in flight is not withdrawn")
check(deferred[1]:text("answered later") == true, "call:text answers after the handler returned")
local again, again_err = deferred[1]:text("twice")
check(again == nil and again_err ~= nil, "a second answer is refused", again_err)
must(client:wait_until(function() return session:state() == "idle" end, 20000), nil, "the turn of later")
local messages = session:items("agent_message")
check(messages[#messages].text:find("answered later", 1, true), "the agent got the later answer",
  messages[#messages].text)

-- A handler that raises: the host sees the error, the agent an MCP error --------------------------
-- (The peer may call before its prompt's answer arrives: the error can come out of any wait.)
must(session:prompt("call broken\ncall current_selection", function() end), nil, "prompt broken")
local ok_wait, raised = pcall(client.wait_until, client, function() return false end, 20000)
check(not ok_wait and tostring(raised):find("editor bug", 1, true), "the handler's error reaches the host", raised)
must(client:wait_until(function() return session:state() == "idle" end, 20000), nil, "the turn of broken")
messages = session:items("agent_message")
local broken = json.decode(messages[#messages - 1].text:match(" => (.*)$"))
check(broken.error and broken.error.code == -32603, "the agent gets -32603", messages[#messages - 1].text)
check(messages[#messages].text:find("int answer = 42;", 1, true), "the client goes on serving")

-- A resumed session gets the tools it is offered then ----------------------------------------
local plain = must(client:await(client:new_session({ cwd = "/tmp" })), nil, "a session without tools")
check(run(client, plain, "call current_selection")[1] == "no acp server", "no tools were offered")
must(client:await(client:resume_session(plain.id, { cwd = "/tmp", tools = { editor } })), nil, "resume with tools")
local resumed = run(client, plain, "call current_selection")[1]
check(type(resumed) == "table" and resumed.result and resumed.result.content[1].text == "int answer = 42;",
  "the resumed session's tools answer", resumed)

client:free()
io.write(failures == 0 and "all passed\n" or (failures .. " failed\n"))
os.exit(failures == 0 and 0 or 1)
