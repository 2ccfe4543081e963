"""The default workspace of single-message channels at a desktop under test (slack-hook-protocol.md 默认工作目录
(hello.defaultWorkspace), §2 workspace 是别名; docs/control-api.md "Queries, gateway tools, group relay and message
operations (desktop)").

The server picks the workspace of a new lane ("本 lane 已定的目录 > hello.defaultWorkspace > chat"); the desktop's part
is to declare the default (judged by the hello checks) and to run a task that names it where it points: an X mention
is a task like any other. The harness, as the server, dispatches an X-lane task (``source.im`` "x", an ``x:`` external
key) to the default its latest hello names, and judges the ack and the session the desktop's control ``state`` shows.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass

from .session import DesktopSession
from .state import StateChecks

__all__ = ["DefaultWorkspaceChecks"]


@dataclass(eq=False)
class DefaultWorkspaceChecks:
    """The default-workspace operations of a desktop scenario, over the session and its control ``state``
    (``state``)."""

    session: DesktopSession
    state: StateChecks

    def dispatch_x_mention(self, name: str) -> str:
        """A task from an X mention (a single-message channel) to the defaultWorkspace of the desktop's latest hello:
        what a server sends for a new X lane ("本 lane 已定的目录 > hello.defaultWorkspace > chat"). Returns the alias."""
        assert self.session.hellos, "no hello was received"
        default = self.session.hellos[-1].default_workspace
        assert isinstance(default, str) and default, (
            "the desktop's latest hello names no defaultWorkspace: there is no default to dispatch to")
        self.session.key_names[name] = name
        self.session.keys.setdefault(name, f"x:conformance-mention-{uuid.uuid4()}")
        text = f"@bot Conformance mention {name}."
        self.session.server.dispatch(self.session.rid(name), self.session.key(name), default, prompt=text,
                                     source={"im": "x", "userText": text})
        return default

    def check_run_in_workspace(self, name: str, alias: str) -> None:
        """默认工作目录 "结果是这类渠道的任务只能永远落在内置「对话」伪目录上,碰不到本地仓库。做法:desktop 在握手时声明一个默认别名,
        server 在新建 lane 时按…取值": the task is accepted into a session, and the desktop's state shows that session in
        workspace ``alias`` (the default), not in the chat pseudo-folder."""
        ack = self.session.first_ack(name)
        assert ack.result == "accepted" and ack.session_id, (
            f"the desktop did not accept {name!r} into a session: {ack.result!r} ({ack.reason!r})")
        sessions = [s for s in self.state.state()["sessions"]
                    if isinstance(s, dict) and s.get("sessionId") == ack.session_id]
        assert sessions, f"the desktop's state lists no session {ack.session_id!r} (the one it acked {name!r} into)"
        session = sessions[-1]
        assert "workspace" in session, (
            f"state.sessions entry lacks workspace (docs/control-api.md, desktop): {session!r}")
        assert session["workspace"] == alias, (
            f"the desktop runs {name!r} in a session of workspace {session['workspace']!r}, not {alias!r}, the "
            f"default its hello declared and the task named: {json.dumps(session)[:300]}")
