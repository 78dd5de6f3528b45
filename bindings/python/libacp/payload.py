# SPDX-License-Identifier: Apache-2.0
"""Payloads as the agent sent them, readable the Python way.

A Payload is the wire JSON object itself (a dict with the protocol's camelCase keys, so
update["sessionUpdate"] and json.dumps(update) work as before) whose fields also read as
snake_case attributes: update.session_update, update.content.text,
request.tool_call.tool_call_id. Nested objects are Payloads too. A field the agent left
out raises AttributeError (use .get() for optional fields).
"""
import functools
import json
from typing import Any


@functools.lru_cache(maxsize=512)
def _wire_name(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


class Payload(dict):
    """A JSON object of the protocol: a dict, plus snake_case attribute access."""
    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        try:
            return self[_wire_name(name)]
        except KeyError:
            raise AttributeError("%s (wire name %r) is not in this payload" % (name, _wire_name(name))) from None

    def __dir__(self):
        return list(super().__dir__()) + [_snake(key) for key in self]


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def loads(text: str) -> Any:
    """json.loads, with every object a Payload."""
    return json.loads(text, object_pairs_hook=Payload)
