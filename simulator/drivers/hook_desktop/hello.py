"""The desktop's hello (slack-hook-protocol.md §5 阶段 1 hello, §1 上下线通知偏好, 默认工作目录).

The hello's shape is the core's hello check, run on every received frame (``expect_hello`` returns only a valid
hello), and so is "defaultWorkspace 必须是 workspaces 的成员" (``NOT_A_MEMBER``): the membership judgements below
call that check (``hello_issue``) instead of stating the rule again. What is judged here on top is what a valid hello
says: its first alias, whether it states its preference and names a default, and whether a change reached the wire
in a later hello.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ...errors import MissingFrame, NotApplicable, NotTestable
from ...hook import ABSENT, HookBuildError, HookIssue, MessageType, build_hook_message
from ...roles.hook_conn import HookConnectionClosed
from .session import DesktopSession

__all__ = ["HelloChecks", "given", "hello_issue"]


def given(value: Any) -> bool:
    """Whether an optional field carries a value (neither left out nor null)."""
    return value is not ABSENT and value is not None


def hello_issue(hello: Any) -> HookIssue | None:
    """The core's hello check (§5 阶段 1 hello, 默认工作目录) on a hello payload: its issue, or None."""
    try:
        build_hook_message(hello)
    except HookBuildError as exc:
        return exc.issue
    return None


def _default_member(hello: Any) -> None:
    issue = hello_issue(hello)
    assert issue is None, (
        f"defaultWorkspace {hello.default_workspace!r} is not in workspaces {list(hello.workspaces)!r} ({issue})")


def _declares_default(hello: Any, alias: str) -> None:
    """默认工作目录 "兼容:字段可选。旧 desktop 不发即无默认": a hello that names no default (the field left out, or null,
    "缺省 / null = 无默认") after the user chose ``alias`` declares that this desktop keeps no default; the rules about a
    given default do not apply to it (not applicable), and it is not a failure."""
    if not given(hello.default_workspace):
        raise NotApplicable(f"the desktop's hello names no defaultWorkspace after the user chose {alias!r}: the field "
                            f"is optional (默认工作目录: 兼容:字段可选), so this desktop declares no default")


@dataclass(eq=False)
class HelloChecks:
    """Operations on the hellos of a desktop scenario (the latest is ``hellos[-1]``)."""

    session: DesktopSession

    def resent_hello(self) -> Any:
        """The hello the desktop re-sends on its own on the open connection (§5 阶段 1 "别名映射变更后重发 hello 即时生效
        (server 以最新一帧为准)"). A desktop that sends none fails (``MissingFrame``); the harness never forces one."""
        hello = self.session.server.expect_payload(MessageType.HELLO.value, self.session.step_timeout)
        self.session.hellos.append(hello)
        return hello

    def next_hello(self) -> Any:
        """The desktop's next hello: the one it re-sends on its own, else the one of its next handshake (默认工作目录:
        "desktop 侧目录被删除后必须把默认值归零后再握手"). Only a desktop that is alive and sent no hello, or that closed
        the connection itself, is made to handshake again; an invalid hello fails, a silent desktop times out."""
        try:
            return self.resent_hello()
        except (MissingFrame, HookConnectionClosed):
            self.session.server.drop()
            return self.session.reconnect()

    def check_first_workspace(self, alias: str) -> None:
        """§5 阶段 1 hello: the first alias of ``workspaces`` is the built-in chat pseudo-folder."""
        ws = self.session.hellos[-1].workspaces
        assert ws and ws[0] == alias, f"hello.workspaces starts with {ws[:1]!r}, not {alias!r}"

    def check_lifecycle_explicit(self) -> None:
        """上下线通知偏好: the hello states ``lifecycleAnnouncement`` (its type, boolean when present, is the core's
        hello check; this judges that it is present at all)."""
        value = self.session.hellos[-1].lifecycle_announcement
        assert value is not ABSENT, "hello.lifecycleAnnouncement is left out (an old server would default it)"

    def check_lifecycle_reported(self, want: bool) -> None:
        """§1 "hello.lifecycleAnnouncement 在握手时上报当前值"; §5 hello "缺省按 true": the latest hello's value, a missing
        field read as true, is the preference the user set while the desktop was offline."""
        assert self.session.hellos, "no hello was received"
        sent = self.session.hellos[-1].lifecycle_announcement
        effective = True if sent is ABSENT or sent is None else sent
        shown = "left out (read as true)" if sent is ABSENT else json.dumps(sent)
        value = json.dumps(want)
        assert effective is want, (
            f"the hello of this handshake reports lifecycleAnnouncement {shown}, but the preference was set to "
            f"{value} while the desktop was offline: the hello must carry the current value")

    def check_default_member_if_given(self) -> None:
        """§5 阶段 1 hello: "可选 defaultWorkspace(…必须是 workspaces 的成员…)": judged when the hello names one (a hello
        without it conforms; ``check_default_member`` needs one)."""
        hello = self.session.hellos[-1]
        if given(hello.default_workspace):
            _default_member(hello)

    def check_default_member(self) -> None:
        """§5 阶段 1 hello: "defaultWorkspace(本连接的默认工作区别名;必须是 workspaces 的成员)", on a hello that names one."""
        hello = self.session.hellos[-1]
        assert given(hello.default_workspace), "the hello names no defaultWorkspace: there is nothing to judge"
        _default_member(hello)

    def check_new_hello_default(self, alias: str) -> None:
        """The desktop re-sends hello on its own, naming ``alias`` among its workspaces and as its default. A hello
        that names no default at all declares none: the field is optional (``_declares_default``)."""
        hello = self.resent_hello()
        assert alias in hello.workspaces, f"the new hello's workspaces {list(hello.workspaces)!r} lack {alias!r}"
        _declares_default(hello, alias)
        assert hello.default_workspace == alias, f"the new hello's defaultWorkspace is {hello.default_workspace!r}"

    def check_next_hello_default(self, alias: str) -> None:
        """The hello re-sent after the change, or the one of the next handshake: the change has reached the wire (a
        hello that names no default at all declares none: ``_declares_default``)."""
        hello = self.next_hello()
        _declares_default(hello, alias)
        assert hello.default_workspace == alias, f"the next hello's defaultWorkspace is {hello.default_workspace!r}, " \
                                                 f"not {alias!r}"

    def next_hello_naming_default(self, alias: str) -> Any:
        """Set-up: the desktop's next hello (``next_hello``) names ``alias`` as its default, the one the harness just
        chose. A hello with no default declares none (not applicable, ``_declares_default``); one that names another,
        or none at all, leaves the scenario without that default (not testable: the hello requirements judge it)."""
        hello = self.next_hello_listing(alias)
        _declares_default(hello, alias)
        if hello.default_workspace != alias:
            raise NotTestable(f"the desktop's next hello names {hello.default_workspace!r} as defaultWorkspace, not "
                              f"{alias!r}, the default the harness set, so the scenario has no such default")
        return hello

    def next_hello_listing(self, alias: str) -> Any:
        """Set-up: the desktop's next hello (``next_hello``) lists ``alias``, the workspace the harness just set; a
        desktop whose next hello does not leaves the scenario without the workspace it needs (not testable: what a
        re-sent hello must carry is judged by the hello requirements)."""
        try:
            hello = self.next_hello()
        except MissingFrame as missing:
            raise NotTestable(f"the desktop sent no hello after its workspaces were set to {alias!r}, so the scenario "
                              f"has no hello that lists it: {missing}") from None
        if alias not in hello.workspaces:
            raise NotTestable(f"the desktop's next hello lists {list(hello.workspaces)!r}, not the workspace {alias!r} "
                              f"the harness set, so the scenario has no workspace {alias!r} to work in")
        return hello

    def check_next_hello_cleared(self, alias: str) -> None:
        """默认工作目录: once the folder of ``alias`` is gone, the next hello names another member as default, or none."""
        hello = self.next_hello()
        assert not given(hello.default_workspace) or (
            hello.default_workspace != alias and hello_issue(hello) is None), (
            f"the hello after the folder was removed still names defaultWorkspace {hello.default_workspace!r}")
