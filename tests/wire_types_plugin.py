"""A pytest plugin (``-p wire_types_plugin``) that records which hook message types travelled on the wire, each in
the direction the spec gives it (simulator/hook/directions.py), across every scenario of a run.

Issue 15: "every one of the spec's 41 message types travels on the wire between the harness and a reference
subject in some scenario — a test counts them from the wire logs and names any type that never did". A frame
counts when it parses clean (the core's ``parse_hook_message``) and went from the peer the spec makes send it:
with ``WIRE_TYPES_HARNESS=desktop`` the harness plays the desktop (a hook-server run), so its sent frames are the
desktop's and the received ones the server's; ``server`` the other way round. A bad frame, or a valid one a
scenario throws the wrong way on purpose, does not count. At the end of the run the counts go to the JSON file
``WIRE_TYPES_OUT`` (under pytest-xdist one file per worker, ``WIRE_TYPES_OUT.<worker>``; ``read_wire_types``
merges them): ``{"harness": …, "types": {type: {"frames": n, "scenarios": [nodeid…]}}}``.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from simulator.hook import parse_hook_message
from simulator.hook.directions import Sender, sent_by
from simulator.pytest_plugin import scenario_wire_log
from simulator.wirelog import Direction

_frames: dict[str, int] = defaultdict(int)
_scenarios: dict[str, set[str]] = defaultdict(set)


def _harness() -> Sender:
    return Sender(os.environ.get("WIRE_TYPES_HARNESS", "desktop"))


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    log = scenario_wire_log(item)
    if log is None:
        return
    harness = _harness()
    subject = Sender.SERVER if harness is Sender.DESKTOP else Sender.DESKTOP
    for event in log.events():
        if event.channel != "hook" or event.direction is Direction.NOTE:
            continue
        result = parse_hook_message(event.text)
        if not result.ok:
            continue
        sender = harness if event.direction is Direction.SENT else subject
        if sent_by(result.message.type) in (sender, Sender.EITHER):
            _frames[result.message.type.value] += 1
            _scenarios[result.message.type.value].add(item.nodeid)


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = os.environ.get("WIRE_TYPES_OUT")
    if not out:
        return
    worker = getattr(session.config, "workerinput", {}).get("workerid")
    if worker:  # an xdist worker saw only its share: it writes WIRE_TYPES_OUT.<worker> (read_wire_types merges)
        out = f"{out}.{worker}"
    elif not _frames:
        return  # the controller of an xdist run: the workers wrote the counts
    data = {"harness": _harness().value,
            "types": {t: {"frames": n, "scenarios": sorted(_scenarios[t])} for t, n in sorted(_frames.items())}}
    Path(out).write_text(json.dumps(data, indent=1), encoding="utf-8")


def read_wire_types(out: Path) -> dict[str, int]:
    """Frames per type in the file(s) a run wrote at ``out`` (merged over xdist workers)."""
    counts: dict[str, int] = defaultdict(int)
    for path in [out, *sorted(out.parent.glob(out.name + ".gw*"))]:
        if path.is_file():
            for name, entry in json.loads(path.read_text(encoding="utf-8"))["types"].items():
                counts[name] += entry["frames"]
    return dict(counts)
