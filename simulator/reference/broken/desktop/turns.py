"""Broken variants of the reference desktop's turn rules: turn.progress (§4 latest-wins, §5), turn.end (§5, §7),
its reliability (§4 断线重连, §5 turn.delivery), interactions (§5 阶段 10) and turn.reopen (阶段 18, desktop side). Each
is the correct ``DesktopMachine`` with the one rule it breaks overridden (turns.py states each as a method of its
own); the desktop features must catch each one (tests/hook_desktop/test_desktop_variants.py,
test_desktop_rules_variants.py; the fault profile: tests/faults/test_faults_desktop_falsified.py).
"""

from __future__ import annotations

import json
from typing import Any, cast

from ....hook import (
    Feature,
    HookMessage,
    InteractionButton,
    InteractionDecisionPayload,
    MessageType,
    TurnDeliveryPayload,
    TurnEndPayload,
    make_interaction_request,
)
from ...desktop.agent import InteractionScript
from ...desktop.machine import DesktopMachine, Effect, Persist, Send, Turn, TurnKind
from ..registry import broken
from ._frames import rewritten, with_payload

__all__ = ["ProgressUnthrottled", "ProgressConcatenated", "ProgressDeltas", "EndSessionLeftOut", "DurationInSeconds",
    "JpgNotNormalized", "ResendRebuilt", "AcceptedKept", "WrittenEndResent", "DeliveryByWelcome", "ButtonIdsPacked",
    "LateDecisionResendsEnd", "TimeoutWithoutCancel", "ReopenAfterProgress", "ReopenReplayed", "CounterReopenId",
    "ReopenWithoutFeature", "AskReopens", "ReopenNeverExpires", "ReopenCardMirrored"]


@broken("progress-unthrottled", subject="desktop", breaks=["HOOK-DESKTOP-PROGRESS-THROTTLE-01"], run="rules",
        clause='§5 turn.progress "desktop 负责节流(约 1.5s/帧)"')
class ProgressUnthrottled(DesktopMachine):
    """Every snapshot goes out at once, whole."""

    def _progress(self, turn: Turn, text: str, now: float) -> list[Effect]:
        if not self._wire(turn) or not self.welcomed:
            return []
        return self._send_progress(turn, text, now)


@broken("progress-concatenated", subject="desktop", breaks=["HOOK-DESKTOP-PROGRESS-REPLACE-01"], run="rules",
        clause='§4 "latest-wins 帧(turn.progress …):… 每帧整体替换,不拼接不累积"')
class ProgressConcatenated(DesktopMachine):
    """Throttled, but each frame carries every snapshot sent so far joined by newlines (an appending buffer)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._so_far: dict[str, str] = {}

    def _send_progress(self, turn: Turn, text: str, now: float) -> list[Effect]:
        before = self._so_far.get(turn.request_id)
        joined = text if before is None else f"{before}\n{text}"
        self._so_far[turn.request_id] = joined
        return super()._send_progress(turn, joined, now)


@broken("progress-deltas", subject="desktop", breaks=["HOOK-DESKTOP-PROGRESS-SNAPSHOT-01"],
        clause='§5 turn.progress "整段渲染快照(非增量)"')
class ProgressDeltas(DesktopMachine):
    """The rendering is streamed as increments: each turn.progress carries only what was added since the previous
    snapshot, sent as it comes (an increment cannot be dropped, so nothing is throttled)."""

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


@broken("end-session-left-out", subject="desktop", breaks=["HOOK-DESKTOP-END-LINKAGE-01"],
        clause='§5 turn.end "回显 externalKey … sessionId" (the session the ack named)')
class EndSessionLeftOut(DesktopMachine):
    """``turn.end`` leaves its sessionId null (the ack already named it)."""

    def _frame(self, msg: HookMessage, request_id: str | None = None) -> Send:
        if msg.type is MessageType.TURN_END:
            msg = with_payload(msg, session_id=None)
        return super()._frame(msg, request_id)


@broken("duration-in-seconds", subject="desktop", breaks=["HOOK-DESKTOP-END-DURATION-01"],
        clause='§5 turn.end "usage.durationMs(非负整数毫秒或 null)"')
class DurationInSeconds(DesktopMachine):
    """``turn.end`` reports the measured duration in seconds, a fraction."""

    def _frame(self, msg: HookMessage, request_id: str | None = None) -> Send:
        send = super()._frame(msg, request_id)
        if msg.type is not MessageType.TURN_END:
            return send
        usage = cast(TurnEndPayload, msg.payload).usage  # a turn.end message carries a TurnEndPayload
        if usage.duration_ms is None:
            return send
        seconds = (usage.duration_ms + 1) / 1000
        return rewritten(send, lambda p: p["usage"].update(durationMs=seconds))


@broken("jpg-not-normalized", subject="desktop", breaks=["HOOK-DESKTOP-ATTACH-MIME-01"],
        clause='§7 "image/jpg 归一为 image/jpeg"')
class JpgNotNormalized(DesktopMachine):
    """An ``image/jpg`` attachment keeps its type in turn.end (the allowlist filter is applied, the normalisation is
    not)."""

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
        return rewritten(send, change) if jpg else send


@broken("resend-rebuilt", subject="desktop", breaks=["HOOK-DESKTOP-RELIABLE-RESEND-01"],
        clause='§4 "重连后按原样(字节级一致)重发"')
class ResendRebuilt(DesktopMachine):
    """After a reconnect an undelivered turn.end is sent again with a fresh envelope (new id, ts)."""

    def _on_welcome(self, msg: HookMessage, now: float) -> list[Effect]:
        env = self._env(now)

        def fresh(send: Effect) -> Effect:
            if not isinstance(send, Send) or send.type != MessageType.TURN_END.value:
                return send
            data = json.loads(send.text)
            data.update(env)
            return Send(json.dumps(data, ensure_ascii=False, separators=(",", ":")), send.type, send.request_id)
        return [fresh(e) for e in super()._on_welcome(msg, now)]


_ACCEPTED = '§5 turn.delivery "accepted … desktop 即可清 outbox"'


@broken("accepted-kept", subject="desktop", breaks=["HOOK-DESKTOP-RELIABLE-ACCEPTED-01"], clause=_ACCEPTED)
@broken("accepted-kept", subject="desktop", breaks=["FAULT-DESKTOP-DROP-END-01"], run="faults", clause=_ACCEPTED)
class AcceptedKept(DesktopMachine):
    """Only turn.delivery delivered / failed end a turn.end's outbox life; accepted keeps it, so it is re-sent after the
    next reconnect."""

    def _on_delivery(self, msg: HookMessage, now: float) -> list[Effect]:
        if cast(TurnDeliveryPayload, msg.payload).state == "accepted":  # routed here only for turn.delivery
            return []
        return super()._on_delivery(msg, now)


@broken("written-end-resent", subject="desktop", breaks=["HOOK-DESKTOP-RELIABLE-RESEND-02"],
        clause='§5 "无 turn-delivery-v1 … 写出即清" (once written it is not sent again)')
class WrittenEndResent(DesktopMachine):
    """Without turn-delivery-v1 a turn.end written to the socket stays in the outbox and is sent again after every
    reconnect."""

    def on_written(self, effect: Send, now: float) -> list[Effect]:
        return []


@broken("delivery-by-welcome", subject="desktop", breaks=["HOOK-DESKTOP-DELIVERY-GATE-01"], run="bare",
        clause="§5 \"双方必须在 hello.features / welcome.features 同时声明 HOOK_FEATURE_TURN_DELIVERY='turn-delivery-v1' "
               "后才启用\"")
class DeliveryByWelcome(DesktopMachine):
    """``turn.delivery`` acks are on whenever the welcome declares turn-delivery-v1, whether or not this desktop's hello
    did; a turn.end then stays in the outbox until a turn.delivery that never comes, and is sent again at every
    reconnect."""

    @property
    def delivery_negotiated(self) -> bool:
        return Feature.TURN_DELIVERY.value in self.server_features


@broken("button-ids-packed", subject="desktop", breaks=["HOOK-DESKTOP-INTERACTION-BUTTONS-01"],
        clause="§5 阶段 10 \"buttons[].id 不得含 '|'\"")
class ButtonIdsPacked(DesktopMachine):
    """Each button id packs the card's interactionId with the button's own id, ``<interactionId>|<id>`` (a callback
    value that routes itself)."""

    def _open_interaction(self, turn: Turn, card: InteractionScript, now: float) -> list[Effect]:
        if not self._wire(turn) or turn.kind is TurnKind.REOPEN:
            return super()._open_interaction(turn, card, now)
        effects = super()._open_interaction(turn, card, now)
        iid = turn.interaction_id

        def pack(p: dict[str, Any]) -> None:
            for b in p["buttons"]:
                b["id"] = f"{iid}|{b['id']}"
        return [rewritten(e, pack) if isinstance(e, Send) and e.type == MessageType.INTERACTION_REQUEST.value
                else e for e in effects]

    def _on_decision(self, msg: HookMessage, now: float) -> list[Effect]:
        # routed here only for interaction.decision frames
        button = cast(InteractionDecisionPayload, msg.payload).button_id.rsplit("|", 1)[-1]
        return super()._on_decision(with_payload(msg, button_id=button), now)


@broken("late-decision-resends-end", subject="desktop", breaks=["HOOK-DESKTOP-INTERACTION-LATE-01"],
        clause='§4 "迟到/未知静默忽略"')
class LateDecisionResendsEnd(DesktopMachine):
    """A decision for a card already closed is answered by sending the turn's turn.end again (the outcome of that
    card)."""

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
        p = cast(InteractionDecisionPayload, msg.payload)  # routed here only for interaction.decision frames
        rid = self._closed.get(p.interaction_id)
        if rid == p.request_id and rid in self._ends:
            return [Send(self._ends[rid], MessageType.TURN_END.value, rid)]
        return super()._on_decision(msg, now)


@broken("timeout-without-cancel", subject="desktop", breaks=["HOOK-DESKTOP-INTERACTION-TIMEOUT-01"],
        clause='§5 阶段 10 "interaction.cancel:交互已在 desktop 收口(超时自决/turn 结束),通知 server 改写卡片"')
class TimeoutWithoutCancel(DesktopMachine):
    """A card that times out applies the safe default but is not withdrawn (no interaction.cancel)."""

    def _resolve_interaction(self, turn: Turn, decision: str, now: float, *, timed_out: bool) -> list[Effect]:
        return super()._resolve_interaction(turn, decision, now, timed_out=False)


@broken("reopen-after-progress", subject="desktop",
        breaks=["HOOK-DESKTOP-REOPEN-ORDER-01", "HOOK-DESKTOP-REOPEN-ORDER-02"],
        clause='阶段 18 "本帧必须排在该 turn 的任何 turn.progress / turn.end 之前 —— 包括"首个观察到的事件本身就是终态""')
class ReopenAfterProgress(DesktopMachine):
    """A reopen round's turn.reopen goes out right after its first turn.progress (or before its turn.end when no
    progress went out first), not when its first event is observed."""

    def _step(self, turn: Turn, now: float) -> list[Effect]:
        if turn.kind is TurnKind.REOPEN and turn.index < len(turn.steps) \
                and turn.steps[turn.index][0] in ("progress", "interaction"):
            turn.first_event_seen = True  # the reopen frame waits for the first progress frame
        return super()._step(turn, now)

    def _send_progress(self, turn: Turn, text: str, now: float) -> list[Effect]:
        effects = super()._send_progress(turn, text, now)
        if turn.kind is TurnKind.REOPEN and not turn.reopen_sent:
            effects += self._send_reopen(turn, now)
        return effects


#: The outbox key of a cached turn.reopen (the requestId of its round after it).
_REOPEN_KEY = "reopen:"
_NO_REPLAY = '阶段 18 "续跑轮的 turn.progress / turn.end 一律直发,不缓存、不在重连后补发"'


# both: the round's frames come again after a reconnect, also after its turn.end was lost (nothing of that round
# may be sent later)
@broken("reopen-replayed", subject="desktop",
        breaks=["HOOK-DESKTOP-REOPEN-LOST-01", "HOOK-DESKTOP-REOPEN-NOREPLAY-01"], clause=_NO_REPLAY)
@broken("reopen-replayed", subject="desktop", breaks=["FAULT-DESKTOP-DROP-REOPEN-01"], run="faults",
        clause=_NO_REPLAY)
class ReopenReplayed(DesktopMachine):
    """A reopen round is kept like a dispatch: its turn.reopen and turn.end wait in the outbox and are sent again
    after a reconnect, and a disconnect does not end the round."""

    def _sever_open_reopen_rounds(self) -> None:
        return None

    def _kept_in_outbox(self, turn: Turn) -> bool:
        return True

    def _send_reopen(self, turn: Turn, now: float) -> list[Effect]:
        sent = super()._send_reopen(turn, now)
        key = _REOPEN_KEY + turn.request_id
        text = cast(Send, sent[0]).text  # the correct _send_reopen returns exactly the turn.reopen Send
        self.outbox[key] = text
        return [*sent, Persist(key, text)]

    def _on_welcome(self, msg: HookMessage, now: float) -> list[Effect]:
        return [Send(e.text, MessageType.TURN_REOPEN.value, (e.request_id or "").removeprefix(_REOPEN_KEY))
                if isinstance(e, Send) and (e.request_id or "").startswith(_REOPEN_KEY) else e
                for e in super()._on_welcome(msg, now)]


@broken("counter-reopen-id", subject="desktop", breaks=["HOOK-DESKTOP-REOPEN-ID-01"],
        clause='阶段 18 "desktop 必须用全局抗碰撞的标识(UUID v4 或同等强度),不得用递增计数器或会话内序号"')
class CounterReopenId(DesktopMachine):
    """The reopen round's requestId is ``reopen-<n>``, an incrementing counter."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._counter = 0

    def _reopen_request_id(self) -> str:
        self._counter += 1
        return f"reopen-{self._counter}"


@broken("reopen-without-feature", subject="desktop", breaks=["HOOK-DESKTOP-REOPEN-GATE-01"],
        clause='阶段 18 "仅当 welcome.features 含 turn-reopen-v1"')
class ReopenWithoutFeature(DesktopMachine):
    """A retry of a finished turn is sent back to the channel as turn.reopen whatever welcome declares."""

    def retry_turn(self, request_id: str, now: float) -> tuple[str | None, list[Effect]]:
        features = self.server_features
        if self.welcomed:
            self.server_features = features | {Feature.TURN_REOPEN.value}
        try:
            return super().retry_turn(request_id, now)
        finally:
            self.server_features = features


@broken("ask-reopens", subject="desktop", breaks=["HOOK-DESKTOP-REOPEN-TRIGGER-01"],
        clause='阶段 18 "仅用户显式重试 … 同会话追问不触发 reopen"')
class AskReopens(DesktopMachine):
    """Another question asked in a finished turn's session at the desktop is sent as a reopen of that turn."""

    def ask_in_session(self, request_id: str, text: str, now: float) -> list[Effect]:
        old = self.turns.get(request_id)
        if old is not None and old.finished:
            return self.retry_turn(request_id, now)[1]
        return super().ask_in_session(request_id, text, now)


@broken("reopen-never-expires", subject="desktop", breaks=["HOOK-DESKTOP-REOPEN-TTL-01"],
        clause='阶段 18 "desktop 进程内记账,带 TTL"')
class ReopenNeverExpires(DesktopMachine):
    """The reopen bookkeeping has no TTL: a finished thread stays reopenable for ever."""

    def _expire(self, now: float) -> None:
        return None


@broken("reopen-card-mirrored", subject="desktop", breaks=["HOOK-DESKTOP-REOPEN-NOINTERACTION-01"],
        clause='阶段 18 "reopen 轮次的交互留在 desktop"')
class ReopenCardMirrored(DesktopMachine):
    """The card of a reopened round is decided at the desktop, and also posted to the server as interaction.request."""

    def _open_interaction(self, turn: Turn, card: InteractionScript, now: float) -> list[Effect]:
        if turn.kind is not TurnKind.REOPEN or not self._wire(turn):
            return super()._open_interaction(turn, card, now)
        buttons = tuple(InteractionButton(b.id, b.label, b.style) for b in card.buttons)
        msg = make_interaction_request(turn.request_id, self.ids(), card.kind, card.title, card.body, buttons,
                                       **self._env(now))
        return [self._frame(msg, turn.request_id), *super()._open_interaction(turn, card, now)]
