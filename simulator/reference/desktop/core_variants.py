"""Broken variants of the reference desktop's core rules (docs/desktop-plan.md "Broken variants"): hello, task.ack,
sessions, turns, task.cancel / session.archive, turn.end reliability, interactions, turn.reopen and
lifecycle.preference (every requirement proven able to fail). Each is the correct ``DesktopMachine`` with one
method overridden so that exactly one rule of slack-hook-protocol.md is broken, the way an implementer might get it
wrong; the correct machine's code paths know nothing about them. Test fixtures, picked by ``variants.py``; the desktop
features must catch each one (tests/hook_desktop/test_desktop_variants.py).

Some of them send a frame the builders would not build (a hello whose default is not among its aliases, button ids
with '|', a hello without lifecycleAnnouncement, a duration in seconds, ``image/jpg``): they rewrite the JSON of a
frame the machine built (``_rewritten``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

from ...hook import (
    HOOK_CHAT_WORKSPACE_ALIAS,
    Feature,
    HookMessage,
    InteractionButton,
    MessageType,
    TurnUsage,
    make_interaction_request,
    make_turn_end,
)
from .agent import InteractionScript
from .machine import DesktopMachine, Effect, Send, Turn, TurnKind, Variant

__all__ = ["CORE_WRAPPED"]


def _rewritten(send: Send, change: Callable[[dict[str, Any]], None]) -> Send:
    """``send`` with its payload changed in place by ``change`` (the envelope kept)."""
    data = json.loads(send.text)
    change(data["payload"])
    return Send(json.dumps(data, ensure_ascii=False, separators=(",", ":")), send.type, send.request_id)


# -- hello (§5 阶段 1, 默认工作目录, 上下线通知偏好) -------------------------------------------------------------------


class ChatAliasLast(DesktopMachine):
    """``chat-alias-last``: hello lists the registered aliases first and appends the chat pseudo-folder. Breaks §5 阶段
    1 "workspaces(注册的别名列表;首位恒为内置对话伪目录 HOOK_CHAT_WORKSPACE_ALIAS='chat')"."""

    def aliases(self) -> list[str]:
        first, *rest = super().aliases()
        return [*rest, first]


class LifecycleDefaultLeftOut(DesktopMachine):
    """``lifecycle-default-left-out``: hello leaves ``lifecycleAnnouncement`` out while the preference is on (the
    server's default is true anyway). Breaks §3 "握手初值由 hello.lifecycleAnnouncement 提供" (HOOK-DESKTOP-HELLO-LIFECYCLE-01,
    @should); a missing field still reads as the current value, true."""

    def hello(self, now: float) -> Send:
        send = super().hello(now)
        if not self.lifecycle_enabled:
            return send
        return _rewritten(send, lambda p: p.pop("lifecycleAnnouncement", None))


class DefaultNotInWorkspaces(DesktopMachine):
    """``default-not-in-workspaces``: the default alias is sent as defaultWorkspace only and left out of
    hello.workspaces. Breaks §5 阶段 1 "defaultWorkspace(…必须是 workspaces 的成员…)"."""

    def hello(self, now: float) -> Send:
        send = super().hello(now)
        if self.default_workspace is None:
            return send
        default = self.default_workspace
        return _rewritten(send, lambda p: p.update(workspaces=[a for a in p["workspaces"] if a != default]))


class DefaultKeptAfterRemoval(DesktopMachine):
    """``default-kept-after-removal``: once the default's folder is gone the alias leaves hello.workspaces but the
    hello still names it as defaultWorkspace. Breaks 默认工作目录 "desktop 侧目录被删除后必须把默认值归零后再握手"."""

    def hello(self, now: float) -> Send:
        default = self.default_workspace
        send = super().hello(now)
        self.default_workspace = default
        if default is None:
            return send
        return _rewritten(send, lambda p: p.update(defaultWorkspace=default))


class HelloNotResent(DesktopMachine):
    """``hello-not-resent``: a change of the alias mapping waits for the next handshake; no hello is sent on the open
    connection. Breaks §5 阶段 1 "别名映射变更后重发 hello 即时生效" (HOOK-DESKTOP-HELLO-RESEND-01, @should)."""

    def set_workspaces(self, workspaces: Any, default: str | None, now: float) -> list[Effect]:
        super().set_workspaces(workspaces, default, now)
        return []

    def remove_workspace_folder(self, alias: str, now: float) -> list[Effect]:
        super().remove_workspace_folder(alias, now)
        return []


# -- task.dispatch / task.ack (§2, §5 阶段 2/4/7/9) ------------------------------------------------------------------


def _with_payload(msg: HookMessage, **changes: Any) -> HookMessage:
    """``msg`` with some fields of its payload changed (the envelope kept)."""
    return HookMessage(msg.type, msg.id, msg.ts, replace(msg.payload, **changes), msg.extra)


class ChatDispatchRejected(DesktopMachine):
    """``chat-dispatch-rejected``: a dispatch to the chat pseudo-folder is rejected unknown_workspace (the alias check
    looks among the registered folders, where chat is not). Breaks §5 task.ack "dispatch 立即应答 … sessionId 在
    accepted/queued 为目标会话" for a registered alias (hello lists chat first)."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        p = msg.payload
        if p.session_id is None and p.workspace == HOOK_CHAT_WORKSPACE_ALIAS and p.request_id not in self.acks:
            return [self._ack(p.request_id, "rejected", now, reason="unknown_workspace")]
        return super()._on_dispatch(msg, now)


class QueuedAckedAccepted(DesktopMachine):
    """``queued-acked-accepted``: a dispatch to a busy session waits in its queue but is acked accepted. Breaks §5
    task.ack "三态 accepted / queued / rejected … queuePosition 仅 queued 非 null" (HOOK-DESKTOP-ACK-QUEUED-01, @should)."""

    def _enqueue(self, turn: Turn, now: float, *, ack: bool) -> list[Effect]:
        if not ack or turn.session_id not in self.active:
            return super()._enqueue(turn, now, ack=ack)
        effects = super()._enqueue(turn, now, ack=False)
        return [self._ack(turn.request_id, "accepted", now, session_id=turn.session_id), *effects]


class UnknownAliasNotAllowed(DesktopMachine):
    """``unknown-alias-not-allowed``: a dispatch to an alias the desktop never registered is rejected
    workspace_not_allowed. Breaks §2 "server 只能派发 hello 注册过的别名" with §5 task.ack's reason unknown_workspace
    (HOOK-DESKTOP-ACK-REJECT-01); a registered alias whose folder is gone is still unknown_workspace."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        p = msg.payload
        if (p.session_id is None and p.request_id not in self.acks and self.enabled
                and p.workspace not in self.aliases() and p.workspace not in self.workspaces):
            return [self._ack(p.request_id, "rejected", now, reason="workspace_not_allowed")]
        return super()._on_dispatch(msg, now)


class UnknownSessionOpened(DesktopMachine):
    """``unknown-session-opened``: a takeover of a session the desktop does not have opens a new session for the
    externalKey instead (in the workspace the dispatch names, else chat). Breaks §2 "sessionId 仅接管时指定" with §5
    task.ack's reason session_not_found."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        sid = msg.payload.session_id
        if sid is not None and (sid not in self.sessions or self.sessions[sid].archived):
            msg = _with_payload(msg, session_id=None, workspace=msg.payload.workspace or HOOK_CHAT_WORKSPACE_ALIAS)
        return super()._on_dispatch(msg, now)


class DisabledIgnored(DesktopMachine):
    """``disabled-ignored``: the desktop's off switch is not consulted: a dispatch is run while it is switched off.
    Breaks §5 task.ack "拒绝原因:… disabled" (HOOK-DESKTOP-ACK-REJECT-03, @should)."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        enabled, self.enabled = self.enabled, True
        try:
            return super()._on_dispatch(msg, now)
        finally:
            self.enabled = enabled


class RemovedFolderAccepted(DesktopMachine):
    """``removed-folder-accepted``: a dispatch is checked against the registered aliases, not those of the latest
    hello: an alias whose folder was removed is accepted and run. Breaks §2 "server 只能派发 hello 注册过的别名" (the
    alias has left hello)."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        missing, self.missing_folders = self.missing_folders, set()
        try:
            return super()._on_dispatch(msg, now)
        finally:
            self.missing_folders = missing


class SessionPerDispatch(DesktopMachine):
    """``session-per-dispatch``: the externalKey → session mapping is not kept: every dispatch opens a new session.
    Breaks §1 "同 externalKey 同 session"."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        if msg.payload.request_id not in self.acks:
            self.by_key.pop(msg.payload.external_key, None)
        return super()._on_dispatch(msg, now)


class TakeoverIgnored(DesktopMachine):
    """``takeover-ignored``: a dispatch naming a session the desktop has runs in the session of its externalKey (a
    new one, in the named session's workspace, for a new key); the sessionId is only checked to exist. Breaks §2
    "sessionId … 非 null 表示接管已有桌面会话"."""

    def _on_dispatch(self, msg: HookMessage, now: float) -> list[Effect]:
        sid = msg.payload.session_id
        if sid is not None and sid in self.sessions and not self.sessions[sid].archived:
            workspace = self.sessions[sid].workspace or HOOK_CHAT_WORKSPACE_ALIAS
            msg = _with_payload(msg, session_id=None, workspace=workspace)
        return super()._on_dispatch(msg, now)


# -- turn.progress / turn.end (§4 latest-wins, §5, §7) ---------------------------------------------------------------


class ProgressDeltas(DesktopMachine):
    """``progress-deltas``: the rendering is streamed as increments: each turn.progress carries only what was added
    since the previous snapshot, sent as it comes (an increment cannot be dropped, so nothing is throttled). Breaks §5
    turn.progress "整段渲染快照(非增量)"."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._last_seen: dict[str, str] = {}

    def _progress(self, turn: Turn, text: str, now: float) -> list[Effect]:
        before = self._last_seen.get(turn.request_id)
        self._last_seen[turn.request_id] = text
        if not self._wire(turn) or not self.welcomed:
            return []
        delta = text[len(before):].lstrip("\n") if before and text.startswith(before) else text
        return self._send_progress(turn, delta or text, now)


class EndSessionLeftOut(DesktopMachine):
    """``end-session-left-out``: turn.end leaves its sessionId null (the ack already named it). Breaks §5 turn.end
    "回显 externalKey … sessionId" (the session the ack named)."""

    def _frame(self, msg: HookMessage, request_id: str | None = None) -> Send:
        if msg.type is MessageType.TURN_END:
            msg = _with_payload(msg, session_id=None)
        return super()._frame(msg, request_id)


class DurationInSeconds(DesktopMachine):
    """``duration-in-seconds``: turn.end reports the measured duration in seconds, a fraction. Breaks §5 turn.end
    "usage.durationMs(非负整数毫秒或 null)"."""

    def _frame(self, msg: HookMessage, request_id: str | None = None) -> Send:
        send = super()._frame(msg, request_id)
        if msg.type is not MessageType.TURN_END or msg.payload.usage.duration_ms is None:
            return send
        seconds = (msg.payload.usage.duration_ms + 1) / 1000
        return _rewritten(send, lambda p: p["usage"].update(durationMs=seconds))


class JpgNotNormalized(DesktopMachine):
    """``jpg-not-normalized``: an ``image/jpg`` attachment keeps its type in turn.end (the allowlist filter is applied,
    the normalisation is not). Breaks §7 "image/jpg 归一为 image/jpeg"."""

    def _frame(self, msg: HookMessage, request_id: str | None = None) -> Send:
        send = super()._frame(msg, request_id)
        turn = self.turns.get(request_id or "")
        if msg.type is not MessageType.TURN_END or turn is None:
            return send
        jpg = {a.name for a in turn.script.attachments if a.mime_type == "image/jpg"}

        def change(p: dict[str, Any]) -> None:
            for a in p.get("attachments") or []:
                if a.get("name") in jpg:
                    a["mimeType"] = "image/jpg"
        return _rewritten(send, change) if jpg else send


# -- task.cancel / session.archive (§4 幂等) -------------------------------------------------------------------------


class CancelAsError(DesktopMachine):
    """``cancel-as-error``: a turn stopped by task.cancel ends with status error ("cancelled by the server"). Breaks §5
    turn.end "status ok / error / cancelled" (a cancelled turn is cancelled)."""

    def _end(self, turn: Turn, now: float, *, cancelled: bool = False) -> list[Effect]:
        if cancelled:
            turn.script = replace(turn.script, status="error", error_message="cancelled by the server",
                                  final_text="")
        return super()._end(turn, now)


class UnknownCancelAnswered(DesktopMachine):
    """``unknown-cancel-answered``: task.cancel for a requestId the desktop never ran is confirmed with a turn.end
    cancelled. Breaks §4 "task.cancel … 未知 requestId 静默忽略"."""

    def _on_cancel(self, msg: HookMessage, now: float) -> list[Effect]:
        rid = msg.payload.request_id
        if rid in self.turns:
            return super()._on_cancel(msg, now)
        end = make_turn_end(rid, rid, None, "cancelled", "", None, usage=TurnUsage(None), **self._env(now))
        return [self._frame(end, rid)]


class ArchiveUnknownKeyCrashes(DesktopMachine):
    """``archive-unknown-key-crashes``: session.archive looks the externalKey up without a default: an unknown (or
    already archived) key raises, and the desktop's connection loop ends. Breaks §4 "session.archive … 幂等:未知 /
    已归档静默成功"."""

    def _on_archive(self, msg: HookMessage, now: float) -> list[Effect]:
        if msg.payload.external_key not in self.by_key:
            raise KeyError(msg.payload.external_key)
        return super()._on_archive(msg, now)


# -- turn.end reliability (§4 断线重连, §5 turn.delivery) ------------------------------------------------------------


class ResendRebuilt(DesktopMachine):
    """``resend-rebuilt``: after a reconnect an undelivered turn.end is sent again with a fresh envelope (new id, ts).
    Breaks §4 "重连后按原样(字节级一致)重发"."""

    def _on_welcome(self, msg: HookMessage, now: float) -> list[Effect]:
        env = self._env(now)

        def fresh(send: Effect) -> Effect:
            if not isinstance(send, Send) or send.type != MessageType.TURN_END.value:
                return send
            data = json.loads(send.text)
            data.update(env)
            return Send(json.dumps(data, ensure_ascii=False, separators=(",", ":")), send.type, send.request_id)
        return [fresh(e) for e in super()._on_welcome(msg, now)]


class AcceptedKept(DesktopMachine):
    """``accepted-kept``: only turn.delivery delivered / failed end a turn.end's outbox life; accepted keeps it, so it
    is re-sent after the next reconnect. Breaks §5 turn.delivery "accepted … desktop 即可清 outbox"."""

    def _on_delivery(self, msg: HookMessage, now: float) -> list[Effect]:
        if msg.payload.state == "accepted":
            return []
        return super()._on_delivery(msg, now)


class WrittenEndResent(DesktopMachine):
    """``written-end-resent``: without turn-delivery-v1 a turn.end written to the socket stays in the outbox and is
    sent again after every reconnect. Breaks §5 "无 turn-delivery-v1 … 写出即清" (HOOK-DESKTOP-RELIABLE-RESEND-02: once
    written it is not sent again)."""

    def on_written(self, effect: Send, now: float) -> list[Effect]:
        return []


class DeliveryByWelcome(DesktopMachine):
    """``delivery-by-welcome``: turn.delivery acks are on whenever the welcome declares turn-delivery-v1, whether or
    not this desktop's hello did; a turn.end then stays in the outbox until a turn.delivery that never comes, and is
    sent again at every reconnect. Breaks §5 "双方必须在 hello.features / welcome.features 同时声明
    HOOK_FEATURE_TURN_DELIVERY='turn-delivery-v1' 后才启用" (HOOK-DESKTOP-DELIVERY-GATE-01)."""

    @property
    def delivery_negotiated(self) -> bool:
        return Feature.TURN_DELIVERY.value in self.server_features


# -- interactions (§5 阶段 10) ---------------------------------------------------------------------------------------


class ButtonIdsPacked(DesktopMachine):
    """``button-ids-packed``: each button id packs the card's interactionId with the button's own id,
    ``<interactionId>|<id>`` (a callback value that routes itself). Breaks §5 阶段 10 "buttons[].id 不得含 '|'"."""

    def _open_interaction(self, turn: Turn, card: InteractionScript, now: float) -> list[Effect]:
        if not self._wire(turn) or turn.kind is TurnKind.REOPEN:
            return super()._open_interaction(turn, card, now)
        effects = super()._open_interaction(turn, card, now)
        iid = turn.interaction_id

        def pack(p: dict[str, Any]) -> None:
            for b in p["buttons"]:
                b["id"] = f"{iid}|{b['id']}"
        return [_rewritten(e, pack) if isinstance(e, Send) and e.type == MessageType.INTERACTION_REQUEST.value
                else e for e in effects]

    def _on_decision(self, msg: HookMessage, now: float) -> list[Effect]:
        button = msg.payload.button_id.rsplit("|", 1)[-1]
        return super()._on_decision(_with_payload(msg, button_id=button), now)


class LateDecisionResendsEnd(DesktopMachine):
    """``late-decision-resends-end``: a decision for a card already closed is answered by sending the turn's turn.end
    again (the outcome of that card). Breaks §4 "迟到/未知静默忽略"."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._closed: dict[str, str] = {}
        self._ends: dict[str, str] = {}

    def _resolve_interaction(self, turn: Turn, decision: str, now: float, *, timed_out: bool) -> list[Effect]:
        self._closed[turn.interaction_id or ""] = turn.request_id
        return super()._resolve_interaction(turn, decision, now, timed_out=timed_out)

    def _frame(self, msg: HookMessage, request_id: str | None = None) -> Send:
        send = super()._frame(msg, request_id)
        if msg.type is MessageType.TURN_END and request_id is not None:
            self._ends[request_id] = send.text
        return send

    def _on_decision(self, msg: HookMessage, now: float) -> list[Effect]:
        p = msg.payload
        rid = self._closed.get(p.interaction_id)
        if rid == p.request_id and rid in self._ends:
            return [Send(self._ends[rid], MessageType.TURN_END.value, rid)]
        return super()._on_decision(msg, now)


class TimeoutWithoutCancel(DesktopMachine):
    """``timeout-without-cancel``: a card that times out applies the safe default but is not withdrawn (no
    interaction.cancel). Breaks §5 阶段 10 "interaction.cancel:交互已在 desktop 收口(超时自决/turn 结束),通知 server 改写卡片"."""

    def _resolve_interaction(self, turn: Turn, decision: str, now: float, *, timed_out: bool) -> list[Effect]:
        return super()._resolve_interaction(turn, decision, now, timed_out=False)


# -- ping (§5 阶段 1) ------------------------------------------------------------------------------------------------


class NoPongWhileBusy(DesktopMachine):
    """``no-pong-while-busy``: pings are not answered while one of the desktop's turns runs (the agent loop holds the
    connection). Breaks §5 阶段 1 "收到 ping 必须回 pong"."""

    def _dispatch_frame(self, msg: HookMessage, now: float) -> list[Effect]:
        if msg.type is MessageType.PING and any(t.status == "running" for t in self.turns.values()):
            return []
        return super()._dispatch_frame(msg, now)


# -- turn.reopen (阶段 18, desktop side) ------------------------------------------------------------------------------


class ReopenWithoutFeature(DesktopMachine):
    """``reopen-without-feature``: a retry of a finished turn is sent back to the channel as turn.reopen whatever
    welcome declares. Breaks 阶段 18 "仅当 welcome.features 含 turn-reopen-v1"."""

    def retry_turn(self, request_id: str, now: float) -> tuple[str | None, list[Effect]]:
        features = self.server_features
        if self.welcomed:
            self.server_features = features | {Feature.TURN_REOPEN.value}
        try:
            return super().retry_turn(request_id, now)
        finally:
            self.server_features = features


class AskReopens(DesktopMachine):
    """``ask-reopens``: another question asked in a finished turn's session at the desktop is sent as a reopen of that
    turn. Breaks 阶段 18 "仅用户显式重试 … 同会话追问不触发 reopen"."""

    def ask_in_session(self, request_id: str, text: str, now: float) -> list[Effect]:
        old = self.turns.get(request_id)
        if old is not None and old.finished:
            return self.retry_turn(request_id, now)[1]
        return super().ask_in_session(request_id, text, now)


class ReopenNeverExpires(DesktopMachine):
    """``reopen-never-expires``: the reopen bookkeeping has no TTL: a finished thread stays reopenable for ever. Breaks
    阶段 18 "desktop 进程内记账,带 TTL"."""

    def _expire(self, now: float) -> None:
        return None


class ReopenCardMirrored(DesktopMachine):
    """``reopen-card-mirrored``: the card of a reopened round is decided at the desktop, and also posted to the
    server as interaction.request. Breaks 阶段 18 "reopen 轮次的交互留在 desktop"."""

    def _open_interaction(self, turn: Turn, card: InteractionScript, now: float) -> list[Effect]:
        if turn.kind is not TurnKind.REOPEN or not self._wire(turn):
            return super()._open_interaction(turn, card, now)
        buttons = tuple(InteractionButton(b.id, b.label, b.style) for b in card.buttons)
        msg = make_interaction_request(turn.request_id, self.ids(), card.kind, card.title, card.body, buttons,
                                       **self._env(now))
        return [self._frame(msg, turn.request_id), *super()._open_interaction(turn, card, now)]


# -- lifecycle.preference (上下线通知偏好) ----------------------------------------------------------------------------


class LifecycleChangeNotSent(DesktopMachine):
    """``lifecycle-change-not-sent``: a preference change waits for the next hello; no lifecycle.preference is sent on
    the open connection, also when welcome declared lifecycle-announcement-v1. Breaks 上下线通知偏好 "偏好变更即时发送
    lifecycle.preference" (HOOK-DESKTOP-LIFECYCLE-SEND-01, @may)."""

    def set_lifecycle_preference(self, enabled: bool, now: float) -> list[Effect]:
        self.lifecycle_enabled = enabled
        return []


#: The variants that wrap the machine, by name.
CORE_WRAPPED: Final[dict[Variant, type[DesktopMachine]]] = {
    Variant.CHAT_ALIAS_LAST: ChatAliasLast,
    Variant.LIFECYCLE_DEFAULT_LEFT_OUT: LifecycleDefaultLeftOut,
    Variant.DEFAULT_NOT_IN_WORKSPACES: DefaultNotInWorkspaces,
    Variant.DEFAULT_KEPT_AFTER_REMOVAL: DefaultKeptAfterRemoval,
    Variant.HELLO_NOT_RESENT: HelloNotResent,
    Variant.CHAT_DISPATCH_REJECTED: ChatDispatchRejected,
    Variant.QUEUED_ACKED_ACCEPTED: QueuedAckedAccepted,
    Variant.UNKNOWN_ALIAS_NOT_ALLOWED: UnknownAliasNotAllowed,
    Variant.UNKNOWN_SESSION_OPENED: UnknownSessionOpened,
    Variant.DISABLED_IGNORED: DisabledIgnored,
    Variant.REMOVED_FOLDER_ACCEPTED: RemovedFolderAccepted,
    Variant.SESSION_PER_DISPATCH: SessionPerDispatch,
    Variant.TAKEOVER_IGNORED: TakeoverIgnored,
    Variant.PROGRESS_DELTAS: ProgressDeltas,
    Variant.END_SESSION_LEFT_OUT: EndSessionLeftOut,
    Variant.DURATION_IN_SECONDS: DurationInSeconds,
    Variant.JPG_NOT_NORMALIZED: JpgNotNormalized,
    Variant.CANCEL_AS_ERROR: CancelAsError,
    Variant.UNKNOWN_CANCEL_ANSWERED: UnknownCancelAnswered,
    Variant.ARCHIVE_UNKNOWN_KEY_CRASHES: ArchiveUnknownKeyCrashes,
    Variant.RESEND_REBUILT: ResendRebuilt,
    Variant.ACCEPTED_KEPT: AcceptedKept,
    Variant.WRITTEN_END_RESENT: WrittenEndResent,
    Variant.DELIVERY_BY_WELCOME: DeliveryByWelcome,
    Variant.BUTTON_IDS_PACKED: ButtonIdsPacked,
    Variant.LATE_DECISION_RESENDS_END: LateDecisionResendsEnd,
    Variant.TIMEOUT_WITHOUT_CANCEL: TimeoutWithoutCancel,
    Variant.NO_PONG_WHILE_BUSY: NoPongWhileBusy,
    Variant.REOPEN_WITHOUT_FEATURE: ReopenWithoutFeature,
    Variant.ASK_REOPENS: AskReopens,
    Variant.REOPEN_NEVER_EXPIRES: ReopenNeverExpires,
    Variant.REOPEN_CARD_MIRRORED: ReopenCardMirrored,
    Variant.LIFECYCLE_CHANGE_NOT_SENT: LifecycleChangeNotSent,
}
