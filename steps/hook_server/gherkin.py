"""How the hook-server phrases write values: escaped texts, button lists, hang-ups (Gherkin notation only)."""

from __future__ import annotations

import json

from simulator.drivers.hook_server import Hangup

#: ``drops`` / ``closes`` its connection.
HANGUP = {"drops": Hangup.DROP, "closes": Hangup.CLOSE}


def unescape(text: str) -> str:
    """A quoted Gherkin text with JSON escapes (``\\n`` for a newline) as the text it stands for."""
    return json.loads('"' + text + '"')


def button_ids(text: str) -> list[str]:
    """``"approve, reject"`` → ``["approve", "reject"]``."""
    return [t.strip() for t in text.split(",") if t.strip()]
