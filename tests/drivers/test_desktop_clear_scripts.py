"""Before a scenario on a desktop that outlives it (``listen:``), the harness drops the turn scripts an earlier
scenario queued and no turn took (control ``clear-scripts``, docs/control-api.md "desktop"); without the capability
it calls nothing, and a malformed answer is the desktop's failure."""

from __future__ import annotations

from typing import Any

import pytest

from simulator.drivers.hook_desktop.connect import clear_leftover_scripts
from simulator.reference.desktop.agent import Script
from simulator.reference.desktop.machine import DesktopMachine
from simulator.wirelog import Direction, WireLog


class FakeControl:
    def __init__(self, capabilities: set[str], answer: Any = None) -> None:
        self._capabilities = frozenset(capabilities)
        self.answer = answer
        self.calls: list[str] = []

    def capabilities(self) -> frozenset[str]:
        return self._capabilities

    def require(self, capability: str) -> None:
        assert capability in self._capabilities

    def call(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        self.calls.append(capability)
        return self.answer


def _notes(wire: WireLog) -> list[str]:
    return [e.text for e in wire if e.direction is Direction.NOTE]


def test_a_desktop_without_clear_scripts_is_not_called():
    control, wire = FakeControl({"state", "script-next-turn"}), WireLog()
    clear_leftover_scripts(control, wire)  # type: ignore[arg-type]
    assert control.calls == [] and _notes(wire) == []


def test_leftover_scripts_are_cleared_and_the_count_noted():
    control, wire = FakeControl({"clear-scripts"}, {"cleared": 2}), WireLog()
    clear_leftover_scripts(control, wire)  # type: ignore[arg-type]
    assert control.calls == ["clear-scripts"]
    assert _notes(wire) == ["clear-scripts dropped 2 script(s) an earlier scenario queued for turns that never came"]


def test_nothing_to_clear_leaves_no_note():
    control, wire = FakeControl({"clear-scripts"}, {"cleared": 0}), WireLog()
    clear_leftover_scripts(control, wire)  # type: ignore[arg-type]
    assert control.calls == ["clear-scripts"] and _notes(wire) == []


@pytest.mark.parametrize("answer", [{}, {"cleared": -1}, {"cleared": "2"}, []])
def test_a_malformed_answer_is_the_desktops_failure(answer):
    control = FakeControl({"clear-scripts"}, answer)
    with pytest.raises(AssertionError, match="clear-scripts"):
        clear_leftover_scripts(control, WireLog())  # type: ignore[arg-type]


def test_the_reference_drops_only_the_scripts_no_turn_took():
    machine = DesktopMachine()
    machine.script_next_turn(Script.from_json({"finalText": "first"}))
    machine.script_next_turn(Script.from_json({"finalText": "second"}))
    assert machine.clear_scripts() == 2
    assert machine.clear_scripts() == 0
