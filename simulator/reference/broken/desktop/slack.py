"""Broken variants of the reference desktop's Slack binding and preferences (slack-hook-protocol.md 阶段 5, 11, 13).

Each is the correct ``SlackSide`` (desktop/slack.py) with the one rule it breaks overridden, carried by a
``DesktopMachine`` subclass that only swaps ``slack_class`` (``carried``); ``bad-bind-state-applied`` overrides the
machine's bad-frame path instead. The desktop features must catch each one
(tests/hook_desktop/test_desktop_variants.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ....hook import (
    BindStatePayload,
    BindUpdatePayload,
    HookMessage,
    PrefsStatePayload,
    make_bind_revoke,
    make_bind_start,
)
from ...desktop.machine import DesktopMachine, Effect
from ...desktop.slack import GENERIC_INSTALL_URL, PREFS_KEYS, SlackSide
from ..registry import broken

__all__ = ["BindStartEmail", "RevokeTeamWithoutFeature", "BindStateMerged", "BindStateWithoutFeature",
    "InstallUrlMissing", "PrefsSetFullRow", "PrefsStateMerged", "AuthorizeUrlHidden", "InstallUrlIgnored",
    "PendingOnlyDropped", "MultiTeamRevokeAll", "PrefsTeamWithoutFeature", "PrefsAnswerIgnored", "UnboundKeepsPrefs",
    "RevokedClearsAll", "StartTeamWithoutFeature", "ReauthorizeUnpinned", "BadBindStateApplied"]


def carried(side: type[SlackSide]) -> type[DesktopMachine]:
    """The correct machine with ``side`` as its Slack rules (registered in ``side``'s place)."""
    return type(side.__name__, (DesktopMachine,), {"slack_class": side, "__doc__": side.__doc__,
                                                   "__module__": side.__module__})


# also the other sign-in requirements: every scenario that signs in sees the e-mail
@broken("bind-start-email", subject="desktop", breaks=["HOOK-DESKTOP-BIND-START-01"],
        also=["HOOK-DESKTOP-BIND-AUTHORIZE-01", "HOOK-DESKTOP-BIND-PENDING-ONLY-01", "HOOK-DESKTOP-BIND-START-02"],
        clause='阶段 5 "新端发空对象 {} … email 字段仅用于 server 识别旧客户端(deprecated)"')
@carried
class BindStartEmail(SlackSide):
    """``bind.start`` carries the user's e-mail, as an old client did."""

    def bind_start(self, team_id: str | None, env: Mapping[str, Any]) -> HookMessage:
        team: dict[str, Any] = {"team_id": team_id} if team_id and self.multi_team else {}
        return make_bind_start(email="user@example.com", **team, **env)


@broken("revoke-team-without-feature", subject="desktop", breaks=["HOOK-DESKTOP-BIND-REVOKE-01"],
        clause='阶段 5 "desktop 仅在 server 声明 multi-team 后才发带 teamId 的形态"')
@carried
class RevokeTeamWithoutFeature(SlackSide):
    """``bind.revoke`` names the team whether or not multi-team is on."""

    def bind_revoke(self, team_id: str | None, pending_only: bool, env: Mapping[str, Any]) -> HookMessage:
        if team_id and not pending_only:
            return make_bind_revoke(team_id=team_id, **env)
        return super().bind_revoke(team_id, pending_only, env)


@broken("bind-state-merged", subject="desktop", breaks=["HOOK-DESKTOP-MULTITEAM-STATE-01"],
        clause='阶段 5 bind.state "绑定全量快照(权威列表)"')
@carried
class BindStateMerged(SlackSide):
    """``bind.state`` adds and updates bindings but never removes one."""

    def on_bind_state(self, p: BindStatePayload) -> None:
        if not self.multi_team:
            return
        before = dict(self.bindings)
        super().on_bind_state(p)
        self.bindings = {**before, **self.bindings}


@broken("bind-state-without-feature", subject="desktop", breaks=["HOOK-DESKTOP-MULTITEAM-STATE-02"],
        clause='阶段 13 "任一侧缺席则整体回落单绑定行为"')
@carried
class BindStateWithoutFeature(SlackSide):
    """``bind.state`` replaces the bindings even when multi-team is off."""

    def on_bind_state(self, p: BindStatePayload) -> None:
        on, self.multi_team = self.multi_team, True
        try:
            super().on_bind_state(p)
        finally:
            self.multi_team = on


@broken("install-url-missing", subject="desktop", breaks=["HOOK-DESKTOP-BIND-INSTALL-02"],
        clause='§3 "新增可选字段的缺省行为必须定义(如 bind.update.installUrl 缺省回退通用链接)"')
@carried
class InstallUrlMissing(SlackSide):
    """A not-installed failure without installUrl shows no link."""

    def on_bind_update(self, p: BindUpdatePayload) -> None:
        super().on_bind_update(p)
        if self.authorization is not None and self.authorization["link"] == GENERIC_INSTALL_URL:
            self.authorization["link"] = None


# also MULTITEAM-PREFS-01: its prefs.set carries the full row too
@broken("prefs-set-full-row", subject="desktop", breaks=["HOOK-DESKTOP-PREFS-SET-01"],
        also=["HOOK-DESKTOP-MULTITEAM-PREFS-01"],
        clause='阶段 11 prefs.set "部分更新某目录偏好(undefined 不动、null 显式清空)"')
@carried
class PrefsSetFullRow(SlackSide):
    """``prefs.set`` carries every key of the row, null for those the user did not change (which clears them)."""

    def prefs_set(self, request_id: str, workspace: str, changes: Mapping[str, str | None], team_id: str | None,
                  env: Mapping[str, Any]) -> HookMessage:
        full = {k: changes.get(k) for k in PREFS_KEYS}
        return super().prefs_set(request_id, workspace, full, team_id, env)


@broken("prefs-state-merged", subject="desktop", breaks=["HOOK-DESKTOP-PREFS-PUSH-01"],
        clause='§4 "latest-wins 帧(turn.progress / prefs.state 主动推送):… 每帧整体替换,不拼接不累积"')
@carried
class PrefsStateMerged(SlackSide):
    """A prefs.state is merged into the shown preferences by workspace instead of replacing them."""

    def on_prefs_state(self, p: PrefsStatePayload) -> None:
        before = {e["workspace"]: e for e in (self.prefs or {}).get("prefs", [])}
        super().on_prefs_state(p)
        if self.prefs is not None and p.bound:
            now = {e["workspace"]: e for e in self.prefs["prefs"]}
            self.prefs["prefs"] = list({**before, **now}.values())


# also BIND-PENDING-ONLY-01: that scenario reads the link of the sign-in in flight
@broken("authorize-url-hidden", subject="desktop", breaks=["HOOK-DESKTOP-BIND-AUTHORIZE-01"],
        also=["HOOK-DESKTOP-BIND-PENDING-ONLY-01"],
        clause='阶段 5 bind.update "pending 时 authorizeUrl 非空" (the page the user signs in on)')
@carried
class AuthorizeUrlHidden(SlackSide):
    """A pending bind.update shows no link."""

    def on_bind_update(self, p: BindUpdatePayload) -> None:
        super().on_bind_update(p)
        if p.state == "pending" and self.authorization is not None:
            self.authorization["link"] = None


@broken("install-url-ignored", subject="desktop", breaks=["HOOK-DESKTOP-BIND-INSTALL-01"],
        clause='阶段 5 bind.update "可选结构化 reason(已知值 not-installed,配 installUrl)"')
@carried
class InstallUrlIgnored(SlackSide):
    """A not-installed failure always shows the generic link, also when the server gave installUrl."""

    def on_bind_update(self, p: BindUpdatePayload) -> None:
        super().on_bind_update(p)
        if p.state == "failed" and p.reason == "not-installed" and self.authorization is not None:
            self.authorization["link"] = GENERIC_INSTALL_URL


@broken("pending-only-dropped", subject="desktop", breaks=["HOOK-DESKTOP-BIND-PENDING-ONLY-01"],
        clause='阶段 5 bind.revoke "pendingOnly=true = 只作废在途授权、不动已确认绑定"')
@carried
class PendingOnlyDropped(SlackSide):
    """Cancelling the sign-in in flight sends a plain bind.revoke (which revokes every binding)."""

    def bind_revoke(self, team_id: str | None, pending_only: bool, env: Mapping[str, Any]) -> HookMessage:
        return super().bind_revoke(team_id, False, env)


@broken("multi-team-revoke-all", subject="desktop", breaks=["HOOK-DESKTOP-MULTITEAM-REVOKE-01"],
        clause='阶段 5 bind.revoke "teamId 非空 = 只解绑该 team,空/缺省 = 解绑本设备全部"')
@carried
class MultiTeamRevokeAll(SlackSide):
    """Signing out of one team sends a plain bind.revoke, also with multi-team on."""

    def bind_revoke(self, team_id: str | None, pending_only: bool, env: Mapping[str, Any]) -> HookMessage:
        if team_id and not pending_only and self.multi_team:
            return make_bind_revoke(**env)
        return super().bind_revoke(team_id, pending_only, env)


@broken("prefs-team-without-feature", subject="desktop", breaks=["HOOK-DESKTOP-MULTITEAM-PREFS-01"],
        clause='阶段 13 "任一侧缺席则整体回落单绑定行为"')
@carried
class PrefsTeamWithoutFeature(SlackSide):
    """``prefs.set`` names the team the user picked although multi-team is off."""

    def prefs_set(self, request_id: str, workspace: str, changes: Mapping[str, str | None], team_id: str | None,
                  env: Mapping[str, Any]) -> HookMessage:
        on, self.multi_team = self.multi_team, True
        try:
            return super().prefs_set(request_id, workspace, changes, team_id, env)
        finally:
            self.multi_team = on


@broken("prefs-answer-ignored", subject="desktop", breaks=["HOOK-DESKTOP-PREFS-GET-01"],
        clause='阶段 11 prefs.get "requestId 由 prefs.state.replyTo 回显配对"')
@carried
class PrefsAnswerIgnored(SlackSide):
    """A prefs.state answering a prefs.get (replyTo set) is not taken, only pushes are."""

    def on_prefs_state(self, p: PrefsStatePayload) -> None:
        if p.reply_to is None:
            super().on_prefs_state(p)


@broken("unbound-keeps-prefs", subject="desktop", breaks=["HOOK-DESKTOP-PREFS-UNBOUND-01"],
        clause='阶段 11 prefs.state "联动:bound=false 时 prefs 恒空数组"')
@carried
class UnboundKeepsPrefs(SlackSide):
    """A prefs.state with bound false is ignored, the earlier preferences stay shown."""

    def on_prefs_state(self, p: PrefsStatePayload) -> None:
        if p.bound:
            super().on_prefs_state(p)


@broken("revoked-clears-all", subject="desktop", breaks=["HOOK-DESKTOP-BIND-CONFIRMED-01"],
        clause='阶段 5 bind.update "可选 teamId:事件按 team 定位"')
@carried
class RevokedClearsAll(SlackSide):
    """A revoked bind.update removes every binding, whatever its teamId."""

    def on_bind_update(self, p: BindUpdatePayload) -> None:
        super().on_bind_update(p)
        if p.state == "revoked":
            self.bindings.clear()


@broken("start-team-without-feature", subject="desktop", breaks=["HOOK-DESKTOP-MULTITEAM-START-01"],
        clause='阶段 13 "其余为已有帧的可选 teamId 扩展 … bind.start … 任一侧缺席则整体回落单绑定行为"')
@carried
class StartTeamWithoutFeature(SlackSide):
    """Re-authorising a team sends ``bind.start {teamId}`` whether or not multi-team is on."""

    def bind_start(self, team_id: str | None, env: Mapping[str, Any]) -> HookMessage:
        team: dict[str, Any] = {"team_id": team_id} if team_id else {}
        return make_bind_start(**team, **env)


@broken("reauthorize-unpinned", subject="desktop", breaks=["HOOK-DESKTOP-BIND-START-02"],
        clause='阶段 5 bind.start "可选 teamId = 给指定 team 重新授权时 pin 授权页"')
@carried
class ReauthorizeUnpinned(SlackSide):
    """Re-authorising one team sends an empty bind.start (the team is not pinned)."""

    def bind_start(self, team_id: str | None, env: Mapping[str, Any]) -> HookMessage:
        return super().bind_start(None, env)


@broken("bad-bind-state-applied", subject="desktop", breaks=["HOOK-DESKTOP-BIND-BAD-FRAME-01"],
        clause='§2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false"')
class BadBindStateApplied(DesktopMachine):
    """A bind.state the parser refuses is still read, leniently (every entry with a teamId is shown)."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Effect]:
        try:
            data = json.loads(raw)
        except (ValueError, TypeError):
            data = None
        if isinstance(data, dict) and data.get("type") == "bind.state" and isinstance(data.get("payload"), dict):
            entries = data["payload"].get("bindings")
            if isinstance(entries, list):
                self.slack.bindings = {e["teamId"]: {"teamId": e["teamId"], "teamName": e.get("teamName"),
                                                     "slackUserId": e.get("slackUserId"),
                                                     "slackUserName": e.get("slackUserName")}
                                       for e in entries if isinstance(e, dict) and isinstance(e.get("teamId"), str)}
                return []
        return super()._on_bad_frame(raw, now)

