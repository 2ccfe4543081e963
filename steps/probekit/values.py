"""Values as the probe-kit features write them (JSON in a step or a doc string, a block of names, quoted names);
reading Gherkin text only, no protocol rule."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["json_value", "names", "quoted_names"]


def json_value(text: str) -> Any:
    """A JSON value a step carries (Examples cells arrive with their escapes already undone: control characters
    are allowed in strings)."""
    try:
        return json.loads(text, strict=False)
    except ValueError as exc:
        raise ValueError(f"step value {text!r} is not JSON: {exc}") from exc


def names(text: str) -> list[str]:
    """The names of a doc string, separated by white space or commas."""
    return [n for n in re.split(r"[\s,]+", text or "") if n]


def quoted_names(text: str) -> list[str]:
    """``a", "b" and "c`` (what ``"{fields}"`` captures of ``"a", "b" and "c"``) as ``[a, b, c]``."""
    return [f for f in re.split(r'"?,\s*"?|"? and "?', text) if f]
