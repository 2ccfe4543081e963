"""Replay files of the robustness profile: a failing batch of fuzzed frames, shrunk by Hypothesis, saved as JSON so
that ``--replay FILE`` sends exactly that batch again (sans-I/O apart from the two file functions).

    {"requirement": "ROBUST-HOOK-SERVER-KEEP-01", "subject": "hook-server",
     "inputs": [{"kind": "garbage", "text": "{"}, {"kind": "binary", "base64": "AAE="}]}

An MCP subject's batch (``simulator.profiles.fuzz.mcp_inputs``) says ``"format": "mcp"``; its inputs are raw JSON-RPC lines,
``"__ID__"`` where the fresh id goes:

    {"requirement": "ROBUST-CCWEB-ANSWER-01", "subject": "ccweb", "format": "mcp",
     "inputs": [{"kind": "unknown-method", "lines": ["{\"jsonrpc\":\"2.0\",\"id\":\"__ID__\",\"method\":\"x\"}"],
                 "expect": "one", "code": -32601}]}
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from .mcp_inputs import McpInput
from .wire_inputs import WireInput

__all__ = ["Replay", "load_replay", "save_replay"]


@dataclass(frozen=True, slots=True)
class Replay:
    requirement: str
    subject: str
    inputs: tuple[WireInput, ...] | tuple[McpInput, ...]
    #: "frames" (WebSocket frames of a hook subject) or "mcp" (raw JSON-RPC lines of an MCP subject).
    fmt: str = "frames"

    def to_json(self) -> dict[str, Any]:
        return {"requirement": self.requirement, "subject": self.subject,
                **({"format": self.fmt} if self.fmt != "frames" else {}),
                "inputs": [i.to_json() for i in self.inputs]}


def save_replay(folder: Path, replay: Replay) -> Path:
    """Write ``replay`` under ``folder`` (created) as ``<requirement>.json``; its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', replay.requirement)}.json"
    path.write_text(json.dumps(replay.to_json(), ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def load_replay(path: Path) -> Replay:
    """The replay in ``path``; a ``ConfigError`` names what is wrong with the file."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"--replay {path}: cannot read it: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("requirement"), str) \
            or not isinstance(data.get("inputs"), list) or not data["inputs"]:
        raise ConfigError(f"--replay {path}: not a replay file (an object with 'requirement' and a non-empty "
                          f"'inputs' list)")
    fmt = data.get("format", "frames")
    if fmt not in ("frames", "mcp"):
        raise ConfigError(f"--replay {path}: unknown format {fmt!r} (frames or mcp)")
    inputs: tuple[WireInput, ...] | tuple[McpInput, ...]
    try:
        if fmt == "mcp":
            inputs = tuple(McpInput.from_json(i) for i in data["inputs"])
        else:
            inputs = tuple(WireInput.from_json(i) for i in data["inputs"])
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        raise ConfigError(f"--replay {path}: an input is malformed: {exc}") from None
    return Replay(data["requirement"], str(data.get("subject", "")), inputs, fmt)
