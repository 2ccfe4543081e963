"""The default workspace's membership rule, driven from the desktop side (spec slack-hook-protocol.md 默认工作目录:
"成员关系在协议层卡死:defaultWorkspace 必须是 workspaces 的成员,校验器据此拒收。server 只能派发清单内的别名"; §5 阶段 1
hello "defaultWorkspace(本连接的默认工作区别名;必须是 workspaces 的成员,校验器据此拒收 …)"). The lane rule itself
("本 lane 已定的目录 > hello.defaultWorkspace > chat") is judged with the task steps (``tasks``), for X mentions too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from ...hook import HOOK_PROTOCOL_VERSION, make_hello
from .scenario import HookServerScenario

__all__ = ["FOREIGN_DEFAULT_HELLO", "WorkspaceOps"]


class _ForeignHello(TypedDict):
    workspaces: tuple[str, ...]
    defaultWorkspace: str


#: A re-sent hello whose defaultWorkspace is not one of its workspaces (the core refuses it: NOT_A_MEMBER).
FOREIGN_DEFAULT_HELLO: _ForeignHello = {"workspaces": ("chat", "docs"), "defaultWorkspace": "not-in-the-list"}


@dataclass(eq=False)
class WorkspaceOps:
    """The default workspace's membership rule (spec 默认工作目录), over the scenario (``scenario``)."""

    scenario: HookServerScenario

    def say_hello_with_foreign_default(self, dev: str) -> None:
        """The device says hello again with ``FOREIGN_DEFAULT_HELLO`` (sent unvalidated; the device's remembered
        hello is not changed, so a reconnect says the earlier one), then the barrier."""
        role = self.scenario.device(dev).role
        role.send_message(make_hello(
            protocol_version=HOOK_PROTOCOL_VERSION, device_id=role.device_id, device_name=role.device_name,
            workspaces=FOREIGN_DEFAULT_HELLO["workspaces"], agents=("claude",),
            default_workspace=FOREIGN_DEFAULT_HELLO["defaultWorkspace"], validate=False))
        self.scenario.barrier()
