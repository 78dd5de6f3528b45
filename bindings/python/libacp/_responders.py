# SPDX-License-Identifier: Apache-2.0
"""Answering the agent's requests: a host handler's value (or its coroutine's) becomes the
responder's answer, exactly once (permission, elicitation, extension methods, v1 file and
terminal methods, tool calls)."""
import ctypes
from typing import Any, Callable, List, Optional, Tuple

from . import _native as native
from ._connection import _Connection
from .errors import AcpError
from .payload import encode as _encode
from . import tools as _tools

lib = native.lib


class _Responders(_Connection):
    def _answer_request(self, event: Any, handler: Optional[Callable[..., Any]], payload: Any,
                        answer: Callable[[Any, Any, Optional[BaseException]], None],
                        handler_args: Optional[Callable[[List[Any]], Tuple[Any, ...]]] = None) -> None:
        """Takes the event's responder and runs handler(payload) (or handler(*handler_args(
        holder)), holder being [the responder] until answered); answer(responder, value,
        error) gives its outcome, now or when its coroutine ends."""
        responder = ctypes.c_void_p()
        if lib.acp_event_take_responder(ctypes.byref(responder), event) != native.OK:
            return
        holder = [responder.value]

        def reply(value: Any, error: Optional[BaseException]) -> None:
            r, holder[0] = holder[0], None
            if r is None:
                return
            try:
                answer(r, value, error)
            finally:
                lib.acp_responder_free(r)
            self._kick()

        if handler is None:
            reply(None, None)
            return
        self._call_handler(handler, *(handler_args(holder) if handler_args else (payload,)), answer=reply)
        if holder[0] is not None:
            self._tasks_hold(lib.acp_responder_id(holder[0]), reply)

    def _answer_tool_call(self, event: Any, arguments: Any) -> None:
        session_id = native.text(lib.acp_event_session_id(event))
        server = native.string(lib.acp_event_tool_server(event))
        name = native.string(lib.acp_event_tool_name(event))
        offered = self._tool_servers.get(session_id, {}).get(server)
        found = offered.tools.get(name) if offered is not None else None
        if found is None:
            return  # not offered by this client's Python side: the event answers -32603
        tool = found

        def handler_args(holder: List[Any]) -> Tuple[Any, ...]:
            if not tool.takes_call:
                return (arguments,)
            return arguments, _tools.ToolCall(server, name, session_id, arguments, holder, self._kick)
        self._answer_request(event, tool.handler, arguments, self._answer_tool, handler_args)

    def _answer_tool(self, responder: Any, value: Any, error: Optional[BaseException]) -> None:
        mistake = _tools.answer(responder, value, error)
        if mistake is not None:
            self._report(mistake)

    @staticmethod
    def _answer_permission(responder: Any, options: List[Tuple[Optional[str], Optional[str]]], value: Any,
                           error: Optional[BaseException]) -> None:
        """value: an offered optionId, or an option kind ("allow_once", "reject_once", ...)
        meaning the first option of that kind; anything else cancels."""
        if error is None and isinstance(value, str):
            ids = [option_id for option_id, _ in options]
            if value not in ids:
                value = next((option_id for option_id, kind in options if kind == value), value)
            lib.acp_responder_select(responder, value.encode())
        else:
            lib.acp_responder_cancel(responder)

    @staticmethod
    def _answer_elicitation(responder: Any, value: Any, error: Optional[BaseException]) -> None:
        if error is None and isinstance(value, dict):
            lib.acp_responder_accept(responder, _encode(value))
        elif error is None and value == "decline":
            lib.acp_responder_decline(responder)
        else:
            lib.acp_responder_cancel(responder)

    @staticmethod
    def _answer_ext(responder: Any, value: Any, error: Optional[BaseException]) -> None:
        if error is not None:
            lib.acp_responder_fail(responder, -32603, str(error).encode())
        else:
            lib.acp_responder_respond(responder, _encode(value if value is not None else {}))


    def _answer_client_method(self, responder: Any, method: Optional[str], value: Any,
                              error: Optional[BaseException]) -> None:
        if error is not None:
            if isinstance(error, FileNotFoundError):
                code = -32002  # resource not found
            else:
                code = getattr(error, "rpc_code", 0) or -32603
            lib.acp_responder_fail(responder, code, str(error).encode())
            return
        if value is None:
            value = {}
        elif isinstance(value, str):
            if method == "fs/read_text_file":
                value = {"content": value}
            elif method == "terminal/create":
                value = {"terminalId": value}
        if lib.acp_responder_respond(responder, _encode(value)) != native.OK:
            # Not the method's response shape: the handler is at fault, the agent gets -32603.
            problem = AcpError(native.text(lib.acp_error_last()))
            self._report(problem)
            lib.acp_responder_fail(responder, -32603, str(problem).encode())


