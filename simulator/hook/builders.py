"""One builder per message type: ``make_<type with dots as underscores>`` (spec §8 ``make*()``).

``make_task_ack(request_id="r1", result="accepted", session_id="s1")`` builds the typed payload from its
fields, wraps it with ``build_hook_message`` (UUID v4 ``id``, unix-ms ``ts``, both injectable through the
keyword arguments ``id``, ``ts``, ``ids``, ``clock``) and validates it. The functions are generated from the type
table so that every type has one, with the payload class's fields as parameters.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from . import (  # noqa: F401 - the family modules fill the type table on import
    attachments,
    behavior,
    binding,
    group,
    interaction,
    msg_op,
    prefs,
    provider_bind,
    query,
    session,
    tasks,
    tools,
    turns,
)
from .constants import MessageType
from .envelope import HookMessage, build_hook_message
from .registry import TYPES

_ENVELOPE_OPTIONS = ("id", "ts", "ids", "clock", "validate")


def builder_name(type_: MessageType) -> str:
    return "make_" + type_.value.replace(".", "_")


def _make_builder(type_: MessageType) -> Callable[..., HookMessage]:
    payload_cls = TYPES[type_].payload

    def make(*args: Any, **kwargs: Any) -> HookMessage:
        # An envelope option given as None means "the default", as the signature advertises.
        options = {k: v for k in _ENVELOPE_OPTIONS if (v := kwargs.pop(k, None)) is not None}
        return build_hook_message(payload_cls(*args, **kwargs), **options)

    make.__name__ = make.__qualname__ = builder_name(type_)
    make.__doc__ = (
        f"Build a valid ``{type_.value}`` frame from the fields of ``{payload_cls.__name__}`` "
        f"(plus envelope options {', '.join(_ENVELOPE_OPTIONS)})."
    )
    params = list(inspect.signature(payload_cls).parameters.values())
    params += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=None) for k in _ENVELOPE_OPTIONS]
    make.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    return make


BUILDERS: dict[MessageType, Callable[..., HookMessage]] = {t: _make_builder(t) for t in MessageType}
globals().update({builder_name(t): f for t, f in BUILDERS.items()})
__all__ = ["BUILDERS", "builder_name", *sorted(builder_name(t) for t in MessageType)]
