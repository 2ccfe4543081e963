"""The core broken variants of the reference desktop (simulator/reference/broken/desktop/handshake.py and turns.py)
wrap the machine and leave the rest of it working: a dispatch to a registered folder is acked, runs and ends with valid
frames under each of them. That each breaks its own rule is proven over the wire by
tests/hook_desktop/test_desktop_variants.py."""

from __future__ import annotations

import json
import uuid
from itertools import count

import pytest

from simulator.hook import make_task_dispatch, make_welcome, parse_hook_message, serialize_hook_message
from simulator.reference.broken import cases, lookup
from simulator.reference.broken.desktop.select import machine_class, make_machine
from simulator.reference.desktop.machine import DesktopMachine, Schedule, Send

#: The variants of the core rules (hello, dispatch, sessions, turns, reopen) whose class is a machine.
CORE = sorted({c.name for c in cases("desktop") if c.target.__module__.rsplit(".", 1)[-1] in ("handshake", "turns")
               and issubclass(c.target, DesktopMachine)})


def _machine(variant: str) -> DesktopMachine:
    ids = count(1)
    m = make_machine(variant, workspaces={"repo": "/abs/repo"}, ids=lambda: str(uuid.UUID(int=next(ids), version=4)))
    m.on_connected(0)
    m.on_frame(serialize_hook_message(make_welcome("s", ())), 1)
    return m


def test_every_core_variant_wraps_the_machine_and_is_picked_by_its_name():
    for variant in CORE:
        cls = lookup("desktop", variant).target
        assert issubclass(cls, DesktopMachine) and cls is not DesktopMachine
        assert machine_class(variant) is cls


@pytest.mark.parametrize("variant", CORE)
def test_each_variant_keeps_the_rest_of_the_machine_working(variant: str) -> None:
    m = _machine(variant)
    sent = m.on_frame(serialize_hook_message(make_task_dispatch("r1", "sim:k1", "repo", None, "hi")), 3)
    now = 10
    for _ in range(50):
        if m.turns["r1"].finished:
            break
        out = m.on_timer(("step", "r1"), now)
        sent += out
        now += 100
        if not any(isinstance(e, Schedule) for e in out):
            break
    frames = [e.text for e in sent if isinstance(e, Send)]
    assert all(parse_hook_message(text).ok for text in frames), frames
    types = [json.loads(text)["type"] for text in frames]
    assert types[0] == "task.ack" and json.loads(frames[0])["payload"]["result"] == "accepted", frames
    assert m.turns["r1"].finished and types[-1] == "turn.end", types
