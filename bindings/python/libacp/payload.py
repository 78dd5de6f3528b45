# SPDX-License-Identifier: Apache-2.0
"""Payloads as the agent sent them, readable the Python way.

A Payload is the wire JSON object itself (a dict with the protocol's camelCase keys, so
update["sessionUpdate"] and json.dumps(update) work as before). The payloads the client
hands over are of the typed classes of libacp.schema_types (generated from the schema),
whose members read as typed snake_case properties: update.session_update,
update.content.text, request.options[0].option_id; an optional member the agent left out
reads as None, a required one absent or malformed raises AttributeError. A member the
schema does not name still reads as an untyped snake_case attribute (AttributeError when
absent). `.wire` is the dict itself, for code that wants to say it reads the wire.

The rest of this module is what the generated properties run: a member is converted when
it is read, so a payload nobody reads costs only its dict.
"""
import functools
import json
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional


@functools.lru_cache(maxsize=512)
def _wire_name(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


class Payload(Dict[str, Any]):
    """A JSON object of the protocol: a dict, plus snake_case attribute access."""
    __slots__ = ()

    if not TYPE_CHECKING:
        # Hidden from type checkers: on a typed class a misspelt member is an error there;
        # at run time, members the schema does not name read untyped.
        def __getattr__(self, name: str) -> Any:
            if isinstance(getattr(type(self), name, None), property):
                # A typed member's property raised (absent or malformed): Python then asks
                # here, where the raw wire value must not slip through untyped.
                raise AttributeError("%s (wire name %r) is missing or malformed in this %s"
                                     % (name, _wire_name(name), type(self).__name__))
            try:
                return self[_wire_name(name)]
            except KeyError:
                raise AttributeError("%s (wire name %r) is not in this payload" % (name, _wire_name(name))) from None

    def __dir__(self) -> List[str]:
        return list(super().__dir__()) + [_snake(key) for key in self]

    @property
    def wire(self) -> Dict[str, Any]:
        """The wire JSON object (this payload itself): camelCase keys, unknown members kept."""
        return self


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def encode(value: Any) -> Optional[bytes]:
    """A value as the UTF-8 JSON a C call takes (None stays None)."""
    return None if value is None else json.dumps(value).encode("utf-8")


def loads(text: str) -> Any:
    """json.loads, with every object a Payload."""
    return json.loads(text, object_pairs_hook=Payload)


# --- conversion when read -------------------------------------------------------------------------
# A converter maps a wire value to its typed value, or to _BAD when the value has another
# shape (a hostile or newer agent): a required member then raises, an optional one is None.

Converter = Callable[[Any], Any]
_BAD = object()


def field(payload: Mapping[str, Any], key: str, convert: Converter, required: bool) -> Any:
    """A generated property's value: payload[key] converted."""
    value = payload.get(key)
    if value is not None:
        value = convert(value)
        if value is not _BAD:
            return value
    if required:
        raise AttributeError("%r is %s in this %s" % (key, "missing" if key not in payload else "malformed",
                                                      type(payload).__name__))
    return None


def _scalar(*types: type) -> Converter:
    def convert(value: Any) -> Any:
        return value if isinstance(value, types) and not (isinstance(value, bool) and bool not in types) else _BAD
    return convert


def ANY(value: Any) -> Any:
    """The value as it is (members the schema leaves open)."""
    return value


STR = _scalar(str)
INT = _scalar(int)
FLOAT = _scalar(float, int)
BOOL = _scalar(bool)


def as_class(cls: type) -> Converter:
    """A JSON object as `cls`: the same dict, its class switched (no copy)."""
    def convert(value: Any) -> Any:
        if type(value) is cls:
            return value
        if isinstance(value, Payload):
            value.__class__ = cls
            return value
        if isinstance(value, dict):
            return cls(value)
        return _BAD
    return convert


def as_union(key: str, variants: Mapping[str, type], base: type) -> Converter:
    """A JSON object as the variant its discriminator `key` names (base: unknown tags)."""
    def convert(value: Any) -> Any:
        if not isinstance(value, dict):
            return _BAD
        tag = value.get(key)
        return as_class(variants.get(tag, base) if isinstance(tag, str) else base)(value)
    return convert


def as_list(item: Converter) -> Converter:
    """A JSON array with each item converted; items of another shape are left out (the
    schema's skip-invalid-items)."""
    def convert(value: Any) -> Any:
        if not isinstance(value, list):
            return _BAD
        items = [item(v) for v in value]
        if any(v is _BAD for v in items):
            return [v for v in items if v is not _BAD]
        value[:] = items  # class switches keep identity; plain dicts become their class once
        return value
    return convert


def as_map(item: Converter) -> Converter:
    """A JSON object whose values are converted (additionalProperties of a type)."""
    def convert(value: Any) -> Any:
        if not isinstance(value, dict):
            return _BAD
        return {k: v for k, v in ((k, item(v)) for k, v in value.items()) if v is not _BAD}
    return convert


def typed(value: Any, cls: Optional[type]) -> Any:
    """value (a Payload from loads) as `cls`, or as it is when cls is None or it is no object."""
    if cls is None or not isinstance(value, dict):
        return value
    return as_class(cls)(value)
