"""Typed payloads: frozen dataclasses that map one-to-one to the JSON objects on the wire.

Attribute names are snake_case; the wire name is the camelCase form (``queue_position`` ↔ ``queuePosition``).
A field that may be left out of the frame defaults to ``ABSENT`` (JavaScript ``undefined``), which is not the same
as ``None`` (JSON ``null``): the difference carries meaning (provider.behavior.set: absent = untouched, null =
clear the override). Keys the type does not declare are kept in ``extra`` (spec §3 "字段级宽容": unknown fields are
ignored, and we keep them so a relay can pass them on).

Nested objects and lists of objects declare their item type with ``nested(...)`` / ``nested_list(...)``; other
lists become tuples so a payload is immutable all the way down, except for values the protocol leaves free
(``tool.request.args``, ``tool.response.result``), which stay as decoded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

from .checks import ABSENT

__all__ = ["Wire", "nested", "nested_list", "strings", "opt", "camel"]

W = TypeVar("W", bound="Wire")
_EMPTY: Mapping[str, Any] = MappingProxyType({})


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def opt(**kw: Any) -> Any:
    """A field that may be absent from the frame (defaults to ``ABSENT``)."""
    meta = kw.pop("metadata", {})
    return dataclasses.field(default=ABSENT, metadata=meta, **kw)


def nested(cls: type[Wire], *, optional: bool = False, default: Any = dataclasses.MISSING) -> Any:
    """A nested wire object; ``optional`` lets the key be absent, ``default`` gives builders a default value."""
    meta = {"of": cls}
    if optional:
        default = ABSENT
    return dataclasses.field(default=default, metadata=meta)


def nested_list(cls: type[Wire] | None = None, *, optional: bool = False, default: Any = dataclasses.MISSING) -> Any:
    """A list (a tuple in Python) of nested wire objects, or of plain values when ``cls`` is None."""
    meta = {"of": cls, "many": True}
    if optional:
        default = ABSENT
    return dataclasses.field(default=default, metadata=meta)


def strings(*, optional: bool = False, default: Any = dataclasses.MISSING) -> Any:
    return nested_list(None, optional=optional, default=default)


class Wire:
    """Base of every payload and nested wire object (subclasses are frozen, slotted dataclasses)."""

    __slots__ = ()
    #: (attribute, wire name, item class or None, is a list) per declared field, built on first use.
    _plan: ClassVar[tuple[tuple[str, str, type[Wire] | None, bool], ...]]
    _known: ClassVar[frozenset[str]]

    @classmethod
    def _wire_plan(cls) -> tuple[tuple[str, str, type[Wire] | None, bool], ...]:
        plan = cls.__dict__.get("_plan")
        if plan is None:
            plan = tuple(
                (f.name, camel(f.name), f.metadata.get("of"), bool(f.metadata.get("many")))
                for f in dataclasses.fields(cls)  # type: ignore[arg-type]  # every subclass is a dataclass, not Wire
                if f.name != "extra"
            )
            cls._plan = plan
            cls._known = frozenset(w for _, w, _, _ in plan)
        return plan

    @classmethod
    def from_wire(cls: type[W], data: Mapping[str, Any]) -> W:
        """Build from a decoded (and already validated) JSON object."""
        plan = cls._wire_plan()
        kwargs: dict[str, Any] = {}
        for attr, key, of, many in plan:
            v = data.get(key, ABSENT)
            if v is not ABSENT and v is not None:
                if many and isinstance(v, (list, tuple)):
                    v = tuple(of.from_wire(x) if of is not None and isinstance(x, Mapping) else x for x in v)
                elif of is not None and isinstance(v, Mapping):
                    v = of.from_wire(v)
            kwargs[attr] = v
        known = cls._known
        if len(data) > len(known) or any(k not in known for k in data):
            kwargs["extra"] = MappingProxyType({k: v for k, v in data.items() if k not in known})
        return cls(**kwargs)

    def to_wire(self) -> dict[str, Any]:
        """The JSON object for this value (absent fields left out, unknown keys kept)."""
        out: dict[str, Any] = {}
        for attr, key, _of, many in type(self)._wire_plan():
            v = getattr(self, attr)
            if v is ABSENT:
                continue
            if isinstance(v, Wire):
                v = v.to_wire()
            elif many and isinstance(v, (tuple, list)):
                v = [x.to_wire() if isinstance(x, Wire) else x for x in v]
            out[key] = v
        extra = getattr(self, "extra", _EMPTY)
        if extra:
            for k, v in extra.items():
                out.setdefault(k, v)
        return out


def extra_field() -> Any:
    """The trailing ``extra`` field every wire dataclass has."""
    return dataclasses.field(default_factory=lambda: _EMPTY, repr=False)
