# SPDX-License-Identifier: Apache-2.0
"""The client's requests to the agent: initialize, sessions, prompts, config, extension
and unstable calls. Each starts a C call whose result event completes a _Pending."""
import ctypes
import json
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native as native
from ._connection import _Connection
from .errors import AcpError, check as _check
from . import schema_types as types
from .payload import Payload, as_class, as_list, encode as _encode, typed
from .session import Content, PromptTurn, Session, _Pending
from .tools import ToolServer

lib = native.lib
# session/list over all pages answers the sessions' SessionInfo objects as one list.
_as_session_infos = as_list(as_class(types.SessionInfo))


def _session_infos(value: Any) -> Any:
    return _as_session_infos(value) if isinstance(value, list) else value


class _Requests(_Connection):
    def _start(self, starter: Callable[[Any, Any], int], convert: Callable[[Any], Any] = lambda v: v,
               result: Optional[type] = None) -> Tuple[int, _Pending]:
        """Starts a C call; its result, as the class `result` (schema_types), goes through
        convert to the caller."""
        request = ctypes.c_ulong(0)
        _check(starter(ctypes.byref(request), self._live()))
        pending = _Pending(lambda value: convert(typed(value, result)))
        self._pending[request.value] = pending
        self._kick()
        return request.value, pending

    def initialize(self) -> Any:
        def done(response: types.InitializeResponse) -> types.InitializeResponse:
            self.agent = response
            return response
        return self._finish(self._start(lambda r, h: lib.acp_client_initialize(r, h, None, None), done,
                                        types.InitializeResponse))

    def login(self, method_id: str) -> Any:
        return self._finish(self._start(lambda r, h: lib.acp_client_login(r, h, method_id.encode(), None, None),
                                        result=types.LoginAuthResponse))

    def logout(self) -> Any:
        return self._finish(self._start(lambda r, h: lib.acp_client_logout(r, h, None, None),
                                        result=types.LogoutAuthResponse))

    @staticmethod
    def _tool_array(tools: Sequence[ToolServer]) -> Any:
        """The C handles of tool servers, checked to be ToolServers."""
        for server in tools:
            if not isinstance(server, ToolServer):
                raise TypeError("tools holds ToolServer objects, not " + type(server).__name__)
        return (ctypes.c_void_p * len(tools))(*[server._live() for server in tools])

    def new_session(self, cwd: str, mcp_servers: Sequence[Mapping[str, Any]] = (),
                    tools: Sequence[ToolServer] = (), **extra: Any) -> Any:
        """session/new; tools: ToolServers offered to the agent for this session
        (docs/tools.md), served over the MCP transport it advertised."""
        request = dict(extra, cwd=cwd, mcpServers=list(mcp_servers))
        tools = list(tools)
        if tools:
            servers = self._tool_array(tools)
            started = self._start(lambda r, h: lib.acp_client_new_session_with_tools(
                r, h, _encode(request), servers, len(tools), None, None), result=types.NewSessionResponse)
            offered = self._tool_servers[None] = {server.name: server for server in tools}
        else:
            started = self._start(lambda r, h: lib.acp_client_new_session(r, h, _encode(request), None, None),
                                  result=types.NewSessionResponse)
            offered = {}
        return self._opened(started, offered)

    def _opened(self, started: Tuple[int, _Pending], offered: Dict[str, ToolServer]) -> Any:
        """Finishes a call that opens a session (new, fork): its Session, named by the
        result event (acp_event_session_id: no JSON digging); offered, the tool servers by
        name, are routed to it from then on."""
        pending = started[1]

        def opened(response: Payload) -> Session:
            if offered:
                self._tool_servers[pending.session_id] = offered
            return Session(self, pending.session_id or "", response)
        typed_response = pending.convert
        pending.convert = lambda response: opened(typed_response(response))
        return self._finish(started)

    def resume_session(self, session_id: str, cwd: str, replay: bool = False,
                       tools: Sequence[ToolServer] = (), **extra: Any) -> Any:
        """session/resume; replay=True rebuilds the whole history (replayFrom start). tools:
        the ToolServers offered from now on, replacing those offered before."""
        request = dict(extra, sessionId=session_id, cwd=cwd)
        if replay:
            request["replayFrom"] = {"type": "start"}
        tools = list(tools)
        servers = self._tool_array(tools)

        def starter(r: Any, h: Any) -> int:
            if tools:
                return lib.acp_client_resume_session_with_tools(r, h, _encode(request), servers, len(tools), None, None)
            return lib.acp_client_resume_session(r, h, _encode(request), None, None)

        offered = {server.name: server for server in tools}

        def resumed(response: Payload) -> Session:
            # Once the agent accepted, these are the session's servers (none: dropped).
            self._tool_servers.pop(session_id, None)
            if offered:
                self._tool_servers[session_id] = offered
            return Session(self, session_id, response)
        started = self._start(starter, resumed, types.ResumeSessionResponse)
        if offered:  # the agent may call them before it answers
            self._tool_servers[session_id] = dict(self._tool_servers.get(session_id, {}), **offered)
        return self._finish(started)

    def list_sessions(self, cwd: Optional[str] = None) -> Any:
        """Every session the agent lists (all pages), as SessionInfo dicts."""
        return self._finish(self._start(
            lambda r, h: lib.acp_client_list_all_sessions(r, h, cwd.encode() if cwd else None, None, None),
            _session_infos))

    def list_sessions_page(self, cwd: Optional[str] = None, cursor: Optional[str] = None) -> Any:
        """One page of session/list: the ListSessionsResponse dict (sessions, nextCursor)."""
        request = {}
        if cwd is not None:
            request["cwd"] = cwd
        if cursor is not None:
            request["cursor"] = cursor
        return self._finish(self._start(
            lambda r, h: lib.acp_client_list_sessions(r, h, _encode(request), None, None),
            result=types.ListSessionsResponse))

    def close_session(self, session_id: str) -> Any:
        started = self._start(lambda r, h: lib.acp_client_close_session(r, h, session_id.encode(), None, None),
                              result=types.CloseSessionResponse)
        self._tool_servers.pop(session_id, None)  # libacp ends their service with the session
        return self._finish(started)

    def delete_session(self, session_id: str) -> Any:
        started = self._start(lambda r, h: lib.acp_client_delete_session(r, h, session_id.encode(), None, None),
                              result=types.DeleteSessionResponse)
        self._tool_servers.pop(session_id, None)
        return self._finish(started)

    def prompt(self, session_id: str, content: Content) -> PromptTurn:
        blocks: List[Mapping[str, Any]] = [{"type": "text", "text": content}] if isinstance(content, str) \
            else list(content)
        request = {"sessionId": session_id, "prompt": blocks}
        turn = PromptTurn(self, session_id, ends_on_answer=self.negotiated_version == 1)
        self._turns.append(turn)
        # Before the request goes out: an iterated turn needs update events from its first
        # update on, and an agent may stream before the loop runs _sync_updates again.
        self._sync_updates()
        try:
            token, pending = self._start(lambda r, h: lib.acp_client_prompt(r, h, _encode(request), None, None),
                                          result=types.PromptResponse)
        except AcpError:
            self._turns.remove(turn)
            raise
        turn.request = token
        pending.turn = turn
        return turn

    def cancel(self, session_id: str) -> None:
        _check(lib.acp_client_cancel(self._live(), session_id.encode()))
        self._kick()

    def cancel_request(self, request: int) -> None:
        _check(lib.acp_client_cancel_request(self._live(), request))
        self._kick()

    def set_config_option(self, session_id: str, config_id: str, value: Union[str, bool]) -> Any:
        request = {"sessionId": session_id, "configId": config_id, "value": value,
                   "type": "boolean" if isinstance(value, bool) else "id"}
        return self._finish(self._start(
            lambda r, h: lib.acp_client_set_config_option(r, h, _encode(request), None, None),
            result=types.SetSessionConfigOptionResponse))

    def cancel_tool_call(self, session_id: str, tool_call_id: str) -> Any:
        return self._finish(self._start(lambda r, h: lib.acp_client_cancel_tool_call(
            r, h, session_id.encode(), tool_call_id.encode(), None, None), result=types.CancelToolCallResponse))

    def cancel_terminal(self, session_id: str, terminal_id: str) -> Any:
        return self._finish(self._start(lambda r, h: lib.acp_client_cancel_terminal(
            r, h, session_id.encode(), terminal_id.encode(), None, None), result=types.CancelTerminalResponse))

    def ext_request(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        return self._finish(self._start(
            lambda r, h: lib.acp_client_ext_request(r, h, method.encode(), _encode(params), None, None)))

    # --- the unstable surface (unstable=True; docs/unstable.md) ------------------------------
    def unstable_offer(self) -> Dict[str, bool]:
        """What the agent offers of the unstable surface: fork, archive, status, title,
        systemPrompt, systemPromptOverride, authStatus, providers (all False without the
        opt-in)."""
        pointer = ctypes.c_void_p()
        _check(lib.acp_client_unstable_offer(ctypes.byref(pointer), self._live()))
        return json.loads(native.take_string(pointer))

    def unstable_call(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        """One call of the unstable surface by method ("session/archive", "session/status",
        "session/set_title", "auth/status", "providers/list", "providers/set",
        "providers/disable", or "session/new", "session/resume", "session/list" with their
        systemPrompt or archived member); refused (Unsupported) before sending when the
        agent did not advertise it."""
        return self._finish(self._start(
            lambda r, h: lib.acp_client_unstable_call(r, h, method.encode(), _encode(params), None, None)))

    def fork_session(self, session_id: str, cwd: str, tools: Sequence[ToolServer] = (), **extra: Any) -> Any:
        """session/fork: a new session with the context of session_id, active at once (a
        Session); tools: ToolServers offered to the fork (never the source's)."""
        request = dict(extra, sessionId=session_id, cwd=cwd)
        tools = list(tools)
        servers = self._tool_array(tools)
        offered = {server.name: server for server in tools}
        if offered:
            self._tool_servers[None] = offered
        started = self._start(lambda r, h: lib.acp_client_unstable_call_with_tools(
            r, h, b"session/fork", _encode(request), servers, len(tools), None, None))
        return self._opened(started, offered)

    def ext_notify(self, method: str, params: Optional[Mapping[str, Any]] = None) -> None:
        _check(lib.acp_client_ext_notify(self._live(), method.encode(), _encode(params)))
        self._kick()

