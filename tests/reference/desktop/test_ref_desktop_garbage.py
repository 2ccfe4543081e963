"""The reference desktop drops garbage without raising (spec §2 "坏帧返回 ok:false … 绝不抛异常", §3 丢帧不断连):
inputs the robustness profile found closing the connection with 1011 (features/robustness)."""

from __future__ import annotations

import uuid
from itertools import count

import pytest

from simulator.hook import make_welcome, parse_hook_message, serialize_hook_message
from simulator.reference.broken.desktop.select import make_machine


def _machine():
    ids = count(1)
    m = make_machine(None, workspaces={"repo": "/abs/repo"}, ids=lambda: str(uuid.UUID(int=next(ids), version=4)))
    m.on_connected(0)
    m.on_frame(serialize_hook_message(make_welcome("s", ())), 1)
    return m


@pytest.mark.parametrize("raw", [
    '{"v":1,"type":"task.cancel","id":"f","ts":' + '{"a":' * 5000 + "1" + "}" * 5000 + "}",
    '{"v":' + "[" * 5000 + "]" * 5000 + ',"type":"ping","id":"f","ts":1,"payload":{}}',
    '{"v":-' + "9" * 5000 + ',"type":"ping","id":"f","ts":1,"payload":{}}',
    b"\xff\xfe",
])
def test_garbage_is_dropped_without_an_exception(raw):
    assert not parse_hook_message(raw).ok
    assert _machine().on_frame(raw, 2) == []
