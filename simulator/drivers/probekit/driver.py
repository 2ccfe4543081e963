"""``ProbeKitDriver``: one scenario against an mcp-probe-kit v2 server, the harness as its MCP client.

The driver holds the scenario's state (its session, the calls made, a call prepared by a Given, the task created,
the design's schemas the feature named) and performs each operation a step names; the checks that judge what the
subject answered live in the modules named for what they judge (``calls``, ``structured``, ``commits``,
``toolsets``, ``tasks``, ``elicitation``) and take this state as arguments.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from simulator.drivers.timing import NotYet, eventually
from simulator.errors import NotTestable
from simulator.roles.mcp_values import ElicitationRequest

from .arguments import arguments_or_empty, breaking_arguments_for, checked_arguments, every_tool, valid_arguments_for
from .calls import Call, has_text
from .elicitation import form_answerer
from .expect import expect
from .schemas import DesignSchemas
from .session import ProbeKitSubject, ProbeSession
from .tasks import TERMINAL, check_task_completed, created_task

if TYPE_CHECKING:  # the role's module loads the mcp SDK: only a session needs it
    from simulator.roles.mcp_client import McpClientRole

__all__ = ["ProbeKitDriver"]

#: The design's environment variables a scenario sets (§配置管理 环境变量): the toolset (§1 工具集管理器; unset
#: means full), and "show every tool" (MCP_SHOW_ALL=1 ignores the filter).
TOOLSET_VAR = "MCP_TOOLSET"
SHOW_ALL_VAR = "MCP_SHOW_ALL"
#: Past a task's ttl by this much before the harness looks: the design's clean-up test is strict (``>``) and a
#: JavaScript clock counts whole milliseconds.
TTL_MARGIN_S = 0.01


class ProbeKitDriver:
    """The operations of the probe-kit features. ``clock`` and ``sleep`` are the waits' (a test passes fakes)."""

    def __init__(self, subject: ProbeKitSubject, *, step_timeout: float,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        self._subject = subject
        self.step_timeout = step_timeout
        self._clock = clock
        self._sleep = sleep
        self._session: ProbeSession | None = None
        #: The design's schemas the feature named (``Given the design's schema for "<glob>":``).
        self.design = DesignSchemas()
        #: Every call of this scenario's session, in order.
        self.calls: list[Call] = []
        #: A call prepared by a Given (tool, arguments), for ``make_prepared_call``.
        self.prepared: tuple[str, dict[str, Any]] | None = None
        self.task: dict[str, Any] | None = None
        #: ``(the harness's clock when the CreateTaskResult arrived, the ttl asked for in ms)`` of the task.
        self.task_asked: tuple[float, int] | None = None
        self.task_response: dict[str, Any] | None = None
        self.task_list: list[dict[str, Any]] | None = None
        self.task_result: dict[str, Any] | None = None

    # -- sessions ------------------------------------------------------------------------------------------------

    def open_session(self, toolset: str | None, *, show_all: str | None = None,
                     elicitation: str | None = None) -> None:
        """The scenario's session, the subject running with ``MCP_TOOLSET=toolset`` (None: unset) and
        ``MCP_SHOW_ALL=show_all``, the client declaring ``elicitation`` ("none" or None: no capability). What the
        subject says of itself (``serverInfo``) goes into the report."""
        env = {k: v for k, v in ((TOOLSET_VAR, toolset), (SHOW_ALL_VAR, show_all)) if v is not None}
        client = self._subject.open_client(env, None if elicitation in (None, "none") else elicitation)
        identity = client.identity
        info = identity.get("serverInfo") if isinstance(identity, dict) else None
        self._subject.note_identity({"serverInfo": info} if isinstance(info, dict) else {})
        self._session = ProbeSession(client, toolset)

    def open_default_session(self) -> None:
        """A session with no ``MCP_TOOLSET`` (the design's default, full). The same rule as
        ``subjects.connect_mcp`` for a subject whose environment differs from what the scenario needs (fixed by the
        run's ``--subject-env``): a configuration this run lacks (not testable), not something the subject
        declared."""
        declared = self._subject.declared_env()
        if TOOLSET_VAR in declared:
            raise NotTestable(f"the probekit subject runs with MCP_TOOLSET={declared[TOOLSET_VAR]} (--subject-env); "
                              f"this scenario needs MCP_TOOLSET unset: run it against an instance started without it")
        self.open_session(None)

    def answer_forms_with(self, text: str) -> None:
        """Answer every form elicitation by filling its fields with ``text``; accept every url elicitation."""
        self.client.on_elicit(form_answerer(text))

    def prepare_contrast(self, tool: str, toolset: str, *, arguments: dict[str, Any] | None = None,
                         text: str = "") -> None:
        """Make a call on a second, short session of the subject with ``MCP_TOOLSET=toolset`` (``arguments``, or
        those its inputSchema accepts there, strings set to ``text``); it must succeed with a text there, and is
        kept for ``make_prepared_call``. A call that fails there leaves nothing to contrast: a refusal (or a
        success) in the scenario's toolset would prove nothing about the toolset (not testable)."""
        other = ProbeSession(self._subject.open_client({TOOLSET_VAR: toolset}, None), toolset)
        try:
            if arguments is None:
                listed = other.listed_by_name().get(tool)
                if listed is None:
                    raise NotTestable(f"{tool} is not listed under MCP_TOOLSET={toolset} (see the toolset "
                                      f"requirements), so there is no call of it to contrast with "
                                      f"MCP_TOOLSET={self.toolset}")
                arguments = valid_arguments_for(listed, tool, text)
            call = other.send(tool, checked_arguments(other.listed_by_name().get(tool), tool, arguments))
        finally:
            other.client.close()
        if not call.succeeded or not has_text(call.result):
            raise NotTestable(f"the call meant as the contrast does not succeed under MCP_TOOLSET={toolset}, so what "
                              f"{tool} answers under MCP_TOOLSET={self.toolset} cannot be told from an ordinary "
                              f"failure: {call.describe()}"[:1500])
        self.prepared = (tool, arguments)

    # -- the scenario's state ------------------------------------------------------------------------------------

    @property
    def session(self) -> ProbeSession:
        if self._session is None:
            raise RuntimeError("scenario bug: no probe-kit session was opened")
        return self._session

    @property
    def client(self) -> McpClientRole:
        return self.session.client

    @property
    def toolset(self) -> str | None:
        """The scenario session's ``MCP_TOOLSET`` (None: unset)."""
        return self.session.toolset

    @property
    def call(self) -> Call:
        """The last call made."""
        if not self.calls:
            raise RuntimeError("scenario bug: no call was made")
        return self.calls[-1]

    @property
    def elicitations(self) -> list[ElicitationRequest]:
        """Every elicitation request the subject sent in this session."""
        return self.client.elicitations

    def listed_by_name(self) -> dict[str, dict[str, Any]]:
        return self.session.listed_by_name()

    def listed_names(self) -> list[str]:
        return self.session.listed_names()

    def listed_tool(self, name: str) -> dict[str, Any] | None:
        """The ``tools/list`` entry of ``name`` (None: not listed)."""
        return self.listed_by_name().get(name)

    # -- calls ---------------------------------------------------------------------------------------------------

    def list_tools(self) -> None:
        """``tools/list`` now; the checks that follow read this answer."""
        self.session.relist()

    def _send(self, tool: str, arguments: dict[str, Any], task: Mapping[str, Any] | None = None) -> Call:
        call = self.session.send(tool, arguments, task)
        self.calls.append(call)
        return call

    def call_written(self, tool: str, arguments: Any) -> Call:
        """Call ``tool`` with the arguments the feature wrote out (checked against its listed inputSchema first:
        ``arguments.checked_arguments``)."""
        return self._send(tool, checked_arguments(self.listed_tool(tool), tool, arguments))

    def call_valid(self, tool: str, text: str) -> Call:
        """Call the listed ``tool`` with arguments its inputSchema accepts, strings set to ``text``."""
        return self._send(tool, valid_arguments_for(self.session.tool(tool), tool, text))

    def call_breaking(self, tool: str) -> Call:
        """Call the listed ``tool`` with arguments that break its inputSchema in one property."""
        return self._send(tool, breaking_arguments_for(self.session.tool(tool), tool))

    def make_prepared_call(self) -> Call:
        """Make the call a Given prepared (``prepare_contrast``)."""
        if self.prepared is None:
            raise RuntimeError("scenario bug: no call was prepared by a Given")
        return self._send(*self.prepared)

    def call_every(self, named: Iterable[str], text: str | None = None) -> None:
        """Call every listed tool, then each of ``named`` the list lacks: with ``{}`` (``text`` None, the design's
        compatibility test, 测试策略 3) or with arguments valid against the tool's inputSchema, strings set to
        ``text`` (``{}`` for a tool that is not listed, or whose schema gives none)."""
        listed = self.listed_by_name()
        for name in every_tool(listed, named):
            self._send(name, {} if text is None else arguments_or_empty(listed.get(name), text))

    # -- tasks (MCP 2025-11-25 basic/utilities/tasks) -----------------------------------------------------------

    def call_as_task(self, tool: str, text: str, ttl: int) -> dict[str, Any]:
        """A task-augmented call of the listed ``tool`` (arguments valid against its inputSchema, strings set to
        ``text``) asking for ``ttl`` ms; it must answer a ``CreateTaskResult``, whose task is kept."""
        call = self._send(tool, valid_arguments_for(self.session.tool(tool), tool, text), task={"ttl": ttl})
        self.task = created_task(call)
        self.task_asked = (self._clock(), ttl)
        return self.task

    def task_id(self) -> str:
        expect(self.task is not None, "no task was created")
        return str((self.task or {})["taskId"])

    def get_task(self) -> None:
        """``tasks/get`` of the task, kept for the checks."""
        self.task_response = self.client.tasks_get(self.task_id())

    def task_now(self) -> dict[str, Any]:
        """What ``tasks/get`` answers about the task now (a JSON-RPC error fails)."""
        return self.client.tasks_get(self.task_id())

    def look_up_task(self) -> dict[str, Any]:
        """The whole response to ``tasks/get`` of the task now (``result`` or ``error``)."""
        return self.client.raw_request("tasks/get", {"taskId": self.task_id()})

    def tasks_now(self) -> list[dict[str, Any]]:
        """Every task ``tasks/list`` answers now."""
        return self.client.tasks_list()

    def wait_until_completed(self) -> None:
        """Poll ``tasks/get`` until the task is terminal, at most the step limit; it must have ended
        ``completed``. A refused ``tasks/get`` ends the wait at once (only ``NotYet`` is retried: a refusal,
        ``McpErrorResponse``, is an ``AssertionError`` of its own)."""

        def terminal() -> Any:
            status = self.task_now().get("status")
            if status not in TERMINAL:
                raise NotYet(status)
            return status

        try:
            status = eventually(terminal, self.step_timeout, clock=self._clock, sleep=self._sleep, retry=NotYet)
        except NotYet as last:
            status = last.args[0]
        check_task_completed(status, self.step_timeout)

    def cancel_task(self, *, only_if_live: bool = False) -> None:
        """``tasks/cancel`` of the task, its whole response kept. ``only_if_live``: the task must not be terminal
        yet, else a working task cannot be observed (not testable)."""
        if only_if_live:
            status = self.task_now().get("status")
            if status in TERMINAL:
                raise NotTestable(f"the task was already {status!r} before the harness could cancel it: a working "
                                  f"task cannot be observed")
        self.task_response = self.client.raw_request("tasks/cancel", {"taskId": self.task_id()})

    def list_tasks(self) -> None:
        """``tasks/list``, kept for the checks."""
        self.task_list = self.client.tasks_list()

    def ask_task_result(self) -> None:
        """``tasks/result`` of the task (the server blocks until it is terminal: three step limits at most)."""
        self.task_result = self.client.tasks_result(self.task_id(), timeout=self.step_timeout * 3)

    def wait_past_ttl(self) -> None:
        """Sleep until the ttl the call asked for has passed since its CreateTaskResult arrived. The server created
        the task before it answered, so by then more than ``ttl`` ms have passed since its ``createdAt`` (the
        design's clean-up: "if (now - createdTime > task.ttl) … delete"), whatever the two clocks read."""
        expect(self.task_asked is not None, "no task was created")
        answered, ttl = self.task_asked or (0.0, 0)
        self._sleep(max(0.0, answered + ttl / 1000 + TTL_MARGIN_S - self._clock()))

    def look_up_task_until_gone(self, seconds: float) -> dict[str, Any]:
        """``tasks/get`` of the task with back-off until it answers an error, at most ``seconds`` (the design names
        no clean-up cadence: a server may sweep on a timer); the last whole response."""

        def gone() -> dict[str, Any]:
            response = self.look_up_task()
            if not isinstance(response.get("error"), dict):
                raise NotYet(response)
            return response

        try:
            return eventually(gone, seconds, clock=self._clock, sleep=self._sleep, retry=NotYet)
        except NotYet as last:
            return last.args[0]
