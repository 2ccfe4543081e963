"""Step values written as JSON, and the JSON literals no Python value can stand for (spliced into a frame's text).

These are the harness's inputs, not protocol rules: the limits they probe (nesting depth, integer size, NaN) are
judged by the subject, against the expectations the features write.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

__all__ = ["Nesting", "integer_literal", "json_value", "list_like", "nested_literal"]


class Nesting(StrEnum):
    """What a deeply nested value is made of (``… is set to arrays|objects nested <n> levels deep``)."""

    ARRAYS = "arrays"
    OBJECTS = "objects"


def json_value(text: str) -> Any:
    """A step value written as JSON; a ``ValueError`` names the step value that is not."""
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ValueError(f"step value {text!r} is not a JSON literal: {exc}") from exc


def list_like(template: str, count: int) -> list[Any]:
    """``count`` items, each the JSON ``template`` with ``{i}`` replaced by the item's index."""
    return [json_value(template.replace("{i}", str(i))) for i in range(count)]


def nested_literal(kind: Nesting, depth: int) -> str:
    """``depth`` levels of empty arrays (``[[…]]``) or of objects (``{"a":{"a":…{}}}``), as JSON text."""
    if kind is Nesting.ARRAYS:
        return "[" * depth + "]" * depth
    return '{"a":' * (depth - 1) + "{}" + "}" * (depth - 1)


def integer_literal(digits: int, *, negative: bool = False) -> str:
    """An integer literal of ``digits`` nines (beyond any IEEE double's exact range when long)."""
    return ("-" if negative else "") + "9" * digits
