"""Reading the values a ccweb step phrase lists: ``"a", "b" and "c"`` → ``["a", "b", "c"]``."""

from __future__ import annotations

import re

__all__ = ["quoted"]


def quoted(text: str) -> list[str]:
    """Every double-quoted value of ``text``, in order."""
    return re.findall(r'"([^"]*)"', text)
