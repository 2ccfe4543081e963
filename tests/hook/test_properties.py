"""Properties of the hook-protocol core, checked with Hypothesis and by exhaustive mutation of the samples.

* ``parse_hook_message`` never raises, on arbitrary JSON values, arbitrary text, and arbitrary envelopes;
* every accepted frame round-trips: parse → serialize → parse gives the same message and the same JSON;
* every builder round-trips for every sample of every type;
* every single-field mutation of a valid sample that changes a known field's JSON kind (a string to a number, a
  list to a string, …) breaks that field's rule, so it is rejected with a path pointing at that field.

The valid samples (``scenarios/hook/samples``) are written from the spec, not produced by our builders.
The default profile keeps this fast; ``HYPOTHESIS_PROFILE=fuzz`` (or ``pytest -m fuzz``) runs the fuzz test with
at least one million generated inputs.
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulator.hook import HOOK_MESSAGE_TYPES, HookMessage, build_hook_message, parse_hook_message, serialize_hook_message
from simulator.jsonpointer import join, pointer_get, pointer_set

SAMPLES_DIR = Path(__file__).resolve().parents[2] / "scenarios" / "hook" / "samples"
SAMPLES: list[tuple[str, dict]] = [
    (f"{path.stem}/{name}", frame)
    for path in sorted(SAMPLES_DIR.glob("*.json"))
    for name, frame in json.loads(path.read_text(encoding="utf-8")).items()
]
#: Subtrees whose values the protocol leaves free (tool arguments and results).
FREE_SUBTREES = ("/payload/args", "/payload/result")
#: Declared fields the upstream validator does not check, so peers accept any value there (UPSTREAM-FACTS:
#: verdicts agree with upstream): the optional ``isBot`` of a thread-context entry.
UNCHECKED_FIELDS = re.compile(r"/payload/source/threadContext/\d+/isBot")


def test_samples_cover_every_type():
    assert {name.split("/")[0] for name, _ in SAMPLES} == set(HOOK_MESSAGE_TYPES)


def leaves(value: Any, path: str = "") -> list[str]:
    """Every JSON pointer under ``value`` (containers and scalars), depth first."""
    out = [path] if path else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += leaves(v, join(path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += leaves(v, join(path, i))
    return out


def other_kind(value: Any) -> Any:
    """A value of a different JSON kind than ``value``, accepted by no field that accepts ``value``'s kind."""
    if isinstance(value, bool):
        return "true"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return 12345
    if value is None:
        return {"unexpected": 1}
    return "unexpected"


MUTATION_CASES = [
    (name, path)
    for name, frame in SAMPLES
    for path in leaves(frame)
    if not path.startswith(FREE_SUBTREES) and not UNCHECKED_FIELDS.fullmatch(path)
]


def test_every_kind_change_is_rejected_at_the_changed_field():
    failures = []
    for name, path in MUTATION_CASES:
        frame = dict(SAMPLES)[name]
        mutated = pointer_set(frame, path, other_kind(pointer_get(frame, path)))
        result = parse_hook_message(json.dumps(mutated))
        if result.ok:
            failures.append(f"{name} {path}: accepted")
        elif result.error.path != path:
            failures.append(f"{name} {path}: rejected at {result.error.path!r} ({result.error.message})")
    assert len(MUTATION_CASES) > 1000
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", [n for n, _ in SAMPLES])
def test_samples_round_trip_through_builders(name):
    frame = dict(SAMPLES)[name]
    parsed = parse_hook_message(json.dumps(frame))
    assert parsed.ok, parsed.error
    rebuilt = build_hook_message(parsed.message.payload, id=frame["id"], ts=frame["ts"])
    assert rebuilt == parsed.message
    text = serialize_hook_message(rebuilt)
    assert json.loads(text) == frame
    assert parse_hook_message(text).message == rebuilt


# -- Hypothesis ------------------------------------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(exclude_categories=()))
)
json_values = st.recursive(
    json_scalars,
    lambda kids: st.lists(kids, max_size=5) | st.dictionaries(st.text(max_size=12), kids, max_size=6),
    max_leaves=25,
)
odd_values = json_values | st.floats() | st.just(float("nan")) | st.binary(max_size=40)


def assert_well_formed(result) -> None:
    assert isinstance(result.ok, bool)
    if result.ok:
        assert isinstance(result.message, HookMessage)
    else:
        assert result.error.path == "" or result.error.path.startswith("/")
        assert result.error.message and result.error.spec_ref


@given(odd_values)
def test_never_raises_on_arbitrary_values(value):
    assert_well_formed(parse_hook_message(value))


@given(st.text(alphabet=st.characters(exclude_categories=())))
def test_never_raises_on_arbitrary_text(text):
    assert_well_formed(parse_hook_message(text))


envelopes = st.fixed_dictionaries(
    {
        "v": st.sampled_from([1, 1.0, 2, True, "1"]),
        "type": st.sampled_from(HOOK_MESSAGE_TYPES) | st.text(max_size=8),
        "id": st.text(max_size=4) | json_scalars,
        "ts": json_scalars,
        "payload": st.dictionaries(st.text(max_size=16), json_values, max_size=8) | json_values,
    }
)


@given(envelopes)
def test_never_raises_on_arbitrary_envelopes(frame):
    assert_well_formed(parse_hook_message(frame))
    assert_well_formed(parse_hook_message(json.dumps(frame)))


@st.composite
def sample_mutants(draw):
    """A sample with one field replaced by an arbitrary JSON value (often still valid: free text, ids)."""
    name, frame = draw(st.sampled_from(SAMPLES))
    path = draw(st.sampled_from(leaves(frame)))
    return pointer_set(frame, path, draw(json_values))


@given(sample_mutants())
def test_accepted_frames_round_trip(frame):
    result = parse_hook_message(json.dumps(frame))
    assert_well_formed(result)
    if result.ok:
        text = serialize_hook_message(result.message)
        again = parse_hook_message(text)
        assert again.ok and again.message == result.message
        assert json.loads(text) == frame
        assert parse_hook_message(frame).ok  # the decoded-object path agrees with the text path


# -- the opt-in fuzz run ---------------------------------------------------------------------------------------

FUZZ_INPUTS = int(os.environ.get("HOOK_FUZZ_INPUTS", "1000000"))


def _mutate_text(rng: random.Random, text: str) -> str:
    i = rng.randrange(len(text) + 1)
    op = rng.randrange(4)
    alphabet = '{}[]",:0123456789.eE-+tfnul\\ \ud800\U0001F600a'
    if op == 0:
        return text[:i] + rng.choice(alphabet) + text[i:]
    if op == 1:
        return text[:i] + text[i + 1 :]
    if op == 2:
        return text[:i] + rng.choice(alphabet) + text[i + 1 :]
    j = rng.randrange(len(text) + 1)
    return text[: min(i, j)] + text[max(i, j) :]


def _mutate_value(rng: random.Random, frame: dict) -> dict:
    path = rng.choice(leaves(frame))
    choices = [None, True, False, 0, -1, 1.5, 2**53, 2**60, "", "x", "|", "/abs", "C:\\x", "-100", "https://a",
               [], {}, ["x"], {"k": None}, "\U0001F600" * 3]
    return pointer_set(frame, path, rng.choice(choices))


@pytest.mark.fuzz
def test_fuzz_a_million_inputs_never_raise():
    """Opt-in (``pytest -m fuzz``): mutated texts and values of every sample; counts what it ran."""
    rng = random.Random(20261129)
    texts = [json.dumps(f, ensure_ascii=False) for _, f in SAMPLES]
    frames = [f for _, f in SAMPLES]
    accepted = 0
    for n in range(FUZZ_INPUTS):
        if n % 2:
            raw: Any = _mutate_text(rng, rng.choice(texts))
        else:
            raw = _mutate_value(rng, rng.choice(frames))
        result = parse_hook_message(raw)
        assert_well_formed(result)
        accepted += result.ok
    print(f"\nfuzz: {FUZZ_INPUTS} inputs, {accepted} accepted, {FUZZ_INPUTS - accepted} rejected, none raised")
    assert FUZZ_INPUTS >= 1_000_000 or os.environ.get("HOOK_FUZZ_INPUTS")
