# SPDX-License-Identifier: Apache-2.0
"""ctypes declarations of libacp's C API (include/acp/acp.h), and where the library is.

The shared library is looked up, in order: $ACP_LIBRARY (a path), the libacp.so a wheel
built with the library carries beside this file, then the system's library search
(ctypes.util.find_library("acp"), e.g. after `cmake --install`).
"""
import ctypes
import ctypes.util
from typing import Any, Optional, Type, TypeVar
import os

c_char_p = ctypes.c_char_p
c_int = ctypes.c_int
c_ulong = ctypes.c_ulong
c_void_p = ctypes.c_void_p
c_size_t = ctypes.c_size_t
c_double = ctypes.c_double
POINTER = ctypes.POINTER

OK = 0
EINVAL = -1
EAGAIN = -11
NOT_FOUND = -12

# Event types (ACP_EVENT_*).
EVENT_RESULT = 1
EVENT_SESSION_UPDATE = 2
EVENT_PERMISSION_REQUEST = 3
EVENT_ELICITATION_REQUEST = 4
EVENT_ELICITATION_COMPLETE = 5
EVENT_REQUEST_WITHDRAWN = 6
EVENT_EXT_REQUEST = 7
EVENT_EXT_NOTIFICATION = 8
EVENT_UNKNOWN_NOTIFICATION = 9
EVENT_LOG = 10
EVENT_TRAFFIC = 11
EVENT_CLOSED = 12
EVENT_CLIENT_REQUEST = 13
EVENT_SESSION_CHANGED = 14
EVENT_TOOL_CALL = 15
EVENT_AUTH_STATUS_UPDATE = 16

# ACP_CHANGE_* in order: what an EVENT_SESSION_CHANGED says changed.
CHANGES = ("session_added", "session_reset", "session_removed", "item_inserted", "item_changed", "state_changed",
           "turn_ended", "config_options_changed", "commands_changed", "info_changed", "usage_changed",
           "notice_added", "replay_ended")

# acp_client_serve_client_methods flags (ACP_CLIENT_METHOD_*): ACP v1's client methods.
CLIENT_METHOD_READ_TEXT_FILE = 1
CLIENT_METHOD_WRITE_TEXT_FILE = 2
CLIENT_METHOD_TERMINAL = 4
TERMINAL_METHODS = ("create", "output", "wait_for_exit", "kill", "release")

MODE_POLLED = 0
LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERROR = range(4)
ITEM_KINDS = ("user_message", "agent_message", "agent_thought", "tool_call", "plan", "terminal",
              "compaction", "unknown", "subagent", "session_message")


class Status(ctypes.Structure):
    _fields_ = [("code", c_int), ("message", c_char_p), ("rpc_code", c_int), ("rpc_data_json", c_char_p)]


# The options structs as this binding lays them out: the version says which layout, and
# the library fills in its own defaults (acp_*_options_init), so none are copied here.
O = TypeVar("O", bound="_Options")


class _Options(ctypes.Structure):
    INIT = ""     # the name of the acp_*_options_init function
    VERSION = 0   # the ACP_*_OPTIONS_VERSION of the layout

    @classmethod
    def defaults(cls: Type[O]) -> O:
        options = cls()
        _check_init(getattr(lib, cls.INIT)(ctypes.byref(options), cls.VERSION))
        return options


class ClientOptions(_Options):
    _fields_ = [("version", ctypes.c_uint), ("mode", c_int), ("uv_loop", c_void_p), ("client_name", c_char_p),
                ("client_version", c_char_p), ("request_timeout_ms", c_ulong), ("max_line_bytes", c_size_t),
                ("queue_events", c_int), ("log_level", c_int), ("protocol_version", c_int), ("unstable", c_int)]
    INIT, VERSION = "acp_client_options_init", 3


class SpawnOptions(_Options):
    _fields_ = [("version", ctypes.c_uint), ("argv", POINTER(c_char_p)), ("cwd", c_char_p),
                ("env_set", POINTER(c_char_p)), ("env_unset", POINTER(c_char_p)),
                ("shutdown_grace_ms", c_ulong), ("terminate_grace_ms", c_ulong)]
    INIT, VERSION = "acp_spawn_options_init", 1


class RemoteOptions(_Options):
    _fields_ = [("version", ctypes.c_uint), ("url", c_char_p), ("headers", POINTER(c_char_p)),
                ("ca_file", c_char_p), ("connect_timeout_ms", c_ulong)]
    INIT, VERSION = "acp_remote_options_init", 1


class ToolServerOptions(_Options):
    _fields_ = [("version", ctypes.c_uint), ("server_version", c_char_p), ("max_concurrent_calls", c_size_t),
                ("max_message_bytes", c_size_t)]
    INIT, VERSION = "acp_tool_server_options_init", 1


def _check_init(code: int) -> None:
    if code != OK:
        raise ImportError("libacp does not know this binding's options layout: " + lib.acp_error_last().decode())


def _find_library() -> str:
    path = os.environ.get("ACP_LIBRARY")
    if path:
        return path
    # A wheel built with the library carries it beside this file.
    bundled = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libacp.so")
    if os.path.exists(bundled):
        return bundled
    found = ctypes.util.find_library("acp")
    if found:
        return found
    raise ImportError("libacp not found: set ACP_LIBRARY to the path of libacp.so "
                      "(e.g. build/dev/libacp.so) or install libacp")


def _declare(lib: ctypes.CDLL) -> Any:
    out_req = POINTER(c_ulong)
    signatures = {
        "acp_version": (c_char_p, []),
        "acp_error_last": (c_char_p, []),
        "acp_error_name": (c_char_p, [c_int]),
        "acp_client_spawn": (c_int, [POINTER(c_void_p), POINTER(SpawnOptions), POINTER(ClientOptions)]),
        "acp_client_adopt": (c_int, [POINTER(c_void_p), c_int, c_int, c_int, POINTER(ClientOptions)]),
        "acp_client_connect": (c_int, [POINTER(c_void_p), POINTER(RemoteOptions), POINTER(ClientOptions)]),
        "acp_client_free": (None, [c_void_p]),
        "acp_client_fd": (c_int, [c_void_p]),
        "acp_client_timeout_ms": (c_int, [c_void_p]),
        "acp_client_run_nowait": (c_int, [c_void_p]),
        "acp_client_event_fd": (c_int, [c_void_p]),
        "acp_client_pending_events": (c_int, [c_void_p]),
        "acp_client_next_event": (c_int, [POINTER(c_void_p), c_void_p]),
        "acp_event_type": (c_int, [c_void_p]),
        "acp_event_request": (c_ulong, [c_void_p]),
        "acp_event_status": (POINTER(Status), [c_void_p]),
        "acp_event_json": (c_char_p, [c_void_p]),
        "acp_event_session_id": (c_char_p, [c_void_p]),
        "acp_event_method": (c_char_p, [c_void_p]),
        "acp_event_text": (c_char_p, [c_void_p]),
        "acp_event_log_level": (c_int, [c_void_p]),
        "acp_event_direction": (c_int, [c_void_p]),
        "acp_event_take_responder": (c_int, [POINTER(c_void_p), c_void_p]),
        "acp_event_free": (None, [c_void_p]),
        "acp_client_enable_elicitation": (c_int, [c_void_p, c_int, c_int]),
        "acp_client_add_ext_method": (c_int, [c_void_p, c_char_p, c_int]),
        "acp_client_observe_traffic": (c_int, [c_void_p, c_int, c_int]),
        "acp_client_serve_client_methods": (c_int, [c_void_p, ctypes.c_uint]),
        "acp_client_serve_confined_files": (c_int, [c_void_p, ctypes.c_uint, c_size_t]),
        "acp_client_confine_path": (c_int, [POINTER(c_void_p), POINTER(c_int), c_void_p, c_char_p, c_char_p, c_int]),
        "acp_client_negotiated_version": (c_int, [c_void_p]),
        "acp_client_agent_v1_json": (c_int, [POINTER(c_void_p), c_void_p]),
        "acp_client_observe_sessions": (c_int, [c_void_p, c_int]),
        "acp_client_report_updates": (c_int, [c_void_p, c_int]),
        "acp_event_change": (c_int, [c_void_p]),
        "acp_event_item_index": (c_int, [c_void_p]),
        "acp_event_item_kind": (c_int, [c_void_p]),
        "acp_event_item_id": (c_char_p, [c_void_p]),
        "acp_responder_id": (c_ulong, [c_void_p]),
        "acp_responder_select": (c_int, [c_void_p, c_char_p]),
        "acp_responder_cancel": (c_int, [c_void_p]),
        "acp_responder_accept": (c_int, [c_void_p, c_char_p]),
        "acp_responder_decline": (c_int, [c_void_p]),
        "acp_responder_respond": (c_int, [c_void_p, c_char_p]),
        "acp_responder_fail": (c_int, [c_void_p, c_int, c_char_p]),
        "acp_responder_withdrawn": (c_int, [c_void_p]),
        "acp_responder_free": (None, [c_void_p]),
        "acp_event_tool_server": (c_char_p, [c_void_p]),
        "acp_event_tool_name": (c_char_p, [c_void_p]),
        "acp_tool_server_options_init": (c_int, [POINTER(ToolServerOptions), ctypes.c_uint]),
        "acp_tool_server_new": (c_int, [POINTER(c_void_p), c_char_p, POINTER(ToolServerOptions)]),
        "acp_tool_server_add_tool": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, c_char_p, c_char_p, c_char_p]),
        "acp_tool_server_tool_count": (c_int, [c_void_p]),
        "acp_tool_server_free": (None, [c_void_p]),
        "acp_client_new_session_with_tools": (c_int, [out_req, c_void_p, c_char_p, POINTER(c_void_p), c_size_t,
                                                      c_void_p, c_void_p]),
        "acp_client_resume_session_with_tools": (c_int, [out_req, c_void_p, c_char_p, POINTER(c_void_p), c_size_t,
                                                         c_void_p, c_void_p]),
        "acp_responder_tool_text": (c_int, [c_void_p, c_char_p]),
        "acp_responder_tool_structured": (c_int, [c_void_p, c_char_p]),
        "acp_responder_tool_error": (c_int, [c_void_p, c_char_p]),
        "acp_responder_tool_result": (c_int, [c_void_p, c_char_p]),
        "acp_responder_tool_progress": (c_int, [c_void_p, c_double, c_double, c_char_p]),
        "acp_client_initialize": (c_int, [out_req, c_void_p, c_void_p, c_void_p]),
        "acp_client_agent_json": (c_int, [POINTER(c_void_p), c_void_p]),
        "acp_string_free": (None, [c_void_p]),
        "acp_catalogue_new": (c_int, [POINTER(c_void_p), c_char_p, c_char_p]),
        "acp_catalogue_free": (None, [c_void_p]),
        "acp_catalogue_list_json": (c_int, [POINTER(c_void_p), c_void_p]),
        "acp_catalogue_resolve_json": (c_int, [POINTER(c_void_p), c_void_p, c_char_p, c_int]),
        "acp_client_login": (c_int, [out_req, c_void_p, c_char_p, c_void_p, c_void_p]),
        "acp_client_logout": (c_int, [out_req, c_void_p, c_void_p, c_void_p]),
        "acp_client_new_session": (c_int, [out_req, c_void_p, c_char_p, c_void_p, c_void_p]),
        "acp_client_resume_session": (c_int, [out_req, c_void_p, c_char_p, c_void_p, c_void_p]),
        "acp_client_list_sessions": (c_int, [out_req, c_void_p, c_char_p, c_void_p, c_void_p]),
        "acp_client_list_all_sessions": (c_int, [out_req, c_void_p, c_char_p, c_void_p, c_void_p]),
        "acp_client_close_session": (c_int, [out_req, c_void_p, c_char_p, c_void_p, c_void_p]),
        "acp_client_delete_session": (c_int, [out_req, c_void_p, c_char_p, c_void_p, c_void_p]),
        "acp_client_prompt": (c_int, [out_req, c_void_p, c_char_p, c_void_p, c_void_p]),
        "acp_client_cancel": (c_int, [c_void_p, c_char_p]),
        "acp_client_set_config_option": (c_int, [out_req, c_void_p, c_char_p, c_void_p, c_void_p]),
        "acp_client_cancel_tool_call": (c_int, [out_req, c_void_p, c_char_p, c_char_p, c_void_p, c_void_p]),
        "acp_client_cancel_terminal": (c_int, [out_req, c_void_p, c_char_p, c_char_p, c_void_p, c_void_p]),
        "acp_client_ext_request": (c_int, [out_req, c_void_p, c_char_p, c_char_p, c_void_p, c_void_p]),
        "acp_client_ext_notify": (c_int, [c_void_p, c_char_p, c_char_p]),
        "acp_client_unstable_call": (c_int, [out_req, c_void_p, c_char_p, c_char_p, c_void_p, c_void_p]),
        "acp_client_unstable_call_with_tools": (c_int, [out_req, c_void_p, c_char_p, c_char_p, POINTER(c_void_p),
                                                        c_size_t, c_void_p, c_void_p]),
        "acp_client_unstable_offer": (c_int, [POINTER(c_void_p), c_void_p]),
        "acp_client_cancel_request": (c_int, [c_void_p, c_ulong]),
        "acp_client_close": (c_int, [c_void_p]),
        "acp_client_hasten_close": (c_int, [c_void_p]),
        "acp_client_is_closed": (c_int, [c_void_p]),
        "acp_client_session": (c_int, [POINTER(c_void_p), c_void_p, c_char_p]),
        "acp_client_session_ids": (c_int, [POINTER(c_void_p), c_void_p]),
        "acp_session_free": (None, [c_void_p]),
        "acp_session_json": (c_char_p, [c_void_p]),
        "acp_session_item_count": (c_int, [c_void_p]),
        "acp_session_item_kind": (c_int, [c_void_p, c_int]),
        "acp_session_item_id": (c_char_p, [c_void_p, c_int]),
        "acp_session_item_text": (c_char_p, [c_void_p, c_int]),
        "acp_session_item_title": (c_char_p, [c_void_p, c_int]),
        "acp_session_item_status": (c_char_p, [c_void_p, c_int]),
        "acp_session_item_json": (c_char_p, [c_void_p, c_int]),
        "acp_client_options_init": (c_int, [POINTER(ClientOptions), ctypes.c_uint]),
        "acp_spawn_options_init": (c_int, [POINTER(SpawnOptions), ctypes.c_uint]),
        "acp_remote_options_init": (c_int, [POINTER(RemoteOptions), ctypes.c_uint]),
        "acp_event_appended_text": (c_void_p, [c_void_p, POINTER(c_size_t)]),
        "acp_event_state": (c_char_p, [c_void_p]),
        "acp_event_stop_reason": (c_char_p, [c_void_p]),
        "acp_event_option_count": (c_int, [c_void_p]),
        "acp_event_option_id": (c_char_p, [c_void_p, c_int]),
        "acp_event_option_name": (c_char_p, [c_void_p, c_int]),
        "acp_event_option_kind": (c_char_p, [c_void_p, c_int]),
        "acp_client_item_count": (c_int, [c_void_p, c_char_p]),
        "acp_client_item": (c_int, [POINTER(c_void_p), c_void_p, c_char_p, c_int]),
        "acp_client_find_item": (c_int, [POINTER(c_void_p), c_void_p, c_char_p, c_int, c_char_p]),
        "acp_item_free": (None, [c_void_p]),
        "acp_item_index": (c_int, [c_void_p]),
        "acp_item_kind": (c_int, [c_void_p]),
        "acp_item_id": (c_char_p, [c_void_p]),
        "acp_item_text": (c_void_p, [c_void_p, POINTER(c_size_t)]),
        "acp_item_title": (c_char_p, [c_void_p]),
        "acp_item_status": (c_char_p, [c_void_p]),
        "acp_item_tool_kind": (c_char_p, [c_void_p]),
        "acp_item_json": (c_char_p, [c_void_p]),
    }
    for name, (restype, argtypes) in signatures.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


lib = _declare(ctypes.CDLL(_find_library()))


def sized_text(pointer: Any, size: ctypes.c_size_t) -> Optional[str]:
    """A (char*, size_t) pair as str (a NULL pointer is None); the text may hold NULs."""
    return None if not pointer else ctypes.string_at(pointer, size.value).decode("utf-8", "replace")


def text(value: Optional[bytes]) -> Optional[str]:
    """A char* result as str (None stays None)."""
    return None if value is None else value.decode("utf-8", "replace")


def string(value: Optional[bytes]) -> str:
    """A char* result that the C API always sets, as str."""
    return "" if value is None else value.decode("utf-8", "replace")


def take_string(pointer: Any) -> str:
    """A malloc'd char* out-parameter as str, freed."""
    try:
        return (ctypes.cast(pointer, c_char_p).value or b"").decode("utf-8")
    finally:
        lib.acp_string_free(pointer)
