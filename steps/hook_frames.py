"""Step vocabulary for ``features/hook/frames``: build a frame, mutate it, deliver it to the subject under test.

The frame features state where the protocol core rejects a frame. As conformance scenarios (bound by
``features/hook/test_hook_frames.py``, once per hook subject: the hook server and the desktop under test) each
rejection case is **sent over the wire** to the subject, which must drop it (spec §2 "两端收帧唯一入口是
parseHookMessage … 坏帧返回 ok:false", §3 "老端收到未知 type 丢帧不断连"): keep the connection open, send nothing in
reaction, keep answering ping (阶段 1 "收到 ping 必须回 pong"), and, where its control API offers ``dropped-frames``,
report the drop at the case's pointer and code. A valid ``ping`` case must be answered with ``pong``. The parser's
own agreement with the upstream package is a unit test (tests/hook/test_frame_features.py binds the same
features with parser steps), never a conformance result. Frames the subject *sends* are judged against the same
requirements by ``simulator.emitted_frames``.

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
* ``When the frame is given as text|bytes|an object``: the input form (over the wire: a text frame carrying that
  text; bytes that are not UTF-8 go as a binary frame, since a text frame cannot carry them, RFC 6455 §5.6).
* ``Then the frame is accepted`` (bound for ``ping`` frames: answered with ``pong``) /
  ``Then the frame is rejected at "<pointer>"`` / ``Then the error code is "<CODE>"``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.errors import SubjectTimeout
from simulator.hook import jsontext, parse_hook_message
from simulator.jsonpointer import pointer_remove, pointer_set
from simulator.roles.frame_probe import DeliveryOutcome, DesktopOpener, FrameProbe, HookServerOpener
from simulator.targets import Role
from simulator.wirelog import WireLog

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

    def text(self, *, ascii_only: bool = False) -> str:
        if self.raw_text is not None:
            return self.raw_text
        text = json.dumps(self.frame, ensure_ascii=ascii_only, separators=(",", ":"))
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

    @property
    def claimed_type(self) -> str | None:
        if self.frame is not None and isinstance(self.frame, dict):
            value = self.frame.get("type")
            return value if isinstance(value, str) else None
        try:
            data = json.loads(self.text())
        except ValueError:
            return None
        return data.get("type") if isinstance(data, dict) and isinstance(data.get("type"), str) else None

    def wire_frame(self) -> tuple[str | bytes, bool]:
        """What goes on the wire and whether as a binary frame: the text (for the text and object forms), the
        bytes as a text frame when they are UTF-8, else the bytes as a binary frame."""
        data = self.parser_input() if self.form == "bytes" else self.text()
        if isinstance(data, bytes):
            try:
                return data.decode("utf-8"), False
            except UnicodeDecodeError:
                return data, True
        try:
            data.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: on the wire it can only be the JSON escape "\udXXX"
            if self.raw_text is None:
                return self.text(ascii_only=True), False
            return data.encode("utf-8", "surrogatepass"), True
        return data, False

    #: The subject's outcome, once delivered (every Then-step of the scenario judges the same delivery).
    outcome: DeliveryOutcome | None = None

    def delivered(self, probe: FrameProbe, wire: WireLog, *, answered: bool = False) -> DeliveryOutcome:
        if self.outcome is None:
            data, binary = self.wire_frame()
            self.outcome = probe.deliver(data, wire, binary=binary, ping_case=self.claimed_type == "ping",
                                         answered=answered)
        return self.outcome


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


@bdd.given("the text frame:", target_fixture="frame_case")
def given_text_frame(docstring: str) -> FrameCase:
    return FrameCase(raw_text=docstring)


@bdd.given(parsers.parse('the sample frame "{name}"'), target_fixture="frame_case")
def given_sample_frame(name: str) -> FrameCase:
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


# -- Then: the subject's answer to the delivered frame ----------------------------------------------------------

_DROP_RULE = ("spec §2: 两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false; §3: 老端收到未知 type 丢帧不断连; "
              "阶段 1: 收到 ping 必须回 pong")


def _judge_alive(probe: FrameProbe, outcome: DeliveryOutcome, what: str) -> None:
    if outcome.closed is not None:
        raise AssertionError(f"the {probe.subject} closed the connection after {what} instead of dropping it: "
                             f"{outcome.describe()} ({_DROP_RULE})")
    if not outcome.answered_barrier:
        if outcome.silent:
            raise SubjectTimeout(f"the {probe.subject} stopped answering after {what}: {outcome.describe()}")
        raise AssertionError(f"the {probe.subject} did not answer the ping sent after {what}: {outcome.describe()} "
                             f"({_DROP_RULE})")
    acted = [r for r in outcome.reactions if not _refuses_invalid_dispatch(r)]
    if acted:
        raise AssertionError(f"the {probe.subject} acted on {what}: {outcome.describe()} ({_DROP_RULE})")


def _refuses_invalid_dispatch(frame) -> bool:
    """A desktop may answer a task.dispatch it cannot accept with ``task.ack`` rejected ``invalid`` (阶段 2: "拒绝原因:
    … / `invalid`"): a refusal, not acting on the frame. Every other frame sent in reaction is acting on it."""
    if not frame.ok or frame.type != "task.ack":
        return False
    payload = frame.message.payload
    return getattr(payload, "result", None) == "rejected" and getattr(payload, "reason", None) == "invalid"


def _dropped_entry(probe: FrameProbe, outcome: DeliveryOutcome) -> dict | None:
    if outcome.dropped is None:
        return None
    assert outcome.dropped, (f"the {probe.subject}'s control API offers dropped-frames but lists no drop for this "
                             f"frame: {outcome.describe()}")
    return outcome.dropped[0]


@bdd.then(parsers.re(r'the frame is rejected at "(?P<pointer>[^"]*)"'))
def then_rejected_at(frame_case: FrameCase, frame_probe: FrameProbe, wire_log: WireLog, pointer: str) -> None:
    outcome = frame_case.delivered(frame_probe, wire_log)
    what = f"a frame its parser must reject at {pointer!r}"
    _judge_alive(frame_probe, outcome, what)
    if frame_case.claimed_type == "ping":
        assert outcome.pongs == 1, (f"the {frame_probe.subject} answered {what} with a pong ({outcome.pongs} pongs "
                                    f"for one valid ping): {outcome.describe()} ({_DROP_RULE})")
    entry = _dropped_entry(frame_probe, outcome)
    if entry is not None and not (outcome.sent_as == "binary" and entry.get("reason") == "binary"):
        assert entry.get("path") == pointer, (
            f"the {frame_probe.subject} reported the drop at {entry.get('path')!r}, the frame is invalid at "
            f"{pointer!r} (docs/control-api.md dropped-frames: path is the JSON pointer of the parse issue): {entry!r}")


@bdd.then(parsers.parse('the error code is "{code}"'))
def then_error_code(frame_case: FrameCase, frame_probe: FrameProbe, wire_log: WireLog, code: str) -> None:
    outcome = frame_case.delivered(frame_probe, wire_log)
    _judge_alive(frame_probe, outcome, f"a frame its parser must reject with {code}")
    entry = _dropped_entry(frame_probe, outcome)
    if entry is not None and not (outcome.sent_as == "binary" and entry.get("reason") == "binary"):
        assert entry.get("code") == code, (
            f"the {frame_probe.subject} reported the drop with code {entry.get('code')!r}, expected {code!r} "
            f"(docs/control-api.md dropped-frames: code comes from the parse result): {entry!r}")


@bdd.then("the frame is accepted")
def then_accepted(frame_case: FrameCase, frame_probe: FrameProbe, wire_log: WireLog) -> None:
    """Bound for ``ping`` frames only (features/hook/conftest.py): a valid ping must be answered with a pong."""
    if frame_case.claimed_type != "ping":
        raise AssertionError("the wire binding judges accepted frames only for ping (features/hook/conftest.py "
                             "should have deselected this case)")
    outcome = frame_case.delivered(frame_probe, wire_log, answered=True)
    what = "a valid ping"
    _judge_alive(frame_probe, outcome, what)
    assert outcome.pongs >= 2, (f"the {frame_probe.subject} did not answer {what} with a pong "
                                f"(阶段 1: 收到 ping 必须回 pong): {outcome.describe()}")


# -- fixtures: one probe per hook subject, kept for the module ----------------------------------------------------


@pytest.fixture(scope="module")
def frame_probes(harness, subjects, harness_config):
    """The receive probes of the run, opened lazily per subject and closed at the end of the frames module."""
    probes: dict[str, FrameProbe] = {}
    yield probes
    for probe in probes.values():
        probe.close()


def _opener(subject: str, harness, subjects, harness_config):
    step = harness_config.step_timeout
    if subject == Role.HOOK_SERVER.value:
        target = harness_config.target(Role.HOOK_SERVER)
        return HookServerOpener(
            subjects.hook_server_url(), subjects.hook_server_token(), step, subjects.control(Role.HOOK_SERVER, None),
            note=lambda identity: harness.note_subject(subject, target.raw, identity))
    target = harness_config.target(Role.DESKTOP)
    dial = None
    token = None
    if target.is_reference:
        def dial(url: str):
            return subjects.dial_reference_desktop(url, None)
    else:
        token = harness_config.hook_token
    return DesktopOpener(subjects.desktop_listen(), step, max(step, DESKTOP_REDIAL_S), dial, token,
                         note=lambda identity: harness.note_subject(subject, target.raw, identity),
                         dial_watch=subjects.desktop_dial_watch())


#: How long the probe waits for a desktop under test to dial (again): its reconnect back-off.
DESKTOP_REDIAL_S = 15.0


@pytest.fixture
def frame_probe(frame_subject: str, frame_probes, harness, subjects, harness_config) -> FrameProbe:
    probe = frame_probes.get(frame_subject)
    if probe is None:
        probe = frame_probes[frame_subject] = FrameProbe(
            frame_subject, _opener(frame_subject, harness, subjects, harness_config))
    return probe
