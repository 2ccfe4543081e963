"""simulator/drivers/faults/desktop_drops.py: how the fault profile judges what a desktop sent over many connections
(FAULT-DESKTOP-*), on a scripted session (no desktop, no socket): a byte-identical re-send is one run, two different
turn.end payloads or ``runs`` 2 are a task run twice, a task without turn.end is lost, a turn.end after accepted and a
reopen round's frame after its drop are findings, and no round is no evidence."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from simulator.drivers.faults.desktop_drops import DropRounds
from simulator.hook import TurnUsage, make_turn_end, make_turn_progress, serialize_hook_message
from simulator.roles.hook_conn import Inbound, describe_frame


class _Server:
    desktop_features = ("turn-delivery-v1",)

    def __init__(self) -> None:
        self.connections: list[list[Inbound]] = [[]]

    def drop(self) -> None:
        pass


class _Control:
    def __init__(self, runs: dict[str, int] | None) -> None:
        self.runs = runs

    def capabilities(self) -> frozenset[str]:
        return frozenset({"script-next-turn"} | ({"state"} if self.runs is not None else set()))


class _Desk:
    """What ``DropRounds`` reads of a ``DesktopSession``: the frames of every connection, the control API."""

    step_timeout, quiet, timer, features = 0.2, 0.0, 0.0, ("turn-delivery-v1",)

    def __init__(self, runs: dict[str, int] | None = None) -> None:
        self.server, self.control = _Server(), _Control(runs)

    def received(self) -> list[tuple[int, Inbound]]:
        return [(i, e) for i, conn in enumerate(self.server.connections) for e in conn]

    def reconnect(self) -> None:
        self.server.connections.append([])

    def call(self, capability: str, body: Any = None) -> Any:
        assert capability == "state"
        return {"runs": [{"requestId": rid, "runs": n} for rid, n in (self.control.runs or {}).items()]}

    def send(self, text: str, connection: int = -1) -> None:
        d = describe_frame(text)
        conn = self.server.connections[connection]
        conn.append(Inbound(len(conn) + 1, 0.0, text, False, d.message, d.issue, d.claimed_type))


def _end(rid: str, final: str = "done") -> str:
    return serialize_hook_message(make_turn_end(rid, "sim:k", "S-1", "ok", final, None, usage=TurnUsage(5)))


def _rounds(desk: _Desk, kind: str, rids: list[str]) -> DropRounds:
    drops = DropRounds(desk, kind, rounds=len(rids), sleep=lambda s: None)  # type: ignore[arg-type]
    drops.tasks = list(rids)
    drops.report.rounds = drops.report.tasks = len(rids)
    return drops


def test_a_byte_identical_resend_is_one_run_and_passes() -> None:
    desk, rid = _Desk({}), str(uuid.uuid4())
    desk.control.runs = {rid: 1}
    desk.send(_end(rid))
    desk.reconnect()
    desk.send(_end(rid))
    report = _rounds(desk, "progress", [rid]).judge()
    assert (report.lost, report.duplicated, report.counted_by) == (0, 0, "the wire and the control state")


@pytest.mark.parametrize("runs, second", [(None, "again"), ({"R": 2}, "done")])
def test_two_different_turn_end_payloads_or_two_runs_are_a_task_run_twice(runs, second) -> None:
    rid = str(uuid.uuid4())
    desk = _Desk(None if runs is None else {rid: 2})
    desk.send(_end(rid))
    desk.send(_end(rid, second))
    drops = _rounds(desk, "dispatch", [rid])
    with pytest.raises(AssertionError, match="ran .* times") as caught:
        drops.judge()
    assert "任务重投不重跑" in str(caught.value) and drops.report.duplicated == 1


def test_a_task_without_turn_end_is_lost() -> None:
    desk, rid = _Desk(), str(uuid.uuid4())
    drops = _rounds(desk, "storm", [rid])
    with pytest.raises(AssertionError, match="never sent a turn.end"):
        drops.judge()
    assert drops.report.lost == 1


def test_a_turn_end_on_a_connection_after_accepted_is_a_finding_of_the_end_rounds_only() -> None:
    rid = str(uuid.uuid4())
    for kind, fails in (("end", True), ("progress", False)):
        desk = _Desk()
        desk.send(_end(rid))
        drops = _rounds(desk, kind, [rid])
        drops.accepted[rid] = 0
        desk.reconnect()
        desk.send(_end(rid))
        if fails:
            with pytest.raises(AssertionError, match="after turn.delivery accepted"):
                drops.judge()
            assert drops.report.resent_after_accept == 1
        else:
            drops.judge()


def test_a_frame_of_a_reopen_round_after_its_drop_is_a_finding() -> None:
    desk, rid, reopen = _Desk(), str(uuid.uuid4()), str(uuid.uuid4())
    desk.send(_end(rid))
    desk.send(serialize_hook_message(make_turn_progress(reopen, "retrying")))
    drops = _rounds(desk, "reopen", [rid])
    drops.reopen_rounds[reopen] = 0
    desk.reconnect()
    desk.send(serialize_hook_message(make_turn_progress(reopen, "retrying")))
    with pytest.raises(AssertionError, match="sent turn.progress again after the reconnect") as caught:
        drops.judge()
    assert "不在重连后补发" in str(caught.value)


def test_no_round_played_is_no_evidence() -> None:
    with pytest.raises(AssertionError, match="no round ran"):
        DropRounds(_Desk(), "storm", rounds=3).judge()  # type: ignore[arg-type]


def test_an_unknown_kind_of_round_is_the_callers_error() -> None:
    with pytest.raises(ValueError, match="unknown kind"):
        DropRounds(_Desk(), "half-open", rounds=1)  # type: ignore[arg-type]
