-- SPDX-License-Identifier: Apache-2.0
-- The agent's requests to the client as Lua objects that own their answer (a responder):
-- answer once, now or later; dropped unanswered (garbage collected) a permission is
-- answered "cancelled" and an elicitation "cancel", never an approval.
local ffi = require("ffi")
local json = require("acp.json")
local native = require("acp.native")
local model = require("acp.model")

local requests = {}

local Request = {}
Request.__index = Request

local function take_responder(event)
  local out = ffi.new("acp_responder*[1]")
  if native.lib.acp_event_take_responder(out, event) ~= 0 then return nil end
  return ffi.gc(out[0], native.lib.acp_responder_free)
end

-- Runs one answer, then frees the responder: true, or nil and the error.
function Request:_answer(answer)
  if not self.responder then return nil, self.make_error(-13, "already answered") end
  local code = answer(self.responder)
  local responder = self.responder
  self.responder = nil
  native.lib.acp_responder_free(ffi.gc(responder, nil))
  self.answered = true
  self.client:_posted()
  if code < 0 then return nil, self.make_error(code, native.string(native.lib.acp_error_last())) end
  return true
end

-- Permission: the option chosen by id (one of request.options).
function Request:select(option_id)
  return self:_answer(function(r) return native.lib.acp_responder_select(r, option_id) end)
end

local function first_of_kind(self, kinds)
  for _, kind in ipairs(kinds) do
    for _, option in ipairs(self.options or {}) do
      if option.kind == kind then return option end
    end
  end
end

-- Permission: the first "allow_once" option (else "allow_always"); cancelled when none.
function Request:allow()
  local option = first_of_kind(self, { "allow_once", "allow_always" })
  if not option then return self:cancel() end
  return self:select(option.id)
end

-- Permission: the first "reject_once" option (else "reject_always"); cancelled when none.
function Request:reject()
  local option = first_of_kind(self, { "reject_once", "reject_always" })
  if not option then return self:cancel() end
  return self:select(option.id)
end

-- Permission: "cancelled"; elicitation: "cancel".
function Request:cancel()
  return self:_answer(function(r) return native.lib.acp_responder_cancel(r) end)
end

-- Elicitation: accept with content (a table of property values), or decline.
function Request:accept(content)
  return self:_answer(function(r) return native.lib.acp_responder_accept(r, json.encode(content or {})) end)
end
function Request:decline()
  return self:_answer(function(r) return native.lib.acp_responder_decline(r) end)
end

-- Client method (a v1 agent's fs/ or terminal/ request): its v1 response as a table,
-- checked against the v1 schema by libacp (an answer that does not fit is refused and the
-- request stays open), or a JSON-RPC error.
function Request:respond(result)
  if not self.responder then return nil, self.make_error(-13, "already answered") end
  local code = native.lib.acp_responder_respond(self.responder, json.encode(result or {}))
  if code < 0 then return nil, self.make_error(code, native.string(native.lib.acp_error_last())) end
  return self:_answer(function() return 0 end)
end
function Request:fail(rpc_code, message)
  return self:_answer(function(r) return native.lib.acp_responder_fail(r, rpc_code, message or "") end)
end

local function base(client, event, make_error)
  local lib = native.lib
  return setmetatable({
    client = client,
    make_error = make_error,
    id = tonumber(lib.acp_event_request(event)),
    session_id = native.string(lib.acp_event_session_id(event)),
    params = json.decode(native.string(lib.acp_event_json(event))),
    responder = take_responder(event),
    answered = false,
  }, Request)
end

-- request.options = {{id, name, kind}, ...}; request.tool_call = the tool call's item.
function requests.permission(client, event, make_error)
  local lib = native.lib
  local request = base(client, event, make_error)
  request.options = {}
  for i = 0, lib.acp_event_option_count(event) - 1 do
    request.options[i + 1] = {
      id = native.string(lib.acp_event_option_id(event, i)),
      name = native.string(lib.acp_event_option_name(event, i)),
      kind = native.string(lib.acp_event_option_kind(event, i)),
    }
  end
  local index = lib.acp_event_item_index(event)
  if index >= 0 and request.session_id then
    request.tool_call = model.read_item(client.handle, request.session_id, index + 1, function() return nil end)
  end
  return request
end

-- request.method: "fs/read_text_file", "fs/write_text_file", "terminal/...".
function requests.client_request(client, event, make_error)
  local request = base(client, event, make_error)
  request.method = native.string(native.lib.acp_event_method(event))
  return request
end

function requests.elicitation(client, event, make_error)
  return base(client, event, make_error)
end

return requests
