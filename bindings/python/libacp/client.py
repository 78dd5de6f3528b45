# SPDX-License-Identifier: Apache-2.0
"""The Pythonic client over libacp's C API.

Both clients use the C API's pull queue in polled mode: libacp never calls into Python.
Client pumps the loop itself while a call waits (select on acp_client_fd); AsyncClient
registers that descriptor with the running asyncio loop (loop.add_reader) and a timer
for acp_client_timeout_ms, so nothing polls busily and no thread is needed.

The parts live by concern: _connection (opening, settings, closing), _requests (calls to
the agent), _events and _responders (what the agent sends), session (Session,
PromptTurn), model (the session model). This module puts them together.
"""
import asyncio
import select
import weakref
from typing import TYPE_CHECKING, Any, Callable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native as native
from ._events import _Events
from ._requests import _Requests
from .errors import AcpError, ConnectionClosed
from . import schema_types as types
from .model import Item, SessionChange, SessionModel
from .session import Content, PromptTurn, Session, _Pending
from .tools import ToolServer

lib = native.lib

__all__ = ["AsyncClient", "Client", "Content", "Item", "PromptTurn", "Session", "SessionChange", "SessionModel"]


class _BaseClient(_Requests, _Events):
    """What Client and AsyncClient share; they differ in how a call waits."""


class Client(_BaseClient):
    """The synchronous client: each call runs libacp's loop until its answer arrived.

        with Client(["my-agent", "--acp"]) as client:
            client.initialize()
            session = client.new_session(cwd="/home/me/project")
            client.on_permission = lambda request: request["options"][0]["optionId"]
            for update in session.prompt("Fix the failing test"):
                print(update["sessionUpdate"])
    """

    if TYPE_CHECKING:  # what each call returns here (the calls: _requests.py)
        def initialize(self) -> types.InitializeResponse: ...
        def login(self, method_id: str) -> types.LoginAuthResponse: ...
        def logout(self) -> types.LogoutAuthResponse: ...
        def new_session(self, cwd: str, mcp_servers: Sequence[Mapping[str, Any]] = (),
                        tools: Sequence[ToolServer] = (), **extra: Any) -> Session: ...
        def resume_session(self, session_id: str, cwd: str, replay: bool = False,
                           tools: Sequence[ToolServer] = (), **extra: Any) -> Session: ...
        def fork_session(self, session_id: str, cwd: str, tools: Sequence[ToolServer] = (),
                         **extra: Any) -> Session: ...
        def list_sessions(self, cwd: Optional[str] = None) -> List[types.SessionInfo]: ...
        def list_sessions_page(self, cwd: Optional[str] = None,
                               cursor: Optional[str] = None) -> types.ListSessionsResponse: ...
        def close_session(self, session_id: str) -> types.CloseSessionResponse: ...
        def delete_session(self, session_id: str) -> types.DeleteSessionResponse: ...
        def set_config_option(self, session_id: str, config_id: str, value: Union[str,
                              bool]) -> types.SetSessionConfigOptionResponse: ...
        def cancel_tool_call(self, session_id: str, tool_call_id: str) -> types.CancelToolCallResponse: ...
        def cancel_terminal(self, session_id: str, terminal_id: str) -> types.CancelTerminalResponse: ...
        def ext_request(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any: ...
        def unstable_call(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any: ...

    def _kick(self) -> None:
        pass

    def _finish(self, started: Tuple[int, _Pending]) -> Any:
        _, pending = started
        self._pump(lambda: pending.done)
        return pending.result()

    def _pump(self, done: Callable[[], bool]) -> None:
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

    def _run_coroutine(self, awaitable: Any, answer: Optional[Callable[[Any, Optional[BaseException]],
                       None]]) -> None:
        # A coroutine handler in a synchronous client runs to its end right here.
        async def run() -> Any:
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


def _run_async_client(ref: "weakref.ref[AsyncClient]") -> None:
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

    if TYPE_CHECKING:  # what each call returns here (the calls: _requests.py)
        async def initialize(self) -> types.InitializeResponse: ...
        async def login(self, method_id: str) -> types.LoginAuthResponse: ...
        async def logout(self) -> types.LogoutAuthResponse: ...
        async def new_session(self, cwd: str, mcp_servers: Sequence[Mapping[str, Any]] = (),
                              tools: Sequence[ToolServer] = (), **extra: Any) -> Session: ...
        async def resume_session(self, session_id: str, cwd: str, replay: bool = False,
                                 tools: Sequence[ToolServer] = (), **extra: Any) -> Session: ...
        async def fork_session(self, session_id: str, cwd: str, tools: Sequence[ToolServer] = (),
                               **extra: Any) -> Session: ...
        async def list_sessions(self, cwd: Optional[str] = None) -> List[types.SessionInfo]: ...
        async def list_sessions_page(self, cwd: Optional[str] = None,
                                     cursor: Optional[str] = None) -> types.ListSessionsResponse: ...
        async def close_session(self, session_id: str) -> types.CloseSessionResponse: ...
        async def delete_session(self, session_id: str) -> types.DeleteSessionResponse: ...
        async def set_config_option(self, session_id: str, config_id: str, value: Union[str,
                                    bool]) -> types.SetSessionConfigOptionResponse: ...
        async def cancel_tool_call(self, session_id: str, tool_call_id: str) -> types.CancelToolCallResponse: ...
        async def cancel_terminal(self, session_id: str, terminal_id: str) -> types.CancelTerminalResponse: ...
        async def ext_request(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any: ...
        async def unstable_call(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any: ...

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._timer: Optional[asyncio.TimerHandle] = None
        self._kicked = False
        self._ref = weakref.ref(self)

    def _attach(self) -> None:
        if self._loop is None and self._handle is not None:
            self._loop = asyncio.get_running_loop()
            self._loop.add_reader(lib.acp_client_fd(self._handle), _run_async_client, self._ref)

    def _detach(self) -> None:
        if self._loop is not None:
            if self._handle is not None:
                self._loop.remove_reader(lib.acp_client_fd(self._handle))
            if self._timer is not None:
                self._timer.cancel()
            self._loop = None

    def _kick(self) -> None:
        """Work was posted: run the loop on the next turn."""
        try:
            self._attach()
        except RuntimeError:
            return  # no running loop (set-up calls): the first awaited call attaches
        if not self._kicked and self._loop is not None:
            self._kicked = True
            self._loop.call_soon(_run_async_client, self._ref)

    def _run(self) -> None:
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

    async def _wait(self, pending: _Pending) -> Any:
        if not pending.done:
            pending.future = asyncio.get_running_loop().create_future()
            self._kick()
            await pending.future
        return pending.result()

    def _finish(self, started: Tuple[int, _Pending]) -> Any:
        _, pending = started
        return self._wait(pending)

    def _run_coroutine(self, awaitable: Any, answer: Optional[Callable[[Any, Optional[BaseException]],
                       None]]) -> None:
        task = asyncio.ensure_future(awaitable)

        def finished(t: "asyncio.Future[Any]") -> None:
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

    def _tasks_hold(self, responder_id: int, reply: Callable[[Any, Optional[BaseException]], None]) -> None:
        task = getattr(self, "_last_task", None)
        if task is not None and not task.done():
            self._tasks[responder_id] = task
            task.add_done_callback(lambda _: self._tasks.pop(responder_id, None))
        self._last_task = None

    def __del__(self) -> None:
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

