"""Connection and identity: hello, welcome, ping, pong, lifecycle.preference (spec §5 阶段 1, 上下线通知偏好).

hello is the desktop's first frame: its workspace aliases (``chat`` first), agents, optional features,
``lifecycleAnnouncement`` (absent means true, §3) and ``defaultWorkspace``, which must be one of the aliases
(§5 默认工作目录: "成员关系在协议层卡死"). ping/pong payloads are always ``{}`` (extra keys are rejected,
UPSTREAM-FACTS).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .checks import ABSENT, Obj, is_nonempty_str
from .constants import MessageType
from .issues import SPEC, HookIssue, IssueCode
from .registry import define
from .wire import Wire, extra_field, opt, strings

__all__ = [
    "HelloPayload",
    "WelcomePayload",
    "PingPayload",
    "PongPayload",
    "LifecyclePreferencePayload",
]

REF_HELLO = f"{SPEC} §5 阶段 1 hello"
REF_WELCOME = f"{SPEC} §5 阶段 1 welcome"
REF_PING = f"{SPEC} §5 阶段 1 ping/pong"
REF_LIFECYCLE = f"{SPEC} §5 上下线通知偏好"
REF_DEFAULT_WS = f"{SPEC} §5 默认工作目录(hello.defaultWorkspace)"


@dataclass(frozen=True, slots=True)
class HelloPayload(Wire):
    protocol_version: int | float
    device_id: str
    device_name: str
    workspaces: tuple[str, ...] = strings()
    agents: tuple[str, ...] = strings()
    features: tuple[str, ...] = strings(optional=True)
    lifecycle_announcement: bool = opt()
    default_workspace: str | None = opt()
    extra: Mapping[str, Any] = extra_field()


def check_hello(p: Obj) -> HookIssue | None:
    issue = (
        p.number("protocolVersion")
        or p.nonempty_str("deviceId")
        or p.nonempty_str("deviceName")
        or p.str_array("workspaces")
        or p.str_array("agents")
        or p.opt_str_array("features")
        or p.opt_boolean("lifecycleAnnouncement", ref=REF_LIFECYCLE)
    )
    if issue:
        return issue
    default = p.get("defaultWorkspace")
    if default is ABSENT or default is None:
        return None
    if not is_nonempty_str(default):
        return p.nullable_nonempty_str("defaultWorkspace", ref=REF_DEFAULT_WS)
    if default not in p.get("workspaces"):
        return p.issue(
            "defaultWorkspace", IssueCode.NOT_A_MEMBER,
            "hello.defaultWorkspace must be one of hello.workspaces", REF_DEFAULT_WS,
        )
    return None


@dataclass(frozen=True, slots=True)
class WelcomePayload(Wire):
    server_name: str
    features: tuple[str, ...] = strings()
    extra: Mapping[str, Any] = extra_field()


def check_welcome(p: Obj) -> HookIssue | None:
    return p.nonempty_str("serverName") or p.str_array("features")


@dataclass(frozen=True, slots=True)
class PingPayload(Wire):
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class PongPayload(Wire):
    extra: Mapping[str, Any] = extra_field()


_NO_KEYS: frozenset[str] = frozenset()


def check_empty(p: Obj) -> HookIssue | None:
    """ping/pong: "payload 恒空对象"; upstream rejects any key."""
    return p.only_keys(_NO_KEYS) if p.data else None


@dataclass(frozen=True, slots=True)
class LifecyclePreferencePayload(Wire):
    enabled: bool
    extra: Mapping[str, Any] = extra_field()


def check_lifecycle_preference(p: Obj) -> HookIssue | None:
    return p.boolean("enabled")


define(MessageType.HELLO, HelloPayload, check_hello, REF_HELLO)
define(MessageType.WELCOME, WelcomePayload, check_welcome, REF_WELCOME)
define(MessageType.PING, PingPayload, check_empty, REF_PING)
define(MessageType.PONG, PongPayload, check_empty, REF_PING)
define(MessageType.LIFECYCLE_PREFERENCE, LifecyclePreferencePayload, check_lifecycle_preference, REF_LIFECYCLE)
