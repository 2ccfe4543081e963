"""A pure test rig for the reference hook server's machine: fake clock, deterministic ids, frames in, effects out.

Expected values in the tests are written out literally from the spec and the plan (feature strings, close codes,
back-off times, error codes), never taken from the reference's own constants.
"""

from __future__ import annotations

import itertools
from typing import Any

from simulator.hook import (
    ABSENT,
    InteractionButton,
    TurnUsage,
    make_hello,
    make_interaction_cancel,
    make_interaction_request,
    make_lifecycle_preference,
    make_task_ack,
    make_turn_end,
    make_turn_progress,
    make_turn_reopen,
    parse_hook_message,
    serialize_hook_message,
)
from simulator.reference.broken.hook_server.select import machine_class
from simulator.reference.hookserver.machine import Close, Persist, Send, ServerSettings, Wake

ALL = ("turn-delivery-v1", "turn-reopen-v1", "lifecycle-announcement-v1")


class Rig:
    def __init__(self, *, features: tuple[str, ...] = ALL, variant: str | None = None, **settings: Any) -> None:
        """``variant``: the name of a broken build of the reference (simulator/reference/broken/hook_server)."""
        counter = itertools.count(1)
        self.ids = lambda: f"id-{next(counter)}"
        self.settings = ServerSettings(features=features, **settings)
        self.m = machine_class(variant)(self.settings, ids=self.ids)
        self.now = 1_000_000
        self.sent: list[tuple[str, str, dict]] = []  # (conn, type, payload)
        self.closed: list[tuple[str, int, str]] = []
        self.persisted: list[Persist] = []
        self.wakes: list[int] = []
        self.order: list[Any] = []  # every effect, in order
        self.db: dict[str, dict[str, dict]] = {}

    # -- effects ----------------------------------------------------------------------------------------------

    def take(self, effects: list[Any]) -> list[Any]:
        for e in effects:
            self.order.append(e)
            if isinstance(e, Send):
                msg = parse_hook_message(e.text)
                assert msg.ok, f"the server sent an invalid frame: {msg.error}"
                self.sent.append((e.conn, msg.message.type.value, msg.message.payload.to_wire()))
            elif isinstance(e, Close):
                self.closed.append((e.conn, e.code, e.reason))
            elif isinstance(e, Persist):
                self.persisted.append(e)
                table = self.db.setdefault(e.table, {})
                if e.row is None:
                    table.pop(e.key, None)
                else:
                    table[e.key] = dict(e.row)
            elif isinstance(e, Wake):
                self.wakes.append(e.at)
        return effects

    def frames(self, conn: str | None = None, type_: str | None = None) -> list[dict]:
        return [p for c, t, p in self.sent if (conn is None or c == conn) and (type_ is None or t == type_)]

    def clear(self) -> None:
        self.sent.clear()

    # -- inputs -----------------------------------------------------------------------------------------------

    def advance(self, ms: int) -> list[Any]:
        self.now += ms
        return self.take(self.m.tick(self.now))

    def connect(self, conn: str) -> None:
        self.take(self.m.connect(conn, self.now))

    def disconnect(self, conn: str) -> list[Any]:
        return self.take(self.m.disconnect(conn, self.now))

    def raw(self, conn: str, text: str | bytes, *, binary: bool = False) -> list[Any]:
        self.now += 1
        return self.take(self.m.frame(conn, text, self.now, binary=binary))

    def send(self, conn: str, message: Any) -> list[Any]:
        return self.raw(conn, serialize_hook_message(message))

    def hello(self, conn: str, device: str, *, features: tuple[str, ...] = ALL,
              workspaces: tuple[str, ...] = ("chat", "repo"), default: str | None = None,
              lifecycle: Any = ABSENT, connect: bool = True) -> list[Any]:
        if connect and conn not in self.m.connections:
            self.connect(conn)
        return self.send(conn, make_hello(protocol_version=1, device_id=device, device_name=device,
                                          workspaces=workspaces, agents=("claude",), features=features,
                                          lifecycle_announcement=lifecycle,
                                          default_workspace=default if default is not None else ABSENT))

    def inject(self, **body: Any) -> dict:
        body.setdefault("provider", "slack")
        body.setdefault("chatId", "C1")
        body.setdefault("userId", "U1")
        body.setdefault("text", "please help")
        self.now += 1
        result, effects = self.m.inject_message(body, self.now)
        self.take(effects)
        return result

    def ack(self, conn: str, rid: str, result: str = "accepted", **kw: Any) -> list[Any]:
        if result == "accepted":
            kw.setdefault("session_id", "s-1")
        if result == "queued":
            kw.setdefault("session_id", "s-1")
            kw.setdefault("queue_position", 2)
        if result == "rejected":
            kw.setdefault("reason", "disabled")
        return self.send(conn, make_task_ack(request_id=rid, result=result, **kw))

    def progress(self, conn: str, rid: str, text: str) -> list[Any]:
        return self.send(conn, make_turn_progress(request_id=rid, text=text))

    def end(self, conn: str, rid: str, status: str = "ok", text: str = "all done", error: str | None = None,
            attachments: Any = ABSENT) -> list[Any]:
        if status == "error" and error is None:
            error = "boom"
        return self.send(conn, make_turn_end(request_id=rid, external_key="k", session_id="s-1", status=status,
                                             final_text=text, error_message=error,
                                             usage=TurnUsage(duration_ms=12), attachments=attachments))

    def reopen(self, conn: str, rid: str, of: str) -> list[Any]:
        return self.send(conn, make_turn_reopen(request_id=rid, reopen_of=of, external_key="k", session_id="s-1"))

    def interaction(self, conn: str, rid: str, iid: str = "i-1") -> list[Any]:
        return self.send(conn, make_interaction_request(
            request_id=rid, interaction_id=iid, kind="plan_review", title="Approve?", body="the plan",
            buttons=(InteractionButton("yes", "Yes", "primary"), InteractionButton("no", "No", "danger"))))

    def interaction_cancel(self, conn: str, rid: str, iid: str = "i-1", reason: str = "timeout") -> list[Any]:
        return self.send(conn, make_interaction_cancel(request_id=rid, interaction_id=iid, reason=reason))

    def lifecycle(self, conn: str, enabled: bool) -> list[Any]:
        return self.send(conn, make_lifecycle_preference(enabled=enabled))

    # -- views ------------------------------------------------------------------------------------------------

    def message(self, rid: str) -> dict:
        found = self.m.list_messages(request_id=rid)
        assert len(found) == 1, found
        return found[0]

    def task(self, rid: str) -> dict:
        found = [t for t in self.m.list_tasks() if t["requestId"] == rid]
        assert len(found) == 1, found
        return found[0]

    def dropped(self, reason: str | None = None) -> list[dict]:
        return [d for d in self.m.list_dropped() if reason is None or d["reason"] == reason]

    def task_started(self, conn: str = "c1", device: str = "d1", **inject: Any) -> str:
        """hello (if needed), inject, accept: the running task's requestId."""
        if conn not in self.m.connections:
            self.hello(conn, device)
        rid = self.inject(**inject)["requestId"]
        self.ack(conn, rid)
        return rid

    def finished(self, conn: str = "c1", device: str = "d1", status: str = "error", **inject: Any) -> str:
        rid = self.task_started(conn, device, **inject)
        self.end(conn, rid, status)
        return rid
