# SPDX-License-Identifier: Apache-2.0
"""Editor tools for the agent: MCP servers the host offers (docs/tools.md).

    editor = libacp.ToolServer("editor")

    @editor.tool(description="The text selected in the editor")
    def current_selection(args):
        return buffer.selection()          # str: a text result; dict: a structured one

    session = client.new_session(cwd="/home/me/project", tools=[editor])

libacp serves the server over the MCP transport the agent advertised and checks every
call's arguments against the tool's input schema before the handler sees them. A handler
takes the arguments (a Payload), or the arguments and the ToolCall; it returns a str (the
text result), a dict (a structured result, also sent as its JSON text), None (an empty
result), or raises ToolError (a failed call whose message the model reads). In an
AsyncClient it may be a coroutine function; cancelling the call cancels its task.
"""
import ctypes
import inspect
import json
from typing import Any, Callable, Dict, List, Mapping, Optional

from . import _native as native
from .errors import error_for

lib = native.lib


class ToolError(Exception):
    """Raised by a tool handler: the call fails (isError) with this message as its text,
    which the model reads. Not a host bug: it is not reported as a handler error."""


class ToolCall:
    """One call of a tool, for a handler that takes it as its second argument."""

    def __init__(self, server: str, tool: str, session_id: Optional[str], arguments: Any, responder: List[Any],
                 kick: Callable[[], None]) -> None:
        self.server = server          # the ToolServer's name
        self.tool = tool              # the tool's name
        self.session_id = session_id  # the session the server was offered to (None while session/new is pending)
        self.arguments = arguments    # the checked arguments (a Payload)
        self._responder = responder   # [acp_responder*]; [None] once answered
        self._kick = kick             # the client's: work was posted

    def progress(self, progress: float, total: float = 0, message: Optional[str] = None) -> None:
        """notifications/progress for this call, when the agent asked for progress
        (otherwise nothing is sent). total <= 0: unknown. Nothing once answered."""
        if self._responder[0] is not None:
            lib.acp_responder_tool_progress(self._responder[0], float(progress), float(total),
                                            message.encode() if message is not None else None)
            self._kick()

    @property
    def withdrawn(self) -> bool:
        """The agent cancelled the call, or its session or connection ended: an answer
        goes nowhere (an AsyncClient also cancels the handler's task)."""
        return self._responder[0] is not None and bool(lib.acp_responder_withdrawn(self._responder[0]))


class Tool:
    """A tool as registered: its name and handler (libacp holds its declaration)."""

    def __init__(self, name: str, handler: Callable[..., Any], takes_call: bool) -> None:
        self.name = name
        self.handler = handler
        self.takes_call = takes_call


def _takes_call(fn: Callable[..., Any]) -> bool:
    """Whether a handler takes the ToolCall too (a second positional parameter)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in parameters)


class ToolServer:
    """An MCP server with the host's tools, offered to the agent with
    new_session(..., tools=[server]) or resume_session(..., tools=[server]). It lives as
    long as the Python object and the sessions it was offered to."""

    def __init__(self, name: str, *, version: str = "1.0.0", max_concurrent_calls: Optional[int] = None,
                 max_message_bytes: Optional[int] = None) -> None:
        """name: what the agent sees (e.g. "editor"); version: serverInfo.version;
        max_concurrent_calls (per session, default 64) and max_message_bytes (the largest
        MCP message taken from the agent, default 1 MiB) bound what the agent can cost."""
        options = native.ToolServerOptions.defaults()
        options.server_version = version.encode()
        if max_concurrent_calls is not None:
            options.max_concurrent_calls = max_concurrent_calls
        if max_message_bytes is not None:
            options.max_message_bytes = max_message_bytes
        handle = ctypes.c_void_p()
        _check(lib.acp_tool_server_new(ctypes.byref(handle), name.encode(), ctypes.byref(options)))
        self._handle = handle.value
        self.name = name
        self.tools: Dict[str, Tool] = {}

    def add_tool(self, name: str, handler: Callable[..., Any], *, title: Optional[str] = None,
                 description: Optional[str] = None, input_schema: Optional[Mapping[str, Any]] = None,
                 output_schema: Optional[Mapping[str, Any]] = None,
                 annotations: Optional[Mapping[str, Any]] = None) -> Tool:
        """Adds a tool. input_schema: the JSON Schema of its arguments (default: an object
        with no required properties); output_schema: the schema structured results must
        match; annotations: MCP ToolAnnotations ({"readOnlyHint": True}, ...). Raises
        InvalidArgument for a bad or duplicate name or a schema that is not an object."""
        def text(value: Optional[str]) -> Optional[bytes]:
            return None if value is None else value.encode()

        def encoded(value: Any) -> Optional[bytes]:
            return None if value is None else json.dumps(value).encode()
        _check(lib.acp_tool_server_add_tool(self._live(), name.encode(), text(title), text(description),
                                            encoded(input_schema), encoded(output_schema), encoded(annotations)))
        tool = Tool(name, handler, _takes_call(handler))
        self.tools[name] = tool
        return tool

    def tool(self, fn: Optional[Callable[..., Any]] = None, *, name: Optional[str] = None,
             title: Optional[str] = None, description: Optional[str] = None,
             input_schema: Optional[Mapping[str, Any]] = None, output_schema: Optional[Mapping[str, Any]] = None,
             annotations: Optional[Mapping[str, Any]] = None) -> Any:
        """A decorator adding the function as a tool: its name by default the function's,
        its description by default the docstring. @server.tool and @server.tool(...)."""
        def register(handler: Callable[..., Any]) -> Callable[..., Any]:
            doc = inspect.getdoc(handler)
            self.add_tool(name or handler.__name__, handler, title=title,
                          description=description if description is not None else doc,
                          input_schema=input_schema, output_schema=output_schema, annotations=annotations)
            return handler
        return register(fn) if fn is not None else register

    def _live(self) -> Any:
        if self._handle is None:
            raise ValueError("the tool server was freed")
        return self._handle

    def __del__(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle is not None:
            lib.acp_tool_server_free(handle)


def _check(code: int) -> int:
    if code < 0:
        raise error_for(code, native.text(lib.acp_error_last()) or native.text(lib.acp_error_name(code)))
    return code


def answer(responder: Any, value: Any, error: Optional[BaseException]) -> Optional[BaseException]:
    """Answers a tool call with what its handler returned or raised. Returns the host's
    mistake to report (a value that is no result) and leaves the call unanswered, as it
    does for a handler that raised anything but ToolError: freed so, the agent gets the
    MCP error -32603."""
    if isinstance(error, ToolError):
        lib.acp_responder_tool_error(responder, str(error).encode())
    elif error is not None:
        return None
    elif isinstance(value, str):
        lib.acp_responder_tool_text(responder, value.encode())
    elif value is None:
        lib.acp_responder_tool_result(responder, b'{"content":[]}')
    elif isinstance(value, Mapping):
        if lib.acp_responder_tool_structured(responder, json.dumps(value).encode()) != native.OK:
            return TypeError("the tool's structured result was refused: " + (native.text(lib.acp_error_last()) or ""))
    else:
        return TypeError("a tool handler returns str, dict or None, not " + type(value).__name__)
    return None
