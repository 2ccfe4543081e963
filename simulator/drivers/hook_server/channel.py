"""The far side of the hook server (the IM channel) and the server's own records, driven and read through its
control API (docs/hook-server-plan.md "Control API"; docs/control-api.md): ``inject-message``, ``set-lane-workspace``,
``fail-publishes``, ``hold-publishes``, ``advance-clock``, ``set-cleanup-latency`` to drive; ``list-messages``,
``list-tasks``, ``connections``, ``notices`` to read. Every answer is checked against docs/control-api.schema.json
before it is read (``HookServerScenario.ctl`` / ``rows``); expected values come from the feature files."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from ...errors import NotTestable
from .control_answers import Row
from .scenario import HookServerScenario

__all__ = ["CLEANUP_MARGIN_S", "ChannelOps"]

#: How long after the clean-up latency a step waits for the delayed clean-up to have run (a harness setting).
CLEANUP_MARGIN_S = 1.0
#: The ``dropped-frames`` reason of a clean-up write the server discarded (docs/control-api.md ``set-cleanup-latency``).
CLEANUP_DISCARDED = "cleanup-discarded"


def _user_id() -> str:
    return f"sim-user-{uuid.uuid4().hex[:12]}"


@dataclass(eq=False)
class ChannelOps:
    """The IM channel and the server's records, driven and read through the control API, over the scenario
    (``scenario``)."""

    scenario: HookServerScenario

    # -- driving the channel -----------------------------------------------------------------------------------------

    def inject_task(self, name: str, text: str, chat: str, *, provider: str | None = None,
                    session: str | None = None, team_id: str | None = None) -> str:
        """A user writes ``text`` in ``chat`` (on ``provider``, else the chat's), taking over the desktop session
        ``session`` if named; the server must take it as a task, whose requestId is remembered as ``name``."""
        if provider:
            self.scenario.providers[chat] = provider
        body: dict[str, Any] = {
            "provider": self.scenario.provider(chat), "chatId": self.scenario.chat(chat), "threadId": None,
            "userId": _user_id(), "userName": "Conformance User", "text": text,
            "deviceId": self.scenario.first_device().role.device_id,
        }
        if session:
            body["sessionId"] = self.scenario.sessions.setdefault(session, f"sim-session-{uuid.uuid4()}")
        if team_id:
            body["teamId"] = team_id  # the Slack team the user writes from (multi-team, spec 阶段 13)
        answer = self.scenario.ctl("inject-message", body)
        assert answer.get("kind") == "task", f"the server did not take {text!r} as a task: {answer!r}"
        assert answer.get("requestId"), f"inject-message gave no requestId: {answer!r}"
        self.scenario.request_ids[name] = answer["requestId"]
        self.scenario.task_chat[name] = chat
        self.scenario.user_texts[name] = text
        self.scenario.secrets.append(text)
        request_id: str = answer["requestId"]
        return request_id

    def inject_command(self, command: str, chat: str) -> None:
        """A user writes a chat command (``/stop``, ``/new``); the server must take it as that command."""
        body = {"provider": self.scenario.provider(chat), "chatId": self.scenario.chat(chat), "threadId": None,
                "userId": _user_id(), "text": command, "deviceId": self.scenario.first_device().role.device_id}
        answer = self.scenario.ctl("inject-message", body)
        assert answer.get("kind") == command.removeprefix("/"), \
            f"the server did not take {command} as a command: {answer!r}"

    def choose_workspace(self, chat: str, alias: str) -> None:
        """The chat's lane chooses the workspace ``alias`` (``set-lane-workspace``)."""
        self.scenario.ctl("set-lane-workspace", {"provider": self.scenario.provider(chat),
                                                 "chatId": self.scenario.chat(chat), "threadId": None,
                                                 "workspace": alias})

    def fail_publishes(self, count: int, name: str) -> None:
        self.scenario.ctl("fail-publishes", {"count": count, "requestId": self.scenario.rid(name)})

    def hold_publishes(self) -> None:
        """The channel holds every publish until released (released at the latest when the scenario ends)."""
        self.scenario.ctl("hold-publishes", {"held": True})
        self.scenario.on_teardown(self.release_publishes)

    def release_publishes(self) -> None:
        self.scenario.ctl("hold-publishes", {"held": False})

    def server_now(self) -> int:
        """The server's clock (ms): ``advance-clock`` by 0."""
        now: int = self.scenario.ctl("advance-clock", {"ms": 0})["now"]  # an integer (schema-checked)
        return now

    def advance_to(self, at: int) -> None:
        """Move the server's clock just past ``at`` (ms)."""
        self.scenario.ctl("advance-clock", {"ms": max(0, at - self.server_now()) + 1})

    def delay_cleanup(self, ms: int) -> None:
        """Delay the server's disconnect clean-up by ``ms`` (undone when the scenario ends)."""
        self.scenario.ctl("set-cleanup-latency", {"ms": ms})
        self.scenario.cleanup_latency_ms = ms
        self.scenario.on_teardown(lambda: self.scenario.ctl("set-cleanup-latency", {"ms": 0}))

    def wait_for_cleanup(self) -> None:
        """Let the delayed disconnect clean-up run, then the barrier.

        With ``advance-clock`` (docs/control-api.md: "every retry, receipt expiry and clean-up due by the new time
        runs before the answer") the server's clock moves past the latency, and the wait ends there only on the
        server's evidence that a clean-up ran: a new ``dropped-frames`` entry ``cleanup-discarded`` (what the
        features' late clean-ups must come to: the message has a newer owner or a final state). Without that evidence
        (no ``advance-clock``, a close the server has not read yet, a clean-up that kept its write): the latency and
        a margin on the real clock, as a server's own timer needs."""
        if self._cleanup_ran_on_the_server_clock():
            self.scenario.barrier()
            return
        self.scenario.sleep(self.scenario.cleanup_latency_ms / 1000 + CLEANUP_MARGIN_S)
        self.scenario.barrier()

    def _cleanup_ran_on_the_server_clock(self) -> bool:
        """``advance-clock`` past the latency; True once ``dropped-frames`` lists one more discarded clean-up."""
        try:
            self.scenario.answers.require("advance-clock")
            self.scenario.answers.require("dropped-frames")
        except NotTestable:
            return False
        before = self._discarded_cleanups()
        self.scenario.barrier()  # the server has read every frame sent before: a reopen on the new connection included
        self.scenario.ctl("advance-clock", {"ms": self.scenario.cleanup_latency_ms + 1})
        return self._discarded_cleanups() > before

    def _discarded_cleanups(self) -> int:
        return len(self.scenario.rows("dropped-frames", {}, keep=lambda row: row.get("reason") == CLEANUP_DISCARDED))

    # -- reading the channel and the server's records ------------------------------------------------------------

    def messages_of_chat(self, chat: str) -> list[Row]:
        chat_id = self.scenario.chat(chat)
        return self.scenario.rows("list-messages", {"provider": self.scenario.provider(chat), "chatId": chat_id},
                                  keep=lambda m: m["chatId"] == chat_id)

    def message(self, name: str) -> Row:
        """The one channel message of task ``name`` (or of the task a round continues), remembered as seen."""
        root = self.scenario.root(name)
        rid = self.scenario.rid(root)
        chat = self.scenario.task_chat.get(root)
        if chat is None:
            raise AssertionError(f"{root!r} is not a task injected in this scenario")
        found = [m for m in self.messages_of_chat(chat) if m["requestId"] == rid]
        assert found, f"the channel has no message for task {root!r} ({rid}) in chat {chat!r}"
        assert len(found) == 1, f"the channel holds {len(found)} messages for task {root!r}: {found!r}"[:600]
        self.scenario.seen[root] = found[0]
        return found[0]

    def task_row(self, name: str) -> Row:
        """The server's ``list-tasks`` row of ``name``; none is a failure."""
        rid = self.scenario.rid(name)
        rows = self.scenario.rows("list-tasks", {}, keep=lambda t: t["requestId"] == rid)
        assert rows, f"the server lists no task {rid} ({name!r})"
        return rows[0]

    def delivery_receipt(self, name: str) -> Row | None:
        """The delivery receipt of task ``name`` (docs/control-api.md: ``task.delivery``, kept ``receiptTtlMs``
        after delivered/failed, then the task leaves ``list-tasks``): None when the server holds none."""
        rid = self.scenario.rid(name)
        rows = self.scenario.rows("list-tasks", {}, keep=lambda t: t["requestId"] == rid)
        return rows[0]["delivery"] if rows else None  # "delivery" is a required field: null or the receipt

    def connection_ids(self, dev: str) -> set[str]:
        """The ids of every connection the server lists for device ``dev``."""
        device_id = self.scenario.device(dev).role.device_id
        rows = self.scenario.rows("connections", {"deviceId": device_id}, keep=lambda c: c["deviceId"] == device_id)
        return {c["connectionId"] for c in rows}

    def open_connections(self, dev: str) -> list[Row]:
        """The connections of device ``dev`` the server lists as open (``connections``)."""
        device_id = self.scenario.device(dev).role.device_id
        return self.scenario.rows("connections", {"deviceId": device_id},
                                  keep=lambda c: c["deviceId"] == device_id and c["open"])

    def check_no_open_connection(self, dev: str) -> None:
        """The server lists no open connection of device ``dev``: it has read the device's close."""
        open_ = self.open_connections(dev)
        assert not open_, f"the server still lists an open connection of device {dev!r}: {open_!r}"[:600]

    def notices(self, dev: str, kind: str) -> list[Row]:
        """The channel's ``kind`` (online/offline) notices for device ``dev``."""
        device_id = self.scenario.device(dev).role.device_id
        return self.scenario.rows("notices", {"deviceId": device_id},
                                  keep=lambda n: n["kind"] == kind and n["deviceId"] == device_id)
