# SPDX-License-Identifier: Apache-2.0
"""Sessions and prompt turns: what new_session/resume_session return and what prompt()
starts, plus the pending-call record every request completes through."""
import asyncio
from typing import (TYPE_CHECKING, Any, AsyncIterator, Callable, Generator, Iterator, List, Mapping, Optional,
                    Sequence, Tuple, Union)

from .payload import Payload

from .schema_types import SessionUpdate

if TYPE_CHECKING:
    import asyncio as _asyncio
    from ._requests import _Requests
    from .model import SessionModel

# A prompt: text, or a list of ContentBlock dicts ({"type": "text", "text": ...}, ...).
Content = Union[str, Sequence[Mapping[str, Any]]]

class _Pending:
    """One outstanding C call: its result arrives as an ACP_EVENT_RESULT."""

    def __init__(self, convert: Callable[[Any], Any]) -> None:
        self.convert = convert
        self.session_id: Optional[str] = None  # the session the result names
        self.done = False
        self.value: Any = None
        self.error: Optional[BaseException] = None
        self.future: "Optional[_asyncio.Future[Any]]" = None
        self.turn: Optional[PromptTurn] = None  # a prompt's turn, acknowledged by the result

    def complete(self, value: Any = None, error: Optional[BaseException] = None) -> None:
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

    def result(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value


class PromptTurn:
    """One prompt turn. Iterate it (for / async for) to get the session updates as they
    arrive, up to the idle state that ends the turn; stop_reason is then set."""

    def __init__(self, client: "_Requests", session_id: str, ends_on_answer: bool = False) -> None:
        self._client = client
        self.session_id = session_id
        self._updates: List[SessionUpdate] = []
        self._acknowledged = False
        # ACP v1 answers a prompt at the end of the turn, after libacp delivered the
        # lifted idle state: the answer itself ends the turn (docs/v1.md).
        self._ends_on_answer = ends_on_answer
        self._last_idle: Optional[SessionUpdate] = None
        self.finished = False
        self.stop_reason: Optional[str] = None
        self.error: Optional[BaseException] = None
        self.message_id: Optional[str] = None
        self._waiter: "Optional[_asyncio.Future[None]]" = None
        self.request = 0
        # Waited for, never iterated: its updates are nobody's, so the client may leave
        # update events off (fast by default, _Connection._sync_updates).
        self._wait_only = False

    # fed by the client
    def _update(self, update: SessionUpdate) -> None:
        if not self._wait_only:
            self._updates.append(update)
        if update.get("sessionUpdate") == "state_update" and update.get("state") == "idle":
            self._last_idle = update
            if self._acknowledged:
                self.finished = True
                self.stop_reason = update.get("stopReason")
        self._wake()

    def _acknowledge(self, response: Optional[Payload], error: Optional[BaseException]) -> None:
        if error is not None:
            self.error = error
            self.finished = True
        else:
            self._acknowledged = True
            self.message_id = response.get("messageId") if response is not None else None
            if self._ends_on_answer:
                self.finished = True
                self.stop_reason = self._last_idle.get("stopReason") if self._last_idle is not None else None
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _next_ready(self) -> Tuple[bool, Any]:
        if self._updates:
            return True, self._updates.pop(0)
        if self.finished:
            if self.error is not None:
                raise self.error
            return True, StopIteration
        return False, None

    def __iter__(self) -> Iterator[SessionUpdate]:
        while True:
            self._client._pump(lambda: bool(self._updates) or self.finished)
            ready, value = self._next_ready()
            if value is StopIteration:
                return
            yield value

    def __aiter__(self) -> AsyncIterator[SessionUpdate]:
        return self._aiter()

    async def _aiter(self) -> AsyncIterator[SessionUpdate]:
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

        async def run() -> Optional[str]:
            async for _ in self:
                pass
            return self.stop_reason
        return run().__await__()

    def cancel(self) -> None:
        """session/cancel: the turn ends with stop reason "cancelled"."""
        self._client.cancel(self.session_id)


class Session:
    """A session of the client (created by new_session or resume_session)."""

    def __init__(self, client: "_Requests", session_id: str, response: Optional[Payload] = None) -> None:
        self.client = client
        self.id = session_id
        self.response: Payload = response if response is not None else Payload()  # its result

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

