"""Lanes: one conversation place in the channel, ``(provider, chatId, threadId)`` (docs/hook-server-plan.md).

A lane has a generation (1 at first, ``/new`` increments it: spec §5 阶段 8 "私聊 /new 换代后归档旧代会话"), an
optional workspace chosen for it, and the device it last dispatched to. The workspace of a new task follows
spec §5 默认工作目录: "本 lane 已定的目录 > hello.defaultWorkspace > chat", and only aliases of the latest hello
are dispatched (spec §2 "server 只能派发 hello 注册过的别名").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...hook import HOOK_CHAT_WORKSPACE_ALIAS

__all__ = ["LaneKey", "Lane", "choose_workspace"]

LaneKey = tuple[str, str, str | None]


@dataclass(slots=True)
class Lane:
    provider: str
    chat_id: str
    thread_id: str | None
    generation: int = 1
    workspace: str | None = None
    device_id: str | None = None

    @property
    def key(self) -> LaneKey:
        return (self.provider, self.chat_id, self.thread_id)

    def row(self) -> dict[str, Any]:
        return {"provider": self.provider, "chat_id": self.chat_id, "thread_id": self.thread_id,
                "generation": self.generation, "workspace": self.workspace, "device_id": self.device_id}

    @classmethod
    def from_row(cls, d: dict[str, Any]) -> Lane:
        return cls(**d)


def choose_workspace(lane_choice: str | None, aliases: Sequence[str], default_workspace: str | None) -> str:
    """The lane's own choice if the latest hello registered it, else ``hello.defaultWorkspace`` (if registered),
    else ``chat``. A hello that does not list ``chat`` (spec §5: "首位恒为内置对话伪目录") gets its first alias
    instead, so that only registered aliases are dispatched; with no alias at all, ``chat``."""
    if lane_choice is not None and lane_choice in aliases:
        return lane_choice
    if default_workspace is not None and default_workspace in aliases:
        return default_workspace
    if HOOK_CHAT_WORKSPACE_ALIAS in aliases or not aliases:
        return HOOK_CHAT_WORKSPACE_ALIAS
    return aliases[0]
