# SPDX-License-Identifier: Apache-2.0
"""The client's events: draining the C API's pull queue and routing each event (results,
session updates, model changes, the agent's requests and notifications, logs, traffic,
the end of the connection) to the turns, pending calls and host handlers."""
import ctypes
import logging
from typing import Any, Optional

from . import _native as native
from ._responders import _Responders
from .errors import ConnectionClosed, error_for
from . import payload as _payload
from . import schema_types as types
from .payload import typed
from .model import SessionChange

lib = native.lib
log = logging.getLogger("libacp")

_LOG_LEVELS = {native.LOG_DEBUG: logging.DEBUG, native.LOG_INFO: logging.INFO,
               native.LOG_WARNING: logging.WARNING, native.LOG_ERROR: logging.ERROR}
_NO_PAYLOAD = frozenset((native.EVENT_SESSION_CHANGED, native.EVENT_LOG, native.EVENT_TRAFFIC,
                         native.EVENT_REQUEST_WITHDRAWN))
_TURN_ENDED = native.CHANGES.index("turn_ended")


class _Events(_Responders):
    # --- events ------------------------------------------------------------------------------
    def _dispatch(self) -> None:
        """Handles every queued event."""
        while self._handle is not None:
            event = ctypes.c_void_p()
            if lib.acp_client_next_event(ctypes.byref(event), self._handle) != native.OK:
                return
            try:
                self._handle_event(event.value)
            finally:
                lib.acp_event_free(event)

    def _end_turns(self, session_id: Optional[str], stop_reason: Optional[str]) -> None:
        """Without update events, the model's turn_ended ends the session's prompt turn."""
        idle = types.SessionUpdateStateUpdate(sessionUpdate="state_update", state="idle")
        if stop_reason is not None:
            idle["stopReason"] = stop_reason
        for turn in list(self._turns):
            if turn.session_id == session_id:
                turn._update(idle)
                if turn.finished:
                    self._turns.remove(turn)

    def _handle_event(self, event: Any) -> None:
        kind = lib.acp_event_type(event)
        # Change, log, traffic and withdrawal events carry no JSON payload.
        payload = None if kind in _NO_PAYLOAD else _payload.loads(native.string(lib.acp_event_json(event)))
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
            payload = typed(payload, types.UpdateSessionNotification)
            session_id = payload.get("sessionId")
            # libacp delivers only checked updates; a dict is all the iteration relies on.
            update = payload.update if isinstance(payload.get("update"), dict) else types.SessionUpdate()
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
            self._answer_request(event, self.on_permission, typed(payload, types.RequestPermissionRequest),
                                 lambda r, value, error: self._answer_permission(r, options, value, error))
        elif kind == native.EVENT_ELICITATION_REQUEST:
            self._answer_request(event, self.on_elicitation, typed(payload, types.CreateElicitationRequest),
                                 self._answer_elicitation)
        elif kind == native.EVENT_EXT_REQUEST:
            method = native.string(lib.acp_event_method(event))
            self._answer_request(event, self._ext_handlers.get(method), payload, self._answer_ext)
        elif kind == native.EVENT_CLIENT_REQUEST:
            method = native.string(lib.acp_event_method(event))
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
                self._call_handler(self.on_notification, method, typed(payload, types.PARAMS.get(method)))
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
                                       session_id=native.string(lib.acp_event_session_id(event)),
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

