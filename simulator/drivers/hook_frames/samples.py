"""The sample library: valid frames written from the spec, one JSON file of named variants per message type
(``scenarios/hook/samples/<type>.json``).

Each file is read once per library (a run reads the same few dozen samples thousands of times, one per scenario):
the library keeps each variant's JSON text, and every ``load`` decodes a fresh copy of it, so a scenario that
changes the frame it got never changes the next scenario's. A padded text (``padded``) is immutable and the last
few are kept: the size-limit outlines pad the same sample to the same size for each input form and each subject.

The folder is given by whoever builds the library (the steps' fixture: the harness's root), never found from this
file: the suite's data ships apart from the ``simulator`` package.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path
from typing import Any, NamedTuple

from ...hook import utf16_len
from ...hook.checks import has_lone_surrogate

__all__ = ["PADDING_KEY", "Padded", "SampleLibrary"]

#: The unknown envelope key a padded sample carries its padding in (unknown keys are kept, §3).
PADDING_KEY = "padding"
#: How many padded texts a library keeps (two 48 MiB texts: ~200 MB at most).
_KEPT_PADDED = 2


class Padded(NamedTuple):
    """A padded sample's text and whether it has a UTF-8 form (no lone surrogate): known from its parts, the sample
    and the padding character, without scanning 48 MiB."""

    text: str
    utf8: bool


class SampleLibrary:
    """``<type>/<variant>`` names → sample frames, read from ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        #: ``<type>`` → its variants as compact JSON texts (the file as read on first use).
        self._texts: dict[str, dict[str, str]] = {}
        #: The last padded texts, by ``(name, units, char)``, the most recent last.
        self._padded: OrderedDict[tuple[str, int, str], Padded] = OrderedDict()

    def types(self) -> list[str]:
        """The message types the library has samples of."""
        return sorted(path.stem for path in self.folder.glob("*.json"))

    def load(self, name: str) -> Any:
        """The sample ``<type>/<variant>``; a ``LookupError`` names what the library has instead."""
        type_name, _, variant = name.partition("/")
        variants = self._texts.get(type_name)
        if variants is None:
            path = self.folder / f"{type_name}.json"
            if not path.is_file():
                raise LookupError(f"no sample file {path} for sample {name!r} (samples exist for {self.types()})")
            variants = {key: json.dumps(value, ensure_ascii=False)
                        for key, value in json.loads(path.read_text(encoding="utf-8")).items()}
            self._texts[type_name] = variants
        if variant not in variants:
            raise LookupError(f"sample {name!r}: {type_name}.json has no variant {variant!r} (has {sorted(variants)})")
        return json.loads(variants[variant])

    def padded(self, name: str, units: int, char: str) -> Padded:
        """The sample's text, exactly ``units`` UTF-16 code units long (``String.prototype.length``, the measure of
        the spec's size limits), padded with ``char`` (and ``a`` for a remainder) in an unknown envelope key, and
        whether that text has a UTF-8 form: it holds a lone surrogate only if the sample or ``char`` does.

        The text is the compact JSON of the frame with the padding as that key's value. A padding ``char`` that JSON
        writes as itself (anything but ``"``, ``\\`` and control characters) is spliced into the text of the
        frame written with a placeholder instead of being encoded again, and the size is counted on the parts: a
        48 MiB frame is then built with one copy of the padding instead of four (escaping, joining, UTF-16
        encoding to count it)."""
        key = (name, units, char)
        found = self._padded.get(key)
        if found is None:
            sample = self.load(name)
            found = Padded(self._pad(sample, name, units, char),
                           not (has_lone_surrogate(_compact(sample)) or has_lone_surrogate(char)))
            self._padded[key] = found
            while len(self._padded) > _KEPT_PADDED:
                self._padded.popitem(last=False)
        self._padded.move_to_end(key)
        return found

    @staticmethod
    def _pad(sample: Any, name: str, units: int, char: str) -> str:
        frame = dict(sample)
        frame[PADDING_KEY] = ""
        base = utf16_len(_compact(frame))
        missing = units - base
        if missing < 0:
            raise ValueError(f"sample {name!r} is already {base} UTF-16 units long, more than {units}")
        width = utf16_len(char)
        count, rest = divmod(missing, width)
        if _compact(char) != f'"{char}"':  # written escaped: the encoder writes the padding
            frame[PADDING_KEY] = char * count + "a" * rest
            text = _compact(frame)
            assert utf16_len(text) == units, "padding arithmetic is off"
            return text
        frame[PADDING_KEY] = _PLACEHOLDER
        head, found, tail = _compact(frame).partition(_compact(_PLACEHOLDER))
        assert found and _compact(_PLACEHOLDER) not in tail, "the padding placeholder is not unique in the sample"
        assert utf16_len(head) + 1 + count * width + rest + 1 + utf16_len(tail) == units, "padding arithmetic is off"
        return "".join((head, '"', char * count, "a" * rest, '"', tail))


#: The padding key's value while the rest of the frame is written (replaced by the padding itself).
_PLACEHOLDER = "@@padding@@"


def _compact(frame: Any) -> str:
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
