# SPDX-License-Identifier: Apache-2.0
"""Python cffi loads the generated acp_cdef.h as it is (FFI.cdef, no preprocessor) and
drives the TypeScript-SDK peer through libacp: options from acp_client_options_init, a
session id from its result, the reply followed through each change event's appended text.

Usage: python3 cdef_host.py ACP_CDEF_H LIBACP_SO NODE AGENT_MJS
"""
import sys

import cffi

cdef_path, library, node, agent_script = sys.argv[1:5]
ffi = cffi.FFI()
with open(cdef_path) as f:
    ffi.cdef(f.read())
acp = ffi.dlopen(library)


def check(cond, what):
    if not cond:
        sys.exit("CHECK failed: %s (last error: %s)" % (what, ffi.string(acp.acp_error_last()).decode()))


check(acp.ACP_EVENT_SESSION_CHANGED == 14 and acp.ACP_ENOTFOUND == -12, "enum constants")
options = ffi.new("acp_client_options *")
check(acp.acp_client_options_init(options, acp.ACP_CLIENT_OPTIONS_VERSION) == 0, "options init")
check(options.queue_events == 1 and options.mode == acp.ACP_MODE_POLLED, "option defaults")
spawn = ffi.new("acp_spawn_options *")
check(acp.acp_spawn_options_init(spawn, acp.ACP_SPAWN_OPTIONS_VERSION) == 0, "spawn options init")
strings = [ffi.new("char[]", s.encode()) for s in (node, agent_script)]
argv = ffi.new("const char *[]", strings + [ffi.NULL])
spawn.argv = argv
out = ffi.new("acp_client **")
check(acp.acp_client_spawn(out, spawn, options) == 0, "spawn")
client = out[0]
check(acp.acp_client_observe_sessions(client, 1) == 0, "observe")
request = ffi.new("unsigned long *")
state = {"result": False, "session": None, "stop": None, "reply": []}


def next_event():
    event = ffi.new("acp_event **")
    while acp.acp_client_next_event(event, client) != 0:
        check(acp.acp_client_run_once(client, -1) >= 0, "run_once")
    return event[0]


def wait(done):
    while not done():
        event = next_event()
        kind = acp.acp_event_type(event)
        if kind == acp.ACP_EVENT_RESULT and acp.acp_event_request(event) == request[0]:
            check(acp.acp_event_status(event).code == 0, "result status")
            sid = acp.acp_event_session_id(event)
            if sid != ffi.NULL:
                state["session"] = ffi.string(sid).decode()
            state["result"] = True
        elif kind == acp.ACP_EVENT_SESSION_CHANGED:
            size = ffi.new("size_t *")
            appended = acp.acp_event_appended_text(event, size)
            if appended != ffi.NULL and acp.acp_event_item_kind(event) == acp.ACP_ITEM_AGENT_MESSAGE:
                state["reply"].append(ffi.unpack(appended, size[0]).decode())
            if acp.acp_event_change(event) == acp.ACP_CHANGE_TURN_ENDED:
                state["stop"] = ffi.string(acp.acp_event_stop_reason(event)).decode()
        acp.acp_event_free(event)


check(acp.acp_client_initialize(request, client, ffi.NULL, ffi.NULL) == 0, "initialize")
wait(lambda: state["result"])
state["result"] = False
check(acp.acp_client_new_session(request, client, b'{"cwd":"/tmp","mcpServers":[]}', ffi.NULL, ffi.NULL) == 0,
      "new session")
wait(lambda: state["result"])
check(state["session"] is not None, "session id on the result")
check(acp.acp_client_prompt_text(request, client, state["session"].encode(), b"hello", ffi.NULL, ffi.NULL) == 0,
      "prompt")
wait(lambda: state["stop"] is not None)
text = "".join(state["reply"])
check(text == "Hello, world!", "followed reply: " + text)
check(state["stop"] == "end_turn", "stop reason")
acp.acp_client_free(client)
print("python cffi cdef host: ok (%s)" % text)
