# SPDX-License-Identifier: Apache-2.0
"""The session model as Python objects: snapshots (SessionModel), items, and the changes
an observing client reports (SessionChange; docs/session-model.md)."""
import ctypes
import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from . import _native as native
from .errors import check

lib = native.lib

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
    config_options: Optional[List[Any]]
    commands: Optional[List[Any]]
    usage: Optional[Dict[str, Any]]
    json: str = field(repr=False)     # the canonical dump, byte-identical for equal models

    @property
    def is_idle(self) -> bool:
        return self.state == "idle"


def read_item(handle: Any, session_id: str, index: Optional[int] = None, kind: Optional[str] = None,
              item_id: Optional[str] = None) -> Item:
    """One item of the live model, by index or by kind and id (no snapshot)."""
    pointer = ctypes.c_void_p()
    if index is not None:
        check(lib.acp_client_item(ctypes.byref(pointer), handle, session_id.encode(), index))
    else:
        check(lib.acp_client_find_item(ctypes.byref(pointer), handle, session_id.encode(),
                                        native.ITEM_KINDS.index(kind or ""), (item_id or "").encode()))
    try:
        item = pointer.value
        size = ctypes.c_size_t()
        text = native.sized_text(lib.acp_item_text(item, ctypes.byref(size)), size)
        return Item(kind=native.ITEM_KINDS[lib.acp_item_kind(item)], id=native.text(lib.acp_item_id(item)) or "",
                    text=text, title=native.text(lib.acp_item_title(item)),
                    status=native.text(lib.acp_item_status(item)),
                    data=json.loads(native.text(lib.acp_item_json(item)) or "{}"))
    finally:
        lib.acp_item_free(pointer)


def read_model(handle: Any, session_id: str) -> SessionModel:
    pointer = ctypes.c_void_p()
    check(lib.acp_client_session(ctypes.byref(pointer), handle, session_id.encode()))
    try:
        s = pointer.value
        dump = native.text(lib.acp_session_json(s)) or "{}"
        whole = json.loads(dump)
        items = []
        for i in range(lib.acp_session_item_count(s)):
            items.append(Item(kind=native.ITEM_KINDS[lib.acp_session_item_kind(s, i)],
                              id=native.text(lib.acp_session_item_id(s, i)) or "",
                              text=native.text(lib.acp_session_item_text(s, i)),
                              title=native.text(lib.acp_session_item_title(s, i)),
                              status=native.text(lib.acp_session_item_status(s, i)),
                              data=json.loads(native.text(lib.acp_session_item_json(s, i)) or "{}")))
        foreground = whole["foreground"]
        return SessionModel(session_id=whole["sessionId"], state=foreground["state"],
                            stop_reason=foreground["stopReason"], title=whole["info"]["title"], items=items,
                            config_options=whole["configOptions"], commands=whole["availableCommands"],
                            usage=whole["usage"], json=dump)
    finally:
        lib.acp_session_free(pointer)

