"""Which frame cases are conformance scenarios over the wire (features/hook/test_hook_frames.py).

* A **rejection** case is delivered to every hook subject, which must drop it.
* A valid **ping** is delivered to every hook subject, which must answer it with a pong.
* Any other **valid** frame is delivered to the hook server only, which must not drop it as unparseable: its
  control API's ``dropped-frames`` is the evidence (docs/control-api.md; without the capability the case is not
  testable). The desktop's control API lists no drops, and most valid frames have no answer a peer must give (a
  valid task.ack for an unknown task, a welcome out of turn…), so those cases are not wire scenarios for a desktop.
* Cases of a rule of the parser's programming interface (registry ``judged_on = "parser"``: its input forms, the
  parsed message it returns) and cases given to the parser as a decoded object have no wire form: the parser's unit
  tests judge them (tests/hook/test_frame_features.py).
"""

from __future__ import annotations

import re

import pytest

from simulator.harness.plugin import harness_of, scenario_template
from simulator.verdicts.requirements import JudgedOn

_SAMPLE_PING = re.compile(r'^the sample frame "ping/')


def _is_wire_case(item: pytest.Item, parser_rules: frozenset[str]) -> bool:
    scenario = scenario_template(item)
    if scenario is None:
        return True
    marker = item.get_closest_marker("req")
    if marker is not None and marker.kwargs.get("id") in parser_rules:
        return False
    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec is not None else {}
    example = params.get("_pytest_bdd_example", {})
    steps = scenario.render(example).steps if example else scenario.steps
    names = [s.name for s in steps]
    if "the frame is given as an object" in names or any(n.startswith("the parsed field ") for n in names):
        return False  # no wire form (a NaN in a decoded number field), or what only the parser's result shows
    if any(n.startswith("the frame is rejected at ") for n in names):
        return True
    if "the frame is accepted" not in names:
        return False
    return any(_SAMPLE_PING.match(n) for n in names) or params.get("frame_subject") == "hook-server"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    registry = harness_of(config).registry
    parser_rules = frozenset(rid for rid, req in registry.items() if req.judged_on is JudgedOn.PARSER)
    drop = [i for i in items if i.nodeid.startswith("features/hook/test_hook_frames.py")
            and not _is_wire_case(i, parser_rules)]
    if drop:
        gone = set(map(id, drop))
        config.hook.pytest_deselected(items=drop)
        items[:] = [i for i in items if id(i) not in gone]
