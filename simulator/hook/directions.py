"""Who sends each message type (slack-hook-protocol.md §5, the 方向 column of every table; ``msg.op`` /
``msg.op.result`` per UPSTREAM-FACTS: the desktop asks, the server resolves the target and answers).

The direction is spec data, not a parse rule: the upstream parser accepts any type from either side (§8: one
``parseHookMessage`` for both ends), so a frame "in the wrong direction" is valid and left to the receiver's
protocol logic. The harness uses this table to tell a frame that travelled as the spec means it to (a
``tool.request`` from a desktop) from one a scenario sent on purpose the wrong way (a ``group.message`` a harness
desktop throws at a server to see it dropped).
"""

from __future__ import annotations

from enum import StrEnum
from types import MappingProxyType
from typing import Final

from .constants import MessageType

__all__ = ["Sender", "MESSAGE_SENDER", "sent_by"]


class Sender(StrEnum):
    """The peer the spec makes send a type; ``EITHER`` for the heartbeat (§5 阶段 1: "ping / pong 双向")."""

    DESKTOP = "desktop"
    SERVER = "server"
    EITHER = "either"


_D, _S, _E = Sender.DESKTOP, Sender.SERVER, Sender.EITHER
_T = MessageType

#: Every one of the 41 types (``tests/hook/test_directions.py`` pins that none is missing).
MESSAGE_SENDER: Final = MappingProxyType({
    # 阶段 1
    _T.HELLO: _D, _T.WELCOME: _S, _T.PING: _E, _T.PONG: _E,
    # 阶段 2/4/7/9, 阶段 18
    _T.TASK_DISPATCH: _S, _T.TASK_ACK: _D, _T.TURN_PROGRESS: _D, _T.TASK_CANCEL: _S, _T.TURN_END: _D,
    _T.TURN_DELIVERY: _S, _T.TURN_REOPEN: _D,
    # UPSTREAM-FACTS: msg-op-v1
    _T.MSG_OP: _D, _T.MSG_OP_RESULT: _S,
    # 阶段 5, 阶段 13
    _T.BIND_START: _D, _T.BIND_UPDATE: _S, _T.BIND_REVOKE: _D, _T.BIND_STATE: _S,
    # 阶段 6
    _T.QUERY_REQUEST: _S, _T.QUERY_RESPONSE: _D,
    # provider-neutral binding and preferences
    _T.PROVIDER_BIND_START: _D, _T.PROVIDER_BIND_CANCEL: _D, _T.PROVIDER_BIND_REVOKE: _D,
    _T.PROVIDER_BIND_UPDATE: _S, _T.PROVIDER_BIND_STATE: _S,
    _T.PROVIDER_PREFS_GET: _D, _T.PROVIDER_PREFS_SET: _D, _T.PROVIDER_PREFS_STATE: _S,
    # 阶段 19
    _T.PROVIDER_BEHAVIOR_GET: _D, _T.PROVIDER_BEHAVIOR_SET: _D, _T.PROVIDER_BEHAVIOR_STATE: _S,
    # 阶段 8
    _T.SESSION_ARCHIVE: _S,
    # 阶段 10
    _T.INTERACTION_REQUEST: _D, _T.INTERACTION_DECISION: _S, _T.INTERACTION_CANCEL: _D,
    # 阶段 11
    _T.PREFS_GET: _D, _T.PREFS_SET: _D, _T.PREFS_STATE: _S,
    # 阶段 12
    _T.TOOL_REQUEST: _D, _T.TOOL_RESPONSE: _S,
    # 阶段 14
    _T.GROUP_MESSAGE: _S,
    # 上下线通知偏好
    _T.LIFECYCLE_PREFERENCE: _D,
})


def sent_by(message_type: MessageType | str) -> Sender:
    """The sender of ``message_type`` (a ``ValueError`` for a string that is not one of the 41 types)."""
    return MESSAGE_SENDER[MessageType(message_type)]
