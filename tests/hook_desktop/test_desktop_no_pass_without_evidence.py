"""No pass without evidence, desktop side: a desktop that misbehaves in ways a lax step would let through gets a
failing verdict.

The subject is the reference desktop as a separate process (``python -m simulator serve desktop --connect …``) that
dials the harness through a WebSocket relay (tests/hook_proxies.py), with its control API behind an HTTP relay.
The relays make it misbehave: the WebSocket relay hangs up once the connection has been idle (a desktop that closes
the connection during a "nothing was sent" window) or swallows the desktop's ``pong`` frames; the control relay
leaves a documented field out of ``state``. Each case runs the features in a subprocess
(``--target desktop=listen:127.0.0.1:P --control desktop=http://… --req ID``) and reads the verdicts from
report.json. A control run through the same relays, doing nothing, passes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conformance_runs import PYTHON, Run, child_env, free_port, run_features, serving
from hook_proxies import ControlProxy, WsProxy

FEATURES = "features/hook/test_hook_desktop.py"
DROPPED_ENV = {"DESKTOP_REFERENCE_VARIANT", "HOOK_CONFORMANCE_TOKEN"}
#: Longer than any gap between the frames of a scenario's positive steps, shorter than the 1.5 s negative window.
IDLE_CLOSE_S = 1.2


@dataclass(frozen=True)
class Desktop:
    listen_port: int
    ws: WsProxy
    control: ControlProxy


def _env() -> dict[str, str]:
    return child_env(lambda k: k in DROPPED_ENV)


@pytest.fixture(scope="module")
def desktop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Desktop]:
    """ONE reference desktop for the module: it dials the WebSocket relay, which relays to the port the harness
    listens on during a run (between runs the relay finds nothing there and hangs up; the desktop dials again)."""
    listen_port = free_port()
    ws = WsProxy(f"ws://127.0.0.1:{listen_port}/hook")
    workdir = tmp_path_factory.mktemp("desktop-evidence")
    cmd = [PYTHON, "-m", "simulator", "serve", "desktop", "--connect", ws.url, "--control",
           "127.0.0.1:0", "--db", str(workdir / "outbox.sqlite3")]
    try:
        with serving(cmd, env=_env()) as ready:
            control = ControlProxy(ready["control"])
            try:
                yield Desktop(listen_port, ws, control)
            finally:
                control.close()
    finally:
        ws.close()


@pytest.fixture
def relays(desktop: Desktop) -> Iterator[Desktop]:
    desktop.ws.reset()
    desktop.control.reset()
    yield desktop
    desktop.ws.reset()
    desktop.control.reset()


def _run(name: str, workdir: Path, d: Desktop, reqs: list[str]) -> Run:
    args = [f"--target=desktop=listen:127.0.0.1:{d.listen_port}", f"--control=desktop={d.control.url}",
            *(f"--req={rid}" for rid in reqs)]
    return run_features(name, workdir, FEATURES, args, _env())


def _scenarios(run: Run, rid: str) -> list[dict[str, Any]]:
    found = [s for s in (run.report or {}).get("scenarios", []) if s["requirement"] == rid]
    assert found, f"the run judged no scenario of {rid}\n{run.explain()}"
    return found


def test_through_idle_relays_the_reference_still_passes(relays: Desktop, tmp_path: Path) -> None:
    """The control run: through both relays, doing nothing, every requirement used below passes."""
    reqs = ["HOOK-DESKTOP-REOPEN-GATE-01", "HOOK-DESKTOP-PING-01", "HOOK-DESKTOP-RELIABLE-ACCEPTED-01",
            "HOOK-DESKTOP-GROUP-03", "HOOK-DESKTOP-MSGOP-02",
            "HOOK-DESKTOP-TOOL-01", "HOOK-DESKTOP-TOOL-02", "HOOK-DESKTOP-QUERY-05"]
    run = _run("relayed", tmp_path, relays, reqs)
    assert run.verdicts() == dict.fromkeys(reqs, "pass"), run.explain()
    assert relays.ws.dropped == 0


def _without_settle(method: str, path: str, status: int, body: Any) -> tuple[int, Any] | None:
    """``GET /v1`` without ``settle``: a desktop the harness watches for the whole timer window (docs/waits.md)."""
    if path == "/v1" and status == 200 and isinstance(body, dict) and isinstance(body.get("capabilities"), list):
        return status, {**body, "capabilities": [c for c in body["capabilities"] if c != "settle"]}
    return None


def test_a_desktop_that_hangs_up_during_a_negative_window_fails(relays: Desktop, tmp_path: Path) -> None:
    """HOOK-DESKTOP-REOPEN-GATE-01 (阶段 18 desktop 侧约定: "只在 server 于 welcome.features 宣告 … turn-reopen-v1 时才
    发本帧"): "the desktop sends no turn.reopen" is silence on an open connection. A desktop that closes the
    connection during that window sent nothing, but proved nothing: the scenario fails (it used to pass). The
    control relay hides ``settle``, so the check watches its whole window, in which the relay's idle close falls."""
    relays.ws.idle_close_s = IDLE_CLOSE_S
    relays.control.rewrite = _without_settle
    run = _run("hangs-up", tmp_path, relays, ["HOOK-DESKTOP-REOPEN-GATE-01"])
    assert run.verdicts() == {"HOOK-DESKTOP-REOPEN-GATE-01": "fail"}, run.explain()
    [scenario] = _scenarios(run, "HOOK-DESKTOP-REOPEN-GATE-01")
    reason = scenario["reason"]
    assert "expected no turn.reopen" in reason and "closed" in reason and "during the window" in reason, \
        run.explain()
    assert relays.ws.idle_closes >= 1


def test_pings_answered_are_read_from_the_desktop_not_counted_by_the_harness(relays: Desktop,
                                                                             tmp_path: Path) -> None:
    """HOOK-DESKTOP-PING-01 (§5 阶段 1 "收到 ping 必须回 pong"): the Then step counts the pongs the desktop sent. A
    desktop whose pongs never reach the server fails it, with the missing pong named."""
    relays.ws.drop_from_client = frozenset({"pong"})
    run = _run("no-pongs", tmp_path, relays, ["HOOK-DESKTOP-PING-01"])
    assert run.verdicts() == {"HOOK-DESKTOP-PING-01": "fail"}, run.explain()
    [scenario] = _scenarios(run, "HOOK-DESKTOP-PING-01")
    assert "no pong" in scenario["reason"], run.explain()
    assert relays.ws.dropped >= 1


def _state_without_outbox(method: str, path: str, status: int, body: Any) -> tuple[int, Any] | None:
    if path == "/v1/state" and status == 200 and isinstance(body, dict):
        return status, {k: v for k, v in body.items() if k != "outbox"}
    return None


def test_a_state_answer_without_its_outbox_fails(relays: Desktop, tmp_path: Path) -> None:
    """HOOK-DESKTOP-RELIABLE-ACCEPTED-01 ("desktop 以 turn.delivery(state=accepted) 作为 server 已持久接管结果与重试责任的
    边界"): "the desktop's state lists no outbox entry" needs the outbox. A state answer that leaves it out
    (docs/control-api.md, desktop) is the desktop's malformed answer, a failure, not an empty outbox (it used to
    pass)."""
    relays.control.rewrite = _state_without_outbox
    run = _run("no-outbox", tmp_path, relays, ["HOOK-DESKTOP-RELIABLE-ACCEPTED-01"])
    assert run.verdicts() == {"HOOK-DESKTOP-RELIABLE-ACCEPTED-01": "fail"}, run.explain()
    [scenario] = _scenarios(run, "HOOK-DESKTOP-RELIABLE-ACCEPTED-01")
    assert "state" in scenario["reason"] and "'outbox'" in scenario["reason"], run.explain()


def _state_without(field: str):
    def rewrite(method: str, path: str, status: int, body: Any) -> tuple[int, Any] | None:
        if path == "/v1/state" and status == 200 and isinstance(body, dict):
            return status, {k: v for k, v in body.items() if k != field}
        return None
    return rewrite


def test_a_state_answer_without_its_group_window_fails(relays: Desktop, tmp_path: Path) -> None:
    """HOOK-DESKTOP-GROUP-03 (§1 "基础能力协商双向(HOOK_FEATURE_GROUP_RELAY='group-relay-v1')"): "the desktop's group window
    does not show" needs the window. A state answer that leaves ``groupWindow`` out (docs/control-api.md "Queries,
    gateway tools, group relay and message operations (desktop)") is a malformed answer, a failure, never an empty
    window."""
    relays.control.rewrite = _state_without("groupWindow")
    run = _run("no-group-window", tmp_path, relays, ["HOOK-DESKTOP-GROUP-03"])
    assert run.verdicts() == {"HOOK-DESKTOP-GROUP-03": "fail"}, run.explain()
    assert all("groupWindow" in s["reason"] for s in _scenarios(run, "HOOK-DESKTOP-GROUP-03")), run.explain()


def test_a_desktop_that_hangs_up_while_no_msg_op_may_come_fails(relays: Desktop, tmp_path: Path) -> None:
    """HOOK-DESKTOP-MSGOP-02 (§3 "新端在能力缺席时不会发送它们"): "the desktop sent no frame of the types msg.op" is
    silence on an open connection; a desktop that hangs up during the check proved nothing (a failure). The relay
    closes the connection at the first ping the harness's hook server sends the desktop (a check's barrier, or an
    earlier step's, which then fails: the connection closed)."""
    relays.ws.hang_up_on_ping = "upstream"  # the desktop dials the relay; the harness's hook server is upstream
    run = _run("hangs-up-msg-op", tmp_path, relays, ["HOOK-DESKTOP-MSGOP-02"])
    assert run.verdicts() == {"HOOK-DESKTOP-MSGOP-02": "fail"}, run.explain()
    assert all("closed" in s["reason"] for s in _scenarios(run, "HOOK-DESKTOP-MSGOP-02")), run.explain()
    assert relays.ws.ping_hangups >= 1


def test_a_desktop_that_hangs_up_instead_of_sending_no_tool_request_fails(relays: Desktop, tmp_path: Path) -> None:
    """HOOK-DESKTOP-TOOL-02 (阶段 12 "缺席直接短路"): "the desktop sends no tool.request" is silence on an open
    connection; a desktop that closes the connection during that window proved nothing: the scenario fails. As in
    the REOPEN-GATE case, ``settle`` is hidden: the window is the whole timer window."""
    relays.ws.idle_close_s = IDLE_CLOSE_S
    relays.control.rewrite = _without_settle
    run = _run("tools-hang-up", tmp_path, relays, ["HOOK-DESKTOP-TOOL-02"])
    assert run.verdicts() == {"HOOK-DESKTOP-TOOL-02": "fail"}, run.explain()
    assert all("expected no tool.request" in s["reason"] and "closed" in s["reason"]
               for s in _scenarios(run, "HOOK-DESKTOP-TOOL-02")), run.explain()


def test_a_silent_desktop_that_hangs_up_does_not_pass_the_session_list_check(relays: Desktop, tmp_path: Path) -> None:
    """HOOK-DESKTOP-QUERY-05 (§2 session-picker-v1 on both sides): without the answer (the relay swallows every
    query.response) the check rests on silence, which a connection that closes does not give: the scenario fails."""
    relays.ws.drop_from_client = frozenset({"query.response"})
    relays.ws.idle_close_s = IDLE_CLOSE_S
    run = _run("query-hang-up", tmp_path, relays, ["HOOK-DESKTOP-QUERY-05"])
    assert run.verdicts() == {"HOOK-DESKTOP-QUERY-05": "fail"}, run.explain()
    assert relays.ws.dropped >= 1


def _state_without_tool_calls(method: str, path: str, status: int, body: Any) -> tuple[int, Any] | None:
    if path == "/v1/state" and status == 200 and isinstance(body, dict):
        return status, {k: v for k, v in body.items() if k != "toolCalls"}
    return None


def test_a_state_answer_without_its_tool_calls_fails(relays: Desktop, tmp_path: Path) -> None:
    """HOOK-DESKTOP-TOOL-01: what the agent got is read from ``state.toolCalls`` (docs/control-api.md "Queries, gateway
    tools, group relay and message operations (desktop)"); a state answer that leaves it out is the desktop's malformed
    answer, a failure."""
    relays.control.rewrite = _state_without_tool_calls
    run = _run("no-tool-calls", tmp_path, relays, ["HOOK-DESKTOP-TOOL-01"])
    assert run.verdicts() == {"HOOK-DESKTOP-TOOL-01": "fail"}, run.explain()
    [scenario] = _scenarios(run, "HOOK-DESKTOP-TOOL-01")
    assert "toolCalls" in scenario["reason"], run.explain()
