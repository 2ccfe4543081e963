"""Slack binding, multi-team and Slack preferences, driven from the desktop side (spec slack-hook-protocol.md §5
阶段 5 bind.*, 阶段 11 prefs.*, 阶段 13 multi-team). The harness desktop sends bind.start / bind.revoke / prefs.get /
prefs.set and judges the bind.update / bind.state / prefs.state the server sends; the identity provider and the
channel's ``/model`` card are played through the control API (``slack-authorize``, ``channel-set-prefs``) and the
server's bindings read with ``list-bindings`` (docs/control-api.md "Bindings and preferences (hook-server)"),
every answer checked against docs/control-api.schema.json.

Names. One server serves the whole run and a Slack binding moves between devices ("被顶"), so the users and teams a
feature names ("ann", "acme") get fresh ids per scenario (``SlackNames``); the names themselves are what the identity
provider reports as ``slackUserName`` / ``teamName``.

Every received frame was parsed by the core (``parse_hook_message``): an invalid bind.update / bind.state /
prefs.state fails the step with the core's issue (e.g. "bound=false 时 prefs 恒空数组"), so what is judged here is
what the scenario expects of a valid one.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...hook import (
    ABSENT,
    HOOK_FEATURE_MULTI_TEAM,
    MessageType,
    make_bind_revoke,
    make_bind_start,
    make_prefs_get,
    make_prefs_set,
)
from ...roles.hook_conn import Inbound, described
from .channel import ChannelOps
from .records import RecordChecks
from .scenario import HookServerScenario

__all__ = ["BindingOps", "PREF_KEYS", "SlackNames", "parse_bindings"]

#: prefs.set patch keys (wire) → ``make_prefs_set`` arguments (spec 阶段 11: agent/model/effort/permission).
PREF_KEYS = {"model": "model", "effort": "effort", "agentKind": "agent_kind", "permissionMode": "permission_mode"}


@dataclass
class SlackNames:
    """The scenario's Slack users and teams (feature name → fresh id) and its named preference requests."""

    teams: dict[str, str] = field(default_factory=dict)
    users: dict[str, str] = field(default_factory=dict)
    #: request name → requestId of a prefs.get / prefs.set
    requests: dict[str, str] = field(default_factory=dict)
    #: name → the prefs.state payload received
    prefs: dict[str, Any] = field(default_factory=dict)

    def team(self, name: str) -> str:
        return self.teams.setdefault(name, f"T-sim-{uuid.uuid4().hex[:12]}")

    def user(self, name: str) -> str:
        return self.users.setdefault(name, f"U-sim-{uuid.uuid4().hex[:12]}")


def _numbered(seq: int) -> Callable[[Inbound], bool]:
    """Selects the entry numbered ``seq``."""
    return lambda e: e.seq == seq


def parse_bindings(text: str) -> list[tuple[str, str]]:
    """``"ann@acme, bob@globex"`` → ``[("ann", "acme"), ("bob", "globex")]`` (user, team)."""
    out = []
    for item in (s.strip() for s in text.split(",")):
        user, sep, team = item.partition("@")
        if not sep or not user or not team:
            raise ValueError(f"a binding is written user@team, got {item!r}")
        out.append((user, team))
    return out


@dataclass(eq=False)
class BindingOps:
    """Slack sign-in, multi-team and Slack preferences (spec §5 阶段 5, 11, 13), over the scenario (``scenario``),
    the channel (``channel``) and the dropped-frame log (``records``)."""

    scenario: HookServerScenario
    channel: ChannelOps
    records: RecordChecks

    #: The scenario's Slack users, teams and preference requests.
    slack: SlackNames = field(default_factory=SlackNames)

    def _ids(self, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """(user, team) names → sorted (teamId, slackUserId)."""
        return sorted((self.slack.team(team), self.slack.user(user)) for user, team in pairs)

    def _multi_team_on(self, dev: str) -> bool:
        """Both sides declared multi-team (spec 阶段 13 "能力协商双向")."""
        d = self.scenario.device(dev)
        return HOOK_FEATURE_MULTI_TEAM in d.hello.get("features", ()) and \
            HOOK_FEATURE_MULTI_TEAM in d.role.server_features

    # -- the desktop's frames -----------------------------------------------------------------------------------------

    def start_sign_in(self, dev: str, team: str | None = None) -> None:
        """bind.start (new desktops send ``{}``; ``teamId`` pins a team), then the barrier: the server has read it."""
        message = make_bind_start(team_id=self.slack.team(team)) if team else make_bind_start()
        self.scenario.device(dev).role.send_message(message)
        self.scenario.barrier()

    def revoke(self, dev: str, team: str | None = None, *, pending_only: bool = False) -> None:
        """bind.revoke ``{}`` (all), ``{teamId}`` or ``{pendingOnly: true}``, then the barrier."""
        kwargs: dict[str, Any] = {}
        if team:
            kwargs["team_id"] = self.slack.team(team)
        if pending_only:
            kwargs["pending_only"] = True
        self.scenario.device(dev).role.send_message(make_bind_revoke(**kwargs))
        self.scenario.barrier()

    def ask_prefs(self, dev: str, name: str) -> None:
        rid = self.slack.requests[name] = str(uuid.uuid4())
        self.scenario.device(dev).role.send_message(make_prefs_get(request_id=rid))

    def set_prefs(self, dev: str, workspace: str, patch: Mapping[str, Any], name: str, team: str | None = None) -> None:
        """prefs.set of ``workspace`` with the keys of ``patch`` (absent keys are left out of the frame)."""
        unknown = set(patch) - set(PREF_KEYS)
        if unknown:
            raise ValueError(f"prefs.set keys {sorted(unknown)} are not preference keys {sorted(PREF_KEYS)}")
        rid = self.slack.requests[name] = str(uuid.uuid4())
        kwargs = {PREF_KEYS[k]: v for k, v in patch.items()}
        if team:
            kwargs["team_id"] = self.slack.team(team)
        self.scenario.device(dev).role.send_message(make_prefs_set(request_id=rid, workspace=workspace, **kwargs))

    # -- the identity provider and the channel (control API) ------------------------------------------------------

    def _authorize(self, dev: str, body: dict[str, Any]) -> None:
        self.scenario.ctl("slack-authorize", {"deviceId": self.scenario.device(dev).role.device_id, **body})

    def confirm_sign_in(self, dev: str, user: str, team: str) -> None:
        """The identity provider confirms the device's pending sign-in as ``user`` of ``team``."""
        self._authorize(dev, {"outcome": "confirm", "teamId": self.slack.team(team), "teamName": team,
                              "slackUserId": self.slack.user(user), "slackUserName": user})

    def end_sign_in(self, dev: str, outcome: str, message: str | None = None) -> None:
        """The identity provider ends the pending sign-in: ``deny``, ``expire``, ``fail`` (with ``message``),
        ``not-installed``."""
        body: dict[str, Any] = {"outcome": outcome}
        if message is not None:
            body["message"] = message
        self._authorize(dev, body)

    def sign_in(self, dev: str, user: str, team: str) -> None:
        """The whole sign-in: bind.start, pending, confirmed; with multi-team on, the bind.state holding it too (every
        bind.state before it is taken, so a later check sees only what follows)."""
        self.start_sign_in(dev)
        self.expect_bind_update(dev, "pending")
        self.confirm_sign_in(dev, user, team)
        self.expect_confirmed(dev, user, team)
        if self._multi_team_on(dev):
            key = (self.slack.team(team), self.slack.user(user))
            self._take_bind_state(dev, lambda ids: key in ids, f"a bind.state listing {user}@{team}")

    def channel_sets_prefs(self, user: str, team: str, workspace: str, patch: Mapping[str, Any]) -> None:
        """A change made in the channel (the ``/model`` card), control ``channel-set-prefs``."""
        self.scenario.ctl("channel-set-prefs", {"provider": "slack", "teamId": self.slack.team(team),
                                                "slackUserId": self.slack.user(user), "workspace": workspace, **patch})

    def inject_team_task(self, name: str, text: str, chat: str, team: str) -> None:
        """A user of ``team`` writes ``text`` (``inject-message`` with ``teamId``)."""
        self.channel.inject_task(name, text, chat, team_id=self.slack.team(team))

    # -- Then: bind.update ------------------------------------------------------------------------------------------

    def expect_bind_update(self, dev: str, state: str) -> Any:
        """The next bind.update in ``state`` (spec 阶段 5 "绑定状态机推送")."""
        return self.scenario.device(dev).role.expect_payload(MessageType.BIND_UPDATE, where=lambda p: p.state == state,
                                                             what=f"state {state}")

    def expect_pending(self, dev: str) -> None:
        """"pending 时 authorizeUrl 非空" and "pending 期团队未知为 null" (no team pinned)."""
        p = self.expect_bind_update(dev, "pending")
        assert isinstance(p.authorize_url, str) and p.authorize_url, f"pending without an authorizeUrl: {p!r}"
        assert p.team_id in (None, ABSENT), f"pending names the team {p.team_id!r} although none was pinned"

    def expect_confirmed(self, dev: str, user: str, team: str) -> None:
        """"confirmed 时 slackUserId 非空" — the user the identity provider confirmed; a ``teamId`` it carries is that
        team's ("事件按 team 定位")."""
        p = self.expect_bind_update(dev, "confirmed")
        assert p.slack_user_id == self.slack.user(user), \
            f"confirmed names slackUserId {p.slack_user_id!r}, the identity provider confirmed " \
            f"{self.slack.user(user)!r}"
        if p.team_id not in (None, ABSENT):
            assert p.team_id == self.slack.team(team), f"confirmed names teamId {p.team_id!r}, expected {team!r}'s"

    def expect_revoked_team(self, dev: str, team: str) -> None:
        p = self.expect_bind_update(dev, "revoked")
        assert p.team_id == self.slack.team(team), \
            f"revoked names teamId {p.team_id!r}, expected the revoked team {team!r} ({self.slack.team(team)!r})"

    def expect_failed(self, dev: str, message: str) -> None:
        """"failed 时 message 非空" — the identity provider's message."""
        p = self.expect_bind_update(dev, "failed")
        assert p.message == message, f"failed carries the message {p.message!r}, expected {message!r}"

    def expect_not_installed(self, dev: str) -> None:
        """"可选结构化 reason(已知值 not-installed,配 installUrl)"."""
        p = self.expect_bind_update(dev, "failed")
        assert p.reason == "not-installed", f"failed carries the reason {p.reason!r}, expected 'not-installed'"
        assert isinstance(p.install_url, str) and p.install_url, f"not-installed without an installUrl: {p!r}"

    def expect_no_bind_update(self, dev: str) -> None:
        self._expect_none(dev, MessageType.BIND_UPDATE.value)

    # -- Then: bind.state ----------------------------------------------------------------------------------------------

    def _take_bind_state(self, dev: str, pred: Callable[[list[tuple[str, str]]], bool], what: str) -> Any:
        """The first bind.state whose (teamId, slackUserId) list ``pred`` accepts; it and every bind.state before it
        are taken from the inbox."""
        role = self.scenario.device(dev).role

        def ids(e: Inbound) -> list[tuple[str, str]]:
            return sorted((b.team_id, b.slack_user_id) for b in e.payload.bindings)  # e is valid: read when e.ok

        def match(e: Inbound) -> bool:
            return e.type == MessageType.BIND_STATE.value and (not e.ok or pred(ids(e)))

        described(match, what)
        earlier = [e.seq for e in role.pending() if e.type == MessageType.BIND_STATE.value]
        try:
            entry = role.expect(match)
        except AssertionError as exc:
            seen = [ids(e) if e.ok else "invalid" for e in role.pending() if e.type == MessageType.BIND_STATE.value]
            raise AssertionError(f"{exc}; the bind.state frames received: {seen!r}"[:800]) from None
        assert entry.ok, f"the server's bind.state is invalid: {entry.issue}"
        for seq in earlier:
            if seq < entry.seq:
                role.expect(_numbered(seq), timeout=1.0)
        return entry.payload

    def expect_bind_state(self, dev: str, bindings: list[tuple[str, str]]) -> None:
        """A bind.state listing exactly these (user, team) bindings (spec 阶段 5 "绑定全量快照(权威列表)")."""
        want = self._ids(bindings)
        self._take_bind_state(dev, lambda got: got == want, f"a bind.state listing exactly {bindings!r}")

    def expect_no_bind_state(self, dev: str) -> None:
        self._expect_none(dev, MessageType.BIND_STATE.value)

    def _expect_none(self, dev: str, type_: str) -> None:
        """No ``type_`` frame, pending or arriving in the quiet window, on a connection that stays open."""
        self.scenario.barrier()
        role = self.scenario.device(dev).role
        self.scenario.none_arrives(role, type_)
        assert role.closed is None, f"the server closed the connection: {role.closed}"

    # -- Then: the server's records (list-bindings) -------------------------------------------------------------------

    def _listing(self, dev: str) -> tuple[str, dict[str, Any]]:
        self.scenario.barrier()
        device_id = self.scenario.device(dev).role.device_id
        return device_id, self.scenario.ctl("list-bindings", {"deviceId": device_id})

    def expect_bindings_listed(self, dev: str, bindings: list[tuple[str, str]]) -> None:
        """``list-bindings`` shows exactly these Slack bindings of the device."""
        want = self._ids(bindings)

        def check() -> None:
            device_id, answer = self._listing(dev)
            got = sorted((b["teamId"], b["slackUserId"]) for b in answer["slack"] if b["deviceId"] == device_id)
            assert got == want, f"the server lists the Slack bindings {got!r} of device {dev!r}, expected {want!r} " \
                                f"({bindings!r})"

        self.scenario.eventually(check)

    def expect_pending_listed(self, dev: str, present: bool) -> None:
        def check() -> None:
            device_id, answer = self._listing(dev)
            got = [p for p in answer["slackPending"] if p["deviceId"] == device_id]
            assert bool(got) is present, \
                f"the server lists {len(got)} pending Slack sign-in(s) of device {dev!r}, expected " \
                f"{'one' if present else 'none'}"

        self.scenario.eventually(check)

    # -- Then: the task's team ----------------------------------------------------------------------------------------

    def expect_task_team(self, name: str, team: str) -> None:
        """spec 阶段 13 "task.dispatch.source(teamId + teamName,供会话标题与工具默认 team)"."""
        source = self.scenario.dispatch(name).source
        assert source is not ABSENT and source is not None, "task.dispatch has no source"
        assert source.team_id == self.slack.team(team), \
            f"task.dispatch.source.teamId {source.team_id!r}, expected {team!r}'s ({self.slack.team(team)!r})"
        assert source.team_name == team, f"task.dispatch.source.teamName {source.team_name!r}, expected {team!r}"

    # -- Then: prefs.state --------------------------------------------------------------------------------------------

    def expect_prefs_answer(self, dev: str, name: str, bound: bool) -> None:
        """prefs.state with ``replyTo`` = the request's id ("requestId 由 prefs.state.replyTo 回显配对"), ``bound`` as
        expected; unbound ⇒ no entries ("bound=false 时 prefs 恒空数组")."""
        rid = self.slack.requests[name]
        p = self.scenario.device(dev).role.expect_payload(MessageType.PREFS_STATE, where=lambda p: p.reply_to == rid,
                                                          what=f"replyTo {rid}")
        assert p.bound is bound, f"prefs.state answering {name!r} says bound {p.bound!r}, expected {bound!r}"
        if not bound:
            assert not p.prefs, f"prefs.state with bound false lists entries: {p.prefs!r}"
        self.slack.prefs[name] = p

    def expect_prefs_pushed(self, dev: str, name: str) -> None:
        """A pushed prefs.state: ``replyTo`` null ("主动推送(渠道 /model 卡写入后)为 null")."""
        p = self.scenario.device(dev).role.expect_payload(MessageType.PREFS_STATE, where=lambda p: p.reply_to is None,
                                                          what="replyTo null")
        self.slack.prefs[name] = p

    def _entries(self, name: str) -> list[dict[str, Any]]:
        if name not in self.slack.prefs:
            raise AssertionError(f"no prefs.state named {name!r} was received in this scenario")
        return [e.to_wire() for e in self.slack.prefs[name].prefs]

    def expect_prefs_entry(self, name: str, workspace: str, values: Mapping[str, Any], team: str | None = None) -> None:
        """The snapshot ``name`` has an entry for ``workspace`` (of ``team``: its ``teamId``) with these values."""
        entries = self._entries(name)
        tid = self.slack.team(team) if team else None
        found = [e for e in entries if e["workspace"] == workspace and (tid is None or e.get("teamId") == tid)]
        assert len(found) == 1, f"prefs.state {name!r} has {len(found)} entries for workspace {workspace!r}" \
                                f"{f' of team {team!r}' if team else ''}: {entries!r}"
        wrong = {k: (found[0].get(k), v) for k, v in values.items() if found[0].get(k) != v}
        assert not wrong, f"prefs.state {name!r} workspace {workspace!r}: (got, expected) {wrong!r}"

    def expect_prefs_no_team(self, name: str, team: str) -> None:
        tid = self.slack.team(team)
        entries = self._entries(name)
        assert not [e for e in entries if e.get("teamId") == tid], \
            f"prefs.state {name!r} lists entries of team {team!r} although only another team's row was set: {entries!r}"

    # -- Then: dropped frames ---------------------------------------------------------------------------------------

    def expect_dropped_reason(self, dev: str, type_: str, reason: str) -> None:
        """The dropped-frame log holds the device's ``type_`` frame with ``reason`` (docs/control-api.md reasons)."""
        self.scenario.barrier()
        self.records.expect_dropped(dev, lambda r: r.get("type") == type_ and r.get("reason") == reason,
                                    f"the {type_} frame dropped as {reason!r}")
