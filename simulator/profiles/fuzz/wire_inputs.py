"""What the robustness profile throws at a hook subject: Hypothesis strategies of WebSocket inputs every conformant
peer must drop (sans-I/O: values in, values out).

Spec basis (slack-hook-protocol.md): §2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false + 字段路径,绝不抛
异常", §3 "老端收到未知 type 丢帧不断连" and the frame limit ``HOOK_MAX_FRAME_CHARS`` = 48 MiB of UTF-16 code units;
UPSTREAM-FACTS.md for what the upstream parser rejects. Every text input is checked against the protocol core's
parser, which agrees with the upstream package's verdicts (tests/hook/test_frame_features.py): an input it accepts
is not garbage and is filtered out (a valid frame may be acted on; judging that is the conformance features' work).

Kinds (``InputKind``), seeded from the valid samples of ``scenarios/hook/samples``:

* ``mutated``: a sample with one field replaced by a value of another JSON kind, removed, or given a hostile value;
* ``unknown-type``: a sample whose ``type`` is none of the 41;
* ``garbage``: text that is not a JSON object (arbitrary text, truncated frames, JSON scalars and arrays);
* ``binary``: a binary WebSocket frame of bytes the parser rejects (arbitrary bytes, a valid frame's bytes with a
  byte that is not UTF-8). A binary frame of a valid frame's UTF-8 bytes is not garbage: the parser takes bytes
  (§8, HOOK-FRAME-ENV-INPUT-01) and the spec does not say a binary frame must be dropped;
* ``deep``: arrays or objects nested 33 to 5,000 levels in a field that is checked;
* ``surrogate``: a lone UTF-16 surrogate escape (``\\ud800``) where a string is checked;
* ``duplicate-keys``: a frame whose object repeats a key, the last value invalid (JSON.parse keeps the last one);
* ``huge-number``: an integer literal of 300 to 5,000 digits where a number is checked (``v``, ``ts``);
* ``oversize``: one frame a UTF-16 code unit over 48 MiB (``oversize_input``), sent last in each property's run, not fuzzed.

(The frame features cover the far ends, 100,000 levels and 10,000 digits, once each; repeated here they would
cost the parser's slow path a second per input.)

A ``WireInput`` is what travels (text or bytes, and whether the frame is binary) and serialises to JSON for a
replay file (``simulator.profiles.fuzz.replay``).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, cast

from hypothesis import strategies as st

from ...hook import HOOK_MAX_FRAME_CHARS, HOOK_MESSAGE_TYPES, parse_hook_message
from ...jsonpointer import join, pointer_remove, pointer_set

__all__ = ["InputKind", "WireInput", "is_garbage", "oversize_input", "wire_inputs"]


class InputKind(StrEnum):
    MUTATED = "mutated"
    UNKNOWN_TYPE = "unknown-type"
    GARBAGE = "garbage"
    BINARY = "binary"
    DEEP = "deep"
    SURROGATE = "surrogate"
    DUPLICATE_KEYS = "duplicate-keys"
    HUGE_NUMBER = "huge-number"
    OVERSIZE = "oversize"


@dataclass(frozen=True, slots=True)
class WireInput:
    """One WebSocket frame: ``data`` (str for a text frame, bytes for a binary one) and how it was made."""

    kind: InputKind
    data: str | bytes

    @property
    def binary(self) -> bool:
        return isinstance(self.data, bytes)

    def describe(self, limit: int = 160) -> str:
        shown = repr(self.data[:limit]) + (f"… ({len(self.data)} in all)" if len(self.data) > limit else "")
        return f"{self.kind.value} {'binary' if self.binary else 'text'} frame {shown}"

    def to_json(self) -> dict[str, Any]:
        if self.binary:
            data = cast(bytes, self.data)  # a binary frame's data is bytes
            return {"kind": self.kind.value, "base64": base64.b64encode(data).decode("ascii")}
        return {"kind": self.kind.value, "text": self.data}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WireInput:
        kind = InputKind(data["kind"])
        if "base64" in data:
            return cls(kind, base64.b64decode(data["base64"]))
        if not isinstance(data.get("text"), str):
            raise ValueError("a replayed input has neither 'text' (a string) nor 'base64'")
        return cls(kind, data["text"])


def is_garbage(item: WireInput) -> bool:
    """Whether every conformant peer must drop ``item``: text or bytes the parser rejects."""
    return not parse_hook_message(item.data).ok


def oversize_input(units: int = HOOK_MAX_FRAME_CHARS + 1) -> WireInput:
    """A ping padded to ``units`` UTF-16 code units (one over the limit by default, §3 HOOK_MAX_FRAME_CHARS): too
    large, dropped before JSON parsing. Deterministic, sent after the search of each property's run (50 MB do not fuzz well)."""
    head = '{"v":1,"type":"ping","id":"oversize","ts":1767225600000,"payload":{},"padding":"'
    tail = '"}'
    return WireInput(InputKind.OVERSIZE, head + "a" * (units - len(head) - len(tail)) + tail)


def _compact(frame: Any) -> str:
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))


def _leaves(value: Any, path: str = "") -> list[str]:
    """Every JSON pointer under ``value`` (containers and scalars), depth first."""
    out = [path] if path else []
    if isinstance(value, dict):
        for key, sub in value.items():
            out += _leaves(sub, join(path, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            out += _leaves(sub, join(path, i))
    return out


#: Values a field is set to in a mutation: every JSON kind, and the hostile ones the upstream parser meets.
_HOSTILE = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=40), st.just(""), st.just(" "),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.just({"toString": 1}), st.just(-1), st.just(1.5), st.text(min_size=4097, max_size=5000),
)
_REMOVE = object()


def _splice_first(text: str, key: str, literal: str) -> str | None:
    """``text`` with the value of the first ``"key":`` replaced by the raw ``literal`` (None if the key is absent)."""
    marker = f'"{key}":'
    at = text.find(marker)
    if at < 0:
        return None
    start = at + len(marker)
    end = start
    depth = 0
    in_string = escaped = False
    while end < len(text):
        ch = text[end]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            if depth == 0:
                break
            depth -= 1
        elif ch == "," and depth == 0:
            break
        end += 1
    return text[:start] + literal + text[end:]


def wire_inputs(samples: list[dict[str, Any]]) -> st.SearchStrategy[WireInput]:
    """Inputs every conformant peer drops, of every kind, seeded from the valid ``samples``."""
    if not samples:
        raise ValueError("the robustness inputs need at least one valid sample frame")
    sample = st.sampled_from(samples)

    @st.composite
    def mutated(draw: st.DrawFn) -> WireInput:
        frame = draw(sample)
        pointer = draw(st.sampled_from(_leaves(frame)))
        value = draw(st.one_of(_HOSTILE, st.just(_REMOVE)))
        frame = pointer_remove(frame, pointer) if value is _REMOVE else pointer_set(frame, pointer, value)
        return WireInput(InputKind.MUTATED, _compact(frame))

    @st.composite
    def unknown_type(draw: st.DrawFn) -> WireInput:
        frame = dict(draw(sample))
        name = draw(st.text(min_size=0, max_size=30).filter(lambda t: t not in HOOK_MESSAGE_TYPES))
        frame["type"] = name
        return WireInput(InputKind.UNKNOWN_TYPE, _compact(frame))

    @st.composite
    def garbage(draw: st.DrawFn) -> WireInput:
        text = draw(st.one_of(
            st.text(max_size=200).filter(lambda t: not _has_lone_surrogate(t)),
            st.builds(lambda s, n: _compact(s)[:n], sample, st.integers(min_value=0, max_value=400)),
            st.sampled_from(["", " ", "null", "true", "0", "[]", '"ping"', "{}", "{", "}", "[{}]", "NaN"]),
        ))
        return WireInput(InputKind.GARBAGE, text)

    @st.composite
    def binary(draw: st.DrawFn) -> WireInput:
        data = draw(st.one_of(
            st.binary(max_size=200),
            st.builds(lambda s, cut: _compact(s).encode()[:cut] + b"\xff" + _compact(s).encode()[cut:], sample,
                      st.integers(min_value=0, max_value=200))))
        return WireInput(InputKind.BINARY, data)

    @st.composite
    def deep(draw: st.DrawFn) -> WireInput:
        depth = draw(st.sampled_from([33, 64, 1000, 5000]))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        literal = opener * depth + ("1" if opener == '{"a":' else "") + closer * depth
        text = _splice_first(_compact(draw(sample)), draw(st.sampled_from(["v", "id", "ts", "type"])), literal)
        return WireInput(InputKind.DEEP, text or literal)

    @st.composite
    def surrogate(draw: st.DrawFn) -> WireInput:
        escape = draw(st.sampled_from(["\\ud800", "\\udfff", "a\\ud83d", "\\ude00b"]))
        text = _splice_first(_compact(draw(sample)), draw(st.sampled_from(["id", "type"])), f'"{escape}"')
        return WireInput(InputKind.SURROGATE, text or f'"{escape}"')

    @st.composite
    def duplicate_keys(draw: st.DrawFn) -> WireInput:
        text = _compact(draw(sample))
        key = draw(st.sampled_from(["v", "type", "id", "ts", "payload"]))
        bad = draw(st.sampled_from(['null', '"x"', "[]", "-1", "true"]))
        return WireInput(InputKind.DUPLICATE_KEYS, text[:-1] + f',"{key}":{bad}' + "}")

    @st.composite
    def huge_number(draw: st.DrawFn) -> WireInput:
        digits = draw(st.integers(min_value=300, max_value=5_000))
        literal = draw(st.sampled_from(["", "-"])) + "9" * digits
        text = _splice_first(_compact(draw(sample)), draw(st.sampled_from(["v", "ts"])), literal)
        return WireInput(InputKind.HUGE_NUMBER, text or literal)

    every = st.one_of(mutated(), unknown_type(), garbage(), binary(), deep(), surrogate(), duplicate_keys(),
                      huge_number())
    return every.filter(is_garbage)


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
