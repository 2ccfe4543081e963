"""The sample library: valid frames written from the spec, one JSON file of named variants per message type
(``scenarios/hook/samples/<type>.json``).

The folder is given by whoever builds the library (the steps' fixture: the harness's root), never found from this
file: the suite's data ships apart from the ``simulator`` package.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...hook import utf16_len

__all__ = ["PADDING_KEY", "SampleLibrary"]

#: The unknown envelope key a padded sample carries its padding in (unknown keys are kept, §3).
PADDING_KEY = "padding"


class SampleLibrary:
    """``<type>/<variant>`` names → sample frames, read from ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def types(self) -> list[str]:
        """The message types the library has samples of."""
        return sorted(path.stem for path in self.folder.glob("*.json"))

    def load(self, name: str) -> Any:
        """The sample ``<type>/<variant>``; a ``LookupError`` names what the library has instead."""
        type_name, _, variant = name.partition("/")
        path = self.folder / f"{type_name}.json"
        if not path.is_file():
            raise LookupError(f"no sample file {path} for sample {name!r} (samples exist for {self.types()})")
        variants = json.loads(path.read_text(encoding="utf-8"))
        if variant not in variants:
            raise LookupError(f"sample {name!r}: {path.name} has no variant {variant!r} (has {sorted(variants)})")
        return variants[variant]

    def padded(self, name: str, units: int, char: str) -> str:
        """The sample's text, exactly ``units`` UTF-16 code units long (``String.prototype.length``, the measure of
        the spec's size limits), padded with ``char`` (and ``a`` for a remainder) in an unknown envelope key."""
        frame = dict(self.load(name))
        frame[PADDING_KEY] = ""
        base = utf16_len(_compact(frame))
        missing = units - base
        if missing < 0:
            raise ValueError(f"sample {name!r} is already {base} UTF-16 units long, more than {units}")
        count, rest = divmod(missing, utf16_len(char))
        frame[PADDING_KEY] = char * count + "a" * rest
        text = _compact(frame)
        assert utf16_len(text) == units, "padding arithmetic is off"
        return text


def _compact(frame: Any) -> str:
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
