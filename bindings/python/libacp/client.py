# SPDX-License-Identifier: Apache-2.0
"""The Pythonic client over libacp's C API.

Both clients use the C API's pull queue in polled mode: libacp never calls into Python.
Client pumps the loop itself while a call waits (select on acp_client_fd); AsyncClient
registers that descriptor with the running asyncio loop (loop.add_reader) and a timer
for acp_client_timeout_ms, so nothing polls busily and no thread is needed.
"""
import asyncio
import ctypes
import inspect
import json
import logging
import select
import weakref
from dataclasses import dataclass, field
from typing import (Any, AsyncIterator, Callable, Dict, Generator, Iterator, List, Mapping, Optional, Sequence,
                    Union)

from . import _native as native
from .errors import AcpError, ConnectionClosed, error_for
from . import tools as _tools
from .tools import ToolServer
from . import payload as _payload
from .payload import Payload

lib = native.lib
log = logging.getLogger("libacp")

_LOG_LEVELS = {native.LOG_DEBUG: logging.DEBUG, native.LOG_INFO: logging.INFO,
               native.LOG_WARNING: logging.WARNING, native.LOG_ERROR: logging.ERROR}
_NO_PAYLOAD = frozenset((native.EVENT_SESSION_CHANGED, native.EVENT_LOG, native.EVENT_TRAFFIC,
                         native.EVENT_REQUEST_WITHDRAWN))
_TURN_ENDED = native.CHANGES.index("turn_ended")


# A prompt: text, or a list of ContentBlock dicts ({"type": "text", "text": ...}, ...).
Content = Union[str, Sequence[Mapping[str, Any]]]


def _encode(value):
    return None if value is None else json.dumps(value).encode("utf-8")


def _check(code):
    """Raises the exception for a negative return code of a synchronous call."""
    if code < 0:
        raise error_for(code, native.text(lib.acp_error_last()) or native.text(lib.acp_error_name(code)))
    return code


# --- the session model ------------------------------------------------------------------------

@dataclass
class Item:
    """One entry of a session's history (docs/session-model.md)."""
    kind: str            # user_message, agent_message, agent_thought, tool_call, plan, terminal, compaction, unknown
    id: str
    text: Optional[str]  # messages: their text; terminals: the output
    title: Optional[str]  # tool calls
    status: Optional[str]  # tool calls and compactions
    data: Dict[str, Any]  # the item as in the canonical dump


@dataclass
class SessionChange:
    """One change of the session model, in order (after Client.observe_sessions()): enough
    to update a UI row by row without diffing snapshots (docs/session-model.md, Events)."""
    type: str                  # item_inserted, item_changed, state_changed, turn_ended, session_reset, ...
    session_id: str
    index: Optional[int]       # item changes: the item's index in SessionModel.items
    kind: Optional[str]        # item changes: the item's kind
    id: Optional[str]          # item changes: the entity id
    # Item changes by a chunk that only appended text: that text (a streamed reply is
    # followed chunk by chunk); None otherwise: read the item again (Client.item).
    appended: Optional[str] = None
    state: Optional[str] = None        # state_changed, turn_ended: the foreground state
    stop_reason: Optional[str] = None  # ... and the idle state's stop reason


@dataclass
class SessionModel:
    """A snapshot of one session: what a UI renders."""
    session_id: str
    state: str                        # idle, running, requires_action, ...
    stop_reason: Optional[str]
    title: Optional[str]
    items: List[Item]
    config_options: Optional[list]
    commands: Optional[list]
    usage: Optional[dict]
    json: str = field(repr=False)     # the canonical dump, byte-identical for equal models

    @property
    def is_idle(self) -> bool:
        return self.state == "idle"


def _read_item(handle, session_id, index=None, kind=None, item_id=None):
    """One item of the live model, by index or by kind and id (no snapshot)."""
    pointer = ctypes.c_void_p()
    if index is not None:
        _check(lib.acp_client_item(ctypes.byref(pointer), handle, session_id.encode(), index))
    else:
        _check(lib.acp_client_find_item(ctypes.byref(pointer), handle, session_id.encode(),
                                        native.ITEM_KINDS.index(kind), item_id.encode()))
    try:
        item = pointer.value
        size = ctypes.c_size_t()
        text = native.sized_text(lib.acp_item_text(item, ctypes.byref(size)), size)
        return Item(kind=native.ITEM_KINDS[lib.acp_item_kind(item)], id=native.text(lib.acp_item_id(item)),
                    text=text, title=native.text(lib.acp_item_title(item)),
                    status=native.text(lib.acp_item_status(item)),
                    data=json.loads(native.text(lib.acp_item_json(item))))
    finally:
        lib.acp_item_free(pointer)


def _read_model(handle, session_id):
    pointer = ctypes.c_void_p()
    _check(lib.acp_client_session(ctypes.byref(pointer), handle, session_id.encode()))
    try:
        s = pointer.value
        dump = native.text(lib.acp_session_json(s))
        whole = json.loads(dump)
        items = []
        for i in range(lib.acp_session_item_count(s)):
            items.append(Item(kind=native.ITEM_KINDS[lib.acp_session_item_kind(s, i)],
                              id=native.text(lib.acp_session_item_id(s, i)),
                              text=native.text(lib.acp_session_item_text(s, i)),
                              title=native.text(lib.acp_session_item_title(s, i)),
                              status=native.text(lib.acp_session_item_status(s, i)),
                              data=json.loads(native.text(lib.acp_session_item_json(s, i)))))
        foreground = whole["foreground"]
        return SessionModel(session_id=whole["sessionId"], state=foreground["state"],
                            stop_reason=foreground["stopReason"], title=whole["info"]["title"], items=items,
                            config_options=whole["configOptions"], commands=whole["availableCommands"],
                            usage=whole["usage"], json=dump)
    finally:
        lib.acp_session_free(pointer)


# --- calls and turns ----------------------------------------------------------------------------

class _Pending:
    """One outstanding C call: its result arrives as an ACP_EVENT_RESULT."""

    def __init__(self, convert):
        self.convert = convert
        self.session_id = None  # the session the result names
        self.done = False
        self.value = None
        self.error = None
        self.future = None

    def complete(self, value=None, error=None):
        self.done = True
        if error is None:
            try:
                value = self.convert(value)
            except Exception as e:  # a conversion bug must not stall the caller
                error = e
        self.value, self.error = value, error
        if self.future is not None and not self.future.done():
            if error is not None:
                self.future.set_exception(error)
            else:
                self.future.set_result(value)

    def result(self):
        if self.error is not None:
            raise self.error
        return self.value


class PromptTurn:
    """One prompt turn. Iterate it (for / async for) to get the session updates as they
    arrive, up to the idle state that ends the turn; stop_reason is then set."""

    def __init__(self, client: "_BaseClient", session_id: str, ends_on_answer: bool = False) -> None:
        self._client = client
        self.session_id = session_id
        self._updates = []
        self._acknowledged = False
        # ACP v1 answers a prompt at the end of the turn, after libacp delivered the
        # lifted idle state: the answer itself ends the turn (docs/v1.md).
        self._ends_on_answer = ends_on_answer
        self._last_idle = None
        self.finished = False
        self.stop_reason = None
        self.error = None
        self.message_id = None
        self._waiter = None
        self.request = 0
        # Waited for, never iterated: its updates are nobody's, so the client may leave
        # update events off (fast by default, _BaseClient._sync_updates).
        self._wait_only = False

    # fed by the client
    def _update(self, update):
        if not self._wait_only:
            self._updates.append(update)
        if update.get("sessionUpdate") == "state_update" and update.get("state") == "idle":
            self._last_idle = update
            if self._acknowledged:
                self.finished = True
                self.stop_reason = update.get("stopReason")
        self._wake()

    def _acknowledge(self, response, error):
        if error is not None:
            self.error = error
            self.finished = True
        else:
            self._acknowledged = True
            self.message_id = (response or {}).get("messageId")
            if self._ends_on_answer:
                self.finished = True
                self.stop_reason = (self._last_idle or {}).get("stopReason")
        self._wake()

    def _wake(self):
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _next_ready(self):
        if self._updates:
            return True, self._updates.pop(0)
        if self.finished:
            if self.error is not None:
                raise self.error
            return True, StopIteration
        return False, None

    def __iter__(self) -> Iterator[Payload]:
        while True:
            self._client._pump(lambda: self._updates or self.finished)
            ready, value = self._next_ready()
            if value is StopIteration:
                return
            yield value

    def __aiter__(self) -> AsyncIterator[Payload]:
        return self._aiter()

    async def _aiter(self):
        while True:
            ready, value = self._next_ready()
            if value is StopIteration:
                return
            if ready:
                yield value
                continue
            self._waiter = asyncio.get_running_loop().create_future()
            self._client._kick()
            await self._waiter
            self._waiter = None

    def wait(self) -> Optional[str]:
        """Runs the turn to its end; returns the stop reason."""
        self._wait_only = True
        self._updates.clear()
        for _ in self:
            pass
        return self.stop_reason

    def __await__(self) -> Generator[Any, None, Optional[str]]:
        self._wait_only = True
        self._updates.clear()

        async def run():
            async for _ in self:
                pass
            return self.stop_reason
        return run().__await__()

    def cancel(self) -> None:
        """session/cancel: the turn ends with stop reason "cancelled"."""
        self._client.cancel(self.session_id)


class Session:
    """A session of the client (created by new_session or resume_session)."""

    def __init__(self, client: "_BaseClient", session_id: str, response: Optional[Payload] = None) -> None:
        self.client = client
        self.id = session_id
        self.response = response or {}

    def prompt(self, content: Content) -> "PromptTurn":
        """Starts a turn; content is a str or a list of content blocks. Returns a
        PromptTurn to iterate (sync or async) or wait for."""
        return self.client.prompt(self.id, content)

    def cancel(self) -> None:
        self.client.cancel(self.id)

    def set_config_option(self, config_id: str, value: Union[str, bool]) -> Any:
        return self.client.set_config_option(self.id, config_id, value)

    def cancel_tool_call(self, tool_call_id: str) -> Any:
        """tool_call/cancel: only while the tool call advertises capabilities.cancel."""
        return self.client.cancel_tool_call(self.id, tool_call_id)

    def cancel_terminal(self, terminal_id: str) -> Any:
        """terminal/cancel: only while the terminal advertises capabilities.cancel."""
        return self.client.cancel_terminal(self.id, terminal_id)

    def close(self) -> Any:
        return self.client.close_session(self.id)

    def model(self) -> "SessionModel":
        """The session model now, as Python objects."""
        return self.client.model(self.id)


# --- the clients ----------------------------------------------------------------------------------

class _BaseClient:
    def __init__(self, argv: Optional[Sequence[str]] = None, *, cwd: Optional[str] = None,
                 env: Optional[Mapping[str, str]] = None, unset_env: Optional[Sequence[str]] = None,
                 fds: Optional[Sequence[int]] = None, name: str = "libacp-python", version: str = "1.0",
                 request_timeout: float = 0.0, log_level: int = logging.INFO,
                 shutdown_grace: Optional[float] = None, protocol_version: Optional[int] = None,
                 url: Optional[str] = None, headers: Optional[Mapping[str, str]] = None,
                 ca_file: Optional[str] = None, connect_timeout: Optional[float] = None,
                 unstable: bool = False) -> None:
        """Spawns the agent (argv, cwd, env additions, unset_env names), adopts
        fds=(read_fd, write_fd[, stderr_fd]) the host opened itself, or connects to an agent
        on the network: url="ws://...", "wss://...", "http://..." or "https://..."
        (Streamable HTTP), with headers={"Authorization": "Bearer ..."} sent with every
        request (never logged), ca_file (PEM; default: the system's CAs) and
        connect_timeout (seconds). protocol_version:
        None or 2 asks for ACP v2 and goes on in v1 if the agent answers 1; 1 sends the
        v1 initialize first, for agents known to speak only v1. unstable=True opts in to
        ACP's unstable surface (unstable_call, fork_session; docs/unstable.md)."""
        if protocol_version not in (None, 1, 2):
            raise ValueError("protocol_version must be None, 1 or 2")
        options = native.ClientOptions.defaults()  # polled mode, events queued
        options.client_name = name.encode()
        options.client_version = version.encode()
        options.request_timeout_ms = int(request_timeout * 1000)
        options.log_level = self._c_log_level(log_level)
        if protocol_version is not None:
            options.protocol_version = protocol_version
        options.unstable = 1 if unstable else 0
        handle = ctypes.c_void_p()
        if url is not None:
            remote = native.RemoteOptions.defaults()
            remote.url = url.encode()
            header_lines = ["%s: %s" % (k, v) for k, v in (headers or {}).items()]
            headers_c = (ctypes.c_char_p * (len(header_lines) + 1))()
            headers_c[:len(header_lines)] = [h.encode() for h in header_lines]
            headers_c[len(header_lines)] = None
            remote.headers = headers_c
            remote.ca_file = ca_file.encode() if ca_file else None
            if connect_timeout:
                remote.connect_timeout_ms = int(connect_timeout * 1000)
            _check(lib.acp_client_connect(ctypes.byref(handle), ctypes.byref(remote), ctypes.byref(options)))
        elif fds is not None:
            read_fd, write_fd = fds[0], fds[1]
            stderr_fd = fds[2] if len(fds) > 2 else -1
            _check(lib.acp_client_adopt(ctypes.byref(handle), read_fd, write_fd, stderr_fd, ctypes.byref(options)))
        else:
            if not argv:
                raise ValueError("argv (the agent command) is empty")

            def c_array(strings):
                if not strings:
                    return None
                array = (ctypes.c_char_p * (len(strings) + 1))()
                array[:len(strings)] = [s.encode() for s in strings]
                array[len(strings)] = None
                return array
            argv_c = c_array([str(a) for a in argv])
            env_c = c_array(["%s=%s" % (k, v) for k, v in (env or {}).items()])
            unset_c = c_array(list(unset_env or []))
            spawn = native.SpawnOptions.defaults()
            spawn.argv = argv_c
            spawn.cwd = cwd.encode() if cwd else None
            spawn.env_set = env_c
            spawn.env_unset = unset_c
            if shutdown_grace:
                spawn.shutdown_grace_ms = int(shutdown_grace * 1000)
            _check(lib.acp_client_spawn(ctypes.byref(handle), ctypes.byref(spawn), ctypes.byref(options)))
        self._handle = handle.value
        self._pending: Dict[int, _Pending] = {}
        self._turns: List[PromptTurn] = []
        self._tasks = {}  # responder id -> asyncio task answering it
        self._closed_status = None
        self._closed_waiters = []
        self.agent = None
        # Handlers: plain callables; in AsyncClient they may also be coroutine functions.
        self.on_update: Optional[Callable[[dict], Any]] = None          # (session/update params)
        self.on_permission: Optional[Callable[[dict], Any]] = None      # -> optionId, option kind or None
        self.on_elicitation: Optional[Callable[[dict], Any]] = None     # -> dict (accept), "decline" or None
        self.on_notification: Optional[Callable[[str, dict], Any]] = None  # ext + unknown notifications
        self.on_auth_status_update: Optional[Callable[[dict], Any]] = None  # unstable=True: its params
        self.on_traffic: Optional[Callable[[str, str], Any]] = None     # ("in"/"out", line)
        self.on_session_change: Optional[Callable[[SessionChange], Any]] = None  # after observe_sessions()
        self.on_closed: Optional[Callable[[AcpError], Any]] = None
        self.on_handler_error: Optional[Callable[[BaseException], Any]] = None
        self.handler_errors: List[BaseException] = []
        self._ext_handlers: Dict[str, Callable[[dict], Any]] = {}
        # Update events: None = automatic (on while on_update is set or a prompt turn may be
        # iterated, else off: _sync_updates), or what report_updates() chose.
        self._updates_choice: Optional[bool] = None
        self._updates_reported = True  # what the C side does now
        self._observing = False        # observe_sessions() was asked for
        self._client_methods: Dict[str, Callable[[dict], Any]] = {}  # v1 "fs/..." -> handler
        # The tool servers offered, by session (None: the latest session/new still pending)
        # and name: a tool call event names its server, and one name may be another server
        # in another session.
        self._tool_servers: Dict[Optional[str], Dict[str, ToolServer]] = {}

    @staticmethod
    def _c_log_level(level):
        if level <= logging.DEBUG:
            return native.LOG_DEBUG
        if level <= logging.INFO:
            return native.LOG_INFO
        return native.LOG_WARNING if level <= logging.WARNING else native.LOG_ERROR

    # --- setup (before initialize) ---------------------------------------------------
    def enable_elicitation(self, form: bool = True, url: bool = False) -> None:
        _check(lib.acp_client_enable_elicitation(self._live(), int(form), int(url)))

    def add_ext_handler(self, method: str, handler: Callable[[Payload], Any]) -> None:
        """Answers the agent's extension request `method` with handler(params) -> dict."""
        _check(lib.acp_client_add_ext_method(self._live(), method.encode(), 1))
        self._ext_handlers[method] = handler

    def accept_ext_notification(self, method: str) -> None:
        """Delivers the agent's extension notification `method` to on_notification."""
        _check(lib.acp_client_add_ext_method(self._live(), method.encode(), 0))

    def observe_traffic(self, enabled: bool = True, redact: bool = True) -> None:
        _check(lib.acp_client_observe_traffic(self._live(), int(enabled), int(redact)))

    def observe_sessions(self, enabled: bool = True) -> None:
        """Delivers every change of the session model to on_session_change, each before the
        update that caused it reaches on_update."""
        _check(lib.acp_client_observe_sessions(self._live(), int(enabled)))
        self._observing = bool(enabled)

    def report_updates(self, enabled: bool = True) -> None:
        """Whether each session/update reaches on_update and the prompt turns' iteration.
        By default the client decides: update events are on while on_update is set or a
        prompt turn may still be iterated, and off while every turn is only waited for
        (PromptTurn.wait(), await turn). Off, nothing is decoded or encoded per update,
        and while this client has not handled them, text changes of one item coalesce into
        one on_session_change whose `appended` holds all their text, so a stream faster
        than Python costs Python per batch, not per chunk; prompt turns then end on the
        model's turn_ended change. Calling this fixes the choice: False as described
        (it also observes the sessions, and an iterated turn yields only its idle state),
        True an update event per session/update whatever the host does."""
        if not enabled:
            self.observe_sessions(True)
        _check(lib.acp_client_report_updates(self._live(), int(enabled)))
        self._updates_choice = self._updates_reported = bool(enabled)

    def _sync_updates(self) -> None:
        """The automatic choice of report_updates(), made while no event is queued (so
        every queued event was made under the setting the handlers assume)."""
        if self._updates_choice is not None or self._handle is None:
            return
        wanted = self.on_update is not None or any(not turn._wait_only for turn in self._turns)
        if wanted == self._updates_reported:
            return
        if not wanted:  # the turns then end on the model's turn_ended change
            _check(lib.acp_client_observe_sessions(self._handle, 1))
        _check(lib.acp_client_report_updates(self._handle, int(wanted)))
        if wanted and not self._observing:
            _check(lib.acp_client_observe_sessions(self._handle, 0))
        self._updates_reported = wanted

    def serve_files(self, read: Optional[Callable[[Payload], Any]] = None,
                    write: Optional[Callable[[Payload], Any]] = None) -> None:
        """Serves a v1 agent's fs/read_text_file (read(params) -> the text, or a
        ReadTextFileResponse dict) and fs/write_text_file (write(params) -> None); only
        what is given is advertised. Raising FileNotFoundError answers -32002, an RpcError
        its rpc_code, anything else -32603. v2 agents have no such requests."""
        flags = 0
        if read is not None:
            self._client_methods["fs/read_text_file"] = read
            flags |= native.CLIENT_METHOD_READ_TEXT_FILE
        if write is not None:
            self._client_methods["fs/write_text_file"] = write
            flags |= native.CLIENT_METHOD_WRITE_TEXT_FILE
        _check(lib.acp_client_serve_client_methods(self._live(), flags))

    def serve_confined_files(self, read: bool = True, write: bool = True, max_file_bytes: int = 0) -> None:
        """Lets libacp itself serve a v1 agent's fs/read_text_file and fs/write_text_file
        from disk, only for absolute paths that, with symlinks and ".." resolved, lie
        inside the cwd or an additional directory this client sent for the session;
        anything else is answered with a JSON-RPC error (docs/v1.md, "Serving files
        safely"). Reads honour line/limit; max_file_bytes bounds reads and writes (0: 16
        MiB). Replaces serve_files for the methods it serves."""
        flags = (native.CLIENT_METHOD_READ_TEXT_FILE if read else 0) | \
            (native.CLIENT_METHOD_WRITE_TEXT_FILE if write else 0)
        for method, served in (("fs/read_text_file", read), ("fs/write_text_file", write)):
            if served:
                self._client_methods.pop(method, None)
        _check(lib.acp_client_serve_confined_files(self._live(), flags, max_file_bytes))

    def confine_path(self, session_id: str, path: str, for_write: bool = False) -> str:
        """For a host serving files itself (serve_files): the real path that `path` names
        inside the session's directories. Raises InvalidArgument or NotFound otherwise,
        whose rpc_code is the error to answer the agent with (raising it from a
        serve_files handler does that)."""
        if "\0" in path or "\0" in session_id:
            # ctypes would cut the string at the NUL: the check would see another path.
            raise error_for(native.EINVAL, "the path contains a NUL character", rpc_code=-32602)
        out = ctypes.c_void_p()
        rpc_code = ctypes.c_int(0)
        code = lib.acp_client_confine_path(ctypes.byref(out), ctypes.byref(rpc_code), self._live(),
                                           session_id.encode(), path.encode(), int(bool(for_write)))
        if code < 0:
            raise error_for(code, native.text(lib.acp_error_last()), rpc_code=rpc_code.value)
        return native.take_string(out)

    def serve_terminals(self, terminals: Any) -> None:
        """Serves a v1 agent's terminal/* requests with an object whose methods create,
        output, wait_for_exit, kill and release each take the request params and return
        the method's v1 response as a dict (create may return just the terminal id)."""
        handlers = {name: getattr(terminals, name, None) for name in native.TERMINAL_METHODS}
        missing = [name for name, fn in handlers.items() if not callable(fn)]
        if missing:
            raise TypeError("terminals lacks " + ", ".join(missing))
        for name, fn in handlers.items():
            self._client_methods["terminal/" + name] = fn
        _check(lib.acp_client_serve_client_methods(self._live(), native.CLIENT_METHOD_TERMINAL))

    @property
    def agent_v1(self) -> Optional[Payload]:
        """A v1 agent's own InitializeResponse (agentCapabilities.loadSession and the
        sessionCapabilities markers, which gate resume with replay, list and close), or
        None with a v2 agent."""
        pointer = ctypes.c_void_p()
        code = lib.acp_client_agent_v1_json(ctypes.byref(pointer), self._live())
        if code == native.NOT_FOUND:
            return None
        _check(code)
        return _payload.loads(native.take_string(pointer))

    @property
    def negotiated_version(self) -> int:
        """The ACP version the agent speaks (2 or 1) once initialized, else 0. A v1
        agent's traffic reaches the host in v2 shapes all the same."""
        return _check(lib.acp_client_negotiated_version(self._live()))

    # --- calls -------------------------------------------------------------------------------
    def _live(self):
        if self._handle is None:
            raise ConnectionClosed("the client was freed")
        return self._handle

    def _start(self, starter, convert=lambda v: v):
        request = ctypes.c_ulong(0)
        _check(starter(ctypes.byref(request), self._live()))
        pending = _Pending(convert)
        self._pending[request.value] = pending
        self._kick()
        return request.value, pending

    def initialize(self) -> Any:
        def done(response):
            self.agent = response
            return response
        return self._finish(self._start(lambda r, h: lib.acp_client_initialize(r, h, None, None), done))

    def login(self, method_id: str) -> Any:
        return self._finish(self._start(lambda r, h: lib.acp_client_login(r, h, method_id.encode(), None, None)))

    def logout(self) -> Any:
        return self._finish(self._start(lambda r, h: lib.acp_client_logout(r, h, None, None)))

    @staticmethod
    def _tool_array(tools):
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
                r, h, _encode(request), servers, len(tools), None, None))
            offered = self._tool_servers[None] = {server.name: server for server in tools}
        else:
            started = self._start(lambda r, h: lib.acp_client_new_session(r, h, _encode(request), None, None))
            offered = {}
        return self._opened(started, offered)

    def _opened(self, started, offered):
        """Finishes a call that opens a session (new, fork): its Session, named by the
        result event (acp_event_session_id: no JSON digging); offered, the tool servers by
        name, are routed to it from then on."""
        pending = started[1]

        def opened(response):
            if offered:
                self._tool_servers[pending.session_id] = offered
            return Session(self, pending.session_id, response)
        pending.convert = opened
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

        def starter(r, h):
            if tools:
                return lib.acp_client_resume_session_with_tools(r, h, _encode(request), servers, len(tools), None, None)
            return lib.acp_client_resume_session(r, h, _encode(request), None, None)

        offered = {server.name: server for server in tools}

        def resumed(response):
            # Once the agent accepted, these are the session's servers (none: dropped).
            self._tool_servers.pop(session_id, None)
            if offered:
                self._tool_servers[session_id] = offered
            return Session(self, session_id, response)
        started = self._start(starter, resumed)
        if offered:  # the agent may call them before it answers
            self._tool_servers[session_id] = dict(self._tool_servers.get(session_id, {}), **offered)
        return self._finish(started)

    def list_sessions(self, cwd: Optional[str] = None) -> Any:
        """Every session the agent lists (all pages), as SessionInfo dicts."""
        return self._finish(self._start(
            lambda r, h: lib.acp_client_list_all_sessions(r, h, cwd.encode() if cwd else None, None, None)))

    def list_sessions_page(self, cwd: Optional[str] = None, cursor: Optional[str] = None) -> Any:
        """One page of session/list: the ListSessionsResponse dict (sessions, nextCursor)."""
        request = {}
        if cwd is not None:
            request["cwd"] = cwd
        if cursor is not None:
            request["cursor"] = cursor
        return self._finish(self._start(
            lambda r, h: lib.acp_client_list_sessions(r, h, _encode(request), None, None)))

    def close_session(self, session_id: str) -> Any:
        started = self._start(lambda r, h: lib.acp_client_close_session(r, h, session_id.encode(), None, None))
        self._tool_servers.pop(session_id, None)  # libacp ends their service with the session
        return self._finish(started)

    def delete_session(self, session_id: str) -> Any:
        started = self._start(lambda r, h: lib.acp_client_delete_session(r, h, session_id.encode(), None, None))
        self._tool_servers.pop(session_id, None)
        return self._finish(started)

    def prompt(self, session_id: str, content: Content) -> PromptTurn:
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        request = {"sessionId": session_id, "prompt": blocks}
        turn = PromptTurn(self, session_id, ends_on_answer=self.negotiated_version == 1)
        self._turns.append(turn)
        # Before the request goes out: an iterated turn needs update events from its first
        # update on, and an agent may stream before the loop runs _sync_updates again.
        self._sync_updates()
        try:
            token, pending = self._start(lambda r, h: lib.acp_client_prompt(r, h, _encode(request), None, None))
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
            lambda r, h: lib.acp_client_set_config_option(r, h, _encode(request), None, None)))

    def cancel_tool_call(self, session_id: str, tool_call_id: str) -> Any:
        return self._finish(self._start(lambda r, h: lib.acp_client_cancel_tool_call(
            r, h, session_id.encode(), tool_call_id.encode(), None, None)))

    def cancel_terminal(self, session_id: str, terminal_id: str) -> Any:
        return self._finish(self._start(lambda r, h: lib.acp_client_cancel_terminal(
            r, h, session_id.encode(), terminal_id.encode(), None, None)))

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

    def model(self, session_id: str) -> SessionModel:
        """The session model of one session (SessionModel)."""
        return _read_model(self._live(), session_id)

    def item(self, session_id: str, index: int) -> Item:
        """One item of a session's model by index (as SessionChange.index names it),
        without a snapshot of the whole session."""
        return _read_item(self._live(), session_id, index=index)

    def find_item(self, session_id: str, kind: str, item_id: str) -> Item:
        """One item by kind ("tool_call", "agent_message", ...) and entity id."""
        return _read_item(self._live(), session_id, kind=kind, item_id=item_id)

    def item_count(self, session_id: str) -> int:
        return _check(lib.acp_client_item_count(self._live(), session_id.encode()))

    def session_ids(self) -> List[str]:
        pointer = ctypes.c_void_p()
        _check(lib.acp_client_session_ids(ctypes.byref(pointer), self._live()))
        return json.loads(native.take_string(pointer))

    def close(self) -> None:
        """Closes the connection (asynchronous, idempotent, fine inside any handler)."""
        if self._handle is not None:
            _check(lib.acp_client_close(self._handle))
            self._kick()

    @property
    def closed(self) -> bool:
        return self._handle is None or bool(lib.acp_client_is_closed(self._handle))

    def _free(self):
        if self._handle is not None:
            handle, self._handle = self._handle, None
            lib.acp_client_free(handle)
        for turn in self._turns:
            if not turn.finished:
                turn._acknowledge(None, ConnectionClosed("the client was freed"))
        self._turns = []
        # The host's references go with the client.
        self.on_update = self.on_permission = self.on_elicitation = None
        self.on_notification = self.on_traffic = self.on_closed = self.on_session_change = None
        self.on_auth_status_update = None
        self._ext_handlers = {}
        self._tool_servers = {}

    def __del__(self):
        try:
            self._free()
        except Exception:
            pass

    # --- events ------------------------------------------------------------------------------
    def _dispatch(self):
        """Handles every queued event."""
        while self._handle is not None:
            event = ctypes.c_void_p()
            if lib.acp_client_next_event(ctypes.byref(event), self._handle) != native.OK:
                return
            try:
                self._handle_event(event.value)
            finally:
                lib.acp_event_free(event)

    def _end_turns(self, session_id, stop_reason):
        """Without update events, the model's turn_ended ends the session's prompt turn."""
        idle = {"sessionUpdate": "state_update", "state": "idle"}
        if stop_reason is not None:
            idle["stopReason"] = stop_reason
        for turn in list(self._turns):
            if turn.session_id == session_id:
                turn._update(idle)
                if turn.finished:
                    self._turns.remove(turn)

    def _report(self, error):
        """A host handler raised: reported, and the client goes on. A ToolError is a tool's
        answer, not a bug."""
        if isinstance(error, _tools.ToolError):
            return
        self.handler_errors.append(error)
        if self.on_handler_error is not None:
            self.on_handler_error(error)
        else:
            log.error("a libacp handler raised", exc_info=error)

    def _call_handler(self, handler, *args, answer=None):
        """Runs a host handler; its value (awaited, for a coroutine) goes to answer."""
        try:
            value = handler(*args)
        except Exception as e:
            self._report(e)
            if answer is not None:
                answer(None, e)
            return
        if inspect.isawaitable(value):
            self._run_coroutine(value, answer)
        elif answer is not None:
            answer(value, None)

    def _run_coroutine(self, awaitable, answer):
        raise NotImplementedError

    def _handle_event(self, event):
        kind = lib.acp_event_type(event)
        # Change, log, traffic and withdrawal events carry no JSON payload.
        payload = None if kind in _NO_PAYLOAD else _payload.loads(native.text(lib.acp_event_json(event)))
        if kind == native.EVENT_RESULT:
            pending = self._pending.pop(lib.acp_event_request(event), None)
            status = lib.acp_event_status(event).contents
            error = None
            if status.code != native.OK:
                data = native.text(status.rpc_data_json)
                error = error_for(status.code, native.text(status.message), status.rpc_code,
                                  _payload.loads(data) if data else None)
            if pending is None:
                return
            pending.session_id = native.text(lib.acp_event_session_id(event))
            turn = getattr(pending, "turn", None)
            if turn is not None:
                if turn in self._turns and error is not None:
                    self._turns.remove(turn)
                turn._acknowledge(payload, error)
            pending.complete(payload, error)
        elif kind == native.EVENT_SESSION_UPDATE:
            session_id = payload.get("sessionId")
            update = payload.get("update", {})
            for turn in list(self._turns):
                if turn.session_id == session_id:
                    turn._update(update)
                    if turn.finished:
                        self._turns.remove(turn)
            if self.on_update is not None:
                self._call_handler(self.on_update, payload)
        elif kind == native.EVENT_PERMISSION_REQUEST:
            options = [(native.text(lib.acp_event_option_id(event, i)), native.text(lib.acp_event_option_kind(event, i)))
                       for i in range(lib.acp_event_option_count(event))]
            self._answer_request(event, self.on_permission, payload,
                                 lambda r, value, error: self._answer_permission(r, options, value, error))
        elif kind == native.EVENT_ELICITATION_REQUEST:
            self._answer_request(event, self.on_elicitation, payload, self._answer_elicitation)
        elif kind == native.EVENT_EXT_REQUEST:
            method = native.text(lib.acp_event_method(event))
            self._answer_request(event, self._ext_handlers.get(method), payload, self._answer_ext)
        elif kind == native.EVENT_CLIENT_REQUEST:
            method = native.text(lib.acp_event_method(event))
            self._answer_request(event, self._client_methods.get(method), payload,
                                 lambda r, value, error: self._answer_client_method(r, method, value, error))
        elif kind == native.EVENT_TOOL_CALL:
            self._answer_tool_call(event, payload)
        elif kind == native.EVENT_REQUEST_WITHDRAWN:
            task = self._tasks.pop(lib.acp_event_request(event), None)
            if task is not None:
                task.cancel()
        elif kind in (native.EVENT_EXT_NOTIFICATION, native.EVENT_UNKNOWN_NOTIFICATION,
                      native.EVENT_ELICITATION_COMPLETE):
            method = native.text(lib.acp_event_method(event)) or "elicitation/complete"
            if self.on_notification is not None:
                self._call_handler(self.on_notification, method, payload)
        elif kind == native.EVENT_AUTH_STATUS_UPDATE:
            if self.on_auth_status_update is not None:
                self._call_handler(self.on_auth_status_update, payload)
        elif kind == native.EVENT_LOG:
            log.log(_LOG_LEVELS.get(lib.acp_event_log_level(event), logging.INFO), "[%s] %s",
                    native.text(lib.acp_event_method(event)), native.text(lib.acp_event_text(event)))
        elif kind == native.EVENT_SESSION_CHANGED:
            if not self._updates_reported and lib.acp_event_change(event) == _TURN_ENDED:
                self._end_turns(native.text(lib.acp_event_session_id(event)),
                                native.text(lib.acp_event_stop_reason(event)))
            if self.on_session_change is not None and (self._observing or self._updates_choice is False):
                index = lib.acp_event_item_index(event)
                item = index >= 0
                size = ctypes.c_size_t()
                change = SessionChange(type=native.CHANGES[lib.acp_event_change(event)],
                                       session_id=native.text(lib.acp_event_session_id(event)),
                                       index=index if item else None,
                                       kind=native.ITEM_KINDS[lib.acp_event_item_kind(event)] if item else None,
                                       id=native.text(lib.acp_event_item_id(event)),
                                       appended=native.sized_text(lib.acp_event_appended_text(event, ctypes.byref(size)),
                                                                  size),
                                       state=native.text(lib.acp_event_state(event)),
                                       stop_reason=native.text(lib.acp_event_stop_reason(event)))
                self._call_handler(self.on_session_change, change)
        elif kind == native.EVENT_TRAFFIC:
            if self.on_traffic is not None:
                direction = "in" if lib.acp_event_direction(event) == 0 else "out"
                self._call_handler(self.on_traffic, direction, native.text(lib.acp_event_text(event)))
        elif kind == native.EVENT_CLOSED:
            status = lib.acp_event_status(event).contents
            self._closed_status = error_for(status.code or ConnectionClosed.code,
                                            native.text(status.message) or "the connection closed")
            for turn in self._turns:
                turn._acknowledge(None, self._closed_status)
            self._turns = []
            for waiter in self._closed_waiters:
                if not waiter.done():
                    waiter.set_result(None)
            self._closed_waiters = []
            if self.on_closed is not None:
                self._call_handler(self.on_closed, self._closed_status)

    def _answer_request(self, event, handler, payload, answer, handler_args=None):
        """Takes the event's responder and runs handler(payload) (or handler(*handler_args(
        holder)), holder being [the responder] until answered); answer(responder, value,
        error) gives its outcome, now or when its coroutine ends."""
        responder = ctypes.c_void_p()
        if lib.acp_event_take_responder(ctypes.byref(responder), event) != native.OK:
            return
        holder = [responder.value]

        def reply(value, error):
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

    def _answer_tool_call(self, event, arguments):
        session_id = native.text(lib.acp_event_session_id(event))
        server = native.text(lib.acp_event_tool_server(event))
        name = native.text(lib.acp_event_tool_name(event))
        offered = self._tool_servers.get(session_id, {}).get(server)
        tool = offered.tools.get(name) if offered is not None else None
        if tool is None:
            return  # not offered by this client's Python side: the event answers -32603

        def handler_args(holder):
            if not tool.takes_call:
                return (arguments,)
            return arguments, _tools.ToolCall(server, name, session_id, arguments, holder, self._kick)
        self._answer_request(event, tool.handler, arguments, self._answer_tool, handler_args)

    def _answer_tool(self, responder, value, error):
        mistake = _tools.answer(responder, value, error)
        if mistake is not None:
            self._report(mistake)

    def _tasks_hold(self, responder_id, reply):
        pass

    @staticmethod
    def _answer_permission(responder, options, value, error):
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
    def _answer_elicitation(responder, value, error):
        if error is None and isinstance(value, dict):
            lib.acp_responder_accept(responder, _encode(value))
        elif error is None and value == "decline":
            lib.acp_responder_decline(responder)
        else:
            lib.acp_responder_cancel(responder)

    @staticmethod
    def _answer_ext(responder, value, error):
        if error is not None:
            lib.acp_responder_fail(responder, -32603, str(error).encode())
        else:
            lib.acp_responder_respond(responder, _encode(value if value is not None else {}))


    def _answer_client_method(self, responder, method, value, error):
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


class Client(_BaseClient):
    """The synchronous client: each call runs libacp's loop until its answer arrived.

        with Client(["my-agent", "--acp"]) as client:
            client.initialize()
            session = client.new_session(cwd="/home/me/project")
            client.on_permission = lambda request: request["options"][0]["optionId"]
            for update in session.prompt("Fix the failing test"):
                print(update["sessionUpdate"])
    """

    def _kick(self):
        pass

    def _finish(self, started):
        _, pending = started
        self._pump(lambda: pending.done)
        return pending.result()

    def _pump(self, done):
        """Runs the loop and handles events until done() holds."""
        while True:
            self._dispatch()
            if done():
                return
            if self._handle is None:
                raise ConnectionClosed("the client was freed")
            self._sync_updates()
            timeout = lib.acp_client_timeout_ms(self._handle)
            if timeout < 0 and self._closed_status is not None:
                raise self._closed_status  # the connection ended: nothing will come
            select.select([lib.acp_client_fd(self._handle)], [], [], None if timeout < 0 else timeout / 1000.0)
            lib.acp_client_run_nowait(self._handle)

    def _run_coroutine(self, awaitable, answer):
        # A coroutine handler in a synchronous client runs to its end right here.
        async def run():
            return await awaitable
        loop = asyncio.new_event_loop()
        try:
            value = loop.run_until_complete(run())
        except Exception as e:
            self._report(e)
            if answer is not None:
                answer(None, e)
            return
        finally:
            loop.close()
        if answer is not None:
            answer(value, None)

    def close_and_wait(self) -> None:
        """Closes the connection, waits for the agent to end, and frees the client."""
        if self._handle is None:
            return
        self.close()
        try:
            self._pump(lambda: self._closed_status is not None)
        except AcpError:
            pass
        self._free()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close_and_wait()


def _run_async_client(ref):
    """The loop's reader and timers hold the client only weakly, so an AsyncClient the
    host dropped is collected (and its agent closed) like a Client."""
    client = ref()
    if client is not None:
        client._run()


class AsyncClient(_BaseClient):
    """The asyncio client: libacp's descriptor is watched by the running loop.

        async with AsyncClient(["my-agent", "--acp"]) as client:
            await client.initialize()
            session = await client.new_session(cwd="/home/me/project")
            async def ask(request):
                return await ui.choose(request["options"])   # or return an optionId at once
            client.on_permission = ask
            async for update in session.prompt("Fix the failing test"):
                render(update)
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._loop = None
        self._timer = None
        self._kicked = False
        self._ref = weakref.ref(self)

    def _attach(self):
        if self._loop is None and self._handle is not None:
            self._loop = asyncio.get_running_loop()
            self._loop.add_reader(lib.acp_client_fd(self._handle), _run_async_client, self._ref)

    def _detach(self):
        if self._loop is not None:
            if self._handle is not None:
                self._loop.remove_reader(lib.acp_client_fd(self._handle))
            if self._timer is not None:
                self._timer.cancel()
            self._loop = None

    def _kick(self):
        """Work was posted: run the loop on the next turn."""
        try:
            self._attach()
        except RuntimeError:
            return  # no running loop (set-up calls): the first awaited call attaches
        if not self._kicked:
            self._kicked = True
            self._loop.call_soon(_run_async_client, self._ref)

    def _run(self):
        self._kicked = False
        if self._handle is None:
            return
        lib.acp_client_run_nowait(self._handle)
        self._dispatch()
        if self._handle is None or self._loop is None:
            return
        self._sync_updates()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        timeout = lib.acp_client_timeout_ms(self._handle)
        if timeout >= 0:
            self._timer = self._loop.call_later(timeout / 1000.0, _run_async_client, self._ref)

    async def _wait(self, pending):
        if not pending.done:
            pending.future = asyncio.get_running_loop().create_future()
            self._kick()
            await pending.future
        return pending.result()

    def _finish(self, started):
        _, pending = started
        return self._wait(pending)

    def _run_coroutine(self, awaitable, answer):
        task = asyncio.ensure_future(awaitable)

        def finished(t):
            if t.cancelled():
                if answer is not None:
                    answer(None, None)
                return
            error = t.exception()
            if error is not None:
                self._report(error)
            if answer is not None:
                answer(None if error else t.result(), error)
        task.add_done_callback(finished)
        self._last_task = task

    def _tasks_hold(self, responder_id, reply):
        task = getattr(self, "_last_task", None)
        if task is not None and not task.done():
            self._tasks[responder_id] = task
            task.add_done_callback(lambda _: self._tasks.pop(responder_id, None))
        self._last_task = None

    def __del__(self):
        try:
            if self._loop is not None and not self._loop.is_closed():
                self._detach()
        except Exception:
            pass
        super().__del__()

    async def aclose(self) -> None:
        """Closes the connection, waits for the agent to end, and frees the client."""
        if self._handle is None:
            return
        self.close()
        if self._closed_status is None:
            waiter = asyncio.get_running_loop().create_future()
            self._closed_waiters.append(waiter)
            self._kick()
            await waiter
        self._detach()
        self._free()

    async def __aenter__(self) -> "AsyncClient":
        self._attach()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()
