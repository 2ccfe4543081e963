"""Task lifecycles beside the garbage, at a desktop (robustness profile, ROBUST-DESKTOP-LIFECYCLE-01): the harness's
hook server dispatches real tasks to the desktop under test on the frame probe's connection while Hypothesis's
garbage (``simulator.profiles.fuzz.wire_inputs``) goes before every frame of theirs, and nothing may be lost or run twice.

Per round: the next turn is scripted through the desktop's control API (``script-next-turn``: one progress step, a
final text of its own, no step delay) → garbage → ``task.dispatch`` (a fresh UUID v4 requestId, a workspace alias of
the desktop's hello) → garbage → the desktop's ``task.ack`` (accepted or queued) → garbage → its ``turn.end``. After a
barrier ping the connection must hold exactly one ack and one turn.end of that requestId. Spec basis: §2 (坏帧返回
ok:false: a dropped frame changes nothing), §3 (丢帧不断连), §4 (requestId 幂等:任务重投不重跑), 阶段 2 (dispatch 立即
应答). The welcome of the probe's connection declares no feature, so the turn.end needs no turn.delivery.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, cast

from ...verdicts.causes import missing_capabilities_text
from ...errors import MissingFrame, NotTestable, SubjectTimeout
from ...profiles.fuzz.wire_inputs import WireInput
from ...hook import HOOK_CHAT_WORKSPACE_ALIAS, MessageType, make_ping
from ...roles.frame_probe import FrameProbe
from ...roles.hook_server import ServerRole
from ...wirelog import WireLog
from .garbage_rounds import run_garbage_rounds

__all__ = ["DesktopLifecycleReport", "run_desktop_lifecycles"]

RULE = ("spec §2: 坏帧返回 ok:false (a dropped frame changes nothing); §3: 丢帧不断连; §4: requestId 幂等:任务重投不重跑; "
        "阶段 2: task.ack — dispatch 立即应答")
#: The control capability a round needs (docs/control-api.md "desktop").
NEEDS = ("script-next-turn",)


@dataclass
class DesktopLifecycleReport:
    rounds: int = 0
    garbage: int = 0
    lost: int = 0
    duplicated: int = 0
    seconds: float = 0.0

    def evidence(self) -> str:
        return (f"{self.rounds} task lifecycles at the desktop, each with garbage before every one of its frames "
                f"({self.garbage} fuzzed frames): {self.lost} lost, {self.duplicated} run twice; {self.seconds:.1f} s")


def run_desktop_lifecycles(probe: FrameProbe, control: Any, samples: list[dict[str, Any]], *, rounds: int,
                           step_timeout: float, rng_seed: int = 0) -> DesktopLifecycleReport:
    """``rounds`` lifecycles on the probe's connection to the desktop, scripted through ``control``; the report, or an
    ``AssertionError`` naming the round that lost or repeated its task."""
    if control is None:
        raise NotTestable("ROBUST-DESKTOP-LIFECYCLE-01 scripts the desktop's turns through its control API: give "
                          "--control desktop=URL")
    missing = [c for c in NEEDS if c not in control.capabilities()]
    if missing:
        raise NotTestable(missing_capabilities_text("desktop", missing))
    report = DesktopLifecycleReport()
    started = time.monotonic()
    probe.retire()
    conn = probe.connection(WireLog())
    server = cast(ServerRole, probe.role)  # the probe of a desktop: its DesktopOpener opened a ServerRole
    hello = getattr(server, "hello_payload", None)
    aliases = [w for w in (getattr(hello, "workspaces", None) or ()) if isinstance(w, str)]
    workspace = aliases[0] if aliases else HOOK_CHAT_WORKSPACE_ALIAS
    failures: list[str] = []

    def garbage(batch: list[WireInput]) -> None:
        for item in batch:
            conn.send(item.data)
        report.garbage += len(batch)

    def of(rid: str, kind: MessageType) -> list[Any]:
        return [e for e in conn.received if e.type == kind and e.request_id == rid]

    def one_round(batches: list[list[WireInput]]) -> None:
        n = report.rounds + 1
        try:
            control.call("script-next-turn", {"progress": [f"robust step {n}"], "finalText": f"robust done {n}",
                                              "stepMs": 0})
            garbage(batches[0])
            rid = server.dispatch(workspace=workspace, prompt=f"robust task {n}")
            garbage(batches[1])
            ack = server.expect_ack(rid)
            if ack.result not in ("accepted", "queued"):
                raise AssertionError(f"task.ack {ack.result} ({ack.reason}) for a valid dispatch to alias "
                                     f"{workspace!r} of the desktop's hello")
            garbage(batches[2])
            server.expect_end(rid)
            garbage(batches[3])
            floor = conn.received[-1].seq if conn.received else 0
            conn.send(make_ping())
            conn.expect(lambda e: e.type == "pong" and e.seq > floor, consume=False)
        except (AssertionError, MissingFrame, SubjectTimeout) as exc:
            report.lost += 1
            failures.append(f"round {n}: the task dispatched beside the garbage was lost: {exc} [{RULE}]")
            raise AssertionError(failures[0]) from None
        acks, ends = of(rid, MessageType.TASK_ACK), of(rid, MessageType.TURN_END)
        distinct_ends = {json.dumps(e.payload.to_wire(), sort_keys=True) for e in ends if e.ok}
        if len(acks) != 1 or len(distinct_ends) != 1:
            report.duplicated += 1
            failures.append(f"round {n}: {rid} got {len(acks)} task.ack and {len(ends)} turn.end on one connection "
                            f"for one dispatch [{RULE}]")
            raise AssertionError(failures[0])
        report.rounds += 1

    try:
        run_garbage_rounds(samples, rounds=rounds, gaps=4, rng_seed=rng_seed, one_round=one_round,
                           failures=failures)
    finally:
        report.seconds = time.monotonic() - started
        probe.retire()
    if report.rounds == 0:
        raise AssertionError("no lifecycle ran: no evidence")
    return report
