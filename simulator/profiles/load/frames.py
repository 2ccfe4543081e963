"""The frames a simulated desktop sends in a load run, built with the protocol core (simulator.hook); shared by
the Locust users (locustfile.py) and bench/bench_hook_server.py. Pure: no I/O.

One lifecycle (spec slack-hook-protocol.md §5 阶段 2/4/7/9): the server's ``task.dispatch``, the desktop's
``task.ack(accepted)``, ``turn.progress`` ×k (each a whole snapshot, 1×, 2×, … the base text: latest-wins, §4),
``turn.end(ok)``, then the server's ``turn.delivery(accepted)`` and ``turn.delivery(delivered)``: 5 + k frames.
"""

from __future__ import annotations

from typing import Any, Final

from ...hook import (
    HOOK_FEATURE_TURN_DELIVERY,
    make_hello,
    make_task_ack,
    make_turn_end,
    make_turn_progress,
    serialize_hook_message,
)

__all__ = ["DEFAULT_FINAL_CHARS", "DEFAULT_PROGRESS", "DEFAULT_PROGRESS_CHARS", "ack_frame", "frames_per_task",
           "hello_frame", "inject_body", "work_frames"]

DEFAULT_PROGRESS: Final = 3
DEFAULT_PROGRESS_CHARS: Final = 200
DEFAULT_FINAL_CHARS: Final = 400


def frames_per_task(progress: int = DEFAULT_PROGRESS) -> int:
    """dispatch, ack, progress ×k, end, delivery(accepted), delivery(delivered)."""
    return 5 + progress


def hello_frame(device_id: str) -> str:
    """The ``hello`` of a load desktop: the chat workspace, one agent, ``turn-delivery-v1`` declared (spec
    "turn.delivery 可靠性与兼容": both sides declare it before turn.delivery is used)."""
    return serialize_hook_message(make_hello(protocol_version=1, device_id=device_id, device_name=device_id,
                                             workspaces=("chat",), agents=("claude",),
                                             features=(HOOK_FEATURE_TURN_DELIVERY,)))


def ack_frame(request_id: str, session_id: str) -> str:
    """``task.ack(accepted)``; also the replayed ack of a redelivered task (§4 "desktop 只回放上次 ack")."""
    return serialize_hook_message(make_task_ack(request_id=request_id, result="accepted", session_id=session_id))


def _text(base: str, chars: int) -> str:
    return (base * (1 + chars // max(1, len(base))))[:chars]


def work_frames(request_id: str, external_key: str, session_id: str, *, progress: int = DEFAULT_PROGRESS,
                progress_chars: int = DEFAULT_PROGRESS_CHARS, final_chars: int = DEFAULT_FINAL_CHARS) -> list[str]:
    """What the desktop sends after its ack: ``turn.progress`` ×``progress`` then ``turn.end(ok)``."""
    chunk = _text("Working on it: **step** `x` ", progress_chars)
    out = [serialize_hook_message(make_turn_progress(request_id=request_id, text=chunk * (i + 1)))
           for i in range(progress)]
    out.append(serialize_hook_message(make_turn_end(
        request_id=request_id, external_key=external_key, session_id=session_id, status="ok",
        final_text=_text("Done. The result is here. ", final_chars), error_message=None)))
    return out


def inject_body(chat_id: str, device_id: str, user: str = "U-load") -> dict[str, Any]:
    """One ``inject-message`` body (docs/control-api.md "hook-server"): a Slack DM-like chat of its own, sent to
    ``device_id``; the chatId holds no colon (it is read back from the externalKey)."""
    return {"provider": "slack", "chatId": chat_id, "threadId": None, "userId": user, "userName": "load",
            "text": f"task for {chat_id}", "deviceId": device_id}
