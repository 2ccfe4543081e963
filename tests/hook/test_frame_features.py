"""The parser's agreement with the frame features: every case of features/hook/frames, judged on the harness's
own ``parse_hook_message``. A unit test of the protocol core, never a conformance result (the ``self_test``
marker keeps it out of every report): conformance is judged on the subjects (features/hook/test_hook_frames.py).

The Given/When steps are the conformance ones (steps/hook_frames.py); the Then-steps below override them in
this module and ask the parser instead of the wire: ``frame_parser``, the protocol core's unless ``--hook-parser``
names another (tests/hook/conftest.py). Each test records its requirement id as a JUnit property
(``requirement``), so a run's failures can be read per requirement (tests/frames/test_parser_requirements_falsified.py).
"""

from __future__ import annotations

import pytest
import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_frames import FrameCase
from simulator.drivers.hook_frames import json_value as _json_literal
from simulator.jsonpointer import pointer_get

pytestmark = pytest.mark.self_test

bdd.scenarios("hook/frames")


@pytest.fixture(autouse=True)
def _requirement_property(request: pytest.FixtureRequest, record_property) -> None:
    marker = request.node.get_closest_marker("req")
    if marker is not None:
        record_property("requirement", marker.kwargs.get("id"))


@pytest.fixture
def parsed(frame_case: FrameCase, frame_parser):
    """The parser's result on the case's input (text, bytes or a decoded object)."""
    return frame_parser(frame_case.parser_input())


def _describe(result) -> str:
    if result.ok:
        return "accepted"
    err = result.error
    return f"rejected at {err.path!r} ({err.code.value}): {err.message} [{err.spec_ref}]"


@bdd.then("the frame is accepted")
def then_accepted(parsed) -> None:
    result = parsed
    assert result.ok, f"expected the frame to be accepted, but it was {_describe(result)}"


@bdd.then(parsers.re(r'the frame is rejected at "(?P<pointer>[^"]*)"'))
def then_rejected_at(parsed, pointer: str) -> None:
    result = parsed
    assert not result.ok, f"expected a rejection at {pointer!r}, but the frame was accepted"
    assert result.error.path == pointer, f"expected a rejection at {pointer!r}, but it was {_describe(result)}"


@bdd.then(parsers.parse('the error code is "{code}"'))
def then_error_code(parsed, code: str) -> None:
    result = parsed
    assert not result.ok, f"expected error code {code}, but the frame was accepted"
    assert result.error.code.value == code, f"expected error code {code}, but it was {_describe(result)}"


@bdd.then(parsers.re(r'the parsed field "(?P<pointer>[^"]*)" equals (?P<value>.+)'))
def then_parsed_field(parsed, pointer: str, value: str) -> None:
    result = parsed
    assert result.ok, f"expected the frame to be accepted, but it was {_describe(result)}"
    assert pointer_get(result.message.to_wire(), pointer) == _json_literal(value)
