"""The table of message types: for each type, its payload class, its payload check and its spec reference.

Each family module fills its rows with ``define``; the envelope parser and the builders read the table. A test
pins that every one of the 41 types has a row.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass

from .checks import Obj
from .constants import MessageType
from .issues import HookIssue
from .wire import Wire

__all__ = ["TypeSpec", "TYPES", "define", "spec_for_payload"]

Check = Callable[[Obj], HookIssue | None]


@dataclass(frozen=True, slots=True)
class TypeSpec:
    type: MessageType
    payload: builtins.type[Wire]  # ``type`` alone would name the field above
    check: Check
    #: Where the spec describes this type, e.g. "slack-hook-protocol.md §5 阶段 2/4/7/9 task.ack".
    ref: str
    #: The check accepts the empty payload ``{}`` (ping, pong, ...): the parser then skips calling it on ``{}``.
    #: Computed by running the check on ``{}`` once, so it cannot disagree with the check.
    empty_ok: bool = False


TYPES: dict[MessageType, TypeSpec] = {}
_BY_PAYLOAD: dict[type[Wire], TypeSpec] = {}


def define(type_: MessageType, payload: type[Wire], check: Check, ref: str) -> None:
    if type_ in TYPES:
        raise RuntimeError(f"message type {type_.value} is defined twice")
    spec = TypeSpec(type_, payload, check, ref, check(Obj({}, "/payload", ref, type_.value)) is None)
    TYPES[type_] = spec
    _BY_PAYLOAD[payload] = spec


def spec_for_payload(payload: Wire) -> TypeSpec:
    try:
        return _BY_PAYLOAD[type(payload)]
    except KeyError:
        raise TypeError(f"{type(payload).__name__} is not the payload of a hook message type") from None
