"""Strings a peer sent, as SQLite and JSON can hold them: shared by the references' stores.

A JSON string may escape a lone surrogate (``"r\\ud800"``) and the protocol's parser, like the upstream one, takes such
a frame as valid (spec §2 "坏帧返回 ok:false … 绝不抛异常": the frame is the peer's business, never a reason to fail).
Python keeps the surrogate in the string, but UTF-8 (SQLite's text, orjson) cannot encode it: one such requestId,
deviceName or alias failed a store's whole transaction. What a store writes therefore carries U+FFFD in each lone
surrogate's place, as a Node peer's UTF-8 encoding of the same string would; the machines keep the string as received,
so only what a restart restores differs.
"""

from __future__ import annotations

import re
from typing import Any, Final

import orjson

__all__ = ["storable", "storable_json", "storable_text"]

#: A surrogate code point in a Python string is always a lone one (JSON's escaped pairs decode to one code point).
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def storable_text(value: str) -> str:
    """``value`` with each lone surrogate replaced by U+FFFD (an ASCII string is returned as it is, at once)."""
    return value if value.isascii() else _SURROGATE.sub("\ufffd", value)


def storable(value: Any) -> Any:
    """``value`` (JSON-shaped: dicts, lists, tuples, strings, scalars) with every string made storable."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, dict):
        return {storable_text(k) if isinstance(k, str) else k: storable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [storable(v) for v in value]
    return value


def storable_json(value: Any) -> str:
    """``value`` as JSON text: orjson, and only when it refuses a lone surrogate, the value made storable first."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # orjson.JSONEncodeError: "str is not valid UTF-8: surrogates not allowed"
        return orjson.dumps(storable(value)).decode()
