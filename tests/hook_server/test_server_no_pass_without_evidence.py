"""No pass without evidence, hook-server side: a server that misbehaves in ways a lax step would let through gets a
failing verdict, and what the run does not give the harness is *not testable*.

The subject is the reference hook server as a separate process (``python -m simulator serve hook-server … --token
T``); the bad behaviour comes from relays in front of it (tests/hook_proxies.py): a WebSocket relay that closes the
connection once it has been idle (a server that hangs up during a "nothing arrives" window), a control-API relay
that answers 500 or leaves a field or a capability out. Each case runs the features in a subprocess the way an
implementer runs the harness (``--target hook-server=ws://… --control hook-server=http://… --hook-token T
--req ID``) and reads the verdicts from report.json. A control run through the same relays, doing nothing, passes:
the verdicts come from the misbehaviour, not from the relays.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conformance_runs import PYTHON, Run, child_env, run_features, serving
from hook_proxies import ControlProxy, WsProxy

FEATURES = "features/hook/test_hook_server.py"
#: Nothing of the parent's may choose a broken variant or a token for the children.
DROPPED_ENV = {"HOOK_SERVER_REFERENCE_VARIANT", "HOOK_CONFORMANCE_TOKEN"}

@dataclass(frozen=True)
class Reference:
    url: str
    control: str
    token: str


def _env() -> dict[str, str]:
    return child_env(lambda k: k in DROPPED_ENV)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Reference]:
    token = f"conformance-{uuid.uuid4().hex}"
    db = tmp_path_factory.mktemp("hook-server-evidence") / "hook-server.sqlite3"
    cmd = [PYTHON, "-m", "simulator", "serve", "hook-server", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0",
           f"--token={token}", "--db", str(db)]
    with serving(cmd, env=_env()) as ready:
        yield Reference(ready["url"], ready["control"], token)


@pytest.fixture(scope="module")
def relays(reference: Reference) -> Iterator[tuple[WsProxy, ControlProxy]]:
    ws, control = WsProxy(reference.url), ControlProxy(reference.control)
    yield ws, control
    ws.close()
    control.close()


@pytest.fixture
def ws_relay(relays: tuple[WsProxy, ControlProxy]) -> Iterator[WsProxy]:
    relays[0].reset()
    yield relays[0]
    relays[0].reset()


@pytest.fixture
def control_relay(relays: tuple[WsProxy, ControlProxy]) -> Iterator[ControlProxy]:
    relays[1].reset()
    yield relays[1]
    relays[1].reset()


def _run(name: str, workdir: Path, target: str, control: str, token: str | None, reqs: list[str]) -> Run:
    args = [f"--target=hook-server={target}", f"--control=hook-server={control}",
            *([f"--hook-token={token}"] if token else []), *(f"--req={rid}" for rid in reqs)]
    return run_features(name, workdir, FEATURES, args, _env())


def _scenarios(run: Run, rid: str) -> list[dict[str, Any]]:
    found = [s for s in (run.report or {}).get("scenarios", []) if s["requirement"] == rid]
    assert found, f"the run judged no scenario of {rid}\n{run.explain()}"
    return found


def test_through_idle_relays_the_reference_still_passes(reference: Reference, ws_relay: WsProxy,
                                                        control_relay: ControlProxy, tmp_path: Path) -> None:
    """The control run: through both relays, doing nothing, every requirement used below passes (and the refusal
    the reference gives a press on a withdrawn card, 409 card-closed, is the one ``a user tries to press`` takes)."""
    reqs = ["HOOK-SERVER-DELIVERY-05", "HOOK-SERVER-INTERACTION-02", "HOOK-SERVER-PING-02",
            "HOOK-SERVER-REOPEN-INTERACTION-01", "HOOK-SERVER-TOOL-04", "HOOK-SERVER-QUERY-05", "HOOK-SERVER-QUERY-06"]
    run = _run("relayed", tmp_path, ws_relay.url, control_relay.url, reference.token, reqs)
    assert run.verdicts() == dict.fromkeys(reqs, "pass"), run.explain()
    assert ws_relay.idle_closes == 0


def test_a_server_that_hangs_up_during_a_negative_window_fails(reference: Reference, ws_relay: WsProxy,
                                                               tmp_path: Path) -> None:
    """HOOK-SERVER-DELIVERY-05 (turn.delivery 可靠性与兼容: "新 server 不向未声明能力的老 desktop 推未知帧"): "device A
    receives no turn.delivery frame" is silence on an open connection. A server that closes the connection during
    that check sent nothing, but proved nothing: the scenario fails. The relay closes the connection at the first
    ping the harness sends on it: in the scenario whose check is the first to ping, that is the check's barrier; in
    the other an earlier step's, which fails that step (the connection closed): no scenario passes."""
    ws_relay.hang_up_on_ping = "client"  # the harness's simulated desktop dials the relay
    run = _run("hangs-up", tmp_path, ws_relay.url, reference.control, reference.token, ["HOOK-SERVER-DELIVERY-05"])
    assert run.verdicts() == {"HOOK-SERVER-DELIVERY-05": "fail"}, run.explain()
    reasons = [scenario["reason"] for scenario in _scenarios(run, "HOOK-SERVER-DELIVERY-05")]
    assert all("closed" in reason for reason in reasons), run.explain()
    assert any("expected no turn.delivery" in reason and "during the window" in reason for reason in reasons), \
        run.explain()
    assert ws_relay.ping_hangups >= 2
    assert run.returncode == 1, run.explain()


def _press_fails_and_no_ping_capability(method: str, path: str, status: int, body: Any) -> tuple[int, Any] | None:
    if method == "POST" and path == "/v1/press-button":
        return 500, {"error": {"code": "internal-error", "message": "the channel is down"}}
    if method == "GET" and path == "/v1" and isinstance(body, dict):
        return status, {**body, "capabilities": [c for c in body["capabilities"] if c != "ping-desktops"]}
    return None


def test_a_control_api_failure_or_a_missing_capability_is_never_a_pass(reference: Reference,
                                                                       control_relay: ControlProxy,
                                                                       tmp_path: Path) -> None:
    """HOOK-SERVER-INTERACTION-02 (§5 阶段 10 interaction.cancel "…防止用户按死卡片"): ``a user tries to press`` takes
    only the documented refusal (409 card-closed, docs/control-api.md "Errors"); a 500 from press-button is no
    evidence that the press was refused: fail. HOOK-SERVER-PING-02 needs the control capability ping-desktops to
    make the server ping; without it the harness cannot judge: not testable, naming the capability."""
    control_relay.rewrite = _press_fails_and_no_ping_capability
    reqs = ["HOOK-SERVER-INTERACTION-02", "HOOK-SERVER-PING-02"]
    run = _run("control-refuses", tmp_path, reference.url, control_relay.url, reference.token, reqs)
    assert run.verdicts() == {"HOOK-SERVER-INTERACTION-02": "fail", "HOOK-SERVER-PING-02": "not-testable"}, \
        run.explain()
    [press] = _scenarios(run, "HOOK-SERVER-INTERACTION-02")
    assert "press-button" in press["reason"] and "HTTP 500" in press["reason"], run.explain()
    [ping] = _scenarios(run, "HOOK-SERVER-PING-02")
    assert ping["reason"].startswith("Not testable:") and "ping-desktops" in ping["reason"], run.explain()
    assert run.returncode == 1, run.explain()


def _messages_without_cards(method: str, path: str, status: int, body: Any) -> tuple[int, Any] | None:
    if path == "/v1/list-messages" and status == 200 and isinstance(body, dict):
        return status, {"messages": [{k: v for k, v in m.items() if k != "cards"} for m in body["messages"]]}
    return None


def test_a_control_answer_without_a_required_field_fails(reference: Reference, control_relay: ControlProxy,
                                                        tmp_path: Path) -> None:
    """HOOK-SERVER-REOPEN-INTERACTION-01 ("the message of first shows no card", 阶段 18 "不需要为续跑 requestId 关联
    interaction.*"): a list-messages answer that leaves out ``cards`` (required by docs/control-api.schema.json) is
    the server's malformed answer, a failure, not a message without cards (it used to pass)."""
    control_relay.rewrite = _messages_without_cards
    run = _run("no-cards", tmp_path, reference.url, control_relay.url, reference.token,
               ["HOOK-SERVER-REOPEN-INTERACTION-01"])
    assert run.verdicts() == {"HOOK-SERVER-REOPEN-INTERACTION-01": "fail"}, run.explain()
    [scenario] = _scenarios(run, "HOOK-SERVER-REOPEN-INTERACTION-01")
    assert "list-messages" in scenario["reason"] and "'cards'" in scenario["reason"], run.explain()


def test_a_run_without_the_token_the_server_requires_stops_before_judging(reference: Reference,
                                                                         tmp_path: Path) -> None:
    """The reference requires a token; a run that gives none would see every scenario refused with HTTP 401: the
    preflight stops it with a usage error naming --hook-token, and nothing is judged."""
    run = _run("no-token", tmp_path, reference.url, reference.control, None, ["HOOK-SERVER-AUTH-01"])
    assert run.returncode == 2, run.explain()  # a usage error
    assert "give the run --hook-token TOKEN" in run.output and run.report is None, run.explain()


@pytest.fixture(scope="module")
def open_reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Reference]:
    """The reference started without --token: it lets anyone in."""
    db = tmp_path_factory.mktemp("hook-server-open") / "hook-server.sqlite3"
    cmd = [PYTHON, "-m", "simulator", "serve", "hook-server", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0",
           "--db", str(db)]
    with serving(cmd, env=_env()) as ready:
        yield Reference(ready["url"], ready["control"], "")


def test_authentication_without_hook_token_is_not_testable(open_reference: Reference, tmp_path: Path) -> None:
    """HOOK-SERVER-AUTH-01 (@must, §7 "复用已鉴权的 WS 通道") and AUTH-02: a run that gives no --hook-token cannot tell
    whether the server refuses strangers. That is the run's gap, not a capability the server declared absent: not
    testable (a failure, exit code 1), never not applicable, and the reason says what to give."""
    reqs = ["HOOK-SERVER-AUTH-01", "HOOK-SERVER-AUTH-02"]
    run = _run("no-token", tmp_path, open_reference.url, open_reference.control, None, reqs)
    assert run.verdicts() == dict.fromkeys(reqs, "not-testable"), run.explain()
    for rid in reqs:
        for scenario in _scenarios(run, rid):
            assert scenario["reason"].startswith("Not testable:") and "--hook-token" in scenario["reason"], \
                run.explain()
    assert run.returncode == 1 and run.report["exitCode"] == 1, run.explain()


def _no_tool_log_and_queries_without_answer(method: str, path: str, status: int, body: Any) -> tuple[int, Any] | None:
    if method == "GET" and path == "/v1" and isinstance(body, dict):
        return status, {**body, "capabilities": [c for c in body["capabilities"] if c != "list-tool-calls"]}
    if path == "/v1/list-queries" and status == 200 and isinstance(body, dict):
        return status, {"queries": [{k: v for k, v in q.items() if k != "answer"} for q in body["queries"]]}
    return None


def test_tools_without_the_call_log_are_not_testable_and_a_query_row_without_its_answer_fails(
        reference: Reference, control_relay: ControlProxy, tmp_path: Path) -> None:
    """HOOK-SERVER-TOOL-04 (§1 "server 以绑定用户托管的 user token 执行") needs list-tool-calls to see that nothing ran
    as anyone: without the capability it is not testable (never a pass on the tool.response alone).
    HOOK-SERVER-QUERY-06 (阶段 6 "ok=false 时 error 非空"): a list-queries row that leaves out ``answer`` (required)
    is the server's malformed answer, a failure, not a query without an answer."""
    control_relay.rewrite = _no_tool_log_and_queries_without_answer
    reqs = ["HOOK-SERVER-TOOL-04", "HOOK-SERVER-QUERY-06"]
    run = _run("part-2b-control", tmp_path, reference.url, control_relay.url, reference.token, reqs)
    assert run.verdicts() == {"HOOK-SERVER-TOOL-04": "not-testable", "HOOK-SERVER-QUERY-06": "fail"}, run.explain()
    [tool] = _scenarios(run, "HOOK-SERVER-TOOL-04")
    assert tool["reason"].startswith("Not testable:") and "list-tool-calls" in tool["reason"], run.explain()
    [query] = _scenarios(run, "HOOK-SERVER-QUERY-06")
    assert "list-queries" in query["reason"] and "answer" in query["reason"], run.explain()
    assert run.returncode == 1, run.explain()


def test_a_server_that_hangs_up_while_no_sessions_query_may_come_fails(reference: Reference, ws_relay: WsProxy,
                                                                      tmp_path: Path) -> None:
    """HOOK-SERVER-QUERY-05 (§2 "只有 hello 与 welcome 同时包含 … session-picker-v1 时才可使用对应新增帧"): "device A
    receives no query for sessions" is silence on an open connection; a server that closes it during the window
    proved nothing: that scenario fails (the relay closes the connection at the check's barrier ping, the first ping
    of that scenario)."""
    ws_relay.hang_up_on_ping = "client"  # the harness's simulated desktop dials the relay
    run = _run("hangs-up-query", tmp_path, ws_relay.url, reference.control, reference.token,
               ["HOOK-SERVER-QUERY-05"])
    assert run.verdicts() == {"HOOK-SERVER-QUERY-05": "fail"}, run.explain()
    negative = [s for s in _scenarios(run, "HOOK-SERVER-QUERY-05") if "no sessions query" in s["name"]]
    assert negative and negative[0]["verdict"] == "fail", run.explain()
    assert "closed" in negative[0]["reason"] and "during the window" in negative[0]["reason"], run.explain()
