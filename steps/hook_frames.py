"""Step vocabulary for ``features/hook/frames``: build a frame, mutate it, deliver it to the subject under test.

Theory of operation: ``simulator.drivers.hook_frames``. Each rejection case is sent over the wire to the subject
(once per hook subject, ``features/hook/test_hook_frames.py``), which must drop it: keep the connection, send nothing
in reaction, keep answering ping, and report the drop at the case's pointer and code where its control API lists
drops (spec §2, §3, 阶段 1); a valid ``ping`` must be answered with ``pong``. Each scenario gets a ``FrameDriver``
(fixture ``frame_driver``); the probe of each subject is kept for the module (``frame_probes``). The parser's own
verdicts on the same cases are unit tests (tests/hook/test_frame_features.py overrides the Then-steps and judges
the fixture ``frame_case``).

Vocabulary (see docs/writing-features.md):

* ``Given the text frame:`` + a doc string: the frame exactly as it would arrive in a WebSocket text frame.
* ``Given the sample frame "<type>/<variant>"``: a valid frame from ``scenarios/hook/samples/<type>.json``.
* ``Given the sample frame "<type>/<variant>" padded to exactly <n> UTF-16 code units with "<char>"``.
* ``When the field "<pointer>" is set to <json>`` / ``is removed`` /
  ``is set to a string of <n> "<char>" characters`` / ``is set to a list of <n> items like <json template>``
  (``{i}`` in the template becomes the item's index).
* Literals spliced into the text: ``When the field "<pointer>" is set to arrays|objects nested <n> levels deep``,
  ``… is set to a [negative ]integer literal of <n> digits``, ``… is set to the number NaN``, ``When the frame is
  given as bytes with an invalid UTF-8 byte in the field "<pointer>"``.
* ``When the frame is given as text|bytes|an object``: the input form.
* ``Then the frame is accepted`` (bound for ``ping`` frames: answered with ``pong``) /
  ``Then the frame is rejected at "<pointer>"`` / ``Then the error code is "<CODE>"``.
"""

from __future__ import annotations

import functools

import pytest
import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_frames import (
    FrameCase,
    FrameDriver,
    FrameProbes,
    InputForm,
    Nesting,
    SampleLibrary,
    open_probe,
)
from simulator.roles.frame_probe import FrameProbe

__all__: list[str] = []

#: Values with a phrase of their own: ``is set to <json>`` never matches them.
_SPECIAL_VALUES = (
    "a string of ", "a list of ", "arrays nested ", "objects nested ", "an integer literal ", "a negative integer ",
    "the number NaN",
)


# -- fixtures --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def frame_samples(harness) -> SampleLibrary:
    """The sample library, found from the harness's root (the suite's data ships apart from the package)."""
    return SampleLibrary(harness.rootdir / "scenarios" / "hook" / "samples")


@pytest.fixture
def frame_driver(request: pytest.FixtureRequest, frame_samples: SampleLibrary, wire_log) -> FrameDriver:
    """One scenario's case; the subject's probe is asked for only when a Then-step delivers the case."""
    return FrameDriver(frame_samples, wire_log, probe=lambda: request.getfixturevalue("frame_probe"))


@pytest.fixture
def frame_case(frame_driver: FrameDriver) -> FrameCase:
    """The case the Given/When steps built (for Then-steps that judge it another way: the parser's unit tests)."""
    return frame_driver.case


@pytest.fixture(scope="module")
def frame_probes(harness, subjects, harness_config):
    """The receive probes of the run, opened lazily per subject and closed at the end of the frames module."""
    probes = FrameProbes(functools.partial(open_probe, config=harness_config, subjects=subjects, notes=harness))
    yield probes
    probes.close()


@pytest.fixture
def frame_probe(frame_subject: str, frame_probes: FrameProbes) -> FrameProbe:
    return frame_probes.get(frame_subject)


# -- Given -----------------------------------------------------------------------------------------------------


@bdd.given("the text frame:")
def given_text_frame(frame_driver: FrameDriver, docstring: str) -> None:
    frame_driver.use_text(docstring)


@bdd.given(parsers.parse('the sample frame "{name}"'))
def given_sample_frame(frame_driver: FrameDriver, name: str) -> None:
    frame_driver.use_sample(name)


@bdd.given(parsers.parse('the sample frame "{name}" padded to exactly {units:d} UTF-16 code units with "{char}"'))
def given_padded_frame(frame_driver: FrameDriver, name: str, units: int, char: str) -> None:
    frame_driver.use_padded_sample(name, units, char)


# -- When ------------------------------------------------------------------------------------------------------


@bdd.when(parsers.re(r'the field "(?P<pointer>[^"]*)" is set to a string of (?P<n>\d+) "(?P<char>[^"]+)" characters'))
def when_field_long_string(frame_driver: FrameDriver, pointer: str, n: str, char: str) -> None:
    frame_driver.set_long_string(pointer, int(n), char)


@bdd.when(parsers.re(r'the field "(?P<pointer>[^"]*)" is set to a list of (?P<n>\d+) items like (?P<template>.+)'))
def when_field_list(frame_driver: FrameDriver, pointer: str, n: str, template: str) -> None:
    frame_driver.set_list(pointer, int(n), template)


@bdd.when(parsers.re(r'the field "(?P<pointer>[^"]*)" is set to (?P<kind>arrays|objects) nested (?P<n>\d+) levels deep'))
def when_field_nested(frame_driver: FrameDriver, pointer: str, kind: str, n: str) -> None:
    frame_driver.set_nested(pointer, Nesting(kind), int(n))


@bdd.when(parsers.re(r'the field "(?P<pointer>[^"]*)" is set to an? (?P<sign>negative )?integer literal of (?P<n>\d+) digits'))
def when_field_big_integer(frame_driver: FrameDriver, pointer: str, sign: str | None, n: str) -> None:
    frame_driver.set_integer_literal(pointer, int(n), negative=bool(sign))


@bdd.when(parsers.re(r'the field "(?P<pointer>[^"]*)" is set to the number NaN'))
def when_field_nan(frame_driver: FrameDriver, pointer: str) -> None:
    frame_driver.set_nan(pointer)


@bdd.when(parsers.re(r'the frame is given as bytes with an invalid UTF-8 byte in the field "(?P<pointer>[^"]*)"'))
def when_invalid_utf8(frame_driver: FrameDriver, pointer: str) -> None:
    frame_driver.put_invalid_utf8(pointer)


@bdd.when(parsers.re(r'the field "(?P<pointer>[^"]*)" is set to (?P<value>(?!' + "|".join(_SPECIAL_VALUES) + ").+)"))
def when_field_set(frame_driver: FrameDriver, pointer: str, value: str) -> None:
    frame_driver.set_field(pointer, value)


@bdd.when(parsers.re(r'the field "(?P<pointer>[^"]*)" is removed'))
def when_field_removed(frame_driver: FrameDriver, pointer: str) -> None:
    frame_driver.remove_field(pointer)


@bdd.when(parsers.re(r"the frame is given as (?P<form>text|bytes|an object)$"))
def when_frame_form(frame_driver: FrameDriver, form: str) -> None:
    frame_driver.give_as(InputForm.named(form))


# -- Then: the subject's answer to the delivered frame ----------------------------------------------------------


@bdd.then(parsers.re(r'the frame is rejected at "(?P<pointer>[^"]*)"'))
def then_rejected_at(frame_driver: FrameDriver, pointer: str) -> None:
    frame_driver.expect_rejected_at(pointer)


@bdd.then(parsers.parse('the error code is "{code}"'))
def then_error_code(frame_driver: FrameDriver, code: str) -> None:
    frame_driver.expect_error_code(code)


@bdd.then("the frame is accepted")
def then_accepted(frame_driver: FrameDriver) -> None:
    """Bound for ``ping`` frames only (features/hook/conftest.py): a valid ping must be answered with a pong."""
    frame_driver.expect_accepted()
