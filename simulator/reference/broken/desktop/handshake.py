"""Broken variants of the reference desktop's handshake, dispatch and session rules: hello (§5 阶段 1, 默认工作目录),
ping, lifecycle.preference (上下线通知偏好), the bearer token of each dial, task.dispatch / task.ack (§2, §4 requestId
幂等, §5 阶段 2), sessions (§1), task.cancel and session.archive (§4 幂等). Each is the correct ``DesktopMachine`` (or
``DesktopClient``) with the one rule it breaks overridden; the desktop features must catch each one
(tests/hook_desktop/test_desktop_variants.py, test_desktop_rules_variants.py; the fault profile:
tests/faults/test_faults_desktop_falsified.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from ....hook import (
    HOOK_CHAT_WORKSPACE_ALIAS,
    HookMessage,
    MessageType,
    SessionArchivePayload,
    TaskCancelPayload,
    TaskDispatchPayload,
    TurnUsage,
    make_turn_end,
)
from ...desktop.client import DesktopClient
from ...desktop.machine import DesktopMachine, Effect, Send, Turn, TurnKind
from ..registry import broken
from ._frames import rewritten, with_payload

__all__ = ["StaleLifecycleHello", "ChatAliasLast", "LifecycleDefaultLeftOut", "DefaultNotInWorkspaces",
    "DefaultKeptAfterRemoval", "HelloNotResent", "LifecycleWithoutFeature", "LifecycleChangeNotSent",
    "TokenFirstDialOnly", "NoPongWhileBusy", "RedeliveryRunsTwice", "ChatDispatchRejected", "QueuedAckedAccepted",
    "UnknownAliasNotAllowed", "UnknownSessionOpened", "DisabledIgnored", "RemovedFolderAccepted",
    "SessionPerDispatch", "TakeoverIgnored", "CancelAsError", "UnknownCancelAnswered", "ArchiveIgnored",
    "ArchiveUnknownKeyCrashes"]


@broken("lifecycle-hello-stale", subject="desktop", breaks=["HOOK-DESKTOP-HELLO-LIFECYCLE-02"], run="rules",
        clause='§1 "hello.lifecycleAnnouncement 在握手时上报当前值"')
class StaleLifecycleHello(DesktopMachine):
    """Every hello carries the preference the desktop started with (a hello built once and reused), not the current
    one."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._started_with = self.lifecycle_enabled

    def hello(self, now: float) -> Send:
        current, self.lifecycle_enabled = self.lifecycle_enabled, self._started_with
        try:
            return super().hello(now)
        finally:
            self.lifecycle_enabled = current


@broken("chat-alias-last", subject="desktop", breaks=["HOOK-DESKTOP-HELLO-CHAT-01"],
        clause="§5 阶段 1 \"workspaces(注册的别名列表;首位恒为内置对话伪目录 HOOK_CHAT_WORKSPACE_ALIAS='chat')\"")
class ChatAliasLast(DesktopMachine):
    """``hello`` lists the registered aliases first and appends the chat pseudo-folder."""

    def aliases(self) -> list[str]:
        first, *rest = super().aliases()
        return [*rest, first]


@broken("lifecycle-default-left-out", subject="desktop", breaks=["HOOK-DESKTOP-HELLO-LIFECYCLE-01"],
        clause='§3 "握手初值由 hello.lifecycleAnnouncement 提供"; a missing field still reads as the current value, true')
class LifecycleDefaultLeftOut(DesktopMachine):
    """``hello`` leaves ``lifecycleAnnouncement`` out while the preference is on (the server's default is true
    anyway)."""

    def hello(self, now: float) -> Send:
        send = super().hello(now)
        if not self.lifecycle_enabled:
            return send
        return rewritten(send, lambda p: p.pop("lifecycleAnnouncement", None))


@broken("default-not-in-workspaces", subject="desktop", breaks=["HOOK-DESKTOP-HELLO-DEFAULT-01"],
        clause='§5 阶段 1 "defaultWorkspace(…必须是 workspaces 的成员…)"')
class DefaultNotInWorkspaces(DesktopMachine):
    """The default alias is sent as defaultWorkspace only and left out of hello.workspaces."""

    def hello(self, now: float) -> Send:
        send = super().hello(now)
        if self.default_workspace is None:
            return send
        default = self.default_workspace
        return rewritten(send, lambda p: p.update(workspaces=[a for a in p["workspaces"] if a != default]))


@broken("default-kept-after-removal", subject="desktop", breaks=["HOOK-DESKTOP-HELLO-DEFAULT-02"],
        clause='默认工作目录 "desktop 侧目录被删除后必须把默认值归零后再握手"')
class DefaultKeptAfterRemoval(DesktopMachine):
    """Once the default's folder is gone the alias leaves hello.workspaces but the hello still names it as
    defaultWorkspace."""

    def hello(self, now: float) -> Send:
        default = self.default_workspace
        send = super().hello(now)
        self.default_workspace = default
        if default is None:
            return send
        return rewritten(send, lambda p: p.update(defaultWorkspace=default))


@broken("hello-not-resent", subject="desktop", breaks=["HOOK-DESKTOP-HELLO-RESEND-01"],
        clause='§5 阶段 1 "别名映射变更后重发 hello 即时生效"')
class HelloNotResent(DesktopMachine):
    """A change of the alias mapping waits for the next handshake; no hello is sent on the open connection."""

    def set_workspaces(self, workspaces: Any, default: str | None, now: float) -> list[Effect]:
        super().set_workspaces(workspaces, default, now)
        return []

    def remove_workspace_folder(self, alias: str, now: float) -> list[Effect]:
        super().remove_workspace_folder(alias, now)
        return []


@broken("lifecycle-without-feature", subject="desktop",
        breaks=["HOOK-DESKTOP-GATING-01", "HOOK-DESKTOP-LIFECYCLE-GATE-01"],
        clause="上下线通知偏好 \"desktop 仅在 welcome.features 包含 "
               "HOOK_FEATURE_LIFECYCLE_ANNOUNCEMENT='lifecycle-announcement-v1' 时发送实时更新帧\"")
class LifecycleWithoutFeature(DesktopMachine):
    """A preference change is sent as lifecycle.preference on any open connection, whatever welcome declares."""

    def _lifecycle_on(self) -> bool:
        return True


@broken("lifecycle-change-not-sent", subject="desktop", breaks=["HOOK-DESKTOP-LIFECYCLE-SEND-01"],
        clause='上下线通知偏好 "偏好变更即时发送 lifecycle.preference"')
class LifecycleChangeNotSent(DesktopMachine):
    """A preference change waits for the next hello; no lifecycle.preference is sent on the open connection, also when
    welcome declared lifecycle-announcement-v1."""

    def set_lifecycle_preference(self, enabled: bool, now: float) -> list[Effect]:
        self.lifecycle_enabled = enabled
        return []


@broken("token-first-dial-only", subject="desktop", breaks=["HOOK-DESKTOP-TOKEN-01"],
        clause='docs/targets.md: the desktop dials again after each connection ends, "sending its bearer token each '
               'time" (Authorization: Bearer <token> on every (re)connection)')
class TokenFirstDialOnly(DesktopClient):
    """Only the first connection carries the bearer token (a header set up once, for the first dial)."""

    def _auth_headers(self) -> dict[str, str] | None:
        return None if self.connections else super()._auth_headers()


@broken("no-pong-while-busy", subject="desktop", breaks=["HOOK-DESKTOP-PING-01"],
        clause='§5 阶段 1 "收到 ping 必须回 pong"')
class NoPongWhileBusy(DesktopMachine):
    """Pings are not answered while one of the desktop's turns runs (the agent loop holds the connection)."""

    def _dispatch_frame(self, msg: HookMessage, now: float) -> list[Effect]:
        if msg.type is MessageType.PING and any(t.status == "running" for t in self.turns.values()):
            return []
        return super()._dispatch_frame(msg, now)


_REDELIVERY = '§4 "requestId 幂等:任务重投不重跑,desktop 只回放上次 ack"'


@broken("redelivery-runs-twice", subject="desktop", breaks=["HOOK-DESKTOP-IDEMPOTENT-01"], clause=_REDELIVERY)
# also STORM-01: the storm re-dispatches some acked tasks, and each runs again
@broken("redelivery-runs-twice", subject="desktop", breaks=["FAULT-DESKTOP-DROP-DISPATCH-01"],
        also=["FAULT-DESKTOP-STORM-01"], run="faults", clause=_REDELIVERY)
class RedeliveryRunsTwice(DesktopMachine):
    """A redelivered requestId gets its previous ack again, and its turn runs once more."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        rid = cast(TaskDispatchPayload, msg.payload).request_id  # routed here only for task.dispatch frames
        redelivered = rid in self.acks
        effects = super()._on_dispatch(msg, now)
        if redelivered and rid in self.turns:
            old = self.turns[rid]
            effects += self._enqueue(Turn(rid, old.external_key, old.session_id, TurnKind.DISPATCH,
                                          self._take_script()), now, ack=False)
        return effects


@broken("chat-dispatch-rejected", subject="desktop", breaks=["HOOK-DESKTOP-ACK-ACCEPTED-01"],
        clause='§5 task.ack "dispatch 立即应答 … sessionId 在 accepted/queued 为目标会话" for a registered alias (hello '
               'lists chat first)')
class ChatDispatchRejected(DesktopMachine):
    """A dispatch to the chat pseudo-folder is rejected unknown_workspace (the alias check looks among the registered
    folders, where chat is not)."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        p = cast(TaskDispatchPayload, msg.payload)  # routed here only for task.dispatch frames
        if p.session_id is None and p.workspace == HOOK_CHAT_WORKSPACE_ALIAS and p.request_id not in self.acks:
            return [self._ack(p.request_id, "rejected", now, reason="unknown_workspace")]
        return super()._on_dispatch(msg, now)


@broken("queued-acked-accepted", subject="desktop", breaks=["HOOK-DESKTOP-ACK-QUEUED-01"],
        clause='§5 task.ack "三态 accepted / queued / rejected … queuePosition 仅 queued 非 null"')
class QueuedAckedAccepted(DesktopMachine):
    """A dispatch to a busy session waits in its queue but is acked accepted."""

    def _enqueue(self, turn: Turn, now: float, *, ack: bool) -> list[Effect]:
        if not ack or turn.session_id not in self.active:
            return super()._enqueue(turn, now, ack=ack)
        effects = super()._enqueue(turn, now, ack=False)
        return [self._ack(turn.request_id, "accepted", now, session_id=turn.session_id), *effects]


@broken("unknown-alias-not-allowed", subject="desktop", breaks=["HOOK-DESKTOP-ACK-REJECT-01"],
        clause="§2 \"server 只能派发 hello 注册过的别名\" with §5 task.ack's reason unknown_workspace; a registered alias "
               "whose folder is gone is still unknown_workspace")
class UnknownAliasNotAllowed(DesktopMachine):
    """A dispatch to an alias the desktop never registered is rejected workspace_not_allowed."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        p = cast(TaskDispatchPayload, msg.payload)  # routed here only for task.dispatch frames
        if (p.session_id is None and p.request_id not in self.acks and self.enabled
                and p.workspace not in self.aliases() and p.workspace not in self.workspaces):
            return [self._ack(p.request_id, "rejected", now, reason="workspace_not_allowed")]
        return super()._on_dispatch(msg, now)


@broken("unknown-session-opened", subject="desktop", breaks=["HOOK-DESKTOP-ACK-REJECT-02"],
        clause="§2 \"sessionId 仅接管时指定\" with §5 task.ack's reason session_not_found")
class UnknownSessionOpened(DesktopMachine):
    """A takeover of a session the desktop does not have opens a new session for the externalKey instead (in the
    workspace the dispatch names, else chat)."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        p = cast(TaskDispatchPayload, msg.payload)  # routed here only for task.dispatch frames
        sid = p.session_id
        if sid is not None and (sid not in self.sessions or self.sessions[sid].archived):
            msg = with_payload(msg, session_id=None, workspace=p.workspace or HOOK_CHAT_WORKSPACE_ALIAS)
        return super()._on_dispatch(msg, now)


@broken("disabled-ignored", subject="desktop", breaks=["HOOK-DESKTOP-ACK-REJECT-03"],
        clause='§5 task.ack "拒绝原因:… disabled"')
class DisabledIgnored(DesktopMachine):
    """The desktop's off switch is not consulted: a dispatch is run while it is switched off."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        enabled, self.enabled = self.enabled, True
        try:
            return super()._on_dispatch(msg, now)
        finally:
            self.enabled = enabled


@broken("removed-folder-accepted", subject="desktop", breaks=["HOOK-DESKTOP-ACK-REJECT-05"],
        clause='§2 "server 只能派发 hello 注册过的别名" (the alias has left hello)')
class RemovedFolderAccepted(DesktopMachine):
    """A dispatch is checked against the registered aliases, not those of the latest hello: an alias whose folder was
    removed is accepted and run."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        missing, self.missing_folders = self.missing_folders, set()
        try:
            return super()._on_dispatch(msg, now)
        finally:
            self.missing_folders = missing


@broken("session-per-dispatch", subject="desktop", breaks=["HOOK-DESKTOP-SESSION-KEY-01"],
        clause='§1 "同 externalKey 同 session"')
class SessionPerDispatch(DesktopMachine):
    """The externalKey → session mapping is not kept: every dispatch opens a new session."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        p = cast(TaskDispatchPayload, msg.payload)  # routed here only for task.dispatch frames
        if p.request_id not in self.acks:
            self.by_key.pop(p.external_key, None)
        return super()._on_dispatch(msg, now)


@broken("takeover-ignored", subject="desktop", breaks=["HOOK-DESKTOP-TAKEOVER-01"],
        clause='§2 "sessionId … 非 null 表示接管已有桌面会话"')
class TakeoverIgnored(DesktopMachine):
    """A dispatch naming a session the desktop has runs in the session of its externalKey (a new one, in the named
    session's workspace, for a new key); the sessionId is only checked to exist."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        sid = cast(TaskDispatchPayload, msg.payload).session_id  # routed here only for task.dispatch frames
        if sid is not None and sid in self.sessions and not self.sessions[sid].archived:
            workspace = self.sessions[sid].workspace or HOOK_CHAT_WORKSPACE_ALIAS
            msg = with_payload(msg, session_id=None, workspace=workspace)
        return super()._on_dispatch(msg, now)


@broken("cancel-as-error", subject="desktop", breaks=["HOOK-DESKTOP-CANCEL-01"],
        clause='§5 turn.end "status ok / error / cancelled" (a cancelled turn is cancelled)')
class CancelAsError(DesktopMachine):
    """A turn stopped by task.cancel ends with status error ("cancelled by the server")."""

    def _end(self, turn: Turn, now: float, *, cancelled: bool = False) -> list[Effect]:
        if cancelled:
            turn.script = replace(turn.script, status="error", error_message="cancelled by the server",
                                  final_text="")
        return super()._end(turn, now)


@broken("unknown-cancel-answered", subject="desktop", breaks=["HOOK-DESKTOP-CANCEL-02"],
        clause='§4 "task.cancel … 未知 requestId 静默忽略"')
class UnknownCancelAnswered(DesktopMachine):
    """``task.cancel`` for a requestId the desktop never ran is confirmed with a turn.end cancelled."""

    def _on_cancel(self, msg: HookMessage, now: float) -> list[Effect]:
        rid = cast(TaskCancelPayload, msg.payload).request_id  # routed here only for task.cancel frames
        if rid in self.turns:
            return super()._on_cancel(msg, now)
        end = make_turn_end(rid, rid, None, "cancelled", "", None, usage=TurnUsage(None), **self._env(now))
        return [self._frame(end, rid)]


@broken("archive-ignored", subject="desktop", breaks=["HOOK-DESKTOP-ARCHIVE-02"], run="rules",
        clause='阶段 8 "session.archive … 归档 externalKey 绑定的会话"')
class ArchiveIgnored(DesktopMachine):
    """``session.archive`` is received and dropped, so the externalKey keeps its session (harmless, but nothing is
    archived)."""

    def _on_archive(self, msg: HookMessage, now: float) -> list[Effect]:
        return []


@broken("archive-unknown-key-crashes", subject="desktop", breaks=["HOOK-DESKTOP-ARCHIVE-01"],
        clause='§4 "session.archive … 幂等:未知 / 已归档静默成功"')
class ArchiveUnknownKeyCrashes(DesktopMachine):
    """``session.archive`` looks the externalKey up without a default: an unknown (or already archived) key raises, and
    the desktop's connection loop ends."""

    def _on_archive(self, msg: HookMessage, now: float) -> list[Effect]:
        key = cast(SessionArchivePayload, msg.payload).external_key  # routed here only for session.archive frames
        if key not in self.by_key:
            raise KeyError(key)
        return super()._on_archive(msg, now)
