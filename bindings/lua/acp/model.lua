-- SPDX-License-Identifier: Apache-2.0
-- The session model as Lua tables: items read one at a time from the live model
-- (acp_client_item, costing that item's size), whole snapshots, and change records.
-- Indices are 1-based here (the C API's are 0-based).
local ffi = require("ffi")
local json = require("acp.json")
local native = require("acp.native")

local model = {}

model.item_kinds = { [0] = "user_message", "agent_message", "agent_thought", "tool_call", "plan", "terminal",
  "compaction", "unknown", "subagent", "session_message" }
model.item_kind_numbers = {}
for number, name in pairs(model.item_kinds) do model.item_kind_numbers[name] = number end

model.changes = { [0] = "session_added", "session_reset", "session_removed", "item_inserted", "item_changed",
  "state_changed", "turn_ended", "config_options", "commands", "info", "usage", "notice_added", "replay_ended" }

-- item.data (the item's canonical dump as a table) is decoded on first use only: a
-- streamed message is followed by its text, never by re-decoding it.
local item_mt = {
  __index = function(item, key)
    if key == "data" then
      local data = json.decode(item.json) or {}
      rawset(item, "data", data)
      return data
    end
  end,
}

local function from_c_item(handle)
  local lib = native.lib
  local size = ffi.new("size_t[1]")
  local text = lib.acp_item_text(handle, size)
  return setmetatable({
    index = lib.acp_item_index(handle) + 1,
    kind = model.item_kinds[lib.acp_item_kind(handle)] or "unknown",
    id = native.string(lib.acp_item_id(handle)),
    text = text ~= nil and ffi.string(text, size[0]) or nil,
    title = native.string(lib.acp_item_title(handle)),
    status = native.string(lib.acp_item_status(handle)),
    tool_kind = native.string(lib.acp_item_tool_kind(handle)),
    json = native.string(lib.acp_item_json(handle)),
  }, item_mt)
end

-- One item by 1-based index, or nil and the error (acp.error table).
function model.read_item(client_handle, session_id, index, fail)
  local out = ffi.new("acp_item*[1]")
  local code = native.lib.acp_client_item(out, client_handle, session_id, index - 1)
  if code < 0 then return fail(code) end
  local item = from_c_item(out[0])
  native.lib.acp_item_free(out[0])
  return item
end

function model.find_item(client_handle, session_id, kind, item_id, fail)
  local number = model.item_kind_numbers[kind]
  if not number then return fail(-1, "unknown item kind " .. tostring(kind)) end
  local out = ffi.new("acp_item*[1]")
  local code = native.lib.acp_client_find_item(out, client_handle, session_id, number, item_id)
  if code < 0 then return fail(code) end
  local item = from_c_item(out[0])
  native.lib.acp_item_free(out[0])
  return item
end

-- A whole session: {id, state, stop_reason, title, usage, config_options, commands, items, json}.
function model.snapshot(client_handle, session_id, fail)
  local lib = native.lib
  local out = ffi.new("acp_session*[1]")
  local code = lib.acp_client_session(out, client_handle, session_id)
  if code < 0 then return fail(code) end
  local s = ffi.gc(out[0], lib.acp_session_free)
  local snapshot = {
    id = native.string(lib.acp_session_id(s)),
    state = native.string(lib.acp_session_state(s)),
    stop_reason = native.string(lib.acp_session_stop_reason(s)),
    title = native.string(lib.acp_session_title(s)),
    config_options = json.decode(native.string(lib.acp_session_config_options_json(s)) or "null"),
    commands = json.decode(native.string(lib.acp_session_commands_json(s)) or "null"),
    json = native.string(lib.acp_session_json(s)),
    items = {},
  }
  if snapshot.config_options == json.null then snapshot.config_options = nil end
  if snapshot.commands == json.null then snapshot.commands = nil end
  local used, size = ffi.new("double[1]"), ffi.new("double[1]")
  if lib.acp_session_usage(s, used, size) == 0 then snapshot.usage = { used = used[0], size = size[0] } end
  for i = 0, lib.acp_session_item_count(s) - 1 do
    snapshot.items[i + 1] = setmetatable({
      index = i + 1,
      kind = model.item_kinds[lib.acp_session_item_kind(s, i)] or "unknown",
      id = native.string(lib.acp_session_item_id(s, i)),
      text = native.string(lib.acp_session_item_text(s, i)),
      title = native.string(lib.acp_session_item_title(s, i)),
      status = native.string(lib.acp_session_item_status(s, i)),
      json = native.string(lib.acp_session_item_json(s, i)),
    }, item_mt)
  end
  lib.acp_session_free(ffi.gc(s, nil))
  return snapshot
end

-- The change record of an ACP_EVENT_SESSION_CHANGED.
function model.change_of(event)
  local lib = native.lib
  local change = {
    type = model.changes[lib.acp_event_change(event)] or "unknown",
    session_id = native.string(lib.acp_event_session_id(event)),
  }
  local index = lib.acp_event_item_index(event)
  if index >= 0 then
    change.index = index + 1
    change.kind = model.item_kinds[lib.acp_event_item_kind(event)] or "unknown"
    change.id = native.string(lib.acp_event_item_id(event))
    local size = ffi.new("size_t[1]")
    local appended = lib.acp_event_appended_text(event, size)
    if appended ~= nil then change.appended = ffi.string(appended, size[0]) end
  end
  change.state = native.string(lib.acp_event_state(event))
  change.stop_reason = native.string(lib.acp_event_stop_reason(event))
  return change
end

return model
