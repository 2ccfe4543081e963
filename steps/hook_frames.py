"""Step vocabulary for ``features/hook/frames``: build a frame, mutate it, judge the parse verdict.

The subject of these scenarios is the frame validator every peer runs on receipt (spec §2: "两端收帧唯一入口是
parseHookMessage"), here the harness's own ``simulator.hook.parse_hook_message``, whose verdicts must agree with
the upstream package that real peers run. Expectations live in the feature files and in the sample frames under
``scenarios/hook/samples/``; these steps only translate Gherkin into calls and typed assertions.

Vocabulary (see docs/writing-features.md):

* ``Given the text frame:`` + a doc string: the frame exactly as it would arrive in a WebSocket text frame.
* ``Given the sample frame "<type>/<variant>"``: a valid frame from ``scenarios/hook/samples/<type>.json``.
* ``Given the sample frame "<type>/<variant>" padded to exactly <n> UTF-16 code units with "<char>"``.
* ``When the field "<pointer>" is set to <json>`` / ``is removed`` /
  ``is set to a string of <n> "<char>" characters`` / ``is set to a list of <n> items like <json template>``
  (``{i}`` in the template becomes the item's index).
* Inputs that cannot be written as a JSON value or by hand, spliced into the text as literals:
  ``When the field "<pointer>" is set to arrays|objects nested <n> levels deep``,
  ``… is set to a [negative ]integer literal of <n> digits``, ``… is set to the number NaN`` (a NaN literal in
  text, a float NaN in an object), ``When the frame is given as bytes with an invalid UTF-8 byte in the field
  "<pointer>"``.
* ``When the frame is given as text|bytes|an object``: the input form handed to the parser (default: text).
* ``Then the frame is accepted`` / ``Then the frame is rejected at "<pointer>"`` /
  ``Then the error code is "<CODE>"`` / ``Then the parsed field "<pointer>" equals <json>``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.hook import jsontext, parse_hook_message
from simulator.jsonpointer import pointer_get, pointer_remove, pointer_set

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "scenarios" / "hook" / "samples"


@dataclass
class FrameCase:
    """What one scenario builds: a decoded frame to mutate, or a raw text that is sent as it is."""

    frame: Any = None
    raw_text: str | None = None
    form: str = "text"
    #: Placeholder strings in ``frame`` → the raw JSON text that replaces them (with its quotes) in the text.
    literals: dict[str, str] = field(default_factory=dict)
    #: A placeholder replaced by an invalid UTF-8 byte when the frame is given as bytes.
    bad_byte: str | None = None

    def text(self) -> str:
        if self.raw_text is not None:
            return self.raw_text
        text = json.dumps(self.frame, ensure_ascii=False, separators=(",", ":"))
        for placeholder, literal in self.literals.items():
            text = text.replace(json.dumps(placeholder), literal)
        return text

    def parser_input(self) -> Any:
        if self.form == "object":
            if self.raw_text is None and not self.literals:
                return self.frame
            return jsontext.loads(self.text())
        text = self.text()
        if self.form == "bytes":
            data = text.encode("utf-8", "surrogatepass")
            if self.bad_byte is not None:
                data = data.replace(self.bad_byte.encode(), b"\xff")
            return data
        return text

    def parse(self):
        return parse_hook_message(self.parser_input())


def load_sample(name: str) -> Any:
    """``<type>/<variant>`` from the sample library (a JSON object of variants per message type)."""
    type_name, _, variant = name.partition("/")
    path = SAMPLES_DIR / f"{type_name}.json"
    if not path.is_file():
        raise LookupError(f"no sample file {path} for sample {name!r}")
    variants = json.loads(path.read_text(encoding="utf-8"))
    if variant not in variants:
        raise LookupError(f"sample {name!r}: {path.name} has no variant {variant!r} (has {sorted(variants)})")
    return variants[variant]


def _json_literal(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ValueError(f"step value {text!r} is not a JSON literal: {exc}") from exc


def _utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


# -- Given -----------------------------------------------------------------------------------------------------


def _note_subject(harness) -> None:
    harness.note_subject("frame-validator", "simulator.hook.parse_hook_message",
                         {"description": "the harness's own frame parser, held to the upstream verdicts"})


@bdd.given("the text frame:", target_fixture="frame_case")
def given_text_frame(docstring: str, harness) -> FrameCase:
    _note_subject(harness)
    return FrameCase(raw_text=docstring)


@bdd.given(parsers.parse('the sample frame "{name}"'), target_fixture="frame_case")
def given_sample_frame(name: str, harness) -> FrameCase:
    _note_subject(harness)
    return FrameCase(frame=load_sample(name))


@bdd.given(
    parsers.parse('the sample frame "{name}" padded to exactly {units:d} UTF-16 code units with "{char}"'),
    target_fixture="frame_case",
)
def given_padded_frame(name: str, units: int, char: str) -> FrameCase:
    frame = dict(load_sample(name))
    frame["padding"] = ""
    base = _utf16_units(json.dumps(frame, ensure_ascii=False, separators=(",", ":")))
    missing = units - base
    if missing < 0:
        raise ValueError(f"sample {name!r} is already {base} UTF-16 units long, more than {units}")
    per_char = _utf16_units(char)
    count, rest = divmod(missing, per_char)
    frame["padding"] = char * count + "a" * rest
    text = json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
    assert _utf16_units(text) == units, "padding arithmetic is off"
    return FrameCase(raw_text=text)


# -- When ------------------------------------------------------------------------------------------------------


def _mutable(case: FrameCase) -> Any:
    if case.raw_text is not None:
        raise ValueError("a raw text frame cannot be mutated field by field; start from a sample frame")
    return case.frame


@bdd.when(parsers.re(r'the field "(?P<pointer>[^"]*)" is set to a string of (?P<n>\d+) "(?P<char>[^"]+)" characters'))
def when_field_long_string(frame_case: FrameCase, pointer: str, n: str, char: str) -> None:
    frame_case.frame = pointer_set(_mutable(frame_case), pointer, char * int(n))


@bdd.when(parsers.re(r'the field "(?P<pointer>[^"]*)" is set to a list of (?P<n>\d+) items like (?P<template>.+)'))
def when_field_list(frame_case: FrameCase, pointer: str, n: str, template: str) -> None:
    items = [_json_literal(template.replace("{i}", str(i))) for i in range(int(n))]
    frame_case.frame = pointer_set(_mutable(frame_case), pointer, items)


def _splice(case: FrameCase, pointer: str, literal: str) -> None:
    placeholder = f"@@literal-{len(case.literals)}@@"
    case.frame = pointer_set(_mutable(case), pointer, placeholder)
    case.literals[placeholder] = literal


@bdd.when(parsers.re(r'the field "(?P<pointer>[^"]*)" is set to (?P<kind>arrays|objects) nested (?P<n>\d+) levels deep'))
def when_field_nested(frame_case: FrameCase, pointer: str, kind: str, n: str) -> None:
    depth = int(n)
    literal = "[" * depth + "]" * depth if kind == "arrays" else '{"a":' * (depth - 1) + "{}" + "}" * (depth - 1)
    _splice(frame_case, pointer, literal)


@bdd.when(parsers.re(r'the field "(?P<pointer>[^"]*)" is set to an? (?P<sign>negative )?integer literal of (?P<n>\d+) digits'))
def when_field_big_integer(frame_case: FrameCase, pointer: str, sign: str | None, n: str) -> None:
    _splice(frame_case, pointer, ("-" if sign else "") + "9" * int(n))


@bdd.when(parsers.re(r'the field "(?P<pointer>[^"]*)" is set to the number NaN'))
def when_field_nan(frame_case: FrameCase, pointer: str) -> None:
    frame_case.frame = pointer_set(_mutable(frame_case), pointer, float("nan"))


@bdd.when(parsers.re(r'the frame is given as bytes with an invalid UTF-8 byte in the field "(?P<pointer>[^"]*)"'))
def when_invalid_utf8(frame_case: FrameCase, pointer: str) -> None:
    placeholder = "@@bad-byte@@"
    frame_case.frame = pointer_set(_mutable(frame_case), pointer, placeholder)
    frame_case.bad_byte, frame_case.form = placeholder, "bytes"


_SPECIAL_VALUES = (
    "a string of ", "a list of ", "arrays nested ", "objects nested ", "an integer literal ", "a negative integer ",
    "the number NaN",
)


@bdd.when(parsers.re(r'the field "(?P<pointer>[^"]*)" is set to (?P<value>(?!' + "|".join(_SPECIAL_VALUES) + ").+)"))
def when_field_set(frame_case: FrameCase, pointer: str, value: str) -> None:
    frame_case.frame = pointer_set(_mutable(frame_case), pointer, _json_literal(value))


@bdd.when(parsers.re(r'the field "(?P<pointer>[^"]*)" is removed'))
def when_field_removed(frame_case: FrameCase, pointer: str) -> None:
    frame_case.frame = pointer_remove(_mutable(frame_case), pointer)


@bdd.when(parsers.re(r"the frame is given as (?P<form>text|bytes|an object)$"))
def when_frame_form(frame_case: FrameCase, form: str) -> None:
    frame_case.form = "object" if form == "an object" else form
    if frame_case.form == "object" and frame_case.raw_text is not None:
        frame_case.frame = json.loads(frame_case.raw_text)
        frame_case.raw_text = None


# -- Then ------------------------------------------------------------------------------------------------------


def _describe(result) -> str:
    if result.ok:
        return "accepted"
    err = result.error
    return f"rejected at {err.path!r} ({err.code.value}): {err.message} [{err.spec_ref}]"


@bdd.then("the frame is accepted")
def then_accepted(frame_case: FrameCase) -> None:
    result = frame_case.parse()
    assert result.ok, f"expected the frame to be accepted, but it was {_describe(result)}"


@bdd.then(parsers.re(r'the frame is rejected at "(?P<pointer>[^"]*)"'))
def then_rejected_at(frame_case: FrameCase, pointer: str) -> None:
    result = frame_case.parse()
    assert not result.ok, f"expected a rejection at {pointer!r}, but the frame was accepted"
    assert result.error.path == pointer, f"expected a rejection at {pointer!r}, but it was {_describe(result)}"


@bdd.then(parsers.parse('the error code is "{code}"'))
def then_error_code(frame_case: FrameCase, code: str) -> None:
    result = frame_case.parse()
    assert not result.ok, f"expected error code {code}, but the frame was accepted"
    assert result.error.code.value == code, f"expected error code {code}, but it was {_describe(result)}"


@bdd.then(parsers.re(r'the parsed field "(?P<pointer>[^"]*)" equals (?P<value>.+)'))
def then_parsed_field(frame_case: FrameCase, pointer: str, value: str) -> None:
    result = frame_case.parse()
    assert result.ok, f"expected the frame to be accepted, but it was {_describe(result)}"
    wire = result.message.to_wire()
    assert pointer_get(wire, pointer) == _json_literal(value)
