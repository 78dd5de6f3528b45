# SPDX-License-Identifier: Apache-2.0
"""The client's connection: opening it (spawn, adopted descriptors, remote), the settings
made before initialize, what it holds (the session model, the agent's answers), running
the host's handlers, and closing. The request, event and responder parts build on it."""
import asyncio
import ctypes
import inspect
import json
import logging
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from . import _native as native
from .errors import AcpError, ConnectionClosed, check as _check, error_for
from . import payload as _payload
from . import schema_types as types
from . import tools as _tools
from .model import Item, SessionChange, SessionModel, read_item as _read_item, read_model as _read_model
from .payload import Payload
from .tools import ToolServer

if TYPE_CHECKING:
    from .session import PromptTurn, _Pending

lib = native.lib
log = logging.getLogger("libacp")


class _Connection:
    def __init__(self, argv: Optional[Sequence[str]] = None, *, cwd: Optional[str] = None,
                 env: Optional[Mapping[str, str]] = None, unset_env: Optional[Sequence[str]] = None,
                 fds: Optional[Sequence[int]] = None, name: str = "libacp-python", version: str = "1.0",
                 request_timeout: float = 0.0, log_level: int = logging.INFO,
                 shutdown_grace: Optional[float] = None, terminate_grace: Optional[float] = None,
                 protocol_version: Optional[int] = None,
                 url: Optional[str] = None, headers: Optional[Mapping[str, str]] = None,
                 ca_file: Optional[str] = None, connect_timeout: Optional[float] = None,
                 unstable: bool = False) -> None:
        """Spawns the agent (argv, cwd, env additions, unset_env names), adopts
        fds=(read_fd, write_fd[, stderr_fd]) the host opened itself, or connects to an agent
        on the network: url="ws://...", "wss://...", "http://..." or "https://..."
        (Streamable HTTP), with headers={"Authorization": "Bearer ..."} sent with every
        request (never logged), ca_file (PEM; default: the system's CAs) and
        connect_timeout (seconds). shutdown_grace and terminate_grace (seconds, default
        2 each): the shutdown's waits after stdin is closed and after the terminate
        signal (hasten_close skips them). protocol_version:
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

            def c_array(strings: Sequence[str]) -> Any:
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
            if terminate_grace:
                spawn.terminate_grace_ms = int(terminate_grace * 1000)
            _check(lib.acp_client_spawn(ctypes.byref(handle), ctypes.byref(spawn), ctypes.byref(options)))
        self._handle = handle.value
        self._pending: Dict[int, _Pending] = {}
        self._turns: List[PromptTurn] = []
        self._tasks: "Dict[int, asyncio.Task[Any]]" = {}  # responder id -> asyncio task answering it
        self._closed_status: Optional[AcpError] = None
        self._closed_waiters: "List[asyncio.Future[None]]" = []
        self.agent: Optional[types.InitializeResponse] = None  # initialize's result
        # Handlers: plain callables; in AsyncClient they may also be coroutine functions.
        self.on_update: Optional[Callable[[types.UpdateSessionNotification], Any]] = None
        # -> an optionId, an option kind or None
        self.on_permission: Optional[Callable[[types.RequestPermissionRequest], Any]] = None
        # -> a dict (accept), "decline" or None
        self.on_elicitation: Optional[Callable[[types.CreateElicitationRequest], Any]] = None
        self.on_notification: Optional[Callable[[str, Payload], Any]] = None  # ext + unknown notifications
        self.on_auth_status_update: Optional[Callable[[Payload], Any]] = None  # unstable=True: its params
        self.on_traffic: Optional[Callable[[str, str], Any]] = None     # ("in"/"out", line)
        self.on_session_change: Optional[Callable[[SessionChange], Any]] = None  # after observe_sessions()
        self.on_closed: Optional[Callable[[AcpError], Any]] = None
        self.on_handler_error: Optional[Callable[[BaseException], Any]] = None
        self.handler_errors: List[BaseException] = []
        self._ext_handlers: Dict[str, Callable[[Payload], Any]] = {}
        # Update events: None = automatic (on while on_update is set or a prompt turn may be
        # iterated, else off: _sync_updates), or what report_updates() chose.
        self._updates_choice: Optional[bool] = None
        self._updates_reported = True  # what the C side does now
        self._observing = False        # observe_sessions() was asked for
        self._client_methods: Dict[str, Callable[[Payload], Any]] = {}  # v1 "fs/..." -> handler
        # The tool servers offered, by session (None: the latest session/new still pending)
        # and name: a tool call event names its server, and one name may be another server
        # in another session.
        self._tool_servers: Dict[Optional[str], Dict[str, ToolServer]] = {}

    @staticmethod
    def _c_log_level(level: int) -> int:
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
        for name in handlers:
            self._client_methods["terminal/" + name] = getattr(terminals, name)
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

    def _live(self) -> Any:
        if self._handle is None:
            raise ConnectionClosed("the client was freed")
        return self._handle

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

    def hasten_close(self) -> None:
        """A "stop the agent" pressed again: closes, and once closing takes the shutdown's
        next step now instead of after its grace (terminate, then kill the agent's tree)."""
        if self._handle is not None:
            _check(lib.acp_client_hasten_close(self._handle))
            self._kick()

    @property
    def closed(self) -> bool:
        return self._handle is None or bool(lib.acp_client_is_closed(self._handle))

    def _free(self) -> None:
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

    def __del__(self) -> None:
        try:
            self._free()
        except Exception:
            pass
    def _report(self, error: BaseException) -> None:
        """A host handler raised: reported, and the client goes on. A ToolError is a tool's
        answer, not a bug."""
        if isinstance(error, _tools.ToolError):
            return
        self.handler_errors.append(error)
        if self.on_handler_error is not None:
            self.on_handler_error(error)
        else:
            log.error("a libacp handler raised", exc_info=error)

    def _call_handler(self, handler: Callable[..., Any], *args: Any,
                      answer: Optional[Callable[[Any, Optional[BaseException]], None]] = None) -> None:
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
    # Provided by Client and AsyncClient: how a call waits, how the loop is woken.
    def _kick(self) -> None:
        raise NotImplementedError

    def _finish(self, started: Tuple[int, "_Pending"]) -> Any:
        raise NotImplementedError

    def _run_coroutine(self, awaitable: Any, answer: Optional[Callable[[Any, Optional[BaseException]], None]]) -> None:
        raise NotImplementedError

    def _tasks_hold(self, responder_id: int, reply: Callable[[Any, Optional[BaseException]], None]) -> None:
        pass

    def _pump(self, done: Callable[[], bool]) -> None:
        raise NotImplementedError
