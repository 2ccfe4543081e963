"""Which frame cases are conformance scenarios over the wire (features/hook/test_hook_frames.py).

A rejection case is delivered to the subject, which must drop it; a valid ``ping`` must be answered with ``pong``.
Cases given to the parser as a decoded object have no wire form. Other valid frames have no answer a subject must give (a valid task.ack for an unknown task, a welcome out of
turn…), so their cases are not wire scenarios: the frames a subject itself sends are judged against the same
requirements instead (simulator.emitted_frames), and the parser's verdicts on every case are unit tests
(tests/hook/test_frame_features.py).
"""

from __future__ import annotations

import re

import pytest

from simulator.pytest_plugin import scenario_template

_SAMPLE_PING = re.compile(r'^the sample frame "ping/')


def _is_wire_case(item: pytest.Item) -> bool:
    scenario = scenario_template(item)
    if scenario is None:
        return True
    callspec = getattr(item, "callspec", None)
    example = callspec.params.get("_pytest_bdd_example", {}) if callspec is not None else {}
    steps = scenario.render(example).steps if example else scenario.steps
    names = [s.name for s in steps]
    if "the frame is given as an object" in names:
        return False  # a decoded object (a NaN in a number field) has no wire form: the parser's unit tests judge it
    if any(n.startswith("the frame is rejected at ") for n in names):
        return True
    accepted = "the frame is accepted" in names
    return accepted and any(_SAMPLE_PING.match(n) for n in names) and not any(
        n.startswith("the parsed field ") for n in names)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    drop = [i for i in items if i.nodeid.startswith("features/hook/test_hook_frames.py") and not _is_wire_case(i)]
    if drop:
        gone = set(map(id, drop))
        config.hook.pytest_deselected(items=drop)
        items[:] = [i for i in items if id(i) not in gone]
