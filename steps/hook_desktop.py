"""Step vocabulary for ``features/hook/desktop``: the harness plays the hook server, a desktop under test dials in,
and the steps judge the desktop's obligations of slack-hook-protocol.md (§2, §4, §5, 阶段 18 desktop side).

Theory of operation. Every scenario listens with a fresh ``ServerRole`` on ``subjects.desktop_listen()``: for
``desktop=ref`` the embedded reference starts ONE fresh desktop dialling it (``subjects.dial_reference_desktop``,
stopped at the end of the scenario, with its own control API); for ``desktop=listen:HOST:PORT`` an external desktop
dials in (it reconnects with backoff, so one desktop serves every scenario) and its control API comes from
``--control desktop=URL``. The harness accepts the connection, reads ``hello`` and answers ``welcome`` with the
features the scenario names. Requests are named in the feature files ("first", "second", …); the steps give each a
fresh UUID v4 requestId and a fresh ``sim:<uuid>`` externalKey per external-key name, so scenarios never see each
other's work even when an external desktop keeps its state between them. The turns the desktop's agent runs are
scripted through the control API (docs/desktop-plan.md, ``script-next-turn``): expectations come from the feature.

Vocabulary:

* ``Given a desktop connected to the harness's hook server with features "<a, b>|none"``
* ``Given|When the desktop's next turn is scripted as <JSON>`` (the ``script-next-turn`` body)
* ``When the harness dispatches "<name>" [to workspace "<alias>"] [with external key "<key>"]``;
  ``When the harness dispatches "<name>" to an unknown session``; ``When the harness redelivers "<name>"``
* ``When the harness cancels "<name>"`` (also a name never dispatched); ``When the harness archives the session
  of external key "<key>"`` / ``archives an unknown external key``
* ``When the harness drops the connection and the desktop reconnects``; ``When the harness accepts the delivery of
  "<name>"`` (turn.delivery accepted, attempt 0); ``When the harness answers that interaction with its first button``
  / ``… answers that interaction again`` (a late decision)
* ``When the desktop user retries "<name>"`` / ``asks "<text>" in the session of "<name>"`` / ``turns the
  lifecycle announcement <on|off>``; ``When the desktop's workspaces are set to "<alias>" as default`` /
  ``When the folder of workspace "<alias>" is removed``
* ``Given a desktop connected to the harness's hook server, which requires a bearer token, with features "…"``
  (a fresh token for the embedded reference; ``--hook-token`` for an external desktop)
* ``When the harness dispatches "<name>" into the session of "<other>" with external key "<key>"`` (a takeover) /
  ``… asking for the agent kind "<kind>"`` / ``… asking for the first agent kind of the hello``; ``When the
  desktop is disabled`` / ``enabled again``; ``When the desktop goes offline`` / ``comes back online`` (control
  ``disconnect`` / ``reconnect``); ``When the desktop's clock advances by <n> days`` (control ``advance-clock``);
  ``When the harness pings the desktop <n> times while "<name>" runs``; ``When the harness answers that
  interaction too late``; ``When the desktop user retries the reopened round``
* Then: acks, turn.progress snapshots, turn.end linkage, attachments, turn.reopen order and ids, hello fields,
  interactions (also the timeout's interaction.cancel), lifecycle.preference, pongs, the handshake's Authorization
  header, the control ``state`` (run count and session, finished, outbox, reopenable). Steps that judge "nothing was
  sent" watch the desktop for ``min(1.5 s, step limit)``; ``retries`` / ``asks`` / ``answers that interaction
  again`` first drain the inbox, so the checks after them see only what the desktop sent afterwards.
  ``the desktop sends a new hello …`` needs a hello the desktop re-sends on its own; ``the desktop's next hello
  has …`` / ``the next hello has no …`` take the one of the next handshake when it re-sends none.

Verdicts: no pass without evidence. A Then step judges what the desktop sent or what its control API answered,
never a counter its own When step kept. A "nothing was sent" check holds only on a connection that stays open and
answers ping (``expect_none``); a control answer that omits a documented field (docs/control-api.md, desktop) is
the desktop's malformed answer, a failure, never an empty default; an "every X is Y" check fails when there is no X.
What the run does not give the harness (``--hook-token`` for an external desktop, a control capability) makes the
scenario *not testable*, never *not applicable*.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.control import ControlClient
from simulator.errors import MissingFrame, NotTestable, SubjectTimeout
from simulator.hook import (
    ABSENT,
    HOOK_CHAT_WORKSPACE_ALIAS,
    SUPPORTED_IMAGE_MIME_TYPES,
)
from simulator.roles.hook_conn import HookConnectionClosed, Inbound
from simulator.roles.hook_server import ServerRole
from simulator.targets import Role
from simulator.wirelog import WireLog

__all__ = ["DesktopScenario"]

ROLE = Role.DESKTOP.value
#: The protocol's names and limits (slack-hook-protocol.md §5, §7) come from the core's constants, the spec's single
#: source. §5 阶段 18 "desktop 必须用全局抗碰撞的标识(UUID v4 或同等强度)" is not a parse rule ("parse 只能校验
#: 非空且不等于 reopenOf"), so it is judged by a step:
UUID4 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", re.I)
#: A desktop reconnects with backoff: accepting its next connection may take longer than one step.
RECONNECT_MIN_S = 15.0
#: How long a negative check watches the desktop (bounded by the step limit).
QUIET_S = 1.5
POLL_S = 0.05


@dataclass
class DesktopScenario:
    server: ServerRole
    control: ControlClient
    features: tuple[str, ...]
    step_timeout: float
    wire: WireLog
    tmp: Path
    request_ids: dict[str, str] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    #: request name → the external-key name it was dispatched with
    key_names: dict[str, str] = field(default_factory=dict)
    acks: dict[str, list[Any]] = field(default_factory=dict)
    ends: dict[str, list[Inbound]] = field(default_factory=dict)
    hellos: list[Any] = field(default_factory=list)
    reopens: list[Inbound] = field(default_factory=list)
    last_reopen_answer: Any = None
    #: the bearer token the harness's server requires (None: none)
    token: str | None = None
    #: the requestIds of every turn.reopen seen, in order (kept across retries)
    reopen_ids: list[str] = field(default_factory=list)
    #: interaction.request payloads by request name
    interactions: dict[str, list[Any]] = field(default_factory=dict)
    #: pings the harness sent in ``the harness pings the desktop …``, the inbox position before the first, and the
    #: request whose turn ran meanwhile: the Then step judges the pongs the desktop sent after that position
    pings: int = 0
    ping_floor: int = 0
    ping_request: str | None = None

    # -- helpers -------------------------------------------------------------------------------------------------

    def rid(self, name: str) -> str:
        return self.request_ids.setdefault(name, str(uuid.uuid4()))

    def key(self, name: str) -> str:
        return self.keys.setdefault(name, f"sim:{uuid.uuid4()}")

    def key_for(self, name: str) -> str:
        """The externalKey request ``name`` was dispatched with."""
        return self.key(self.key_names.get(name, name))

    def ctl(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        return self.control.call(capability, body or {})

    @property
    def quiet(self) -> float:
        return min(QUIET_S, self.step_timeout)

    def handshake(self, timeout: float | None = None) -> Any:
        self.server.accept(timeout)
        hello = self.server.expect_hello()
        self.hellos.append(hello)
        self.server.welcome(self.features)
        return hello

    def reconnect(self) -> Any:
        return self.handshake(max(self.step_timeout, RECONNECT_MIN_S))

    def end_entry(self, name: str) -> Inbound:
        rid = self.rid(name)
        entry = self.server.expect(lambda e: e.type == "turn.end" and e.request_id == rid)
        if not entry.ok:
            raise AssertionError(f"the desktop's turn.end for {name!r} is invalid: {entry.issue}")
        self.ends.setdefault(name, []).append(entry)
        return entry

    def last_end(self, name: str) -> Inbound:
        if not self.ends.get(name):
            self.end_entry(name)
        return self.ends[name][-1]


#: docs/control-api.md "desktop": the fields of the ``state`` answer, and of each of its ``runs``.
STATE_FIELDS = {"sessions": list, "runs": list, "outbox": list, "reopenable": list, "connected": bool,
                "serverFeatures": list}
RUN_FIELDS = ("requestId", "runs", "status", "sessionId", "kind", "reopenOf", "decision")


def _state(desk: DesktopScenario) -> dict[str, Any]:
    """The desktop's control ``state``, checked against docs/control-api.md: a field it omits is its malformed
    answer (a failure), never an empty default that would let "lists no outbox entry" or "does not offer" pass."""
    state = desk.ctl("state")
    if not isinstance(state, dict):
        raise AssertionError(f"the desktop's control answer to state is not an object: {state!r}"[:600])
    bad = [k for k, t in STATE_FIELDS.items() if not isinstance(state.get(k), t)]
    if bad:
        raise AssertionError(f"the desktop's control answer to state lacks (or mistypes) {bad} "
                             f"(docs/control-api.md, desktop): {json.dumps(state)[:600]}")
    for index, run in enumerate(state["runs"]):
        missing = [k for k in RUN_FIELDS if not isinstance(run, dict) or k not in run]
        if missing:
            raise AssertionError(f"the desktop's control answer to state is malformed at /runs/{index}: missing "
                                 f"{missing} (docs/control-api.md, desktop): {run!r}"[:600])
    return state


def _await_close(desk: DesktopScenario, why: str) -> Any:
    """Wait for the desktop to close the current connection (a step that needs the close). A desktop that stays
    connected and answers ping did not do what ``why`` requires: a failure, not a timeout."""
    try:
        return desk.server.wait_closed()
    except SubjectTimeout:
        if desk.server.connection.is_alive():
            raise AssertionError(f"the desktop kept the connection open for {desk.step_timeout:g} s although "
                                 f"{why}") from None
        raise


def _given(value: Any) -> bool:
    return value is not ABSENT and value is not None


def _features(text: str) -> tuple[str, ...]:
    text = text.strip()
    if text in ("", "none"):
        return ()
    return tuple(f.strip() for f in text.split(",") if f.strip())


# -- Given: the connection -----------------------------------------------------------------------------------------


def _connect_desktop(request: pytest.FixtureRequest, harness_config, subjects, wire_log, harness, tmp_path: Path,
                     features: str, token: str | None = None) -> DesktopScenario:
    server = ServerRole(wire=wire_log, step_timeout=harness_config.step_timeout, require_token=token,
                        dial_watch=subjects.desktop_dial_watch())
    request.addfinalizer(server.close)
    host, port = subjects.desktop_listen()
    url = server.listen(host, port)
    target = harness_config.target(Role.DESKTOP)
    if target.is_reference:
        handle = subjects.dial_reference_desktop(url, token)
        request.addfinalizer(handle.stop)
        control = ControlClient(handle.control_url, role=ROLE, timeout=harness_config.step_timeout, wire=wire_log)
    else:
        control = subjects.control(ROLE, wire_log)
    desk = DesktopScenario(server=server, control=control, features=_features(features),
                           step_timeout=harness_config.step_timeout, wire=wire_log, tmp=tmp_path, token=token)
    desk.reconnect()
    harness.note_subject(ROLE, target.raw, dict(server.identity))
    return desk


@bdd.given(parsers.parse('a desktop connected to the harness\'s hook server with features "{features}"'),
           target_fixture="desk")
def given_desktop(request: pytest.FixtureRequest, harness_config, subjects, wire_log, harness,
                  tmp_path: Path, features: str) -> DesktopScenario:
    return _connect_desktop(request, harness_config, subjects, wire_log, harness, tmp_path, features)


@bdd.given(parsers.parse('a desktop connected to the harness\'s hook server, which requires a bearer token, with '
                         'features "{features}"'), target_fixture="desk")
def given_desktop_token(request: pytest.FixtureRequest, harness_config, subjects, wire_log, harness,
                        tmp_path: Path, features: str) -> DesktopScenario:
    """The embedded reference dials with a fresh token; an external desktop was started with the token the run
    names with ``--hook-token`` (docs/targets.md, "Authentication")."""
    if harness_config.target(Role.DESKTOP).is_reference:
        token = f"conformance-{uuid.uuid4()}"
    else:
        token = harness_config.hook_token
        if not token:
            raise NotTestable("the desktop under test dials with a bearer token the harness does not know: give the "
                              "run --hook-token TOKEN, the token the desktop was started with")
    return _connect_desktop(request, harness_config, subjects, wire_log, harness, tmp_path, features, token)


# -- When: scripting and dispatching -------------------------------------------------------------------------------


_SCRIPT = parsers.re(r"the desktop's next turn is scripted as (?P<body>\{.*\})$")


@bdd.given(_SCRIPT)
@bdd.when(_SCRIPT)
def script_next_turn(desk: DesktopScenario, body: str) -> None:
    desk.ctl("script-next-turn", json.loads(body))


_DISPATCH = parsers.re(r'the harness dispatches "(?P<name>[^"]+)"(?: to workspace "(?P<ws>[^"]+)")?'
                       r'(?: with external key "(?P<key>[^"]+)")?$')


@bdd.given(_DISPATCH)
@bdd.when(_DISPATCH)
def dispatch(desk: DesktopScenario, name: str, ws: str | None, key: str | None) -> None:
    desk.key_names[name] = key or name
    desk.server.dispatch(desk.rid(name), desk.key_for(name), ws or HOOK_CHAT_WORKSPACE_ALIAS,
                         prompt=f"Conformance task {name}.")


@bdd.when(parsers.parse('the harness dispatches "{name}" to an unknown session'))
def dispatch_unknown_session(desk: DesktopScenario, name: str) -> None:
    desk.server.dispatch(desk.rid(name), desk.key(name), None, session_id=f"no-such-session-{uuid.uuid4()}")


@bdd.when(parsers.parse('the harness redelivers "{name}"'))
def redeliver(desk: DesktopScenario, name: str) -> None:
    desk.server.redispatch(desk.rid(name))


@bdd.when(parsers.parse('the harness cancels "{name}"'))
def cancel(desk: DesktopScenario, name: str) -> None:
    desk.server.cancel(desk.rid(name))


@bdd.when(parsers.parse('the harness archives the session of external key "{key}"'))
def archive(desk: DesktopScenario, key: str) -> None:
    desk.server.archive(desk.key(key))


@bdd.when("the harness archives an unknown external key")
def archive_unknown(desk: DesktopScenario) -> None:
    desk.server.archive(f"sim:{uuid.uuid4()}")


@bdd.when("the harness drops the connection and the desktop reconnects")
def drop_and_reconnect(desk: DesktopScenario) -> None:
    desk.server.drop()
    desk.reconnect()


@bdd.when(parsers.parse('the harness accepts the delivery of "{name}"'))
def delivery_accepted(desk: DesktopScenario, name: str) -> None:
    desk.server.delivery(desk.rid(name), "accepted", 0)


@bdd.when(parsers.parse('the desktop user retries "{name}"'))
def user_retries(desk: DesktopScenario, name: str) -> None:
    desk.server.drain()  # what follows is judged on the frames sent after the retry
    desk.reopens.clear()
    desk.last_reopen_answer = desk.ctl("retry-turn", {"requestId": desk.rid(name)})


@bdd.when(parsers.parse('the desktop user asks "{text}" in the session of "{name}"'))
def user_asks(desk: DesktopScenario, text: str, name: str) -> None:
    desk.server.drain()  # what follows is judged on the frames sent after the question
    desk.ctl("ask-in-session", {"requestId": desk.rid(name), "text": text})


@bdd.when(parsers.re(r"the desktop user turns the lifecycle announcement (?P<state>on|off)$"))
def lifecycle_pref(desk: DesktopScenario, state: str) -> None:
    desk.ctl("set-lifecycle-preference", {"enabled": state == "on"})


@bdd.when(parsers.parse('the desktop\'s workspaces are set to "{alias}" as default'))
def set_workspaces(desk: DesktopScenario, alias: str) -> None:
    folder = desk.tmp / alias
    folder.mkdir(parents=True, exist_ok=True)
    desk.ctl("set-workspaces", {"workspaces": {alias: str(folder)}, "defaultWorkspace": alias})


@bdd.when(parsers.parse('the folder of workspace "{alias}" is removed'))
def remove_folder(desk: DesktopScenario, alias: str) -> None:
    desk.ctl("remove-workspace-folder", {"alias": alias})


# -- Then: hello ---------------------------------------------------------------------------------------------------


@bdd.then(parsers.parse('the hello lists "{alias}" as its first workspace'))
def hello_first(desk: DesktopScenario, alias: str) -> None:
    ws = desk.hellos[-1].workspaces
    assert ws and ws[0] == alias, f"hello.workspaces starts with {ws[:1]!r}, not {alias!r}"


@bdd.then("the hello states lifecycleAnnouncement explicitly")
def hello_lifecycle(desk: DesktopScenario) -> None:
    value = desk.hellos[-1].lifecycle_announcement
    # its type (boolean when present) is the core's hello check; the step judges that it is present at all
    assert value is not ABSENT, "hello.lifecycleAnnouncement is left out (an old server would default it)"


@bdd.then("the hello's defaultWorkspace, when given, is one of its workspaces")
def hello_default_member(desk: DesktopScenario) -> None:
    """§5 阶段 1 hello: "可选 defaultWorkspace(…必须是 workspaces 的成员…)": judged when the hello names one (a hello
    without it conforms; ``the hello's defaultWorkspace is one of its workspaces`` needs one)."""
    hello = desk.hellos[-1]
    if _given(hello.default_workspace):
        assert hello.default_workspace in hello.workspaces, (
            f"defaultWorkspace {hello.default_workspace!r} is not in workspaces {list(hello.workspaces)!r}")


@bdd.then("the hello's defaultWorkspace is one of its workspaces")
def hello_default_present_member(desk: DesktopScenario) -> None:
    """§5 阶段 1 hello: "defaultWorkspace(本连接的默认工作区别名;必须是 workspaces 的成员)", on a hello that names one."""
    hello = desk.hellos[-1]
    assert _given(hello.default_workspace), "the hello names no defaultWorkspace: there is nothing to judge"
    assert hello.default_workspace in hello.workspaces, (
        f"defaultWorkspace {hello.default_workspace!r} is not in workspaces {list(hello.workspaces)!r}")


def _resent_hello(desk: DesktopScenario) -> Any:
    """The hello the desktop re-sends on its own on the open connection (§5 阶段 1 "别名映射变更后重发 hello 即时生效
    (server 以最新一帧为准)"). A desktop that sends none fails (``MissingFrame``); the harness never forces one."""
    hello = desk.server.expect_payload("hello", desk.step_timeout)
    desk.hellos.append(hello)
    return hello


def _next_hello(desk: DesktopScenario) -> Any:
    """The desktop's next hello: the one it re-sends on its own, else the one of its next handshake (默认工作目录:
    "desktop 侧目录被删除后必须把默认值归零后再握手"). Only a desktop that is alive and sent no hello, or that closed
    the connection itself, is made to handshake again; an invalid hello fails, a silent desktop times out."""
    try:
        return _resent_hello(desk)
    except (MissingFrame, HookConnectionClosed):
        desk.server.drop()
        return desk.reconnect()


@bdd.then(parsers.parse('the desktop sends a new hello with "{alias}" as defaultWorkspace'))
def new_hello_default(desk: DesktopScenario, alias: str) -> None:
    hello = _resent_hello(desk)
    assert alias in hello.workspaces, f"the new hello's workspaces {list(hello.workspaces)!r} lack {alias!r}"
    assert hello.default_workspace == alias, f"the new hello's defaultWorkspace is {hello.default_workspace!r}"


@bdd.then(parsers.parse('the desktop\'s next hello has "{alias}" as defaultWorkspace'))
def next_hello_default(desk: DesktopScenario, alias: str) -> None:
    """The hello re-sent after the change, or the one of the next handshake: the change has reached the wire."""
    hello = _next_hello(desk)
    assert hello.default_workspace == alias, f"the next hello's defaultWorkspace is {hello.default_workspace!r}, " \
                                             f"not {alias!r}"


@bdd.then(parsers.parse('the next hello has no defaultWorkspace "{alias}"'))
def next_hello_cleared(desk: DesktopScenario, alias: str) -> None:
    hello = _next_hello(desk)
    assert not _given(hello.default_workspace) or (
        hello.default_workspace != alias and hello.default_workspace in hello.workspaces), (
        f"the hello after the folder was removed still names defaultWorkspace {hello.default_workspace!r}")


# -- Then: acks ----------------------------------------------------------------------------------------------------


def _ack(desk: DesktopScenario, name: str) -> Any:
    ack = desk.server.expect_ack(desk.rid(name))
    desk.acks.setdefault(name, []).append(ack)
    return ack


def _first_ack(desk: DesktopScenario, name: str) -> Any:
    return desk.acks[name][0] if desk.acks.get(name) else _ack(desk, name)


@bdd.then(parsers.parse('the desktop acks "{name}" as accepted with a session id'))
def ack_accepted(desk: DesktopScenario, name: str) -> None:
    ack = _ack(desk, name)
    # an accepted/queued ack carries a non-empty sessionId, a queued one an integer queuePosition: the core's task.ack
    # check (§5 task.ack "联动约束(parse 强制)"), run on every received frame; ``expect_ack`` returns only valid acks.
    assert ack.result == "accepted", f"task.ack result {ack.result!r} (reason {ack.reason!r}), expected accepted"


@bdd.then(parsers.parse('the desktop acks "{name}" as queued with a queue position and a session id'))
def ack_queued(desk: DesktopScenario, name: str) -> None:
    ack = _ack(desk, name)
    assert ack.result == "queued", f"task.ack result {ack.result!r}, expected queued (the session is busy)"
    # the session is busy with one task, so this one waits behind at least it (the value, not the shape)
    assert ack.queue_position >= 1, f"queuePosition {ack.queue_position!r}"


@bdd.then(parsers.parse('the desktop acks "{name}" as rejected with reason "{reason}"'))
def ack_rejected(desk: DesktopScenario, name: str, reason: str) -> None:
    ack = _ack(desk, name)
    assert ack.result == "rejected", f"task.ack result {ack.result!r}, expected rejected"
    assert ack.reason == reason, f"task.ack reason {ack.reason!r}, expected {reason!r}"


@bdd.then(parsers.parse('"{a}" and "{b}" were acked with the same session id'))
def same_session(desk: DesktopScenario, a: str, b: str) -> None:
    sa, sb = _first_ack(desk, a).session_id, _first_ack(desk, b).session_id
    assert sa == sb, f"the same externalKey went to two sessions: {sa!r} and {sb!r}"


@bdd.then(parsers.parse('"{a}" and "{b}" were acked with different session ids'))
def different_session(desk: DesktopScenario, a: str, b: str) -> None:
    sa, sb = _first_ack(desk, a).session_id, _first_ack(desk, b).session_id
    assert sa != sb, f"two externalKeys share the session {sa!r}"


@bdd.then(parsers.parse('the desktop replays the same ack for "{name}"'))
def replayed_ack(desk: DesktopScenario, name: str) -> None:
    first = _first_ack(desk, name)
    again = _ack(desk, name)
    assert again.to_wire() == first.to_wire(), f"the replayed ack {again.to_wire()!r} differs from {first.to_wire()!r}"


@bdd.then(parsers.parse('the desktop ran "{name}" exactly once'))
def ran_once(desk: DesktopScenario, name: str) -> None:
    rid = desk.rid(name)
    time.sleep(desk.quiet)  # a second run, if any, has started by now
    runs = [r for r in _state(desk)["runs"] if r["requestId"] == rid]
    assert runs, f"the desktop's state lists no run of {name!r} ({rid})"
    bad = [r["runs"] for r in runs if not isinstance(r["runs"], int) or isinstance(r["runs"], bool)]
    assert not bad, f"the desktop's state gives a run count that is not an integer: {bad!r}"
    count = sum(r["runs"] for r in runs)
    assert count == 1, f"the desktop's state reports {count} runs of {rid}: {runs!r}"


# -- Then: turns ---------------------------------------------------------------------------------------------------


@bdd.then(parsers.parse('the turn.end of "{name}" has status "{status}"'))
def end_status(desk: DesktopScenario, name: str, status: str) -> None:
    end = desk.last_end(name).payload
    assert end.status == status, f"turn.end status {end.status!r} (errorMessage {end.error_message!r}), " \
                                 f"expected {status!r}"


@bdd.then(parsers.parse('the turn.end of "{name}" has the final text "{text}"'))
def end_text(desk: DesktopScenario, name: str, text: str) -> None:
    end = desk.last_end(name).payload
    assert end.final_text == text, f"turn.end finalText {end.final_text!r}, expected {text!r}"


@bdd.then(parsers.parse('the turn.end of "{name}" echoes its externalKey and the acked session id'))
def end_linkage(desk: DesktopScenario, name: str) -> None:
    end = desk.last_end(name).payload
    assert end.external_key == desk.key_for(name), \
        f"turn.end externalKey {end.external_key!r}, dispatched {desk.key_for(name)!r}"
    ack = _first_ack(desk, name)
    assert end.session_id == ack.session_id, f"turn.end sessionId {end.session_id!r}, acked {ack.session_id!r}"


@bdd.then(parsers.parse('the turn.end of "{name}" reports durationMs as null or a non-negative integer'))
def end_duration(desk: DesktopScenario, name: str) -> None:
    usage = desk.last_end(name).payload.usage
    d = usage.duration_ms if _given(usage) else None
    # null or a finite number >= 0 is the core's turn.end check (§5 "usage.durationMs(拿不到就 null,不编造)");
    # the scenario's phrase asks for a whole number of milliseconds on top of that
    assert d is None or d is ABSENT or (isinstance(d, int) and not isinstance(d, bool)), f"usage.durationMs is {d!r}"


@bdd.then(parsers.re(r'the turn.progress frames of "(?P<name>[^"]+)" are whole snapshots among (?P<snaps>\[.*\])$'))
def progress_snapshots(desk: DesktopScenario, name: str, snaps: str) -> None:
    expected: list[str] = json.loads(snaps)
    desk.last_end(name)
    rid = desk.rid(name)
    got = [e.payload.text for e in desk.server.pending() if e.type == "turn.progress" and e.ok and e.request_id == rid]
    assert got, "the desktop sent no turn.progress for a turn scripted with progress"
    last = -1
    for text in got:
        assert text in expected, f"turn.progress text {text!r} is not one whole snapshot (concatenated or cut?)"
        index = expected.index(text)
        assert index >= last, f"turn.progress went back from snapshot {last} to {index}"
        last = index


@bdd.then(parsers.parse('every attachment of the turn.end of "{name}" has a supported image type'))
def end_attachments_allowed(desk: DesktopScenario, name: str) -> None:
    end = desk.last_end(name).payload
    types = [a.mime_type for a in (end.attachments if _given(end.attachments) else ())]
    assert types, f"the turn.end of {name!r} carries no attachment: there is nothing to judge (the turn was " \
                  f"scripted to produce some)"
    bad = [t for t in types if t not in SUPPORTED_IMAGE_MIME_TYPES]
    assert not bad, f"turn.end carries attachments of unsupported types {bad!r}"


@bdd.then(parsers.parse('the turn.end of "{name}" carries attachments of the types "{types}"'))
def end_attachments_types(desk: DesktopScenario, name: str, types: str) -> None:
    end = desk.last_end(name).payload
    got = sorted(a.mime_type for a in (end.attachments if _given(end.attachments) else ()))
    want = sorted(t.strip() for t in types.split(","))
    assert got == want, f"turn.end attachment types {got!r}, expected {want!r}"


@bdd.then(parsers.parse('the desktop sends the turn.end of "{name}" again, byte for byte'))
def end_resent_identical(desk: DesktopScenario, name: str) -> None:
    first = desk.last_end(name)
    again = desk.end_entry(name)
    assert again.text == first.text, f"the re-sent turn.end differs:\n{first.text[:400]}\n{again.text[:400]}"


@bdd.then(parsers.parse('the desktop does not send the turn.end of "{name}" again'))
def end_not_resent(desk: DesktopScenario, name: str) -> None:
    rid = desk.rid(name)
    desk.server.expect_none(lambda e: e.type == "turn.end" and e.request_id == rid, desk.quiet)


@bdd.then("the connection stays open and the desktop answers a ping")
def still_alive(desk: DesktopScenario) -> None:
    desk.server.ping()
    pong = desk.server.expect("pong")
    assert pong.ok, f"the desktop's pong is invalid: {pong.issue}"
    bad = [e for e in desk.server.pending() if not e.ok]
    assert not bad, f"the desktop sent an invalid frame: {bad[0].issue}"


# -- Then: interactions --------------------------------------------------------------------------------------------


@bdd.then(parsers.parse('the desktop sends an interaction.request for "{name}" with at most 24 unique buttons '
                        'whose ids contain no "|"'))
def interaction_request(desk: DesktopScenario, name: str) -> None:
    req = desk.server.expect_payload("interaction.request", where=lambda p: p.request_id == desk.rid(name),
                                     timeout=None)
    # 1 to 24 buttons, unique ids without "|", a non-empty interactionId: the core's interaction.request check
    # (``parse_hook_message``); ``expect_payload`` fails the step with its issue when the frame breaks one.
    desk.acks.setdefault(f"interaction:{name}", []).append(req)


@bdd.when(parsers.parse('the harness answers that interaction with its first button'))
def answer_kept_interaction(desk: DesktopScenario) -> None:
    reqs = [v[-1] for k, v in desk.acks.items() if k.startswith("interaction:")]
    assert reqs, "no interaction.request was received"
    req = reqs[-1]
    desk.server.interaction_decision(req.request_id, req.interaction_id, req.buttons[0].id)


@bdd.when("the harness answers that interaction again")
def answer_again(desk: DesktopScenario) -> None:
    desk.server.drain()  # what follows is judged on the frames sent after the late decision
    answer_kept_interaction(desk)


# -- Then: turn.reopen ---------------------------------------------------------------------------------------------


def _reopen(desk: DesktopScenario) -> Any:
    if not desk.reopens:
        entry = desk.server.expect("turn.reopen", consume=False)
        if not entry.ok:
            raise AssertionError(f"the desktop's turn.reopen is invalid: {entry.issue}")
        desk.reopens.append(entry)
        desk.reopen_ids.append(entry.payload.request_id)
    return desk.reopens[-1].payload


@bdd.then("the desktop sends no turn.reopen")
def no_reopen(desk: DesktopScenario) -> None:
    desk.server.expect_none("turn.reopen", desk.quiet)


@bdd.then(parsers.parse('the desktop sends a turn.reopen of "{name}"'))
def reopen_of(desk: DesktopScenario, name: str) -> None:
    reopen = _reopen(desk)
    assert reopen.reopen_of == desk.rid(name), f"reopenOf {reopen.reopen_of!r}, expected {desk.rid(name)!r}"
    assert reopen.external_key == desk.key_for(name), f"turn.reopen externalKey {reopen.external_key!r}"


@bdd.then("the reopen requestId is a UUID v4 other than reopenOf")
def reopen_uuid(desk: DesktopScenario) -> None:
    reopen = _reopen(desk)
    assert reopen.request_id != reopen.reopen_of, "turn.reopen requestId equals reopenOf"
    assert UUID4.fullmatch(reopen.request_id), f"turn.reopen requestId {reopen.request_id!r} is not a UUID v4"
    assert reopen.request_id not in desk.request_ids.values(), "turn.reopen reuses a server-generated requestId"


@bdd.then("the turn.reopen comes before every turn.progress and the turn.end of the reopened round")
def reopen_first(desk: DesktopScenario) -> None:
    reopen = _reopen(desk)
    rid = reopen.request_id
    desk.server.expect(lambda e: e.type == "turn.end" and e.request_id == rid, consume=False)
    entries = desk.server.pending()
    round_frames = [e for e in entries if e.type in ("turn.progress", "turn.end") and e.request_id == rid]
    reopen_seq = desk.reopens[-1].seq
    early = [e for e in round_frames if e.seq < reopen_seq]
    assert not early, f"{early[0].type} of the reopened round came before its turn.reopen"


@bdd.then(parsers.parse('the turn.end of the reopened round has status "{status}"'))
def reopened_end_status(desk: DesktopScenario, status: str) -> None:
    rid = _reopen(desk).request_id
    entry = desk.server.expect(lambda e: e.type == "turn.end" and e.request_id == rid, consume=False)
    assert entry.payload.status == status, f"the reopened round ended {entry.payload.status!r}, expected {status!r}"


@bdd.then("the desktop sends nothing more for the reopened round")
def reopened_not_replayed(desk: DesktopScenario) -> None:
    rid = _reopen(desk).request_id
    desk.server.expect_none(
        lambda e: e.type in ("turn.reopen", "turn.progress", "turn.end") and e.request_id == rid,
        desk.quiet)


@bdd.then(parsers.parse('the desktop sends no turn.progress, turn.end or turn.reopen for "{name}"'))
def nothing_for(desk: DesktopScenario, name: str) -> None:
    rid = desk.rid(name)
    desk.server.expect_none(
        lambda e: (e.type in ("turn.progress", "turn.end") and e.request_id == rid)
        or (e.type == "turn.reopen" and e.ok and e.payload.reopen_of == rid),
        desk.quiet)


# -- Then: lifecycle and gating ------------------------------------------------------------------------------------


@bdd.then(parsers.re(r"the desktop sends lifecycle.preference with enabled (?P<value>true|false)$"))
def lifecycle_sent(desk: DesktopScenario, value: str) -> None:
    pref = desk.server.expect_payload("lifecycle.preference")
    assert pref.enabled is (value == "true"), f"lifecycle.preference enabled {pref.enabled!r}"


@bdd.then("the desktop sends no lifecycle.preference")
def lifecycle_not_sent(desk: DesktopScenario) -> None:
    desk.server.expect_none("lifecycle.preference", desk.quiet)


@bdd.then(parsers.parse('the desktop sent no frame of the types "{types}"'))
def no_types(desk: DesktopScenario, types: str) -> None:
    names = {t.strip() for t in types.split(",")}
    desk.server.expect_none(lambda e: e.type in names, desk.quiet)


@bdd.then(parsers.parse('the turn.end of "{name}" arrives'))
def end_arrives(desk: DesktopScenario, name: str) -> None:
    desk.end_entry(name)


@bdd.then(parsers.parse('the ack of "{name}" arrives'))
def ack_arrives(desk: DesktopScenario, name: str) -> None:
    _ack(desk, name)


@bdd.then("the desktop's state lists no outbox entry")
def outbox_empty(desk: DesktopScenario) -> None:
    outbox = _state(desk)["outbox"]
    mine = [r for r in outbox if r in desk.request_ids.values()]
    assert not mine, f"the desktop keeps {mine!r} in its outbox"



# -- dispatch variants: takeover, agents, an enabled switch --------------------------------------------------------


@bdd.when(parsers.parse('the harness dispatches "{name}" into the session of "{other}" with external key "{key}"'))
def dispatch_takeover(desk: DesktopScenario, name: str, other: str, key: str) -> None:
    """A takeover (§2: sessionId non-null): the session the desktop acked for ``other``, no workspace."""
    session_id = _first_ack(desk, other).session_id
    assert isinstance(session_id, str) and session_id, f"{other!r} was not acked with a session id"
    desk.key_names[name] = key
    desk.server.dispatch(desk.rid(name), desk.key(key), None, session_id=session_id,
                         prompt=f"Conformance task {name}.")


@bdd.when(parsers.parse('the harness dispatches "{name}" asking for the agent kind "{kind}"'))
def dispatch_agent_kind(desk: DesktopScenario, name: str, kind: str) -> None:
    desk.key_names[name] = name
    desk.server.dispatch(desk.rid(name), desk.key(name), HOOK_CHAT_WORKSPACE_ALIAS,
                         prompt=f"Conformance task {name}.", options={"agentKind": kind})


@bdd.when(parsers.parse('the harness dispatches "{name}" asking for the first agent kind of the hello'))
def dispatch_hello_agent(desk: DesktopScenario, name: str) -> None:
    agents = list(desk.hellos[-1].agents)
    assert agents, "hello.agents lists no agent kind"
    dispatch_agent_kind(desk, name, agents[0])


@bdd.when("the desktop is disabled")
def desktop_disabled(request: pytest.FixtureRequest, desk: DesktopScenario) -> None:
    desk.ctl("set-enabled", {"enabled": False})

    def enable_again() -> None:  # an external desktop keeps its state for the next scenario
        try:
            desk.ctl("set-enabled", {"enabled": True})
        except Exception:  # noqa: BLE001 - best effort at teardown
            pass
    request.addfinalizer(enable_again)


@bdd.when("the desktop is enabled again")
def desktop_enabled(desk: DesktopScenario) -> None:
    desk.ctl("set-enabled", {"enabled": True})


@bdd.then(parsers.parse('the desktop acks "{name}" as accepted with the session id of "{other}"'))
def ack_accepted_in(desk: DesktopScenario, name: str, other: str) -> None:
    ack = _ack(desk, name)
    want = _first_ack(desk, other).session_id
    assert ack.result == "accepted", f"task.ack result {ack.result!r} (reason {ack.reason!r}), expected accepted"
    assert ack.session_id == want, f"the takeover was acked in session {ack.session_id!r}, not {want!r}"


@bdd.then(parsers.parse('the turn.end of "{name}" carries the session id of "{other}"'))
def end_in_session(desk: DesktopScenario, name: str, other: str) -> None:
    end = desk.last_end(name).payload
    want = _first_ack(desk, other).session_id
    assert end.session_id == want, f"turn.end sessionId {end.session_id!r}, expected the taken-over {want!r}"


# -- the desktop's control state -----------------------------------------------------------------------------------


def _run_of(desk: DesktopScenario, rid: str) -> dict[str, Any] | None:
    runs = [r for r in _state(desk)["runs"] if r["requestId"] == rid]
    return runs[-1] if runs else None


def _poll(desk: DesktopScenario, check: Any, what: str) -> Any:
    """Poll the control ``state`` until ``check(state)`` is truthy (bounded by the step limit)."""
    deadline = time.monotonic() + desk.step_timeout
    while True:
        state = _state(desk)
        value = check(state)
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"the desktop's state never showed {what} within {desk.step_timeout:g} s: "
                                 f"{json.dumps(state)[:600]}")
        time.sleep(POLL_S * 4)


@bdd.then(parsers.parse('the desktop\'s state shows "{name}" run in the session of "{other}"'))
def state_run_session(desk: DesktopScenario, name: str, other: str) -> None:
    want = _first_ack(desk, other).session_id
    run = _run_of(desk, desk.rid(name))
    assert run is not None, f"the desktop's state lists no run of {name!r}"
    assert run.get("sessionId") == want, f"the state shows {name!r} in session {run.get('sessionId')!r}, not {want!r}"


_FINISHED = ("ok", "error", "cancelled")


def _finished(rid: str) -> Any:
    return lambda state: any(r["requestId"] == rid and r["status"] in _FINISHED for r in state["runs"])


@bdd.then(parsers.parse('the desktop\'s state shows "{name}" finished'))
def state_finished(desk: DesktopScenario, name: str) -> None:
    _poll(desk, _finished(desk.rid(name)), f"{name!r} finished")


@bdd.then("the desktop's state shows the reopened round finished")
def state_reopened_finished(desk: DesktopScenario) -> None:
    assert desk.reopen_ids, "no turn.reopen was received"
    _poll(desk, _finished(desk.reopen_ids[-1]), "the reopened round finished")


@bdd.then(parsers.parse('the desktop\'s state offers "{name}" for reopen'))
def state_reopenable(desk: DesktopScenario, name: str) -> None:
    offered = _state(desk)["reopenable"]
    assert desk.rid(name) in offered, f"the desktop's state does not offer {name!r} for reopen: {offered!r}"


@bdd.then(parsers.parse('the desktop\'s state does not offer "{name}" for reopen'))
def state_not_reopenable(desk: DesktopScenario, name: str) -> None:
    offered = _state(desk)["reopenable"]
    assert desk.rid(name) not in offered, f"the desktop's state still offers {name!r} for reopen"


@bdd.then("the desktop's state does not offer the reopened round for reopen")
def state_reopened_not_reopenable(desk: DesktopScenario) -> None:
    assert desk.reopen_ids, "no turn.reopen was received"
    offered = _state(desk)["reopenable"]
    assert desk.reopen_ids[-1] not in offered, "the desktop's state still offers the reopened round for reopen"


@bdd.then("the retry is a desktop-only round")
def retry_local(desk: DesktopScenario) -> None:
    """The ``retry-turn`` answer (docs/control-api.md: ``{"ok": true, "reopenRequestId": str|null}``) names no
    reopen round; an answer without the field is malformed, not a desktop-only round."""
    answer = desk.last_reopen_answer
    assert answer is not None, "the desktop user did not retry a turn before this step"
    assert isinstance(answer, dict) and "reopenRequestId" in answer, (
        f"the desktop's answer to retry-turn lacks reopenRequestId (docs/control-api.md, desktop): {answer!r}")
    assert answer["reopenRequestId"] is None, (
        f"retry-turn answered reopenRequestId {answer['reopenRequestId']!r}: the round was offered for reopen")


@bdd.when("the desktop user retries the reopened round")
def user_retries_reopened(desk: DesktopScenario) -> None:
    assert desk.reopen_ids, "no turn.reopen was received"
    rid = desk.reopen_ids[-1]
    desk.server.drain()
    desk.reopens.clear()
    desk.last_reopen_answer = desk.ctl("retry-turn", {"requestId": rid})


@bdd.when(parsers.parse("the desktop's clock advances by {days:d} days"))
def advance_clock(desk: DesktopScenario, days: int) -> None:
    desk.control.require("advance-clock")
    desk.ctl("advance-clock", {"ms": days * 24 * 60 * 60 * 1000})


# -- going offline -------------------------------------------------------------------------------------------------


@bdd.when("the desktop goes offline")
def desktop_offline(desk: DesktopScenario) -> None:
    """The control ``disconnect``: the desktop closes its connection and stays offline."""
    desk.ctl("disconnect")
    _await_close(desk, "its control API was told to disconnect")


@bdd.when("the desktop comes back online")
def desktop_online(desk: DesktopScenario) -> None:
    desk.ctl("reconnect")
    desk.reconnect()


# -- interactions: timeouts ----------------------------------------------------------------------------------------


def _last_interaction(desk: DesktopScenario) -> Any:
    reqs = [v[-1] for k, v in desk.acks.items() if k.startswith("interaction:")]
    assert reqs, "no interaction.request was received"
    return reqs[-1]


@bdd.then("the desktop sends an interaction.cancel for that interaction before the turn ends")
def interaction_cancelled(desk: DesktopScenario) -> None:
    req = _last_interaction(desk)
    cancel = desk.server.expect(lambda e: e.type == "interaction.cancel" and e.ok
                                and e.payload.interaction_id == req.interaction_id, consume=False)
    assert cancel.payload.request_id == req.request_id, (
        f"interaction.cancel requestId {cancel.payload.request_id!r}, the card's is {req.request_id!r}")
    end = desk.server.expect(lambda e: e.type == "turn.end" and e.request_id == req.request_id, consume=False)
    assert cancel.seq < end.seq, "the turn ended before the timed-out interaction was cancelled"


# -- ping ------------------------------------------------------------------------------------------------------------


@bdd.when(parsers.parse('the harness pings the desktop {count:d} times while "{name}" runs'))
def ping_mid_turn(desk: DesktopScenario, count: int, name: str) -> None:
    """Sends ``count`` pings, spaced, while the turn of ``name`` runs; what the desktop answered is judged by the
    Then step on the pongs it sent. A turn already ended leaves nothing to ping during: not testable (the scripted
    turn did not run long enough)."""
    rid = desk.rid(name)
    conn = desk.server.connection
    if any(e.type == "turn.end" and e.request_id == rid for e in list(conn.received)):
        raise NotTestable(f"{name!r} ended before the harness could ping: the turn scripted with script-next-turn "
                          f"did not run long enough to ping the desktop while it runs")
    desk.ping_floor = len(conn.received)
    desk.ping_request = name
    for _ in range(count):
        desk.server.ping()
        desk.pings += 1
        time.sleep(POLL_S * 2)


@bdd.then("the desktop answered every ping with a pong")
def every_ping_answered(desk: DesktopScenario) -> None:
    """§5 阶段 1 "ping / pong 双向 心跳,收到 ping 必须回 pong。payload 恒空对象", also while a turn runs: one valid pong
    with an empty payload per ping the harness sent, read from what the desktop sent, the last one before that
    turn's turn.end."""
    assert desk.pings and desk.ping_request is not None, "the harness sent no ping before this step"
    conn = desk.server.connection
    last = desk.ping_floor
    for n in range(1, desk.pings + 1):
        def pong_after(e: Inbound, f: int = last) -> bool:
            return e.type == "pong" and e.seq > f

        pong_after.description = f"pong {n} of {desk.pings}"  # type: ignore[attr-defined]
        entry = desk.server.expect(pong_after)
        assert entry.ok, f"the desktop's pong {n} of {desk.pings} is invalid: {entry.issue}"
        extra = dict(entry.payload.extra)
        assert not extra, f"the desktop's pong {n} of {desk.pings} has a payload that is not empty: {extra!r}"
        last = entry.seq
    rid = desk.rid(desk.ping_request)
    ended = [e.seq for e in list(conn.received) if e.type == "turn.end" and e.request_id == rid]
    assert not ended or ended[0] > last, (
        f"the desktop answered the last of {desk.pings} pings only after the turn of {desk.ping_request!r} ended")


# -- the bearer token ------------------------------------------------------------------------------------------------


@bdd.then("the desktop's handshake carried the bearer token in its Authorization header")
def handshake_token(desk: DesktopScenario) -> None:
    assert desk.token, "this scenario's server requires no token"
    assert desk.server.handshakes, "no handshake was recorded"
    _path, headers = desk.server.handshakes[-1]
    got = headers.get("authorization")
    assert got is not None, "the desktop's upgrade request has no Authorization header"
    assert got == f"Bearer {desk.token}", (
        "the desktop's Authorization header is not 'Bearer <the token>' "
        f"(scheme {got.split(' ', 1)[0]!r}, {len(got)} characters)")


@bdd.when("the harness answers that interaction too late")
def answer_late(desk: DesktopScenario) -> None:
    """A decision for an interaction the desktop already closed (timed out): judged on what follows."""
    desk.server.drain()
    req = _last_interaction(desk)
    desk.server.interaction_decision(req.request_id, req.interaction_id, req.buttons[0].id)


@bdd.then(parsers.re(r'the desktop rejects "(?P<name>[^"]+)" with one of the reasons (?P<reasons>"[^"]+"(?:, "[^"]+")*)$'))
def ack_rejected_one_of(desk: DesktopScenario, name: str, reasons: str) -> None:
    allowed = re.findall(r'"([^"]+)"', reasons)
    ack = _ack(desk, name)
    assert ack.result == "rejected", f"task.ack result {ack.result!r}, expected rejected"
    assert ack.reason in allowed, f"task.ack reason {ack.reason!r}, expected one of {allowed!r}"
