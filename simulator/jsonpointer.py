"""JSON Pointer (RFC 6901) helpers: building the paths our errors carry, and editing decoded JSON by pointer.

Errors everywhere in this project name the offending value by a JSON pointer (``/payload/buttons/3/id``); the
harness's mutation steps and tests address fields the same way. Edits return a modified deep copy and never touch
their input.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["escape", "join", "split", "pointer_get", "pointer_set", "pointer_remove"]


def escape(token: str | int) -> str:
    """One reference token, escaped (``~`` → ``~0``, ``/`` → ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def join(base: str, *tokens: str | int) -> str:
    """``join("/payload", "buttons", 3)`` → ``/payload/buttons/3``."""
    return base + "".join("/" + escape(t) for t in tokens)


def split(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"a JSON pointer starts with '/': {pointer!r}")
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def _index(container: list[Any], token: str, pointer: str, *, allow_end: bool = False) -> int:
    if token == "-" and allow_end:
        return len(container)
    if not token.isdigit():
        raise KeyError(f"{pointer}: {token!r} is not an array index")
    i = int(token)
    if i > len(container) or (i == len(container) and not allow_end):
        raise KeyError(f"{pointer}: index {i} is out of range")
    return i


def _parent(doc: Any, tokens: list[str], pointer: str) -> Any:
    node = doc
    for token in tokens:
        if isinstance(node, dict):
            if token not in node:
                raise KeyError(f"{pointer}: no member {token!r}")
            node = node[token]
        elif isinstance(node, list):
            node = node[_index(node, token, pointer)]
        else:
            raise KeyError(f"{pointer}: cannot descend into a {type(node).__name__}")
    return node


def pointer_get(doc: Any, pointer: str) -> Any:
    tokens = split(pointer)
    return _parent(doc, tokens, pointer) if tokens else doc


def pointer_set(doc: Any, pointer: str, value: Any) -> Any:
    """A copy of ``doc`` with the value at ``pointer`` set (a missing last member is added; ``-`` appends)."""
    tokens = split(pointer)
    if not tokens:
        return copy.deepcopy(value)
    out = copy.deepcopy(doc)
    parent = _parent(out, tokens[:-1], pointer)
    last = tokens[-1]
    if isinstance(parent, dict):
        parent[last] = copy.deepcopy(value)
    elif isinstance(parent, list):
        i = _index(parent, last, pointer, allow_end=True)
        if i == len(parent):
            parent.append(copy.deepcopy(value))
        else:
            parent[i] = copy.deepcopy(value)
    else:
        raise KeyError(f"{pointer}: cannot set a member of a {type(parent).__name__}")
    return out


def pointer_remove(doc: Any, pointer: str) -> Any:
    """A copy of ``doc`` without the value at ``pointer`` (which must exist)."""
    tokens = split(pointer)
    if not tokens:
        raise ValueError("cannot remove the whole document")
    out = copy.deepcopy(doc)
    parent = _parent(out, tokens[:-1], pointer)
    last = tokens[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise KeyError(f"{pointer}: no member {last!r} to remove")
        del parent[last]
    elif isinstance(parent, list):
        del parent[_index(parent, last, pointer)]
    else:
        raise KeyError(f"{pointer}: cannot remove a member of a {type(parent).__name__}")
    return out
