"""Slack binding (OIDC), multi-team and Slack preferences at the desktop (slack-hook-protocol.md §3, §5 阶段 5, 阶段 11,
阶段 13; docs/control-api.md "Bindings and preferences (desktop)").

The harness plays the hook server: it sends bind.update / bind.state / prefs.state, and drives the desktop's user
through the control API (``slack-bind``, ``slack-revoke``, ``prefs-get``, ``prefs-set``). It judges what the desktop
sends (bind.start, bind.revoke, prefs.get, prefs.set: their shapes are the core's checks, run on every received
frame; what is judged here is what a valid frame says) and what the desktop shows its user (control ``state``:
``slack`` and ``prefs``), the observation channel the spec leaves open.

Names in the features ("A", "B") become fresh Slack team ids per scenario, so an external desktop that keeps its
bindings between scenarios is judged on this scenario's teams only. "Shows" checks poll the state up to the step limit;
"still shows" checks read it once after a ping barrier (the desktop answered a ping sent after the frame under test,
so it has read that frame). Not applicable: only when the desktop's own hello lacks ``multi-team`` for a requirement
about multi-team behaviour.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast
from urllib.parse import urlsplit

from ...errors import NotApplicable
from ...hook import (
    ABSENT,
    HOOK_FEATURE_MULTI_TEAM,
    BindStateEntry,
    MessageType,
    make_bind_state,
    make_bind_update,
)
from .answers import checked_fields
from .session import DesktopSession

__all__ = ["PREFS_KEYS", "BindingOps", "SlackScenario", "checked_slack_view", "is_https_url", "patch_of"]

#: §5 阶段 11: the keys of a preference row (prefs.set patch keys, prefs.state entry fields).
PREFS_KEYS = ("model", "effort", "agentKind", "permissionMode")


def checked_slack_view(answer: Any) -> dict[str, Any]:
    """``{"slack": …, "prefs": …}`` of a ``state`` answer when both match ``$defs/state.response`` of
    docs/desktop-control-api.schema.json (``slack``, ``prefs``); else ``AssertionError`` naming the schema
    entry and the JSON pointer (the desktop's malformed answer, never an empty default)."""
    checked_fields(answer, "state", ("slack", "prefs"))
    return {"slack": answer["slack"], "prefs": answer["prefs"]}


def is_https_url(value: Any) -> bool:
    """An absolute https URL with a host (what a user can open)."""
    if not isinstance(value, str):
        return False
    parts = urlsplit(value)
    return parts.scheme == "https" and bool(parts.hostname)


def patch_of(wire: Mapping[str, Any]) -> dict[str, Any]:
    """The preference keys a prefs.set payload carries (a key left out is not part of the patch)."""
    return {k: wire[k] for k in PREFS_KEYS if k in wire}


def _canonical(entries: Iterable[Mapping[str, Any]]) -> list[str]:
    """Preference rows compared as sets: a key left out counts as null; ``teamId`` only when it names a team."""
    rows = []
    for e in entries:
        row = {k: e.get(k) for k in ("workspace", *PREFS_KEYS)}
        if e.get("teamId") is not None:
            row["teamId"] = e["teamId"]
        rows.append(json.dumps(row, sort_keys=True))
    return sorted(rows)


@dataclass
class SlackScenario:
    """What one scenario knows about Slack: names → fresh team and user ids, the links it sent, the requestIds the
    desktop's control API answered, the view before a malformed frame."""

    teams: dict[str, str] = field(default_factory=dict)
    users: dict[str, str] = field(default_factory=dict)
    authorize_url: str | None = None
    install_url: str | None = None
    prefs_get_id: str | None = None
    prefs_set_id: str | None = None
    view_before: dict[str, Any] | None = None


@dataclass(eq=False)
class BindingOps:
    """The Slack binding, multi-team and Slack preference operations of a desktop scenario."""

    session: DesktopSession

    #: What the scenario knows about Slack.
    slack: SlackScenario = field(default_factory=SlackScenario)
    #: The desktop's prefs.get payload, once read (``_prefs_get_frame``).
    prefs_get: Any = None

    def team(self, name: str) -> str:
        """The Slack teamId of team ``name`` (fresh per scenario)."""
        return self.slack.teams.setdefault(name, f"T{uuid.uuid4().hex[:10].upper()}")

    def slack_user(self, name: str) -> str:
        return self.slack.users.setdefault(name, f"U{uuid.uuid4().hex[:10].upper()}")

    def require_desktop_multi_team(self) -> None:
        """Not applicable unless the desktop declares ``multi-team`` in its hello (阶段 13: "能力协商双向")."""
        if HOOK_FEATURE_MULTI_TEAM not in self.session.server.desktop_features:
            raise NotApplicable(f"the desktop does not declare {HOOK_FEATURE_MULTI_TEAM} in hello.features")

    # -- the desktop's user (control API) ---------------------------------------------------------------------

    def sign_in_with_slack(self, team: str | None = None) -> None:
        """Control ``slack-bind``: "Sign in with Slack" (``team``: re-authorise that team)."""
        self.session.user_action("slack-bind", {"teamId": self.team(team)} if team else {})

    def sign_out_of_slack(self, team: str | None = None, *, pending_only: bool = False) -> None:
        """Control ``slack-revoke``: sign out of ``team`` (None: of Slack), or cancel the sign-in in flight."""
        body: dict[str, Any] = {"pendingOnly": True} if pending_only else {}
        if team:
            body["teamId"] = self.team(team)
        self.session.user_action("slack-revoke", body)

    def _request_id(self, capability: str, body: dict[str, Any]) -> str:
        """The ``requestId`` the desktop answered (``$defs/<capability>.response``: a non-empty string, checked by
        ``call`` before it is read)."""
        request_id: str = self.session.user_action(capability, body)["requestId"]
        return request_id

    def ask_slack_prefs(self) -> None:
        """Control ``prefs-get``; the answer's requestId is what the prefs.get must carry."""
        self.slack.prefs_get_id = self._request_id("prefs-get", {})

    def set_slack_prefs(self, workspace: str, changes: Mapping[str, Any], team: str | None = None) -> None:
        """Control ``prefs-set``: change (a string) or clear (null) the keys of ``changes`` of ``workspace``."""
        body: dict[str, Any] = {"workspace": workspace, "set": dict(changes)}
        if team:
            body["teamId"] = self.team(team)
        self.slack.prefs_set_id = self._request_id("prefs-set", body)

    # -- the harness as the hook server -------------------------------------------------------------------------

    def send_pending(self) -> None:
        """bind.update pending with a fresh authorize URL (an https URL of the identity provider with a state nonce)."""
        url = f"https://slack.com/openid/connect/authorize?response_type=code&state={uuid.uuid4().hex}"
        self.slack.authorize_url = url
        self.session.server.send_message(make_bind_update("pending", None, None, None, authorize_url=url, team_id=None))

    def send_confirmed(self, team: str) -> None:
        self.session.server.send_message(make_bind_update("confirmed", self.slack_user(team), f"User of {team}", None,
                                                          team_id=self.team(team), team_name=f"Team {team}"))

    def send_revoked(self, team: str | None) -> None:
        self.session.server.send_message(make_bind_update("revoked", None, None, None,
                                                          team_id=self.team(team) if team else None))

    def send_not_installed(self, with_install_url: bool) -> None:
        """bind.update failed, reason not-installed, with a fresh installUrl or without one."""
        url = f"https://slack.com/apps/A{uuid.uuid4().hex[:8].upper()}" if with_install_url else None
        self.slack.install_url = url
        self.session.server.send_message(make_bind_update("failed", None, None, "The Slack app is not installed",
                                                          reason="not-installed",
                                                          # ABSENT leaves the field out; make_bind_update's annotation
                                                          # (simulator/hook) does not name it
                                                          install_url=url or cast(str, ABSENT)))

    def send_bind_state(self, teams: Iterable[str]) -> None:
        entries = tuple(BindStateEntry(self.team(t), self.slack_user(t), f"Team {t}", f"User of {t}") for t in teams)
        self.session.server.send_message(make_bind_state(entries))

    def answer_prefs_get(self, entries: list[dict[str, Any]]) -> None:
        """prefs.state answering the desktop's prefs.get (replyTo = the requestId that frame carried)."""
        get = self._prefs_get_frame()
        self.session.server.prefs_state(True, entries, reply_to=get.request_id)

    def push_prefs(self, entries: list[dict[str, Any]]) -> None:
        """A pushed prefs.state (replyTo null): a change made in the channel (/model)."""
        self.session.server.prefs_state(True, entries, reply_to=None)

    def push_unbound(self) -> None:
        self.session.server.prefs_state(False, (), reply_to=None)

    def send_malformed(self, type_: str, payload: Mapping[str, Any]) -> None:
        """A ``type_`` frame with ``payload`` as given (not validated), after noting what the desktop shows."""
        if self.slack.view_before is None:
            self.slack.view_before = self.slack_view()
        self.session.server.send_frame({"v": 1, "type": type_, "id": str(uuid.uuid4()), "ts": int(time.time() * 1000),
                                        "payload": dict(payload)})

    # -- what the desktop sent ----------------------------------------------------------------------------------

    def _prefs_get_frame(self) -> Any:
        if self.prefs_get is None:
            self.prefs_get = self.session.server.expect_payload(MessageType.PREFS_GET.value)
        return self.prefs_get

    def check_bind_start(self, team: str | None = None) -> None:
        """§5 阶段 5 bind.start: "新端发空对象 {}(设备身份取连接 hello 的 deviceId);可选 teamId = 给指定 team 重新授权时
        pin 授权页 …;email 字段仅用于 server 识别旧客户端(deprecated)": no email; ``{}``, or exactly ``{teamId}``."""
        wire = self.session.server.expect_payload(MessageType.BIND_START.value).to_wire()
        assert "email" not in wire, f"bind.start carries email ({wire['email']!r}): only old clients send it"
        given = {k: v for k, v in wire.items() if v is not None}
        want = {"teamId": self.team(team)} if team else {}
        assert given == want, f"bind.start payload {json.dumps(wire)}, expected {json.dumps(want)}"

    def check_bind_start_without_team(self) -> None:
        """§5 阶段 13 "其余为已有帧的可选 teamId 扩展 … bind.start … 能力协商双向 … 任一侧缺席则整体回落单绑定行为":
        without multi-team negotiated, the bind.start carries no teamId (the user's team choice is not sent)."""
        wire = self.session.server.expect_payload(MessageType.BIND_START.value).to_wire()
        assert wire.get("teamId") is None, (
            f"bind.start names team {wire['teamId']!r} although multi-team is not on for this connection: "
            f"{json.dumps(wire)}")

    def check_bind_revoke(self, team: str | None = None, *, pending_only: bool = False) -> None:
        """§5 阶段 5 bind.revoke: "teamId 非空 = 只解绑该 team,空/缺省 = 解绑本设备全部 …;pendingOnly=true = 只作废在途
        授权、不动已确认绑定。desktop 仅在 server 声明 multi-team 后才发带 teamId 的形态"."""
        wire = self.session.server.expect_payload(MessageType.BIND_REVOKE.value).to_wire()
        if pending_only:
            assert wire.get("pendingOnly") is True, f"bind.revoke {json.dumps(wire)} does not say pendingOnly: true"
            return
        assert wire.get("pendingOnly") is not True, f"bind.revoke {json.dumps(wire)} says pendingOnly: true"
        if team:
            assert wire.get("teamId") == self.team(team), (
                f"bind.revoke {json.dumps(wire)} does not name team {team!r} ({self.team(team)})")
        else:
            assert wire.get("teamId") is None, (
                f"bind.revoke names team {wire['teamId']!r} although multi-team is not on for this connection")

    def check_prefs_get(self) -> None:
        """§5 阶段 11 prefs.get: "requestId 由 prefs.state.replyTo 回显配对": the prefs.get carries the requestId the
        desktop's control API answered (the one its answer will be paired by)."""
        get = self._prefs_get_frame()
        assert self.slack.prefs_get_id is not None, "the desktop user did not ask for the Slack preferences"
        assert get.request_id == self.slack.prefs_get_id, (
            f"prefs.get requestId {get.request_id!r}, but the desktop's control API answered "
            f"{self.slack.prefs_get_id!r}")

    def check_prefs_set(self, workspace: str, fields: Mapping[str, Any], team: str | None = None) -> None:
        """§5 阶段 11 prefs.set: "部分更新某目录偏好(undefined 不动、null 显式清空)": exactly the keys the user changed
        (a key left as it was is left out), and ``teamId`` only as the scenario says (阶段 13)."""
        p = self.session.server.expect_payload(MessageType.PREFS_SET.value)
        wire = p.to_wire()
        assert p.request_id == self.slack.prefs_set_id, (
            f"prefs.set requestId {p.request_id!r}, the control API answered {self.slack.prefs_set_id!r}")
        assert p.workspace == workspace, f"prefs.set workspace {p.workspace!r}, expected {workspace!r}"
        got = patch_of(wire)
        assert got == dict(fields), (
            f"prefs.set carries {json.dumps(got)}, expected exactly {json.dumps(dict(fields))} (a key the user left "
            f"as it was must be left out: undefined 不动; null clears)")
        if team:
            assert wire.get("teamId") == self.team(team), (
                f"prefs.set teamId {wire.get('teamId')!r}, expected team {team!r}")
        else:
            assert wire.get("teamId") is None, (
                f"prefs.set names team {wire['teamId']!r} although multi-team is not on for this connection")

    # -- what the desktop shows (control state) -----------------------------------------------------------------

    def slack_view(self) -> dict[str, Any]:
        return checked_slack_view(self.session.call("state"))

    def _poll(self, holds: Any, what: str) -> dict[str, Any]:
        return self.session.poll(self.slack_view, holds, what)

    def _link(self, view: dict[str, Any]) -> Any:
        auth = view["slack"]["authorization"]
        return auth.get("link") if auth else None

    def check_shows_authorize_link(self) -> None:
        """§5 阶段 5 bind.update "pending 时 authorizeUrl 非空" (Sign in with Slack OIDC): the user is shown that URL."""
        url = self.slack.authorize_url
        assert url, "the harness sent no pending bind.update"
        self._poll(lambda v: self._link(v) == url, f"the sign-in link {url}")

    def check_shows_install_link(self) -> None:
        """§5 阶段 5 bind.update "failed 时 … 可选结构化 reason(已知值 not-installed,配 installUrl)": the user is shown
        the installUrl the server gave."""
        url = self.slack.install_url
        assert url, "the harness sent no installUrl"
        self._poll(lambda v: self._link(v) == url, f"the install link {url}")

    def check_shows_generic_install_link(self) -> None:
        """§3 "新增可选字段的缺省行为必须定义(如 bind.update.installUrl 缺省回退通用链接)": without installUrl the user is
        still shown an install link (an https URL)."""
        self._poll(lambda v: (v["slack"]["authorization"] or {}).get("state") == "failed"
                   and is_https_url(self._link(v)), "a not-installed failure with an https install link")

    def _shown_teams(self, view: dict[str, Any]) -> set[str]:
        """The scenario's team names whose binding the view shows (teams of other scenarios are not judged). Without
        multi-team a binding is also known by its slackUserId: a single-binding desktop may keep no teamId (阶段 13
        "缺省 = 设备唯一绑定的旧语义 … 任一侧缺席则整体回落单绑定行为")."""
        by_id = {tid: name for name, tid in self.slack.teams.items()}
        by_user = {uid: name for name, uid in self.slack.users.items()}
        single = not view["slack"]["multiTeam"]
        shown = set()
        for b in view["slack"]["bindings"]:
            if b.get("teamId") in by_id:
                shown.add(by_id[b["teamId"]])
            elif single and b.get("teamId") is None and b.get("slackUserId") in by_user:
                shown.add(by_user[b["slackUserId"]])
        return shown

    def check_shows_teams(self, names: Iterable[str]) -> None:
        """The desktop shows the bindings of exactly the teams ``names`` (among the teams of this scenario)."""
        want = set(names)
        for n in want:
            self.team(n)
        self._poll(lambda v: self._shown_teams(v) == want, f"the Slack bindings of exactly the teams {sorted(want)}")

    def check_still_shows_teams(self, names: Iterable[str]) -> None:
        """After a ping barrier, the desktop shows the bindings of exactly ``names`` (the frames before changed
        nothing else)."""
        want = set(names)
        self.session.barrier()
        shown = self._shown_teams(self.slack_view())
        assert shown == want, (
            f"the desktop shows the Slack bindings of the teams {sorted(shown)}, expected {sorted(want)}")

    def check_shows_prefs(self, entries: list[dict[str, Any]], *, answering: bool = False) -> None:
        """The desktop shows exactly the preference rows ``entries`` (the latest prefs.state replaces the shown ones
        whole, §4 latest-wins; §5 阶段 11 "全量快照"); ``answering``: as the answer to its prefs.get."""
        want = _canonical(entries)

        def holds(v: dict[str, Any]) -> bool:
            p = v["prefs"]
            if p is None or p["bound"] is not True or _canonical(p["prefs"]) != want:
                return False
            return not answering or p["replyTo"] == self.slack.prefs_get_id
        self._poll(holds, f"exactly the Slack preferences {json.dumps(entries)}")

    def check_shows_no_prefs(self) -> None:
        """§5 阶段 11 prefs.state "联动:bound=false 时 prefs 恒空数组": unbound, no preference is shown."""
        self._poll(lambda v: v["prefs"] is not None and v["prefs"]["bound"] is False and v["prefs"]["prefs"] == [],
                   "no Slack preferences (unbound)")

    def check_slack_view_unchanged(self) -> None:
        """§2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false": the malformed frames changed nothing the desktop
        shows (read after a ping barrier)."""
        before = self.slack.view_before
        assert before is not None, "the harness sent no malformed frame in this scenario"
        self.session.barrier()
        after = self.slack_view()
        assert after == before, (f"the desktop's Slack view changed after malformed frames: before "
                                 f"{json.dumps(before)[:400]}, after {json.dumps(after)[:400]}")
