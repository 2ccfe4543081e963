"""``FrameCase``: the frame one scenario builds, mutates by JSON pointer, and gives to the parser or the wire.

A case is either a decoded frame (a sample, then mutated with ``simulator.jsonpointer``) or a raw text sent exactly
as written. Inputs that no JSON value can hold (a NaN literal, a 400-digit integer, nesting deeper than Python's
encoder goes, a byte that is not UTF-8) are placeholder strings in the decoded frame, spliced into its text as
literals when the text is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ...hook import HookParseResult, MessageType, jsontext, parse_hook_message
from ...hook.checks import has_lone_surrogate
from ...jsonpointer import pointer_remove, pointer_set
from ...roles.frame_probe import DeliveryOutcome, FrameProbe
from ...wirelog import WireLog

__all__ = ["FrameCase", "InputForm"]

#: The placeholder replaced by an invalid UTF-8 byte when the frame is given as bytes.
_BAD_BYTE = "@@bad-byte@@"


class InputForm(StrEnum):
    """How the frame is given (``When the frame is given as text|bytes|an object``): the three inputs
    ``parseHookMessage`` takes (spec §2 "两端收帧唯一入口是 parseHookMessage")."""

    TEXT = "text"
    BYTES = "bytes"
    OBJECT = "object"

    @classmethod
    def named(cls, words: str) -> InputForm:
        """The form the feature's words name: ``text``, ``bytes`` or ``an object``."""
        return cls.OBJECT if words == "an object" else cls(words)


@dataclass
class FrameCase:
    """What one scenario builds: a decoded frame to mutate, or a raw text that is sent as it is."""

    frame: Any = None
    raw_text: str | None = None
    form: InputForm = InputForm.TEXT
    #: Placeholder strings in ``frame`` → the raw JSON text that replaces them (with its quotes) in the text.
    literals: dict[str, str] = field(default_factory=dict)
    #: A placeholder replaced by an invalid UTF-8 byte when the frame is given as bytes.
    bad_byte: str | None = None
    #: The subject's outcome, once delivered (every Then-step of the scenario judges the same delivery).
    outcome: DeliveryOutcome | None = None
    #: ``(raw_text, its claimed type)`` once read: a raw text is decoded once however often its type is asked for
    #: (a 48 MiB frame takes a tenth of a second to decode).
    _claimed: tuple[str, str | None] | None = field(default=None, repr=False, compare=False)
    #: ``(raw_text, whether it has a UTF-8 form)`` when the caller knows it from how the text was written.
    _utf8: tuple[str, bool] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def text_claiming(cls, text: str, claimed_type: str | None, *, utf8: bool | None = None) -> FrameCase:
        """A raw text whose claimed ``type`` (and, given ``utf8``, whether it has a UTF-8 form) the caller knows
        from how the text was written (a padded sample: the compact JSON of the sample with one more envelope key,
        so the sample's ``type``): the text is never decoded or scanned just to learn it (a 48 MiB frame)."""
        return cls(raw_text=text, _claimed=(text, claimed_type), _utf8=None if utf8 is None else (text, utf8))

    # -- mutations ---------------------------------------------------------------------------------------------

    def _mutable(self) -> Any:
        if self.raw_text is not None:
            raise ValueError("a raw text frame cannot be mutated field by field; start from a sample frame")
        return self.frame

    def set(self, pointer: str, value: Any) -> None:
        """The value at ``pointer`` becomes ``value`` (RFC 6901; a missing last member is added)."""
        self.frame = pointer_set(self._mutable(), pointer, value)

    def remove(self, pointer: str) -> None:
        self.frame = pointer_remove(self._mutable(), pointer)

    def splice(self, pointer: str, literal: str) -> None:
        """The value at ``pointer`` becomes the JSON text ``literal``, written as it is into the frame's text."""
        placeholder = f"@@literal-{len(self.literals)}@@"
        self.set(pointer, placeholder)
        self.literals[placeholder] = literal

    def put_invalid_utf8(self, pointer: str) -> None:
        """The string at ``pointer`` becomes one byte that is not UTF-8 (0xFF); the frame is given as bytes."""
        self.set(pointer, _BAD_BYTE)
        self.bad_byte, self.form = _BAD_BYTE, InputForm.BYTES

    def give_as(self, form: InputForm) -> None:
        """The input form; a raw text given as an object is decoded first (as ``JSON.parse`` would)."""
        self.form = form
        if form is InputForm.OBJECT and self.raw_text is not None:
            self.frame = json.loads(self.raw_text)
            self.raw_text = None

    # -- what the parser and the wire get ----------------------------------------------------------------------

    def text(self, *, ascii_only: bool = False) -> str:
        if self.raw_text is not None:
            return self.raw_text
        text = json.dumps(self.frame, ensure_ascii=ascii_only, separators=(",", ":"))
        for placeholder, literal in self.literals.items():
            text = text.replace(json.dumps(placeholder), literal)
        return text

    def parser_input(self) -> Any:
        """The argument ``parseHookMessage`` gets: the text, its UTF-8 bytes, or the decoded object."""
        if self.form is InputForm.OBJECT:
            if self.raw_text is None and not self.literals:
                return self.frame
            return jsontext.loads(self.text())
        text = self.text()
        if self.form is InputForm.BYTES:
            data = text.encode("utf-8", "surrogatepass")
            if self.bad_byte is not None:
                data = data.replace(self.bad_byte.encode(), b"\xff")
            return data
        return text

    def parse(self) -> HookParseResult:
        """The harness's own parser on the case (the parser's unit tests; never a conformance verdict)."""
        return parse_hook_message(self.parser_input())

    @property
    def claimed_type(self) -> str | None:
        """The ``type`` the frame claims (None when it names none or is not a JSON object)."""
        if self.frame is not None and isinstance(self.frame, dict):
            value = self.frame.get("type")
            return value if isinstance(value, str) else None
        text = self.text()
        if self._claimed is not None and self._claimed[0] is text:
            return self._claimed[1]
        try:
            data = json.loads(text)
        except ValueError:
            claimed = None
        else:
            claimed = data.get("type") if isinstance(data, dict) and isinstance(data.get("type"), str) else None
        if self.raw_text is not None:
            self._claimed = (text, claimed)
        return claimed

    @property
    def is_ping(self) -> bool:
        return self.claimed_type == MessageType.PING

    def wire_frame(self) -> tuple[str | bytes, bool]:
        """What goes on the wire and whether as a binary frame: the text (for the text and object forms), the
        bytes as a text frame when they are UTF-8, else the bytes as a binary frame (a text frame carries UTF-8
        only, RFC 6455 §5.6). Bytes with no invalid byte spliced in, of a text with no surrogate, are that text's
        UTF-8: they go as the text itself, which the WebSocket library encodes once (no encoding and decoding of a
        48 MiB case just to learn that)."""
        if self.form is InputForm.BYTES:
            if self.bad_byte is None:
                text = self.text()
                if self._has_utf8_form(text):
                    return text, False
            return _bytes_on_the_wire(self.parser_input())
        text = self.text()
        if self._has_utf8_form(text):
            return text, False
        if self.raw_text is None:  # a lone surrogate: on the wire it can only be the JSON escape "\udXXX"
            return self.text(ascii_only=True), False
        return text.encode("utf-8", "surrogatepass"), True

    def _has_utf8_form(self, text: str) -> bool:
        """Whether ``text.encode("utf-8")`` succeeds (no lone surrogate): as the case's writer said, else scanned."""
        if self._utf8 is not None and self._utf8[0] is text:
            return self._utf8[1]
        return not has_lone_surrogate(text)

    def delivered(self, probe: FrameProbe, wire: WireLog, *, answered: bool = False) -> DeliveryOutcome:
        """The subject's outcome for this case, delivered through ``probe`` on the first call only."""
        if self.outcome is None:
            data, binary = self.wire_frame()
            self.outcome = probe.deliver(data, wire, binary=binary, ping_case=self.is_ping, answered=answered)
        return self.outcome


def _bytes_on_the_wire(data: bytes) -> tuple[str | bytes, bool]:
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data, True
