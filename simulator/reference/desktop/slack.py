"""The reference desktop's Slack binding, multi-team and Slack preferences: sans-I/O (STYLE.md principles 1-2).

Theory of operation. ``SlackSide`` is what the desktop knows and shows its user about Slack: the bindings, the
authorization in flight (with the link the user opens), whether multi-team is on for the current connection, and
the latest ``prefs.state``. The machine (machine.py) routes to it the frames of these families (``on_bind_update``,
``on_bind_state``, ``on_prefs_state``, already parsed by ``parse_hook_message``: a frame that fails parsing never gets
here, so it changes nothing) and the user's actions (``bind_start``, ``bind_revoke``, ``prefs_get``, ``prefs_set``),
which return the frame to send or raise ``SlackRefusal`` (nothing sent). Ids and ``now`` are passed in; no I/O here.

Spec references (slack-hook-protocol.md):
* §5 阶段 5 bind.start: "新端发空对象 {}(设备身份取连接 hello 的 deviceId);可选 teamId = 给指定 team 重新授权时 pin
  授权页 …;email 字段仅用于 server 识别旧客户端(deprecated)" — never ``email``;
* §5 阶段 5 bind.revoke: "teamId 非空 = 只解绑该 team,空/缺省 = 解绑本设备全部 …;pendingOnly=true = 只作废在途授权、
  不动已确认绑定。desktop 仅在 server 声明 multi-team 后才发带 teamId 的形态";
* §5 阶段 5 bind.update (pending → authorizeUrl; failed not-installed → installUrl) and §3 "新增可选字段的缺省行为必须
  定义(如 bind.update.installUrl 缺省回退通用链接)";
* §5 阶段 5 bind.state "(multi-team)绑定全量快照(权威列表)"; 阶段 13 "任一侧缺席则整体回落单绑定行为";
* §5 阶段 11 prefs.*: "部分更新某目录偏好(undefined 不动、null 显式清空)"; prefs.state "全量快照 … 主动推送 … 为 null。
  联动:bound=false 时 prefs 恒空数组"; §4 "latest-wins 帧(… prefs.state 主动推送):… 每帧整体替换".
Contract: docs/control-api.md "Bindings and preferences (desktop)".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ...hook import (
    ABSENT,
    BindStatePayload,
    BindUpdatePayload,
    HookMessage,
    PrefsStatePayload,
    make_bind_revoke,
    make_bind_start,
    make_prefs_get,
    make_prefs_set,
)

__all__ = ["GENERIC_INSTALL_URL", "PREFS_KEYS", "SlackRefusal", "SlackSide"]

#: The generic install link shown for ``failed`` / ``not-installed`` without ``installUrl`` (§3 "bind.update.installUrl
#: 缺省回退通用链接").
GENERIC_INSTALL_URL: Final = "https://slack.com/apps"
#: The keys of a preference row (§5 阶段 11 prefs.set; wire names → payload attribute names).
PREFS_KEYS: Final = {"model": "model", "effort": "effort", "agentKind": "agent_kind",
                     "permissionMode": "permission_mode"}


class SlackRefusal(Exception):
    """The user's action does not apply (nothing is sent): ``code`` for the control API."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _given(value: Any) -> bool:
    return value is not ABSENT and value is not None


@dataclass
class SlackSide:
    """The desktop's Slack state and rules. ``multi_team`` is set by the machine at each welcome (hello and welcome
    both declare ``multi-team``) and cleared at a disconnect."""

    multi_team: bool = False
    #: teamId (None: unknown team) → {"teamId", "teamName", "slackUserId", "slackUserName"}, in the order received.
    bindings: dict[str | None, dict[str, Any]] = field(default_factory=dict)
    authorization: dict[str, Any] | None = None
    #: The latest prefs.state as received: {"bound", "prefs": [entries as on the wire], "replyTo"}.
    prefs: dict[str, Any] | None = None

    # -- the user's actions: the frame to send ----------------------------------------------------------------

    def bind_start(self, team_id: str | None, env: Mapping[str, Any]) -> HookMessage:
        """"Sign in with Slack": ``bind.start {}``, or ``{teamId}`` to re-authorise that team while multi-team is on
        (阶段 13: teamId on bind.start is the multi-team extension, "任一侧缺席则整体回落单绑定行为"); never
        ``email``."""
        team: dict[str, Any] = {"team_id": team_id} if team_id and self.multi_team else {}  # left out: ABSENT
        return make_bind_start(**team, **env)

    def bind_revoke(self, team_id: str | None, pending_only: bool, env: Mapping[str, Any]) -> HookMessage:
        """``bind.revoke``: ``{pendingOnly: true}`` ends only the authorization in flight; ``{teamId}`` only with
        multi-team on; without it a ``teamId`` naming the device's only binding is ``{}`` (the old "all" semantics),
        any other is refused (``not-found``)."""
        if pending_only:
            return make_bind_revoke(pending_only=True, **env)
        if team_id and self.multi_team:
            return make_bind_revoke(team_id=team_id, **env)
        if team_id and set(self.bindings) != {team_id}:
            raise SlackRefusal("not-found", f"team {team_id} is not this device's only Slack binding")
        return make_bind_revoke(**env)

    def prefs_get(self, request_id: str, env: Mapping[str, Any]) -> HookMessage:
        return make_prefs_get(request_id, **env)

    def prefs_set(self, request_id: str, workspace: str, changes: Mapping[str, str | None], team_id: str | None,
                  env: Mapping[str, Any]) -> HookMessage:
        """``prefs.set`` with exactly the keys of ``changes`` (a string changes, null clears; a key not given is left
        out, so the server keeps it); ``teamId`` only with multi-team on."""
        fields: dict[str, Any] = {PREFS_KEYS[k]: v for k, v in changes.items() if k in PREFS_KEYS}
        if team_id and self.multi_team:  # else left out: ABSENT
            fields["team_id"] = team_id
        return make_prefs_set(request_id, workspace, **fields, **env)

    # -- frames from the server -------------------------------------------------------------------------------

    def on_bind_update(self, p: BindUpdatePayload) -> None:
        """Replaces the authorization; ``confirmed`` adds the binding (multi-team off: the only one), ``revoked``
        removes its team's binding (all when ``teamId`` is null or absent)."""
        team = p.team_id if _given(p.team_id) else None
        self.authorization = {
            "state": p.state,
            "authorizeUrl": p.authorize_url if _given(p.authorize_url) else None,
            "message": p.message,
            "reason": p.reason if _given(p.reason) else None,
            "link": self._link(p),
        }
        if p.state == "confirmed":
            entry = {"teamId": team, "teamName": p.team_name if _given(p.team_name) else None,
                     "slackUserId": p.slack_user_id, "slackUserName": p.slack_user_name}
            if not self.multi_team:
                self.bindings.clear()
            self.bindings[team] = entry
        elif p.state == "revoked":
            if team is None:
                self.bindings.clear()
            else:
                self.bindings.pop(team, None)

    @staticmethod
    def _link(p: BindUpdatePayload) -> str | None:
        """What the user opens: the authorize page while pending; the install page (or the generic one) for a Slack
        app that is not installed; nothing otherwise."""
        if p.state == "pending":
            return p.authorize_url if _given(p.authorize_url) else None
        if p.state == "failed" and p.reason == "not-installed":
            return p.install_url if _given(p.install_url) else GENERIC_INSTALL_URL
        return None

    def on_bind_state(self, p: BindStatePayload) -> None:
        """With multi-team on, the authoritative list replaces the bindings; off, the frame changes nothing."""
        if not self.multi_team:
            return
        self.bindings = {b.team_id: {"teamId": b.team_id, "teamName": b.team_name, "slackUserId": b.slack_user_id,
                                     "slackUserName": b.slack_user_name} for b in p.bindings}

    def on_prefs_state(self, p: PrefsStatePayload) -> None:
        """An answer or a push (replyTo null) replaces the preferences whole (latest wins); bound=false shows none."""
        self.prefs = {"bound": p.bound, "prefs": [e.to_wire() for e in p.prefs] if p.bound else [],
                      "replyTo": p.reply_to}

    # -- what the user sees -----------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        return {"slack": {"bindings": [dict(b) for b in self.bindings.values()],
                          "authorization": dict(self.authorization) if self.authorization else None,
                          "multiTeam": self.multi_team},
                "prefs": None if self.prefs is None else {"bound": self.prefs["bound"],
                                                          "prefs": [dict(e) for e in self.prefs["prefs"]],
                                                          "replyTo": self.prefs["replyTo"]}}
