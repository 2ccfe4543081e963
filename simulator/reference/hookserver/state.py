"""The reference hook server's state records (machine.py holds them; store.py keeps the durable ones as rows).

``Connection`` (in memory), ``Device``, ``Task``, ``Route`` (a reopen round, spec 阶段 18), ``Cleanup`` (a pending
disconnect clean-up write) and ``FailRule`` (control ``fail-publishes``); the marks of requestIds to ignore.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, cast

from .lanes import LaneKey

__all__ = ["IGNORED", "ISOLATED", "Cleanup", "Connection", "Device", "FailRule", "Route", "Task", "hello_device"]


@dataclass(slots=True)
class Connection:
    conn_id: str
    opened_at: int
    open: bool = True
    device_id: str | None = None
    hello_count: int = 0
    workspaces: tuple[str, ...] = ()
    default_workspace: str | None = None
    features: tuple[str, ...] = ()
    welcome_features: tuple[str, ...] = ()
    lifecycle_announcement: bool = True
    last_pong_at: int | None = None
    superseded: bool = False

    def public(self) -> dict[str, Any]:
        return {"connectionId": self.conn_id, "deviceId": self.device_id, "open": self.open,
                "helloCount": self.hello_count, "workspaces": list(self.workspaces),
                "defaultWorkspace": self.default_workspace, "features": list(self.features),
                "welcomeFeatures": list(self.welcome_features),
                "lifecycleAnnouncement": self.lifecycle_announcement, "lastPongAt": self.last_pong_at}


def hello_device(conn: Connection) -> str:
    """The device of a connection past its first hello: the machine hands a frame to a handler only then, and the
    hello set ``device_id`` (``HookServerMachine.frame``, ``_on_hello``)."""
    return cast(str, conn.device_id)  # set by the hello, before any handler runs


@dataclass(slots=True)
class Device:
    """What the server knows about a device from its latest hello (durable: tasks can wait for it)."""

    device_id: str
    workspaces: tuple[str, ...] = ()
    default_workspace: str | None = None
    conn_id: str | None = None  # the current hello'd connection (in memory only)
    seq: int = 0

    def row(self) -> dict[str, Any]:
        return {"device_id": self.device_id, "workspaces": list(self.workspaces),
                "default_workspace": self.default_workspace, "seq": self.seq}


@dataclass(slots=True)
class Task:
    request_id: str
    seq: int
    device_id: str
    message_id: str
    lane: LaneKey
    external_key: str
    workspace: str
    session_id: str | None
    payload: dict[str, Any]
    ack: str | None = None
    reason: str | None = None
    queue_position: int | None = None
    dispatch_count: int = 0
    dispatched_on: str | None = None  # in memory: the connection of the latest dispatch
    ended: bool = False
    end_status: str | None = None
    built: tuple[int, str] | None = None  # in memory: (ts, text) of the dispatch frame validated at injection

    def row(self) -> dict[str, Any]:
        return {"request_id": self.request_id, "seq": self.seq, "device_id": self.device_id,
                "message_id": self.message_id, "lane": list(self.lane), "external_key": self.external_key,
                "workspace": self.workspace, "session_id": self.session_id,
                "ack": self.ack, "reason": self.reason, "queue_position": self.queue_position,
                "dispatch_count": self.dispatch_count, "ended": self.ended, "end_status": self.end_status}

    @classmethod
    def from_row(cls, d: dict[str, Any], payload: dict[str, Any]) -> Task:
        """``payload``: the dispatch payload, stored once in its own table (it may carry large attachments)."""
        data = dict(d)
        data["lane"] = tuple(data["lane"])
        return cls(**data, payload=payload)


@dataclass(slots=True)
class Route:
    """A reopen route (spec 阶段 18): ``request_id`` → the message, owned by (connection, generation)."""

    request_id: str
    reopen_of: str
    message_id: str
    conn_id: str
    generation: int
    seq: int
    ended: bool = False
    closed: bool = False  # the owning connection is gone: the requestId is unbound

    def row(self) -> dict[str, Any]:
        return {"request_id": self.request_id, "reopen_of": self.reopen_of, "message_id": self.message_id,
                "conn_id": self.conn_id, "generation": self.generation, "seq": self.seq, "ended": self.ended,
                "closed": self.closed}

    @classmethod
    def from_row(cls, d: dict[str, Any]) -> Route:
        return cls(**d)


@dataclass(frozen=True, slots=True)
class Cleanup:
    """A pending asynchronous channel write closing out a reopen round of a gone connection."""

    message_id: str
    conn_id: str
    generation: int
    request_id: str
    due: int


@dataclass(slots=True)
class FailRule:
    count: int
    request_id: str | None
    retryable: bool
    #: the channel's raw response to each failing publish (control ``fail-publishes`` ``rawError``): never on the wire
    raw_error: str | None = None


#: Marks of requestIds that must be ignored (durable): the value is the dropped-frames reason for later frames.
IGNORED: Final = "reopen-unknown"
ISOLATED: Final = "isolated-request"
