"""Step vocabulary for ``features/hook/server``: the harness plays desktops dialling the hook server under test and
judges the server's obligations of slack-hook-protocol.md (§1–§4, §5 阶段 1 / 2/4/7/9 / 10, turn.delivery 可靠性与兼容,
上下线通知偏好, 默认工作目录, 阶段 18 server 侧约定).

Theory of operation. One hook server serves the whole run (the embedded reference, or ``--target hook-server=ws://…``
with ``--control hook-server=URL`` and ``--hook-token``). Each scenario gets a ``HookServerScenario`` (fixture
``hook_srv``): devices are ``DesktopRole`` instances named in the feature ("A", …), each with a fresh deviceId;
chats are named in the feature and mapped to fresh chat ids; tasks are named at injection ("first") and get the
requestId the server chose; reopen rounds are named too and get a fresh UUID v4. So scenarios never see each
other's work although they share the server.

The far side of the server (the IM channel) is driven and observed through its control API (docs/hook-server-plan.md
"Control API"): ``inject-message``, ``list-messages``, ``list-tasks``, ``connections``, ``dropped-frames``,
``notices``, ``fail-publishes``, ``hold-publishes``, ``advance-clock``, ``set-lane-workspace``,
``set-cleanup-latency``, ``ping-desktops``, ``press-button``, ``config``. Expected values come from the feature files.

Verdicts: no pass without evidence. *Not applicable* only when the server itself declares it lacks what the
requirement concerns (its ``welcome.features``: ``Given the server declares "<feature>"``). What the run does not give
the harness, a control capability the server lacks or a ``--hook-token`` it was not told, makes the scenario *not
testable* (a failure), never a pass. Every control answer is the server's own word and is checked against
docs/control-api.schema.json before a step reads it: a missing or mistyped field is the server's malformed answer
(a failure), never a default that happens to pass; an HTTP error status is ``SubjectRefused`` (a failure) except for
the one documented refusal a step expects (``409 card-closed`` of ``press-button`` on a withdrawn card). A
"nothing arrives" check holds only on a connection that stays open and answers ping (``expect_none``); a step that
needs the server to close waits for the close and fails (not times out) when the server stays alive but open.

Timing. Before observing the channel the steps put a barrier on every open device connection (a ``ping`` and its
``pong``: the server has read every frame sent before it), then poll the control API up to the step limit for a
positive expectation. "Nothing arrives" checks watch for ``min(1.5 s, step limit)``.

Vocabulary (every phrase starts with ``device "<D>"``, ``a user``, ``chat``, ``task``, ``the message``,
``the channel``, ``the server``, ``the card``, ``the connection``, ``the welcome``, ``the hook server``, ``a desktop``,
``that desktop``, ``the delivery``, ``the turn.delivery``, ``the delayed`` or ``no channel message``, so none
clashes with ``steps/hook_desktop.py``):

* Given/When ``device "<D>" is online [with hello <JSON>]`` (hello defaults: workspaces ["chat"], features
  ["turn-delivery-v1"], no lifecycleAnnouncement, no defaultWorkspace; the JSON overrides them);
  ``device "<D>" is connected without saying hello``; ``device "<D>" says hello``; ``… says hello again with <JSON>``
* ``the server declares "<feature>"`` (not applicable otherwise); ``the hook server under test requires a token``
  (not testable when the run gives no ``--hook-token``)
* ``a user writes "<text>" in chat "<chat>" [taking over the desktop session "<S>"] as task "<name>"``;
  ``a user writes "/stop"|"/new" in chat "<chat>"``; ``chat "<chat>" chooses the workspace "<alias>|-"``
* ``device "<D>" acks "<name>" as accepted | queued at position <n> | rejected with reason "<r>"``;
  ``… reports progress "<text>" for "<name>"`` (``\\n`` for a newline); ``… ends "<name>" ok with "<text>" |
  with the error "<text>" | cancelled``; ``… reopens "<orig>" as "<round>" [again]``; ``… reopens an unknown task as
  "<round>"``; ``… ends the round "<round>" of "<orig>" ok with "<text>"`` (a turn.end before any reopen);
  ``… reports progress "<t>" for the unregistered request "<n>"``; ``… ends the unregistered request "<n>" ok with
  "<t>"``; ``… sends its last frame again, byte for byte``; ``… replays its turn.end of "<name>", byte for byte``
* ``device "<D>" drops|closes its connection [and reconnects [without hello]]``; ``… sends a ping``;
  ``… sends a frame of the unknown type "<t>"``; ``… sends the raw text <text>``; ``… sends a turn.progress for a
  request the server never dispatched``; ``… sends an invalid turn.end for "<name>" (status ok with an
  errorMessage)``; ``… sends a turn.progress for "<name>" longer than the frame limit``
* ``device "<D>" asks about "<name>" with the buttons "<a, b>"``; ``a user presses|tries to press "<b>" on that
  card``; ``device "<D>" withdraws that card with the reason "<r>"``; ``device "<D>" turns its lifecycle
  announcement on|off``
* ``the channel fails the next <n> publish(es) of "<name>"``; ``the channel holds every publish``; ``the channel
  releases the held publishes``; ``the server's clock reaches the retry time of "<name>"``; ``the server's
  disconnect clean-up is delayed by <ms> ms``; ``the delayed clean-up has had time to run``; ``the server pings
  every connected desktop``; ``a desktop connects without a token|with a wrong token and says hello``
* Then: welcome and pong, dispatches (workspace, sessionId, externalKey, source, redelivery), acks recorded,
  messages (state, text, shows / does not show, unchanged, closed out, cards, publish count, count per chat),
  turn.delivery states and their error, task.cancel, session.archive, notices, dropped-frame log, refusals.
"""

from __future__ import annotations

import functools
import json
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest
import pytest_bdd as bdd
from jsonschema import Draft202012Validator
from pytest_bdd import parsers

from simulator.control import ControlClient
from simulator.errors import MissingFrame, NotApplicable, NotTestable, SubjectRefused, SubjectTimeout
from simulator.hook import (
    ABSENT,
    HOOK_CHAT_WORKSPACE_ALIAS,
    HOOK_FEATURE_TURN_DELIVERY,
    HOOK_MAX_FRAME_CHARS,
    Provider,
    make_ping,
    make_turn_end,
    make_turn_progress,
    serialize_hook_message,
)
from simulator.roles.hook_conn import HandshakeRejected, HookConnection, HookConnectionClosed, Inbound
from simulator.roles.hook_desktop import DesktopRole
from simulator.targets import Role
from simulator.wirelog import WireLog

__all__ = ["HookServerScenario", "Device"]

ROLE = Role.HOOK_SERVER.value
#: The protocol's names and limits (slack-hook-protocol.md §3, §5) come from the core's constants, the spec's single
#: source: ``HOOK_CHAT_WORKSPACE_ALIAS``, ``HOOK_FEATURE_TURN_DELIVERY``, ``HOOK_MAX_FRAME_CHARS``, ``Provider``.
#: The provider a chat uses unless the scenario names another.
DEFAULT_PROVIDER = Provider.SLACK.value
#: A negative check ("nothing arrives") watches this long (bounded by the step limit).
QUIET_S = 1.5
POLL_S = 0.05
#: After a barrier, how long a "nothing changed" check lets asynchronous channel writes land before it looks.
SETTLE_S = 0.3
#: How long after the clean-up latency a step waits for the delayed clean-up to have run.
CLEANUP_MARGIN_S = 1.0
#: The most turn.delivery frames a failing delivery may take before it ends (a bound for the loop, not a rule).
MAX_DELIVERY_FRAMES = 30
#: A machine-readable error code: no spaces, no markup, no raw provider body.
#: What a redelivered task.dispatch repeats unchanged: the same task (§4 "server 重投未 ack 的任务").
REDELIVERY_SAME = ("requestId", "externalKey", "workspace", "sessionId", "prompt", "options", "attachments")
#: A piece of user content this long found in a delivery error counts as a leak.
LEAK_WINDOW = 16
CODE_RE = re.compile(r"[A-Za-z0-9_.:\-]{1,80}")
#: The contract of the hook-server control API (draft 2020-12): every answer a step reads is checked against it.
CONTROL_SCHEMA = Path(__file__).resolve().parents[1] / "docs" / "control-api.schema.json"
#: The capabilities that answer ``{<key>: [row…]}``: their rows are checked one by one (``HookServerScenario.rows``).
LISTINGS = {"list-messages": ("messages", "message"), "list-tasks": ("tasks", "task"),
            "connections": ("connections", "connection"), "dropped-frames": ("dropped", "dropped"),
            "notices": ("notices", "notice")}
#: docs/control-api.md "Errors": ``press-button`` on a card that is decided or cancelled. The one refusal
#: ``a user tries to press`` expects for a withdrawn card.
PRESS_REFUSAL = (409, "card-closed")


@functools.cache
def _schema_defs() -> dict[str, Any]:
    return json.loads(CONTROL_SCHEMA.read_text(encoding="utf-8"))["$defs"]


@functools.cache
def _validator(definition: str) -> Draft202012Validator:
    return Draft202012Validator({"$defs": _schema_defs(), "$ref": f"#/$defs/{definition}"})


@functools.cache
def _required(definition: str) -> frozenset[str]:
    return frozenset(_schema_defs()[definition].get("required", ()))


def _check_answer(value: Any, definition: str, what: str) -> None:
    """``value`` matches ``$defs/<definition>`` of docs/control-api.schema.json, else the server's malformed answer
    fails the step (a field it omits is never read as a default)."""
    error = next(iter(_validator(definition).iter_errors(value)), None)
    if error is not None:
        where = "".join(f"/{p}" for p in error.absolute_path) or "/"
        raise AssertionError(f"the server's control answer to {what} does not match docs/control-api.schema.json "
                             f"($defs/{definition}) at {where}: {error.message}"[:800])


@dataclass
class Device:
    name: str
    role: DesktopRole
    hello: dict[str, Any]


@dataclass
class HookServerScenario:
    url: str
    token: str | None
    control: ControlClient
    wire: WireLog
    step_timeout: float
    note: Callable[[dict[str, Any]], None]
    devices: dict[str, Device] = field(default_factory=dict)
    chats: dict[str, str] = field(default_factory=dict)
    #: chat name → its IM platform, when not Slack
    providers: dict[str, str] = field(default_factory=dict)
    #: task or round name → requestId
    request_ids: dict[str, str] = field(default_factory=dict)
    #: task name → chat name (tasks only)
    task_chat: dict[str, str] = field(default_factory=dict)
    #: task name → the task.dispatch payloads received, in order
    dispatches: dict[str, list[Any]] = field(default_factory=dict)
    #: round name → the task (or round) name it continues
    rounds: dict[str, str] = field(default_factory=dict)
    #: session name → takeover sessionId
    sessions: dict[str, str] = field(default_factory=dict)
    #: task name → the text the user wrote
    user_texts: dict[str, str] = field(default_factory=dict)
    #: texts that must never appear in a turn.delivery error (user content, results, credentials)
    secrets: list[str] = field(default_factory=list)
    #: name → turn.delivery payloads received, in order
    deliveries: dict[str, list[Any]] = field(default_factory=dict)
    #: name → the raw turn.end text sent
    end_frames: dict[str, str] = field(default_factory=dict)
    #: the last card asked for: (task or round name, interactionId, button ids)
    card: tuple[str, str, list[str]] | None = None
    #: name → the message as last observed
    seen: dict[str, dict[str, Any]] = field(default_factory=dict)
    refusal: dict[str, Any] | None = None
    cleanups: list[Callable[[], None]] = field(default_factory=list)
    cleanup_latency_ms: int = 0
    #: name → the receipt expiry (server clock, ms) read from list-tasks
    receipt_expiry: dict[str, int] = field(default_factory=dict)

    # -- ids -----------------------------------------------------------------------------------------------------

    def chat(self, name: str) -> str:
        return self.chats.setdefault(name, f"sim-chat-{uuid.uuid4()}")

    def provider(self, chat: str) -> str:
        """The IM platform of a chat: Slack unless the feature names another (spec §1: Slack, Telegram, X)."""
        return self.providers.get(chat, DEFAULT_PROVIDER)

    def rid(self, name: str) -> str:
        if name not in self.request_ids:
            raise AssertionError(f"no request named {name!r} in this scenario (the feature uses it before it exists)")
        return self.request_ids[name]

    def root(self, name: str) -> str:
        """The task a round (or chain of rounds) continues: whose channel message it writes."""
        seen = set()
        while name in self.rounds and name not in seen:
            seen.add(name)
            name = self.rounds[name]
        return name

    def dispatch(self, name: str) -> Any:
        root = self.root(name)
        if not self.dispatches.get(root):
            raise AssertionError(f"task {root!r} was never received by a device")
        return self.dispatches[root][0]

    def ctl(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        """Call a control capability and check its answer against ``$defs/<capability>.response`` (a listing is
        checked row by row by ``rows``, which is cheaper on a server that has served a whole run)."""
        answer = self.control.call(capability, body or {})
        if capability in LISTINGS:
            key, _ = LISTINGS[capability]
            if not isinstance(answer, dict) or not isinstance(answer.get(key), list):
                raise AssertionError(f"the server's control answer to {capability} has no list {key!r} "
                                     f"(docs/control-api.schema.json requires it): {answer!r}"[:600])
        else:
            _check_answer(answer, f"{capability}.response", capability)
        return answer

    def rows(self, capability: str, body: dict[str, Any] | None = None,
             keep: Callable[[dict[str, Any]], bool] = lambda row: True) -> list[dict[str, Any]]:
        """The rows of a listing capability that ``keep`` selects. Every row must carry the fields the schema
        requires (a row without them could hide from ``keep`` and make a "there is none" check pass); the rows
        kept are checked in full."""
        key, definition = LISTINGS[capability]
        answer = self.ctl(capability, body)
        required = _required(definition)
        kept = []
        for index, row in enumerate(answer[key]):
            if not isinstance(row, dict) or not required <= row.keys():
                missing = sorted(required - row.keys()) if isinstance(row, dict) else "(not an object)"
                raise AssertionError(f"the server's control answer to {capability} is malformed at /{key}/{index}: "
                                     f"missing {missing} (docs/control-api.schema.json $defs/{definition}): "
                                     f"{row!r}"[:800])
            if keep(row):
                _check_answer(row, definition, f"{capability} /{key}/{index}")
                kept.append(row)
        return kept

    # -- devices -------------------------------------------------------------------------------------------------

    def device(self, name: str) -> Device:
        dev = self.devices.get(name)
        if dev is None:
            role = DesktopRole(wire=self.wire, step_timeout=self.step_timeout, role=f"desktop-{name}")
            dev = Device(name, role, dict(DEFAULT_HELLO))
            self.devices[name] = dev
        return dev

    def first_device(self) -> Device:
        if not self.devices:
            raise AssertionError("the scenario has no device yet")
        return next(iter(self.devices.values()))

    @property
    def quiet(self) -> float:
        return min(QUIET_S, self.step_timeout)

    def barrier(self) -> None:
        """Every open device connection: ping, and wait for its pong (the server has read what came before)."""
        for dev in self.devices.values():
            conn = dev.role.conn
            if conn is None or not conn.is_open:
                continue
            floor = len(conn.received)
            dev.role.send_message(make_ping())
            conn.expect(lambda e, f=floor: e.type == "pong" and e.seq > f)

    def eventually(self, check: Callable[[], Any], timeout: float | None = None) -> Any:
        """``check()`` until it stops raising ``AssertionError`` (up to the step limit); the last failure otherwise."""
        deadline = time.monotonic() + (self.step_timeout if timeout is None else timeout)
        while True:
            try:
                return check()
            except AssertionError:
                if time.monotonic() >= deadline:
                    raise
            time.sleep(POLL_S)

    # -- channel observations --------------------------------------------------------------------------------------

    def messages_of_chat(self, chat: str) -> list[dict[str, Any]]:
        chat_id = self.chat(chat)
        return self.rows("list-messages", {"provider": self.provider(chat), "chatId": chat_id},
                         keep=lambda m: m["chatId"] == chat_id)

    def message(self, name: str) -> dict[str, Any]:
        """The channel message of task ``name`` (or of the task a round continues)."""
        root = self.root(name)
        rid = self.rid(root)
        chat = self.task_chat.get(root)
        if chat is None:
            raise AssertionError(f"{root!r} is not a task injected in this scenario")
        found = [m for m in self.messages_of_chat(chat) if m["requestId"] == rid]
        assert found, f"the channel has no message for task {root!r} ({rid}) in chat {chat!r}"
        assert len(found) == 1, f"the channel holds {len(found)} messages for task {root!r}: {found!r}"[:600]
        self.seen[root] = found[0]
        return found[0]

    def task_row(self, name: str) -> dict[str, Any]:
        rid = self.rid(name)
        rows = self.rows("list-tasks", {}, keep=lambda t: t["requestId"] == rid)
        assert rows, f"the server lists no task {rid} ({name!r})"
        return rows[0]

    def connection_ids(self, dev: Device) -> set[str]:
        device_id = dev.role.device_id
        return {c["connectionId"] for c in self.rows("connections", {}, keep=lambda c: c["deviceId"] == device_id)}


DEFAULT_HELLO: dict[str, Any] = {"workspaces": [HOOK_CHAT_WORKSPACE_ALIAS], "features": [HOOK_FEATURE_TURN_DELIVERY]}
_HELLO_KEYS = {"workspaces": "workspaces", "features": "features", "agents": "agents",
               "defaultWorkspace": "default_workspace", "lifecycleAnnouncement": "lifecycle_announcement"}


def _hello_kwargs(hello: dict[str, Any]) -> dict[str, Any]:
    unknown = set(hello) - set(_HELLO_KEYS)
    if unknown:
        raise ValueError(f"hello overrides {sorted(unknown)} are not supported by the step")
    return {_HELLO_KEYS[k]: v for k, v in hello.items()}


def _unescape(text: str) -> str:
    return json.loads('"' + text + '"')


def _await_close(conn: HookConnection, timeout: float, why: str) -> Any:
    """Wait for the subject to close ``conn`` (a step that needs the close). A subject that stays open but answers
    ping did not do what ``why`` requires: a failure, not a timeout; one that stops answering is a timeout."""
    try:
        return conn.wait_closed(timeout)
    except SubjectTimeout:
        if conn.is_alive():
            raise AssertionError(f"the server kept the connection open for {timeout:g} s although {why}") from None
        raise


# -- the fixture ----------------------------------------------------------------------------------------------------


@pytest.fixture
def hook_srv(request: pytest.FixtureRequest, harness_config, subjects, wire_log, harness) -> HookServerScenario:
    url = subjects.hook_server_url()
    token = subjects.hook_server_token()
    target = harness_config.target(Role.HOOK_SERVER)
    hs = HookServerScenario(
        url=url, token=token, control=subjects.control(ROLE, wire_log), wire=wire_log,
        step_timeout=harness_config.step_timeout,
        note=lambda identity: harness.note_subject(ROLE, target.raw, identity),
    )

    def finish() -> None:
        for undo in reversed(hs.cleanups):
            try:
                undo()
            except Exception:  # noqa: BLE001, S110 - teardown goes on
                pass
        for dev in hs.devices.values():
            dev.role.close()

    request.addfinalizer(finish)
    return hs


# -- Given / When: connections and hello ----------------------------------------------------------------------------


def _online(hs: HookServerScenario, dev_name: str, hello: str | None) -> None:
    dev = hs.device(dev_name)
    if hello:
        dev.hello.update(json.loads(hello))
    dev.role.connect(hs.url, hs.token)
    dev.role.hello(**_hello_kwargs(dev.hello))
    hs.note(dict(dev.role.identity))


_ONLINE = parsers.re(r'device "(?P<dev>[^"]+)" is online(?: with hello (?P<hello>\{.*\}))?$')


@bdd.given(_ONLINE)
@bdd.when(_ONLINE)
def device_online(hook_srv: HookServerScenario, dev: str, hello: str | None) -> None:
    _online(hook_srv, dev, hello)


@bdd.given(parsers.parse('device "{dev}" is connected without saying hello'))
def device_connected(hook_srv: HookServerScenario, dev: str) -> None:
    hook_srv.device(dev).role.connect(hook_srv.url, hook_srv.token)


@bdd.when(parsers.parse('device "{dev}" says hello'))
def device_says_hello(hook_srv: HookServerScenario, dev: str) -> None:
    d = hook_srv.device(dev)
    d.role.hello(**_hello_kwargs(d.hello), expect_welcome=False)


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" says hello again with (?P<hello>\{.*\})$'))
def device_hello_again(hook_srv: HookServerScenario, dev: str, hello: str) -> None:
    d = hook_srv.device(dev)
    d.hello.update(json.loads(hello))
    d.role.hello(**_hello_kwargs(d.hello), expect_welcome=False)  # a second welcome is not required
    hook_srv.barrier()


@bdd.given(parsers.parse('the server declares "{feature}"'))
def server_declares(hook_srv: HookServerScenario, feature: str) -> None:
    hook_srv.first_device().role.require_feature(feature)


@bdd.given(parsers.parse('the server does not declare "{feature}"'))
def server_does_not_declare(hook_srv: HookServerScenario, feature: str) -> None:
    if feature in hook_srv.first_device().role.server_features:
        raise NotApplicable(f"the server declares {feature} in welcome.features: this requirement concerns a "
                            f"server configured without it")


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" (?P<how>drops|closes) its connection$'))
def device_ends_connection(hook_srv: HookServerScenario, dev: str, how: str) -> None:
    role = hook_srv.device(dev).role
    if how == "drops":
        role.drop()
    else:
        role.close_connection()


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" (?P<how>drops|closes) its connection and reconnects'
                     r'(?P<bare> without hello)?$'))
def device_reconnects(hook_srv: HookServerScenario, dev: str, how: str, bare: str | None) -> None:
    role = hook_srv.device(dev).role
    role.reconnect(close_old="drop" if how == "drops" else "close", hello=not bare)


@bdd.when(parsers.parse('device "{dev}" sends a ping'))
def device_ping(hook_srv: HookServerScenario, dev: str) -> None:
    hook_srv.device(dev).role.ping()


# -- Then: handshake ------------------------------------------------------------------------------------------------


@bdd.then(parsers.parse('the server answers device "{dev}" with a pong'))
def answers_pong(hook_srv: HookServerScenario, dev: str) -> None:
    entry = hook_srv.device(dev).role.expect("pong")
    assert entry.ok, f"the server's pong is invalid: {entry.issue}"
    extra = dict(entry.payload.extra)
    assert not extra, f"the pong payload is not an empty object: {extra!r}"


@bdd.then(parsers.parse('device "{dev}" receives nothing but pong'))
def nothing_but_pong(hook_srv: HookServerScenario, dev: str) -> None:
    role = hook_srv.device(dev).role
    role.expect_none(lambda e: e.type != "pong", hook_srv.quiet)
    assert role.closed is None, f"the server closed the connection: {role.closed}"


@bdd.then(parsers.parse('device "{dev}" is welcomed'))
def is_welcomed(hook_srv: HookServerScenario, dev: str) -> None:
    role = hook_srv.device(dev).role
    role.expect_welcome()
    hook_srv.note(dict(role.identity))


@bdd.then(parsers.parse('the welcome of device "{dev}" matches the server\'s configuration'))
def welcome_matches_config(hook_srv: HookServerScenario, dev: str) -> None:
    welcome = hook_srv.device(dev).role.welcome_payload
    assert welcome is not None, "no welcome received"
    config = hook_srv.ctl("config")  # serverName and features are required fields of the answer (schema-checked)
    assert welcome.server_name == config["serverName"], \
        f"welcome.serverName {welcome.server_name!r}, configured {config['serverName']!r}"
    assert sorted(welcome.features) == sorted(config["features"]), \
        f"welcome.features {list(welcome.features)!r}, configured {config['features']!r}"
    assert len(set(welcome.features)) == len(welcome.features), f"welcome.features repeats: {welcome.features!r}"


@bdd.then(parsers.parse('the connection of device "{dev}" stays open'))
def stays_open(hook_srv: HookServerScenario, dev: str) -> None:
    role = hook_srv.device(dev).role
    assert role.closed is None, f"the server closed the connection: {role.closed}"
    hook_srv.barrier()
    assert role.closed is None, f"the server closed the connection: {role.closed}"


@bdd.when("the server pings every connected desktop")
def ping_desktops(hook_srv: HookServerScenario) -> None:
    """A server-initiated ping (§5 阶段 1 "ping / pong 双向") is driven with the control capability ``ping-desktops``.
    Without it the harness cannot make the server ping: not testable (the server did not declare it cannot ping)."""
    hook_srv.control.require("ping-desktops")
    answer = hook_srv.ctl("ping-desktops")
    assert answer["sent"] >= 1, f"ping-desktops sent no ping although device connections are open: {answer!r}"


@bdd.then(parsers.parse('device "{dev}" receives a ping with an empty payload'))
def receives_ping(hook_srv: HookServerScenario, dev: str) -> None:
    entry = hook_srv.device(dev).role.expect("ping")
    assert entry.ok, f"the server's ping is invalid: {entry.issue}"
    assert not dict(entry.payload.extra), f"the ping payload is not empty: {dict(entry.payload.extra)!r}"


@bdd.then(parsers.parse('the server recorded the pong of device "{dev}"'))
def pong_recorded(hook_srv: HookServerScenario, dev: str) -> None:
    d = hook_srv.device(dev)

    def check() -> None:
        conns = hook_srv.rows("connections", {}, keep=lambda c: c["deviceId"] == d.role.device_id and c["open"])
        assert conns, f"the server lists no open connection of device {d.role.device_id}"
        assert any(c["lastPongAt"] is not None for c in conns), \
            f"the server recorded no pong for device {dev!r}: {conns!r}"

    hook_srv.eventually(check)


# -- Given / When: the channel --------------------------------------------------------------------------------------


@bdd.when(parsers.re(r'a user writes "(?P<text>[^"]*)" in (?:the (?P<provider>slack|telegram|x) )?'
                     r'chat "(?P<chat>[^"]+)"(?: taking over the desktop session "(?P<session>[^"]+)")? as task "(?P<name>[^"]+)"$'))
def user_writes_task(hook_srv: HookServerScenario, text: str, provider: str | None, chat: str, session: str | None,
                     name: str) -> None:
    dev = hook_srv.first_device()
    if provider:
        hook_srv.providers[chat] = provider
    body: dict[str, Any] = {
        "provider": hook_srv.provider(chat), "chatId": hook_srv.chat(chat), "threadId": None,
        "userId": f"sim-user-{uuid.uuid4().hex[:12]}", "userName": "Conformance User", "text": text,
        "deviceId": dev.role.device_id,
    }
    if session:
        body["sessionId"] = hook_srv.sessions.setdefault(session, f"sim-session-{uuid.uuid4()}")
    answer = hook_srv.ctl("inject-message", body)
    assert answer.get("kind") == "task", f"the server did not take {text!r} as a task: {answer!r}"
    assert answer.get("requestId"), f"inject-message gave no requestId: {answer!r}"
    hook_srv.request_ids[name] = answer["requestId"]
    hook_srv.task_chat[name] = chat
    hook_srv.user_texts[name] = text
    hook_srv.secrets.append(text)


@bdd.when(parsers.re(r'a user writes "(?P<command>/stop|/new)" in chat "(?P<chat>[^"]+)"$'))
def user_writes_command(hook_srv: HookServerScenario, command: str, chat: str) -> None:
    dev = hook_srv.first_device()
    body = {"provider": hook_srv.provider(chat), "chatId": hook_srv.chat(chat), "threadId": None,
            "userId": f"sim-user-{uuid.uuid4().hex[:12]}", "text": command, "deviceId": dev.role.device_id}
    answer = hook_srv.ctl("inject-message", body)
    assert answer.get("kind") == command[1:], f"the server did not take {command} as a command: {answer!r}"


@bdd.when(parsers.parse('chat "{chat}" chooses the workspace "{alias}"'))
def lane_workspace(hook_srv: HookServerScenario, chat: str, alias: str) -> None:
    if alias == "-":
        return
    hook_srv.ctl("set-lane-workspace",
                 {"provider": hook_srv.provider(chat), "chatId": hook_srv.chat(chat), "threadId": None,
                  "workspace": alias})


# -- Then: dispatches -----------------------------------------------------------------------------------------------


def _receive(hook_srv: HookServerScenario, dev: str, name: str) -> Any:
    d = hook_srv.device(dev)
    payload = d.role.expect_dispatch(request_id=hook_srv.rid(name))
    hook_srv.dispatches.setdefault(name, []).append(payload)
    return payload


@bdd.then(parsers.re(r'device "(?P<dev>[^"]+)" receives task "(?P<name>[^"]+)"$'))
def receives_task(hook_srv: HookServerScenario, dev: str, name: str) -> None:
    _receive(hook_srv, dev, name)


@bdd.then(parsers.parse('device "{dev}" receives task "{name}" for workspace "{alias}"'))
def receives_task_workspace(hook_srv: HookServerScenario, dev: str, name: str, alias: str) -> None:
    payload = _receive(hook_srv, dev, name)
    assert payload.workspace == alias, f"task.dispatch.workspace {payload.workspace!r}, expected {alias!r}"


@bdd.then(parsers.parse('device "{dev}" receives task "{name}" for a workspace of its latest hello'))
def receives_task_registered(hook_srv: HookServerScenario, dev: str, name: str) -> None:
    payload = _receive(hook_srv, dev, name)
    aliases = list(hook_srv.device(dev).hello.get("workspaces", []))
    assert payload.workspace in aliases, \
        f"task.dispatch.workspace {payload.workspace!r} is not an alias of the latest hello {aliases!r}"


@bdd.then(parsers.parse('device "{dev}" receives task "{name}" again, unchanged'))
def receives_again(hook_srv: HookServerScenario, dev: str, name: str) -> None:
    d = hook_srv.device(dev)
    first = hook_srv.dispatch(name)
    again = d.role.expect_payload("task.dispatch")
    assert again.request_id == first.request_id, \
        f"the task was dispatched again with requestId {again.request_id!r}, first {first.request_id!r}"
    hook_srv.dispatches[name].append(again)
    a, b = first.to_wire(), again.to_wire()
    changed = {k: (a.get(k), b.get(k)) for k in REDELIVERY_SAME if a.get(k) != b.get(k)}
    assert not changed, f"the redelivered task.dispatch differs from the first one: {changed!r}"[:1200]


@bdd.then(parsers.parse('device "{dev}" receives no task.dispatch'))
def receives_no_dispatch(hook_srv: HookServerScenario, dev: str) -> None:
    hook_srv.device(dev).role.expect_none("task.dispatch", hook_srv.quiet)


@bdd.then(parsers.re(r'the server dispatched "(?P<name>[^"]+)" (?P<n>\d+) times?$'))
def dispatch_count(hook_srv: HookServerScenario, name: str, n: str) -> None:
    hook_srv.barrier()
    row = hook_srv.task_row(name)
    assert row.get("dispatchCount") == int(n), f"dispatchCount {row.get('dispatchCount')!r}, expected {n}: {row!r}"
    others = hook_srv.rows("list-tasks", {}, keep=lambda t: t["externalKey"] == row["externalKey"]
                           and t["requestId"] != row["requestId"])
    assert not others, f"the redelivery created another task for the same lane: {others!r}"[:600]


@bdd.then(parsers.parse('task "{name}" has the sessionId null'))
def session_null(hook_srv: HookServerScenario, name: str) -> None:
    payload = hook_srv.dispatch(name)
    assert payload.session_id is None, f"task.dispatch.sessionId {payload.session_id!r} in the normal flow"


@bdd.then(parsers.parse('task "{name}" has the sessionId of the desktop session "{session}"'))
def session_takeover(hook_srv: HookServerScenario, name: str, session: str) -> None:
    payload = hook_srv.dispatch(name)
    want = hook_srv.sessions[session]
    assert payload.session_id == want, f"task.dispatch.sessionId {payload.session_id!r}, takeover of {want!r}"


@bdd.then(parsers.parse('task "{name}" has an externalKey that starts with "{prefix}"'))
def external_key_prefix(hook_srv: HookServerScenario, name: str, prefix: str) -> None:
    key = hook_srv.dispatch(name).external_key
    assert key.startswith(prefix) and len(key) > len(prefix), \
        f"task.dispatch.externalKey {key!r} is not of the form {prefix}…"


@bdd.then(parsers.parse('task "{name}" names a workspace because its sessionId is null'))
def workspace_when_no_session(hook_srv: HookServerScenario, name: str) -> None:
    """§2: a null sessionId needs a non-empty workspace alias. That linkage is the core's task.dispatch check (the
    dispatch was parsed by ``parse_hook_message`` when received, an invalid one failed there with the core's
    issue); this step checks what the scenario expects: the dispatch has no sessionId."""
    payload = hook_srv.dispatch(name)
    assert payload.session_id is None, f"sessionId {payload.session_id!r}"


@bdd.then(parsers.parse('task "{name}" has the source platform "{im}" and the user\'s original text'))
def dispatch_source(hook_srv: HookServerScenario, name: str, im: str) -> None:
    payload = hook_srv.dispatch(name)
    source = payload.source
    assert source is not ABSENT and source is not None, "task.dispatch carries no source"
    assert source.im == im, f"source.im {source.im!r}, expected {im!r}"
    wanted = hook_srv.user_texts[name]
    assert source.user_text == wanted, f"source.userText {source.user_text!r}, the user wrote {wanted!r}"


@bdd.then(parsers.parse('task "{b}" has another externalKey than "{a}"'))
def other_external_key(hook_srv: HookServerScenario, a: str, b: str) -> None:
    ka, kb = hook_srv.dispatch(a).external_key, hook_srv.dispatch(b).external_key
    assert ka != kb, f"after /new the chat still uses the externalKey {ka!r}"


# -- When: the device answers ---------------------------------------------------------------------------------------


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" acks "(?P<name>[^"]+)" as (?P<result>accepted|queued|rejected)'
                     r'(?: at position (?P<pos>\d+))?(?: with reason "(?P<reason>[^"]+)")?$'))
def device_acks(hook_srv: HookServerScenario, dev: str, name: str, result: str, pos: str | None,
                reason: str | None) -> None:
    hook_srv.device(dev).role.ack(hook_srv.rid(name), result, reason,
                                  queue_position=int(pos) if pos else None)


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" reports progress "(?P<text>(?:[^"\\]|\\.)*)" for "(?P<name>[^"]+)"$'))
def device_progress(hook_srv: HookServerScenario, dev: str, text: str, name: str) -> None:
    hook_srv.device(dev).role.progress(hook_srv.rid(name), _unescape(text))


def _end(hook_srv: HookServerScenario, dev: str, name: str, status: str, final: str, error: str | None) -> None:
    d = hook_srv.device(dev)
    rid = hook_srv.rid(name)
    original = hook_srv.dispatch(name) if hook_srv.root(name) in hook_srv.dispatches else None
    key = original.external_key if original is not None else f"{DEFAULT_PROVIDER}:sim-unknown:{uuid.uuid4()}"
    session = d.role.session_for(original.request_id) if original is not None else None
    d.role.end(rid, status, final, error, external_key=key, session_id=session)
    hook_srv.end_frames[name] = d.role.connection.last_sent  # type: ignore[assignment]
    hook_srv.secrets.extend(t for t in (final, error) if t)


_END = (r'(?:ok with "(?P<final>[^"]*)"|with the error "(?P<error>[^"]+)"|(?P<cancelled>cancelled))$')


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" ends "(?P<name>[^"]+)" ' + _END))
def device_ends(hook_srv: HookServerScenario, dev: str, name: str, final: str | None, error: str | None,
                cancelled: str | None) -> None:
    if cancelled:
        _end(hook_srv, dev, name, "cancelled", "", None)
    elif error is not None:
        _end(hook_srv, dev, name, "error", "", error)
    else:
        _end(hook_srv, dev, name, "ok", final or "", None)


@bdd.when(parsers.parse('device "{dev}" ends the round "{round_}" of "{orig}" ok with "{final}"'))
def device_ends_round_early(hook_srv: HookServerScenario, dev: str, round_: str, orig: str, final: str) -> None:
    hook_srv.request_ids[round_] = str(uuid.uuid4())
    hook_srv.rounds[round_] = orig
    _end(hook_srv, dev, round_, "ok", final, None)


@bdd.when(parsers.parse('device "{dev}" reports progress "{text}" for the unregistered request "{name}"'))
def progress_unregistered(hook_srv: HookServerScenario, dev: str, text: str, name: str) -> None:
    hook_srv.request_ids.setdefault(name, str(uuid.uuid4()))
    hook_srv.device(dev).role.progress(hook_srv.rid(name), text)


@bdd.when(parsers.parse('device "{dev}" ends the unregistered request "{name}" ok with "{final}"'))
def end_unregistered(hook_srv: HookServerScenario, dev: str, name: str, final: str) -> None:
    hook_srv.request_ids.setdefault(name, str(uuid.uuid4()))
    _end(hook_srv, dev, name, "ok", final, None)


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" reopens "(?P<orig>[^"]+)" as "(?P<round_>[^"]+)"(?P<again> again)?$'))
def device_reopens(hook_srv: HookServerScenario, dev: str, orig: str, round_: str, again: str | None) -> None:
    d = hook_srv.device(dev)
    if round_ not in hook_srv.request_ids:  # a fresh round: a fresh UUID v4 (阶段 18 requestId 命名空间)
        hook_srv.request_ids[round_] = str(uuid.uuid4())
        hook_srv.rounds[round_] = orig
    # else: the same round again, a round first seen in an early turn.end, or, on purpose, the requestId of another
    # task or round (the server must refuse and isolate it)
    original = hook_srv.dispatch(orig)
    d.role.reopen(hook_srv.rid(round_), hook_srv.rid(orig), external_key=original.external_key,
                  session_id=d.role.session_for(original.request_id))


@bdd.when(parsers.parse('device "{dev}" reopens an unknown task as "{round_}"'))
def device_reopens_unknown(hook_srv: HookServerScenario, dev: str, round_: str) -> None:
    hook_srv.request_ids[round_] = str(uuid.uuid4())
    hook_srv.device(dev).role.reopen(hook_srv.rid(round_), str(uuid.uuid4()),
                                     external_key=f"{DEFAULT_PROVIDER}:sim-unknown:{uuid.uuid4()}", session_id=None)


@bdd.when(parsers.parse('device "{dev}" sends its last frame again, byte for byte'))
def device_duplicate(hook_srv: HookServerScenario, dev: str) -> None:
    hook_srv.device(dev).role.duplicate_last()


@bdd.when(parsers.parse('device "{dev}" replays its turn.end of "{name}", byte for byte'))
def device_replays_end(hook_srv: HookServerScenario, dev: str, name: str) -> None:
    text = hook_srv.end_frames.get(name)
    assert text is not None, f"no turn.end of {name!r} was sent"
    hook_srv.device(dev).role.send_raw(text)


# -- When: bad input ------------------------------------------------------------------------------------------------


@bdd.when(parsers.parse('device "{dev}" sends a frame of the unknown type "{type_}"'))
def send_unknown_type(hook_srv: HookServerScenario, dev: str, type_: str) -> None:
    frame = {"v": 1, "type": type_, "id": f"sim-{uuid.uuid4()}", "ts": int(time.time() * 1000),
             "payload": {"note": "a message type from a newer peer"}}
    hook_srv.device(dev).role.send_frame(frame)


@bdd.when(parsers.parse('device "{dev}" sends a turn.progress for a request the server never dispatched'))
def send_stray_progress(hook_srv: HookServerScenario, dev: str) -> None:
    hook_srv.device(dev).role.progress(str(uuid.uuid4()), "progress before hello")


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" sends the raw text (?P<text>.+)$'))
def send_raw_text(hook_srv: HookServerScenario, dev: str, text: str) -> None:
    hook_srv.device(dev).role.send_raw(text)


@bdd.when(parsers.parse('device "{dev}" sends an invalid turn.end for "{name}" (status ok with an errorMessage)'))
def send_invalid_end(hook_srv: HookServerScenario, dev: str, name: str) -> None:
    original = hook_srv.dispatch(name)
    d = hook_srv.device(dev)
    msg = make_turn_end(hook_srv.rid(name), original.external_key, d.role.session_for(original.request_id), "ok",
                        "should not be published", "an errorMessage next to status ok", validate=False)
    d.role.send_message(msg)


@bdd.when(parsers.parse('device "{dev}" sends a turn.progress for "{name}" longer than the frame limit'))
def send_oversized(hook_srv: HookServerScenario, dev: str, name: str) -> None:
    msg = make_turn_progress(hook_srv.rid(name), "x", validate=False)
    head, _, tail = serialize_hook_message(msg, check_size=False).partition('"text":"x"')
    filler = HOOK_MAX_FRAME_CHARS + 1 - len(head) - len(tail) - len('"text":""')
    text = f'{head}"text":"{"y" * filler}"{tail}'
    assert len(text) > HOOK_MAX_FRAME_CHARS
    hook_srv.device(dev).role.send_raw(text, timeout=max(hook_srv.step_timeout, 30.0))


# -- Then: the dropped-frame log --------------------------------------------------------------------------------------


def _dropped(hook_srv: HookServerScenario, dev: str, pred: Callable[[dict[str, Any]], bool], what: str) -> None:
    d = hook_srv.device(dev)

    def check() -> None:
        ids = hook_srv.connection_ids(d)
        rows = hook_srv.rows("dropped-frames", {}, keep=lambda r: r["connectionId"] in ids)
        assert any(pred(r) for r in rows), f"the server's dropped-frame log has no entry for {what}: {rows!r}"[:800]

    hook_srv.eventually(check)


@bdd.then(parsers.parse('the server logged the dropped frame of type "{type_}" from device "{dev}"'))
def logged_unknown(hook_srv: HookServerScenario, type_: str, dev: str) -> None:
    _dropped(hook_srv, dev, lambda r: r.get("type") == type_, f"the frame of type {type_!r}")


@bdd.then(parsers.re(r'the server logged a dropped invalid frame from device "(?P<dev>[^"]+)"'
                     r'(?: at "(?P<path>[^"]*)")?$'))
def logged_invalid(hook_srv: HookServerScenario, dev: str, path: str | None) -> None:
    if path is None:
        _dropped(hook_srv, dev, lambda r: bool(r.get("code")), "an invalid frame (with its parse code)")
    else:
        _dropped(hook_srv, dev, lambda r: r.get("path") == path and bool(r.get("code")),
                 f"an invalid frame at {path!r} (with its parse code)")


# -- Then: the channel ----------------------------------------------------------------------------------------------


_MESSAGE = parsers.re(r'the message of "(?P<name>[^"]+)" is "(?P<state>[a-z_]+)"'
                      r'(?: with the text "(?P<text>(?:[^"\\]|\\.)*)")?$')


@bdd.then(_MESSAGE)
def message_state(hook_srv: HookServerScenario, name: str, state: str, text: str | None) -> None:
    hook_srv.barrier()
    want_text = None if text is None else _unescape(text)

    def check() -> None:
        m = hook_srv.message(name)
        assert m.get("state") == state, f"the message of {name!r} is {m.get('state')!r}, expected {state!r}: " \
                                        f"text {m.get('text')!r}"[:600]
        if want_text is not None:
            assert m.get("text") == want_text, f"the message of {name!r} reads {m.get('text')!r}, expected " \
                                               f"{want_text!r}"[:600]

    hook_srv.eventually(check)


@bdd.then(parsers.re(r'the message of "(?P<name>[^"]+)" shows "(?P<text>[^"]*)"$'))
def message_shows(hook_srv: HookServerScenario, name: str, text: str) -> None:
    hook_srv.barrier()

    def check() -> None:
        m = hook_srv.message(name)
        assert text in (m.get("text") or ""), f"the message of {name!r} reads {m.get('text')!r}, which does not " \
                                              f"show {text!r}"[:600]

    hook_srv.eventually(check)


@bdd.then(parsers.parse('the message of "{name}" does not show "{text}"'))
def message_not_shows(hook_srv: HookServerScenario, name: str, text: str) -> None:
    hook_srv.barrier()
    time.sleep(SETTLE_S)
    m = hook_srv.message(name)
    assert text not in m["text"], f"the message of {name!r} reads {m['text']!r}"[:600]


@bdd.then(parsers.parse('the message of "{name}" is unchanged'))
def message_unchanged(hook_srv: HookServerScenario, name: str) -> None:
    before = dict(hook_srv.seen.get(hook_srv.root(name)) or {})
    assert before, f"the message of {name!r} was not observed before"
    hook_srv.barrier()
    time.sleep(SETTLE_S)
    after = hook_srv.message(name)  # revision and publishes are required fields of a message (schema-checked)
    for key in ("state", "text", "revision", "publishes"):
        assert after.get(key) == before.get(key), \
            f"the message of {name!r} changed its {key}: {before.get(key)!r} → {after.get(key)!r}"[:600]


@bdd.then(parsers.parse('the message of "{name}" is closed out as "{first}" or "{second}"'))
def message_closed_out(hook_srv: HookServerScenario, name: str, first: str, second: str) -> None:
    def check() -> None:
        m = hook_srv.message(name)
        assert m.get("state") in (first, second), \
            f"after the disconnect the message of {name!r} is {m.get('state')!r} ({m.get('text')!r}), expected " \
            f"{first!r} or {second!r}"[:600]

    hook_srv.eventually(check, max(hook_srv.step_timeout, hook_srv.cleanup_latency_ms / 1000 + 2.0))


@bdd.then(parsers.re(r'chat "(?P<chat>[^"]+)" has (?P<n>\d+) messages?$'))
def chat_count(hook_srv: HookServerScenario, chat: str, n: str) -> None:
    hook_srv.barrier()
    time.sleep(SETTLE_S)
    messages = hook_srv.messages_of_chat(chat)
    assert len(messages) == int(n), f"chat {chat!r} holds {len(messages)} messages, expected {n}: " \
                                    f"{[(m.get('requestId'), m.get('state'), m.get('text')) for m in messages]!r}"[:800]


@bdd.then(parsers.parse('no channel message belongs to "{name}"'))
def no_message_for(hook_srv: HookServerScenario, name: str) -> None:
    hook_srv.barrier()
    time.sleep(SETTLE_S)
    rid = hook_srv.rid(name)
    found = hook_srv.rows("list-messages", {}, keep=lambda m: m["requestId"] == rid or rid in m["routes"])
    assert not found, f"the channel holds a message for the ignored requestId {rid}: {found!r}"[:600]


@bdd.then(parsers.re(r'the message of "(?P<name>[^"]+)" was published (?P<n>\d+) times?$'))
def published_count(hook_srv: HookServerScenario, name: str, n: str) -> None:
    hook_srv.barrier()
    hook_srv.eventually(lambda: _assert_publishes(hook_srv, name, int(n)))
    time.sleep(SETTLE_S)
    _assert_publishes(hook_srv, name, int(n))


def _assert_publishes(hook_srv: HookServerScenario, name: str, n: int) -> None:
    m = hook_srv.message(name)
    assert m.get("publishes") == n, f"the result of {name!r} was published {m.get('publishes')!r} times, " \
                                    f"expected {n}"


# -- Then: acks recorded --------------------------------------------------------------------------------------------


@bdd.then(parsers.re(r'the server recorded the ack of "(?P<name>[^"]+)" as (?P<result>accepted|queued|rejected)'
                     r'(?: at position (?P<pos>\d+))?(?: with reason "(?P<reason>[^"]+)")?$'))
def ack_recorded(hook_srv: HookServerScenario, name: str, result: str, pos: str | None, reason: str | None) -> None:
    hook_srv.barrier()

    def check() -> None:
        row = hook_srv.task_row(name)
        assert row.get("ack") == result, f"the server recorded the ack {row.get('ack')!r}, expected {result!r}"
        if pos is not None:
            assert row.get("queuePosition") == int(pos), f"queuePosition recorded {row.get('queuePosition')!r}"
        if reason is not None:
            assert row.get("reason") == reason, f"reason recorded {row.get('reason')!r}"

    hook_srv.eventually(check)


# -- turn.delivery ----------------------------------------------------------------------------------------------------


def _next_delivery(hook_srv: HookServerScenario, dev: str, name: str) -> Any:
    """The next turn.delivery of ``name``, typed. Its per-state rules (§5 turn.delivery 可靠性与兼容: attempt,
    retryAt, error and retryable per state; error holds only code/message/retryable) are the core's
    (``simulator.hook`` turns ``check_delivery``, run by ``parse_hook_message`` on every received frame):
    ``expect_payload`` fails the step with the core's issue (path, code, spec reference) for an invalid one."""
    rid = hook_srv.rid(name)
    payload = hook_srv.device(dev).role.expect_payload("turn.delivery", where=lambda p: p.request_id == rid,
                                                       what=f"requestId {rid}")
    hook_srv.deliveries.setdefault(name, []).append(payload)
    return payload


@bdd.then(parsers.re(r'device "(?P<dev>[^"]+)" receives turn.delivery "(?P<state>[a-z]+)" for "(?P<name>[^"]+)"$'))
def receives_delivery(hook_srv: HookServerScenario, dev: str, state: str, name: str) -> None:
    p = _next_delivery(hook_srv, dev, name)
    assert p.state == state, f"the next turn.delivery of {name!r} is {p.state!r} (attempt {p.attempt}), " \
                             f"expected {state!r}"


@bdd.then(parsers.parse('the delivery of "{name}" keeps retrying until it is "{state}"'))
def retries_until(hook_srv: HookServerScenario, name: str, state: str) -> None:
    dev = hook_srv.first_device().name
    for _ in range(MAX_DELIVERY_FRAMES):
        p = _next_delivery(hook_srv, dev, name)
        if p.state == state:
            return
        assert p.state == "retrying", f"turn.delivery {p.state!r} before {state!r}"
        _check_error_safe(hook_srv, name, p)
        _advance_to(hook_srv, p.retry_at)
    raise AssertionError(f"the delivery of {name!r} did not end {state!r} after {MAX_DELIVERY_FRAMES} frames")


def _advance_to(hook_srv: HookServerScenario, at: int) -> None:
    now = hook_srv.ctl("advance-clock", {"ms": 0})["now"]  # an integer (schema-checked)
    hook_srv.ctl("advance-clock", {"ms": max(0, at - now) + 1})


@bdd.when(parsers.parse('the server\'s clock reaches the retry time of "{name}"'))
def clock_to_retry(hook_srv: HookServerScenario, name: str) -> None:
    last = (hook_srv.deliveries.get(name) or [None])[-1]
    assert last is not None and last.state == "retrying", f"no retrying turn.delivery of {name!r} to wait for"
    _advance_to(hook_srv, last.retry_at)


def _check_error_safe(hook_srv: HookServerScenario, name: str, p: Any) -> None:
    """§5 turn.delivery: "retrying/failed 的 error 仅含安全结构化 code/message/retryable,不得透传 provider 原始响应、
    凭证或用户内容". The shape (exactly those three keys, non-empty strings, retryable per state) is the core's
    (``check_delivery``, already run on the frame); what is judged here is what the core cannot know: the code is
    machine-readable, and the text repeats no content or credential of this scenario and no raw provider body."""
    error = p.error
    assert error is not None and error is not ABSENT, f"turn.delivery {p.state} carries no error"
    wire = error.to_wire()
    assert CODE_RE.fullmatch(error.code), f"error.code {error.code!r} is not a machine-readable code"
    assert error.message.strip(), "error.message is blank"
    text = json.dumps(wire, ensure_ascii=False)
    leaks = [s for s in hook_srv.secrets + [hook_srv.token or ""] if s and _leaks(s, text)]
    assert not leaks, f"the turn.delivery error repeats user content or a credential: {leaks!r} in {text}"
    markers = [m for m in ("HTTP/", "<html", "<!DOCTYPE", "Traceback", '{"', "{'", "Bearer ") if m in error.message]
    assert not markers, f"error.message looks like a raw provider response ({markers!r}): {error.message!r}"


def _leaks(secret: str, text: str) -> bool:
    """True when ``secret``, or any 16-character piece of it, appears in ``text``."""
    if secret in text:
        return True
    return any(secret[i:i + LEAK_WINDOW] in text for i in range(len(secret) - LEAK_WINDOW + 1))


@bdd.then(parsers.parse('the turn.delivery error of "{name}" is safe and structured'))
def delivery_error_safe(hook_srv: HookServerScenario, name: str) -> None:
    last = (hook_srv.deliveries.get(name) or [None])[-1]
    assert last is not None and last.state in ("retrying", "failed"), f"no retrying/failed turn.delivery of {name!r}"
    _check_error_safe(hook_srv, name, last)


@bdd.then(parsers.parse('device "{dev}" receives no turn.delivery for "{name}"'))
def no_delivery_for(hook_srv: HookServerScenario, dev: str, name: str) -> None:
    rid = hook_srv.rid(name)
    hook_srv.device(dev).role.expect_none(lambda e: e.type == "turn.delivery" and e.request_id == rid, hook_srv.quiet)


@bdd.then(parsers.parse('device "{dev}" receives no turn.delivery frame'))
def no_delivery_at_all(hook_srv: HookServerScenario, dev: str) -> None:
    hook_srv.device(dev).role.expect_none("turn.delivery", hook_srv.quiet)


@bdd.when(parsers.re(r'the channel fails the next (?P<n>\d+) publish(?:es)? of "(?P<name>[^"]+)"$'))
def fail_publishes(hook_srv: HookServerScenario, n: str, name: str) -> None:
    hook_srv.ctl("fail-publishes", {"count": int(n), "requestId": hook_srv.rid(name)})


@bdd.when("the channel holds every publish")
def hold_publishes(hook_srv: HookServerScenario) -> None:
    hook_srv.ctl("hold-publishes", {"held": True})
    hook_srv.cleanups.append(lambda: hook_srv.ctl("hold-publishes", {"held": False}))


@bdd.when("the channel releases the held publishes")
def release_publishes(hook_srv: HookServerScenario) -> None:
    hook_srv.ctl("hold-publishes", {"held": False})


# -- receipts and restarts ----------------------------------------------------------------------------------------


def _delivery_row(hook_srv: HookServerScenario, name: str) -> dict[str, Any] | None:
    """The delivery receipt of task ``name`` (docs/control-api.md: ``task.delivery``, kept ``receiptTtlMs`` after
    delivered/failed, then the task leaves ``list-tasks``): None when the server holds none."""
    rid = hook_srv.rid(name)
    rows = hook_srv.rows("list-tasks", {}, keep=lambda t: t["requestId"] == rid)
    return rows[0]["delivery"] if rows else None  # "delivery" is a required field: null or the receipt


@bdd.then(parsers.parse('the delivery receipt of "{name}" has a bounded lifetime'))
def receipt_bounded(hook_srv: HookServerScenario, name: str) -> None:
    """Spec "服务端若要保证断线后仍可查询或回放终态，需保留有界 TTL 的 delivery receipt" (turn.delivery 可靠性与兼容): right
    after a terminal delivery the server holds its receipt, with an expiry time in the future."""
    row = _delivery_row(hook_srv, name)
    assert row is not None, f"right after the delivery of {name!r} ended the server holds no delivery receipt for it"
    expires = row["receiptExpiresAt"]
    now = hook_srv.ctl("advance-clock", {"ms": 0})["now"]
    assert isinstance(expires, int), f"the receipt of {name!r} has no expiry (receiptExpiresAt {expires!r})"
    assert expires > now, f"the receipt of {name!r} expires at {expires}, not after now {now}"
    hook_srv.receipt_expiry[name] = expires


@bdd.when(parsers.parse('the server\'s clock passes the receipt expiry of "{name}"'))
def clock_past_receipt(hook_srv: HookServerScenario, name: str) -> None:
    expires = hook_srv.receipt_expiry.get(name)
    assert expires is not None, f"the receipt expiry of {name!r} was not read first"
    _advance_to(hook_srv, expires)


@bdd.then(parsers.parse('the server holds no delivery receipt for "{name}"'))
def receipt_released(hook_srv: HookServerScenario, name: str) -> None:
    hook_srv.eventually(lambda: _no_receipt(hook_srv, name))


def _no_receipt(hook_srv: HookServerScenario, name: str) -> None:
    row = _delivery_row(hook_srv, name)
    assert row is None, f"the server still holds the delivery receipt of {name!r} after its expiry: {row!r}"


@bdd.when("the hook server restarts")
def server_restarts(hook_srv: HookServerScenario) -> None:
    """The control capability ``restart``: in-memory state dropped, reloaded from the durable store; every connection
    is closed by the server."""
    hook_srv.ctl("restart", {})
    for dev in hook_srv.devices.values():
        conn = dev.role.conn
        if conn is not None and conn.closed is None:
            _await_close(conn, hook_srv.step_timeout, "its control API says restart closes every connection")


@bdd.when(parsers.parse('device "{dev}" reconnects after the restart'))
def device_reconnects_after_restart(hook_srv: HookServerScenario, dev: str) -> None:
    hook_srv.device(dev).role.reconnect(close_old="drop", hello=True)


# -- reopen clean-up --------------------------------------------------------------------------------------------------


@bdd.given(parsers.parse("the server's disconnect clean-up is delayed by {ms:d} ms"))
def cleanup_latency(hook_srv: HookServerScenario, ms: int) -> None:
    hook_srv.ctl("set-cleanup-latency", {"ms": ms})
    hook_srv.cleanup_latency_ms = ms
    hook_srv.cleanups.append(lambda: hook_srv.ctl("set-cleanup-latency", {"ms": 0}))


@bdd.when("the delayed clean-up has had time to run")
def cleanup_waited(hook_srv: HookServerScenario) -> None:
    time.sleep(hook_srv.cleanup_latency_ms / 1000 + CLEANUP_MARGIN_S)
    hook_srv.barrier()


# -- commands ----------------------------------------------------------------------------------------------------------


@bdd.then(parsers.parse('device "{dev}" receives task.cancel for "{name}"'))
def receives_cancel(hook_srv: HookServerScenario, dev: str, name: str) -> None:
    rid = hook_srv.rid(name)
    p = hook_srv.device(dev).role.expect_payload("task.cancel")
    assert p.request_id == rid, f"task.cancel names {p.request_id!r}, expected {name!r} ({rid})"


@bdd.then(parsers.parse('device "{dev}" receives session.archive for the externalKey of "{name}"'))
def receives_archive(hook_srv: HookServerScenario, dev: str, name: str) -> None:
    key = hook_srv.dispatch(name).external_key
    p = hook_srv.device(dev).role.expect_payload("session.archive")
    assert p.external_key == key, f"session.archive names {p.external_key!r}, expected {key!r}"


# -- lifecycle ---------------------------------------------------------------------------------------------------------


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" turns its lifecycle announcement (?P<state>on|off)$'))
def lifecycle_preference(hook_srv: HookServerScenario, dev: str, state: str) -> None:
    hook_srv.device(dev).role.lifecycle_preference(state == "on")
    hook_srv.barrier()


def _notices(hook_srv: HookServerScenario, dev: str, kind: str) -> list[dict[str, Any]]:
    device_id = hook_srv.device(dev).role.device_id
    return hook_srv.rows("notices", {"deviceId": device_id},
                         keep=lambda n: n["kind"] == kind and n["deviceId"] == device_id)


@bdd.then(parsers.re(r'the channel shows an? (?P<kind>online|offline) notice for device "(?P<dev>[^"]+)"$'))
def notice_shown(hook_srv: HookServerScenario, kind: str, dev: str) -> None:
    def check() -> None:
        assert _notices(hook_srv, dev, kind), f"the channel shows no {kind} notice for device {dev!r}"

    hook_srv.eventually(check)


@bdd.then(parsers.re(r'the channel shows no (?P<kind>online|offline) notice for device "(?P<dev>[^"]+)"$'))
def notice_not_shown(hook_srv: HookServerScenario, kind: str, dev: str) -> None:
    hook_srv.barrier()
    time.sleep(hook_srv.quiet)
    found = _notices(hook_srv, dev, kind)
    assert not found, f"the channel shows a {kind} notice for device {dev!r}: {found!r}"


# -- interactions ------------------------------------------------------------------------------------------------------


def _ids(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


@bdd.when(parsers.parse('device "{dev}" asks about "{name}" with the buttons "{buttons}"'))
def device_asks(hook_srv: HookServerScenario, dev: str, name: str, buttons: str) -> None:
    ids = _ids(buttons)
    iid = hook_srv.device(dev).role.interaction_request(
        hook_srv.rid(name), kind="plan_review", title="Go ahead?", body="The agent asks before it continues.",
        buttons=[(b, b.title()) for b in ids])
    hook_srv.card = (name, iid, ids)


def _card(hook_srv: HookServerScenario, name: str) -> dict[str, Any] | None:
    assert hook_srv.card is not None, "no card was asked for"
    iid = hook_srv.card[1]
    cards = [c for c in hook_srv.message(name)["cards"] if c["interactionId"] == iid]  # schema-checked fields
    return cards[0] if cards else None


@bdd.then(parsers.parse('the message of "{name}" shows a card with the buttons "{buttons}"'))
def card_shown(hook_srv: HookServerScenario, name: str, buttons: str) -> None:
    hook_srv.barrier()

    def check() -> None:
        card = _card(hook_srv, name)
        assert card is not None, f"the message of {name!r} shows no card {hook_srv.card[1]}"  # type: ignore[index]
        got = [b["id"] for b in card["buttons"]]
        assert got == _ids(buttons), f"the card shows the buttons {got!r}, expected {_ids(buttons)!r}"
        assert card["state"] == "open", f"the card is {card['state']!r}, expected open"

    hook_srv.eventually(check)


@bdd.then(parsers.parse('the message of "{name}" shows no card'))
def no_card(hook_srv: HookServerScenario, name: str) -> None:
    hook_srv.barrier()
    time.sleep(SETTLE_S)
    cards = hook_srv.message(name)["cards"]  # a required field: a message that omits it fails, never passes
    assert not cards, f"the message of {name!r} shows a card for a reopen round: {cards!r}"[:600]


@bdd.when(parsers.re(r'a user (?P<tries>presses|tries to press) "(?P<button>[^"]+)" on that card$'))
def press(hook_srv: HookServerScenario, tries: str, button: str) -> None:
    assert hook_srv.card is not None, "no card was asked for"
    name, iid, _ = hook_srv.card
    body = {"requestId": hook_srv.rid(name), "interactionId": iid, "buttonId": button}
    if tries == "presses":
        hook_srv.ctl("press-button", body)
        return
    # A press on a withdrawn card: the server may take it (what counts is that no decision follows, §4 "interaction.
    # decision 对已收口交互——全部静默忽略") or refuse it the documented way, 409 card-closed (docs/control-api.md
    # "Errors"). Any other answer (a 500, a 400, an unreachable or silent API) is not a refusal of the press.
    try:
        hook_srv.ctl("press-button", body)
    except SubjectRefused as exc:
        if (exc.status, exc.code) != PRESS_REFUSAL:
            raise


@bdd.then(parsers.parse('device "{dev}" receives the decision "{button}" for that card'))
def receives_decision(hook_srv: HookServerScenario, dev: str, button: str) -> None:
    assert hook_srv.card is not None
    name, iid, _ = hook_srv.card
    p = hook_srv.device(dev).role.expect_payload("interaction.decision", where=lambda q: q.interaction_id == iid)
    assert p.button_id == button, f"interaction.decision buttonId {p.button_id!r}, pressed {button!r}"
    assert p.request_id == hook_srv.rid(name), f"interaction.decision requestId {p.request_id!r}"


@bdd.then(parsers.parse('device "{dev}" receives no decision for that card'))
def receives_no_decision(hook_srv: HookServerScenario, dev: str) -> None:
    assert hook_srv.card is not None
    iid = hook_srv.card[1]
    # an invalid interaction.decision cannot be shown to concern another card: it counts too
    hook_srv.device(dev).role.expect_none(
        lambda e: e.type == "interaction.decision" and (not e.ok or e.payload.interaction_id == iid), hook_srv.quiet)


@bdd.when(parsers.parse('device "{dev}" withdraws that card with the reason "{reason}"'))
def withdraw(hook_srv: HookServerScenario, dev: str, reason: str) -> None:
    assert hook_srv.card is not None
    name, iid, _ = hook_srv.card
    hook_srv.device(dev).role.interaction_cancel(hook_srv.rid(name), iid, reason)


@bdd.then(parsers.parse('the card on the message of "{name}" has no buttons left'))
def card_withdrawn(hook_srv: HookServerScenario, name: str) -> None:
    hook_srv.barrier()

    def check() -> None:
        card = _card(hook_srv, name)
        assert card is not None, "the card disappeared instead of being rewritten with the reason"
        pressable = card["state"] == "open" and card["buttons"]
        assert not pressable, f"the withdrawn card can still be pressed: {card!r}"
        assert card["reason"], f"the withdrawn card shows no reason: {card!r}"

    hook_srv.eventually(check)


# -- authentication -------------------------------------------------------------------------------------------------


@bdd.given("the hook server under test requires a token")
def requires_token(hook_srv: HookServerScenario) -> None:
    """The run must say which bearer token the server was started with (``--hook-token``): without it the harness
    cannot tell a server that refuses strangers from one it cannot talk to. Not a capability the server declared
    absent, so *not testable* (a failure), never *not applicable*."""
    if not hook_srv.token:
        raise NotTestable("the run gives no hook token: start the hook server under test with its bearer token and "
                          "give the run --hook-token TOKEN, so the harness can judge the refusal of a desktop "
                          "without it")


@bdd.when(parsers.re(r"a desktop connects (?P<how>without a token|with a wrong token) and says hello$"))
def desktop_connects_badly(hook_srv: HookServerScenario, how: str) -> None:
    """The refusal this step expects comes at the upgrade (an HTTP error status: ``HandshakeRejected``, caught here
    and only here) or at the hook level (the server closes the connection); a welcome, or a connection left open
    without one for the step limit, is recorded for the Then step to judge."""
    role = DesktopRole(wire=hook_srv.wire, step_timeout=hook_srv.step_timeout, role="desktop-unauthenticated")
    hook_srv.devices[f"unauthenticated-{len(hook_srv.devices)}"] = Device("unauthenticated", role, {})
    token = None if how == "without a token" else f"wrong-{uuid.uuid4().hex}"
    refusal: dict[str, Any] = {"how": how}
    hook_srv.refusal = refusal
    try:
        role.connect(hook_srv.url, token)
    except HandshakeRejected as exc:
        refusal.update(stage="upgrade", status=exc.status, reason=exc.body.strip())
        return
    except SubjectRefused as exc:  # the upgrade was cut off without an HTTP answer: refused, with no reason given
        refusal.update(stage="upgrade", status=None, reason="", answer=str(exc)[:300])
        return
    try:
        role.hello(expect_welcome=False)
    except HookConnectionClosed:
        pass  # closed before the hello could go out: the close is read below
    try:  # the first of a welcome (or a dispatch) and the close
        entry = role.expect(("welcome", "task.dispatch"), timeout=hook_srv.step_timeout)
    except HookConnectionClosed as exc:
        close = exc.close or role.closed
        refusal.update(stage="closed", status=close.code if close else None, reason=close.reason if close else "")
    except MissingFrame:
        refusal.update(stage="open")  # alive, neither welcomed nor closed within the step limit
    else:
        refusal.update(stage="welcomed", frame=entry.text[:300])


@bdd.then("that desktop is refused without a welcome")
def refused(hook_srv: HookServerScenario) -> None:
    """§7 "base64 内联复用已鉴权的 WS 通道": a desktop without the bearer token is refused, at the upgrade (a 4xx, or
    the upgrade cut off) or by a close, and never welcomed."""
    r = hook_srv.refusal or {}
    assert r.get("stage") in ("upgrade", "closed"), \
        f"a desktop {r.get('how')} was not refused: {r!r}"[:600]
    if r["stage"] == "upgrade" and r["status"] is not None:
        assert 400 <= int(r["status"]) < 500, f"the upgrade was refused with HTTP {r['status']}, not a 4xx"


@bdd.then("that desktop is refused with a reason")
def refused_with_reason(hook_srv: HookServerScenario) -> None:
    """The refusal says why: an HTTP error body, or a close reason."""
    refused(hook_srv)
    r = hook_srv.refusal or {}
    assert r.get("reason"), f"the refusal of a desktop {r.get('how')} gives no reason: {r!r}"
