"""Broken variants of the reference desktop that wrap the machine (docs/desktop-plan.md "Broken variants").

Each class is the correct ``DesktopMachine`` with one method overridden so that exactly one rule of the spec is
broken; the correct machine's code paths know nothing about them. ``machine_class(variant)`` picks the class for a
``Variant`` (the other variants are switches inside the machine and use ``DesktopMachine`` itself). They are test
fixtures: the conformance features must catch each one (tests/hook_desktop/test_desktop_rules_variants.py).
"""

from __future__ import annotations

from typing import Any, Final

from ...hook import HOOK_CHAT_WORKSPACE_ALIAS, HookMessage
from .machine import DesktopMachine, Effect, Send, Turn, Variant
from .slack_variants import SLACK_WRAPPED
from .provider_variants import PROVIDER_WRAPPED
from .relay_variants import RELAY_WRAPPED
from .gateway_variants import GATEWAY_WRAPPED
from .core_variants import CORE_WRAPPED
from .robustness_variants import ROBUSTNESS_WRAPPED
from .fault_variants import FAULT_WRAPPED

__all__ = [
    "StaleLifecycleHello", "ArchiveIgnored", "ProgressUnthrottled", "ProgressConcatenated", "WorkspacePathsInQuery",
    "WRAPPED", "machine_class", "make_machine",
]


class StaleLifecycleHello(DesktopMachine):
    """``lifecycle-hello-stale``: every hello carries the preference the desktop started with (a hello built once and
    reused), not the current one. Breaks §1 "hello.lifecycleAnnouncement 在握手时上报当前值"."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._started_with = self.lifecycle_enabled

    def hello(self, now: float) -> Send:
        current, self.lifecycle_enabled = self.lifecycle_enabled, self._started_with
        try:
            return super().hello(now)
        finally:
            self.lifecycle_enabled = current


class ArchiveIgnored(DesktopMachine):
    """``archive-ignored``: session.archive is received and dropped, so the externalKey keeps its session (harmless,
    but nothing is archived). Breaks 阶段 8 "session.archive … 归档 externalKey 绑定的会话"."""

    def _on_archive(self, msg: HookMessage, now: float) -> list[Effect]:
        return []


class ProgressUnthrottled(DesktopMachine):
    """``progress-unthrottled``: every snapshot goes out at once, whole. Breaks §5 turn.progress "desktop 负责节流
    (约 1.5s/帧)"."""

    def _progress(self, turn: Turn, text: str, now: float) -> list[Effect]:
        if not self._wire(turn) or not self.welcomed:
            return []
        return self._send_progress(turn, text, now)


class ProgressConcatenated(DesktopMachine):
    """``progress-concatenated``: throttled, but each frame carries every snapshot sent so far joined by newlines (an
    appending buffer). Breaks §4 "latest-wins 帧(turn.progress …):… 每帧整体替换,不拼接不累积"."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._so_far: dict[str, str] = {}

    def _send_progress(self, turn: Turn, text: str, now: float) -> list[Effect]:
        before = self._so_far.get(turn.request_id)
        joined = text if before is None else f"{before}\n{text}"
        self._so_far[turn.request_id] = joined
        return super()._send_progress(turn, joined, now)


class WorkspacePathsInQuery(DesktopMachine):
    """``workspace-paths-in-query``: the workspaces query is answered with each folder's absolute path instead of its
    alias (the parser does not check that list). Breaks §2 "workspace 是别名:本地绝对路径只存在于 desktop,
    永不过网线"."""

    def _query_workspaces(self) -> list[str]:
        return [HOOK_CHAT_WORKSPACE_ALIAS, *(self.workspaces[a] for a in self.aliases()
                                             if a != HOOK_CHAT_WORKSPACE_ALIAS)]


#: The variants that wrap the machine, by name.
WRAPPED: Final[dict[Variant, type[DesktopMachine]]] = {
    Variant.LIFECYCLE_HELLO_STALE: StaleLifecycleHello,
    Variant.ARCHIVE_IGNORED: ArchiveIgnored,
    Variant.PROGRESS_UNTHROTTLED: ProgressUnthrottled,
    Variant.PROGRESS_CONCATENATED: ProgressConcatenated,
    Variant.WORKSPACE_PATHS_IN_QUERY: WorkspacePathsInQuery,
    **SLACK_WRAPPED,
    **PROVIDER_WRAPPED,
    **RELAY_WRAPPED,
    **GATEWAY_WRAPPED,
    **CORE_WRAPPED,
    **ROBUSTNESS_WRAPPED,
    **FAULT_WRAPPED,
}


def machine_class(variant: Variant | None) -> type[DesktopMachine]:
    """The machine class to run: a wrapper for the variants above, else the correct machine (which also carries the
    older, switch-style variants)."""
    return WRAPPED.get(variant, DesktopMachine) if variant is not None else DesktopMachine


def make_machine(variant: Variant | None, **kwargs: Any) -> DesktopMachine:
    """``machine_class(variant)(variant=variant, **kwargs)``."""
    return machine_class(variant)(variant=variant, **kwargs)
