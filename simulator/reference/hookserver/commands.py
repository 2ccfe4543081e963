"""The control commands and views of the reference hook server's machine (docs/control-api.md): a user's message
in the channel (``inject-message``: a task, ``/stop``, ``/new``, ``/start <token>``, a query command), a lane's
workspace, a button press, the server's ping, publish failures and holds, the clean-up latency, a preference change
made in the channel; the views ``list-messages``, ``list-tasks``, ``list-connections``, ``list-dropped``,
``list-notices``, ``list-bindings``.

Spec: §5 task.dispatch (阶段 2/4/7/9; source "IM 来源元数据:平台、频道名、thread 上下文、用户原文"), task.cancel ("/stop 中断
在跑任务"), 阶段 8 session.archive (/new), 阶段 10 interaction.decision, 默认工作目录 ("本 lane 已定的目录 >
hello.defaultWorkspace > chat"), §2 "server 只能派发 hello 注册过的别名".

``ControlCommands`` is a mixin of ``HookServerMachine`` (sans-I/O like it): each command returns its effects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from ...hook import (
    ABSENT,
    Attachment,
    HookBuildError,
    TaskDispatchPayload,
    TaskSource,
    ThreadContextEntry,
    build_hook_message,
    make_interaction_decision,
    make_ping,
    make_session_archive,
    make_task_cancel,
    parse_hook_message,
)
from .channel import ChannelMessage, provider_for
from .effects import Effect, MachineError, Persist, opt_str, req_str
from .host import MachineHost
from .lanes import Lane, LaneKey, choose_workspace
from .state import FailRule, Task
from .wire import frame_text, lane_key

if TYPE_CHECKING:
    from .state import Device

__all__ = ["ControlCommands", "WAITING"]

#: The text of a task's message until the desktop acks it.
WAITING: Final = "Waiting for the desktop…"
#: The core's "field omitted" marker, for an optional payload field whose declared type leaves it out (the core's
#: builders pass it the same way: hook/builders.py ``_ABSENT``).
_OMITTED: Final[Any] = ABSENT
#: control ``channel-set-prefs``: provider → the machine's branch
_CHANNEL_PREFS: Final = {"slack": "channel_set_slack_prefs", "telegram": "channel_set_provider_prefs",
                         "x": "channel_set_provider_prefs"}


class ControlCommands(MachineHost):
    """Mixin: needs the machine's state (``devices``, ``lanes``, ``tasks``, ``messages``, ``routes``,
    ``connections``, ``deliveries``, ``notices``, ``dropped``), ``_dispatch``, ``_publish``, ``_frame``, ``_ids``,
    ``_open_conn_of``, ``_persist_message``, ``_next_seq`` and the families' ``inject_bind``, ``_query_kind``,
    ``_ask_query``, ``_team_source``."""

    # -- commands ----------------------------------------------------------------------------------------------

    def inject_message(self, body: Mapping[str, Any], now: int, *,
                       trigger_message_id: str | None = None) -> tuple[dict[str, Any], list[Effect]]:
        """A user's message in the channel (control ``inject-message``): a task, or the commands /stop, /new, and the
        queries /bind, /model, /effort, /session (gateway_families.py). ``trigger_message_id``: the task's
        ``source.triggerMessageId`` (a group message addressing the bot, relay_families.py), else a fresh one."""
        out: list[Effect] = []
        provider_name = req_str(body, "provider")
        provider = provider_for(provider_name)
        if provider is None:
            raise MachineError("invalid-request", f"provider: one of slack, telegram, x (got {provider_name!r})")
        chat_id = req_str(body, "chatId")
        thread_id = opt_str(body, "threadId")
        text = body.get("text")
        if not isinstance(text, str) or not text.strip():
            raise MachineError("invalid-request", "text: a non-empty string is required")
        req_str(body, "userId")  # the user is the channel's business: the dispatch carries no user id
        command = text.strip()
        if provider_name == "telegram" and (command == "/start" or command.startswith("/start ")):
            out = self._start_command(body, command, now)
            return {"ok": True, "kind": "bind", "requestId": None, "messageId": None, "externalKey": None}, out
        key: LaneKey = (provider_name, chat_id, thread_id)
        lane = self.lanes.get(key)
        device_id = opt_str(body, "deviceId")
        if device_id is not None and device_id not in self.devices:
            raise MachineError("no-device", f"deviceId {device_id!r} never said hello to this server", 409)
        if device_id is None:
            device_id = lane.device_id if lane is not None and lane.device_id else self._latest_device()
        if device_id is None:
            raise MachineError("no-device", "no device has said hello to this server yet", 409)
        if lane is None:
            lane = self.lanes[key] = Lane(provider_name, chat_id, thread_id)
        if lane.device_id != device_id:
            lane.device_id = device_id
        out.append(Persist("lanes", lane_key(key), lane.row()))
        command = text.strip()
        if command == "/stop":
            return self._stop(lane, provider, now, out), out
        if command == "/new":
            return self._new(lane, provider, now, out), out
        if (query_kind := self._query_kind(command)) is not None:  # /bind, /model, /effort, /session (阶段 6)
            external_key = provider.external_key(chat_id, thread_id, lane.generation)
            return self._ask_query(lane, device_id, external_key, query_kind, now, out), out
        device = self.devices[device_id]
        workspace = self._workspace_for(lane, device)
        external_key = provider.external_key(chat_id, thread_id, lane.generation)
        session_id = opt_str(body, "sessionId")
        request_id, message_id = self._ids(), self._ids()
        source = _source(body, provider_name, provider.channel_name(chat_id), text,
                         trigger_message_id or f"in-{self._ids()}")
        source = self._team_source(source, opt_str(body, "teamId"), provider_name, device_id)
        try:
            attachments = tuple(Attachment.from_wire(a) for a in _list(body, "attachments"))
            payload = TaskDispatchPayload(request_id=request_id, external_key=external_key, workspace=workspace,
                                          session_id=session_id, prompt=text, attachments=attachments or _OMITTED,
                                          source=source)
            # built once: its wire form is the task's payload and, when it is dispatched in this same input, the
            # frame sent. Every field comes from input checked above (the ids, the lane's externalKey, a workspace
            # of the device's hello), except thread-context entries and attachments, which are the control body's
            # own objects: a frame carrying any is checked like a received one (spec §2 parseHookMessage). Size
            # and lone surrogates are frame_text's (wire.py) (HookBuildError over HOOK_MAX_FRAME_CHARS).
            wire = build_hook_message(payload, ids=self._ids, ts=now, validate=False).to_wire()
            text = frame_text(wire)
            if source.thread_context or attachments:
                checked = parse_hook_message(text)
                if not checked.ok:
                    raise HookBuildError(checked.error)
        except (HookBuildError, TypeError, AttributeError, KeyError) as exc:
            raise MachineError("invalid-request", f"the message cannot be dispatched: {exc}") from None
        task = Task(request_id, self._next_seq(), device_id, message_id, key, external_key, workspace, session_id,
                    wire["payload"], built=(now, text))
        self.tasks[request_id] = task
        self._waiting.setdefault(device_id, {})[request_id] = None
        out.append(Persist("payloads", request_id, {"request_id": request_id, "payload": task.payload}))
        m = ChannelMessage(message_id, task.seq, provider_name, chat_id, thread_id, request_id, WAITING)
        self.messages[message_id] = m
        self._persist_message(out, m)
        conn = self._open_conn_of(device_id)
        if conn is not None:
            self._dispatch(task, conn, now, out, redelivery=False)  # persists the task, with its dispatch
        else:
            out.append(Persist("tasks", request_id, task.row()))
        task.built = None  # kept for this input only: a later dispatch builds its own frame
        return {"ok": True, "kind": "task", "requestId": task.request_id, "messageId": message_id,
                "externalKey": external_key}, out

    def _start_command(self, body: Mapping[str, Any], command: str, now: int) -> list[Effect]:
        """``/start <token>`` to the Telegram bot binds (provider_families.inject_bind): never a task, never relayed
        (阶段 14 "一次性凭证(如绑定深链 /start <token>)由 server 过滤,不转发")."""
        return self.inject_bind(body, command.removeprefix("/start").strip(), now)

    def _workspace_for(self, lane: Lane, device: Device) -> str:
        """The workspace of a new task: "本 lane 已定的目录 > hello.defaultWorkspace > chat", registered aliases only
        (lanes.choose_workspace)."""
        return choose_workspace(lane.workspace, device.workspaces, device.default_workspace)

    def _latest_device(self) -> str | None:
        online = [d for d in self.devices.values() if self._open_conn_of(d.device_id) is not None]
        pool = online or list(self.devices.values())
        return max(pool, key=lambda d: d.seq).device_id if pool else None

    def _stop(self, lane: Lane, provider: Any, now: int, out: list[Effect]) -> dict[str, Any]:
        """/stop: task.cancel for the lane's running task or newest active reopen route (spec §5 task.cancel)."""
        key = lane.key
        candidates: list[tuple[int, str, str | None]] = []  # (seq, requestId, connection)
        for t in self.tasks.values():
            if t.lane == key and not t.ended and t.ack != "rejected":
                conn = self._open_conn_of(t.device_id)
                candidates.append((t.seq, t.request_id, conn.conn_id if conn else None))
        for r in self.routes.values():
            m = self.messages.get(r.message_id)
            if m is not None and (m.provider, m.chat_id, m.thread_id) == key and not r.ended and not r.closed \
                    and m.owner_generation == r.generation:
                conn = self.connections.get(r.conn_id)
                candidates.append((r.seq, r.request_id, r.conn_id if conn and conn.open else None))
        external_key = provider.external_key(lane.chat_id, lane.thread_id, lane.generation)
        if not candidates:
            return {"ok": True, "kind": "stop", "requestId": None, "messageId": None, "externalKey": external_key}
        _seq, rid, conn_id = max(candidates)
        if conn_id is not None:
            out.append(self._frame(conn_id, make_task_cancel(request_id=rid, ids=self._ids, ts=now, validate=False)))
        m = self.message_of(rid)
        return {"ok": True, "kind": "stop", "requestId": rid, "messageId": m.message_id if m else None,
                "externalKey": external_key}

    def _new(self, lane: Lane, provider: Any, now: int, out: list[Effect]) -> dict[str, Any]:
        """/new: session.archive of the current generation's externalKey, then generation + 1 (spec §5 阶段 8)."""
        old_key = provider.external_key(lane.chat_id, lane.thread_id, lane.generation)
        conn = self._open_conn_of(lane.device_id)
        lane.generation += 1
        out.append(Persist("lanes", lane_key(lane.key), lane.row()))
        if conn is not None:
            out.append(self._frame(conn.conn_id, make_session_archive(external_key=old_key, ids=self._ids, ts=now,
                                                                       validate=False)))
        return {"ok": True, "kind": "new", "requestId": None, "messageId": None, "archivedExternalKey": old_key,
                "externalKey": provider.external_key(lane.chat_id, lane.thread_id, lane.generation)}

    def set_lane_workspace(self, body: Mapping[str, Any], now: int) -> list[Effect]:
        provider = req_str(body, "provider")
        if provider_for(provider) is None:
            raise MachineError("invalid-request", f"provider: one of slack, telegram, x (got {provider!r})")
        key: LaneKey = (provider, req_str(body, "chatId"), opt_str(body, "threadId"))
        workspace = req_str(body, "workspace")
        lane = self.lanes.get(key)
        if lane is None:
            lane = self.lanes[key] = Lane(*key)
        lane.workspace = workspace
        return [Persist("lanes", lane_key(key), lane.row())]

    def press_button(self, body: Mapping[str, Any], now: int) -> list[Effect]:
        """The user presses a card button: interaction.decision to the device (spec §5 阶段 10)."""
        rid, iid, bid = req_str(body, "requestId"), req_str(body, "interactionId"), req_str(body, "buttonId")
        task = self.tasks.get(rid)
        m = self.messages.get(task.message_id) if task else None
        card = m.card(iid) if m is not None else None
        if task is None or m is None or card is None:
            raise MachineError("not-found", f"no card {iid!r} on the message of requestId {rid!r}")
        if card.state != "open":
            raise MachineError("card-closed", f"card {iid!r} is {card.state}: it has no buttons to press", 409)
        if not any(b["id"] == bid for b in card.buttons):
            raise MachineError("not-found", f"card {iid!r} has no button {bid!r}")
        card.state, card.decision = "decided", bid
        m.revision += 1
        out: list[Effect] = []
        self._persist_message(out, m)
        conn = self._open_conn_of(task.device_id)
        if conn is not None:
            out.append(self._frame(conn.conn_id, make_interaction_decision(
                request_id=rid, interaction_id=iid, button_id=bid, ids=self._ids, ts=now, validate=False)))
        return out

    def ping_desktops(self, now: int) -> tuple[int, list[Effect]]:
        out: list[Effect] = [self._frame(c.conn_id, make_ping(ids=self._ids, ts=now, validate=False))
                             for c in self.connections.values() if c.open and c.hello_count]
        return len(out), out

    def fail_publishes(self, count: int, request_id: str | None, retryable: bool, raw_error: str | None = None) -> None:
        self._fail_rules.append(FailRule(count, request_id, retryable, raw_error))

    def set_hold(self, held: bool, now: int) -> list[Effect]:
        self.hold_publishes = held
        out: list[Effect] = []
        if not held:
            waiting, self._held = self._held, []
            for rid in waiting:
                d = self.deliveries.get(rid)
                if d is not None and not d.terminal:
                    self._publish(d, now, out)
        return out

    def set_cleanup_latency(self, ms: int) -> None:
        self.cleanup_latency_ms = ms

    def channel_set_prefs(self, body: Mapping[str, Any], now: int) -> tuple[int, list[Effect]]:
        """Control ``channel-set-prefs``: a change made in the channel (the ``/model`` card), a branch per provider
        (slack_families.py, provider_families.py)."""
        provider = req_str(body, "provider")
        branch = _CHANNEL_PREFS.get(provider)
        if branch is None:
            raise MachineError("invalid-request", f"provider: one of {', '.join(_CHANNEL_PREFS)} (got {provider!r})")
        run: Callable[[Mapping[str, Any], int], tuple[int, list[Effect]]] = getattr(self, branch)
        return run(body, now)

    def list_bindings(self, device_id: str | None) -> dict[str, Any]:
        """Control ``list-bindings``: the Slack parts and the provider families' ``provider`` and ``attempts``."""
        return {**self.slack.listing(device_id), **self.list_provider_bindings(device_id)}

    # -- views -------------------------------------------------------------------------------------------------

    def list_messages(self, request_id: str | None = None, provider: str | None = None,
                      chat_id: str | None = None) -> list[dict[str, Any]]:
        out = []
        for m in sorted(self.messages.values(), key=lambda m: m.seq):
            if request_id is not None and m.request_id != request_id and request_id not in m.routes:
                continue
            if provider is not None and m.provider != provider:
                continue
            if chat_id is not None and m.chat_id != chat_id:
                continue
            out.append(m.public())
        return out

    def list_tasks(self, device_id: str | None = None) -> list[dict[str, Any]]:
        out = []
        for t in sorted(self.tasks.values(), key=lambda t: t.seq):
            if device_id is not None and t.device_id != device_id:
                continue
            d = self.deliveries.get(t.request_id)
            out.append({
                "requestId": t.request_id, "deviceId": t.device_id, "externalKey": t.external_key,
                "workspace": t.workspace, "sessionId": t.session_id, "ack": t.ack, "reason": t.reason,
                "queuePosition": t.queue_position, "dispatchCount": t.dispatch_count, "ended": t.ended,
                "endStatus": t.end_status,
                "delivery": None if d is None else {"state": d.state.value, "attempt": d.attempt,
                                                    "retryAt": d.retry_at, "receiptExpiresAt": d.receipt_expires_at},
            })
        return out

    def list_connections(self, device_id: str | None = None) -> list[dict[str, Any]]:
        return [c.public() for c in self.connections.values() if device_id is None or c.device_id == device_id]

    def list_dropped(self, conn_id: str | None = None) -> list[dict[str, Any]]:
        return self.dropped.entries(conn_id)

    def list_notices(self, device_id: str | None = None) -> list[dict[str, Any]]:
        return [n.public() for n in self.notices if device_id is None or n.device_id == device_id]


def _list(body: Mapping[str, Any], key: str) -> list[Any]:
    v = body.get(key)
    if v is None:
        return []
    if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
        raise MachineError("invalid-request", f"{key}: a list of objects is expected")
    return v


def _source(body: Mapping[str, Any], im: str, default_channel: str, text: str, trigger: str) -> TaskSource:
    channel = body.get("channelName")
    if channel is not None and not isinstance(channel, str):
        raise MachineError("invalid-request", "channelName: a string is expected")
    ctx = _list(body, "threadContext")
    try:
        entries = tuple(ThreadContextEntry.from_wire(e) for e in ctx)
    except TypeError as exc:
        raise MachineError("invalid-request", f"threadContext: {exc}") from None
    return TaskSource(im=im, channel_name=channel if channel is not None else default_channel,
                      thread_context=entries, trigger_message_id=trigger, user_text=text)
