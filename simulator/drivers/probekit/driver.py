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
from simulator.roles.mcp_arguments import argument_sets
from simulator.roles.mcp_values import ElicitationRequest

from .arguments import breaking_arguments_for, checked_arguments, every_tool
from .calls import Call, has_text
from .elicitation import form_answerer
from .expect import expect
from .schemas import DesignSchemas, SchemaDialect, schema_problems
from .session import ProbeKitSubject, ProbeSession
from .tasks import created_task, is_terminal
from .working import ASKING_MODE, WorkingCall, search, with_asking_mode

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
#: The subject option naming the tool that asks the user (``--subject-option probekit.elicit-tool=NAME``): the design
#: never names it (§5 Elicitation 处理器 is a helper any tool may use).
ELICIT_TOOL_OPTION = "elicit-tool"
#: The tool a question goes to first when the run names none: the design's own asking tool (core: 'ask_user').
ASK_USER = "ask_user"
#: Argument sets one tool of a sweep is tried with at most (a sweep calls every listed tool).
SWEEP_TRIES = 4


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
        #: The terminal status the task had when the harness saw it end (``wait_until_terminal``).
        self.ended_status: str | None = None
        #: What each working-call search found, by (session, tool, text).
        self._working: dict[tuple[int, str, str], WorkingCall] = {}
        #: The asking calls tried for a form elicitation: one line each (``ask_for_form``).
        self.asked: list[str] = []

    # -- sessions ------------------------------------------------------------------------------------------------

    def open_session(self, toolset: str | None, *, show_all: str | None = None,
                     elicitation: str | None = None, stdio: bool = False) -> None:
        """The scenario's session, the subject running with ``MCP_TOOLSET=toolset`` (None: unset) and
        ``MCP_SHOW_ALL=show_all``, the client declaring ``elicitation`` ("none" or None: no capability); ``stdio``:
        over the stdio transport (the embedded reference started as its own process). What the subject says of
        itself (``serverInfo``) goes into the report."""
        env = {k: v for k, v in ((TOOLSET_VAR, toolset), (SHOW_ALL_VAR, show_all)) if v is not None}
        elicit = None if elicitation in (None, "none") else elicitation
        client = (self._subject.open_client(env, elicit, stdio=True) if stdio
                  else self._subject.open_client(env, elicit))
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
                if other.listed_by_name().get(tool) is None:
                    raise NotTestable(f"{tool} is not listed under MCP_TOOLSET={toolset} (see the toolset "
                                      f"requirements), so there is no call of it to contrast with "
                                      f"MCP_TOOLSET={self.toolset}")
                found = self.working_call(tool, text, session=other)
                if found.call is None:
                    raise NotTestable(f"the call meant as the contrast does not succeed under MCP_TOOLSET={toolset}, "
                                      f"so what {tool} answers under MCP_TOOLSET={self.toolset} cannot be told from an "
                                      f"ordinary failure: " + " | ".join(found.refusals)[:1500])
                call = found.call
                arguments = call.arguments
            else:
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

    def working_call(self, tool: str, text: str, *, session: ProbeSession | None = None,
                     tries: int | None = None) -> WorkingCall:
        """The first call of the listed ``tool`` that works, with arguments its inputSchema accepts, strings set to
        ``text`` (``working.search``; kept per session, tool and text). Each refusal of a schema-valid set goes
        into the scenario's evidence."""
        session = session or self.session
        key = (id(session), tool, text)
        found = self._working.get(key)
        if found is None:
            listed = session.tool(tool)
            execution = listed.get("execution")
            execution = {} if execution is None else execution
            expect(isinstance(execution, dict), f"tools/list: the execution of {tool} is not an object (MCP "
                                                f"2025-11-25 server/tools#tool: ToolExecution): {execution!r}"[:500])
            if execution.get("taskSupport") == "required":
                raise NotTestable(f"{tool} declares execution.taskSupport 'required': the harness finds the "
                                  f"arguments that make a tool work with ordinary calls, which such a tool refuses")
            kwargs = {} if tries is None else {"tries": tries}
            found = search(tool, listed.get("inputSchema"), text, lambda args: session.send(tool, args), **kwargs)
            self._working[key] = found
            for line in found.refusals:
                self._subject.note_evidence(line)
        return found

    def _working_arguments_call(self, session: ProbeSession, tool: str, text: str) -> Call:
        """The call that worked (``working_call``); a tool that refuses every schema-valid argument set leaves
        nothing to judge the rule with: not testable, naming the refusals."""
        found = self.working_call(tool, text, session=session)
        if found.call is None:
            raise NotTestable(f"{tool} refused every argument set valid against its own inputSchema that the harness "
                              f"tried ({len(found.refusals)}), so the rule cannot be judged on a call that works: "
                              + " | ".join(found.refusals)[:1200])
        return found.call

    def working_arguments(self, tool: str, text: str) -> dict[str, Any]:
        """The arguments of the call of ``tool`` that worked in this session (``working_call``)."""
        return self._working_arguments_call(self.session, tool, text).arguments

    def call_valid(self, tool: str, text: str) -> Call:
        """Call the listed ``tool`` with arguments its inputSchema accepts, strings set to ``text``: the first
        argument set it answers with a success (``working_call``); not testable when it refuses them all."""
        call = self._working_arguments_call(self.session, tool, text)
        self.calls.append(call)
        return call

    def call_breaking(self, tool: str) -> Call:
        """Call the listed ``tool`` with arguments that break its inputSchema in one property (the rest as in a
        call that works, when one is found: the broken property is then the only thing wrong)."""
        listed = self.session.tool(tool)
        found = self.working_call(tool, "harness")
        return self._send(tool, breaking_arguments_for(listed, tool, found.arguments))

    def call_empty_and_breaking(self, tools: Iterable[str]) -> None:
        """Call each listed one of ``tools`` with ``{}`` (the design's compatibility input, 测试策略 3), then with
        arguments that break its inputSchema (``call_breaking``, where one can be built): the ways the design gives
        to make a tool fail. A tool that is not listed is noted and left out (PROBE-TOOLSET-FULL-01's finding);
        none listed leaves nothing to call (not testable)."""
        listed = self.listed_by_name()
        called = [t for t in tools if t in listed]
        for tool in tools:
            if tool not in listed:
                self._subject.note_evidence(f"{tool} is not listed: not called")
        if not called:
            raise NotTestable(f"none of {list(tools)} is listed, so none can be made to fail")
        for tool in called:
            self._send(tool, {})
            try:
                self.call_breaking(tool)
            except NotTestable as why:
                self._subject.note_evidence(f"{tool}: no call breaking its inputSchema: {why}")

    def make_prepared_call(self) -> Call:
        """Make the call a Given prepared (``prepare_contrast``)."""
        if self.prepared is None:
            raise RuntimeError("scenario bug: no call was prepared by a Given")
        return self._send(*self.prepared)

    def call_every(self, named: Iterable[str] = (), text: str | None = None) -> None:
        """Call every listed tool, then each of ``named`` the list lacks: with ``{}`` (``text`` None, the design's
        compatibility test, 测试策略 3) or with arguments valid against the tool's inputSchema, strings set to
        ``text`` (the first of at most ``SWEEP_TRIES`` sets that works, else the first tried; ``{}`` for a tool
        that is not listed)."""
        listed = self.listed_by_name()
        for name in every_tool(listed, named):
            if text is None or name not in listed:
                self._send(name, {})
                continue
            found = self.working_call(name, text, tries=SWEEP_TRIES)
            call = found.call or found.first
            if call is None:
                self._send(name, {})
            else:
                self.calls.append(call)

    # -- asking the user (§5 Elicitation 处理器) -----------------------------------------------------------------

    def _asking_calls(self, question: str) -> list[tuple[str, dict[str, Any], str]]:
        """The calls that may make the subject ask the user, in order: the tool the run names
        (``--subject-option probekit.elicit-tool=NAME``) alone; else ``ask_user`` with ``{"question": …}`` when it
        is listed and accepts that, then every listed tool whose inputSchema offers an asking mode
        (``working.asking_mode``), with that mode on and strings set to the question."""
        listed = self.listed_by_name()
        named = self._subject.option(ELICIT_TOOL_OPTION)
        if named is not None:
            if named not in listed:
                raise NotTestable(f"the tool named with --subject-option probekit.{ELICIT_TOOL_OPTION}={named} is "
                                  f"not listed (tools/list: {sorted(listed)})")
            tools = [named]
        else:
            tools = [ASK_USER] + [n for n in listed if n != ASK_USER]
        out: list[tuple[str, dict[str, Any], str]] = []
        for tool in tools:
            entry = listed.get(tool)
            if entry is None:
                continue
            schema = entry.get("inputSchema")
            if tool == ASK_USER and named is None:
                if not schema_problems({"question": question}, schema, "ask_user", SchemaDialect.MCP):
                    out.append((tool, {"question": question}, '{"question": …}'))
                continue
            sets = with_asking_mode(schema, question)
            if named is not None and not sets:
                sets = argument_sets(schema, question)[0]
            out += [(tool, s.arguments, s.label) for s in sets[:3]]
        return out

    def ask_for_form(self, question: str) -> Call:
        """Put ``question`` to the user through the subject: the asking calls (``_asking_calls``) one after another
        until one makes the subject send a form elicitation; that call (else the last one made) is the scenario's
        call. Each call tried is listed in ``asked`` for the verdict's reason."""
        tries = self._asking_calls(question)
        if not tries:
            raise NotTestable("no listed tool can be asked a question: ask_user is not listed (or does not accept "
                              "{\"question\": …}) and no tool's inputSchema offers an asking mode (an enum value or a "
                              "described *mode* property: " + ", ".join(ASKING_MODE) + "); name the asking tool "
                              f"with --subject-option probekit.{ELICIT_TOOL_OPTION}=NAME")
        call: Call | None = None
        for tool, arguments, label in tries:
            before = len(self.elicitations)
            call = self._send(tool, arguments)
            sent = self.elicitations[before:]
            self.asked.append(f"{tool} ({label}): {len(sent)} elicitation(s), "
                              f"{'a form' if any(e.mode == 'form' for e in sent) else 'no form'}")
            if any(e.mode == "form" for e in sent):
                break
        assert call is not None
        return call

    # -- tasks (MCP 2025-11-25 basic/utilities/tasks) -----------------------------------------------------------

    def call_as_task(self, tool: str, text: str, ttl: int) -> dict[str, Any]:
        """A task-augmented call of the listed ``tool`` (arguments valid against its inputSchema, strings set to
        ``text``) asking for ``ttl`` ms; it must answer a ``CreateTaskResult``, whose task is kept."""
        call = self._send(tool, self.working_arguments(tool, text), task={"ttl": ttl})
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

    def wait_until_terminal(self) -> str:
        """Poll ``tasks/get`` until the task is terminal (completed, failed or cancelled), at most the step limit;
        the status it ended with is kept (``ended_status``). A task still running then fails the wait."""

        def terminal() -> Any:
            status = self.task_now().get("status")
            if not is_terminal(status):
                raise NotYet(status)
            return status

        try:
            status = eventually(terminal, self.step_timeout, clock=self._clock, sleep=self._sleep, retry=NotYet)
        except NotYet as last:
            expect(False, f"the task did not end within {self.step_timeout} s (tasks/get kept answering "
                          f"{last.args[0]!r})")
        self.ended_status = str(status)
        return self.ended_status

    def cancel_task(self, *, only_if_live: bool = False) -> None:
        """``tasks/cancel`` of the task, its whole response kept. ``only_if_live``: the cancel must reach a task
        that is not terminal yet. It is sent at once (no look first: a task may end within milliseconds); a refused
        cancel of a task that has ended by then shows no working task (not testable), while one of a task still
        running stays the answer the checks judge."""
        if only_if_live and self.task is not None and is_terminal(self.task.get("status")):
            raise NotTestable(f"the task was already {self.task.get('status')!r} when it was created: a working task "
                              f"cannot be observed")
        self.task_response = self.client.raw_request("tasks/cancel", {"taskId": self.task_id()})
        if only_if_live and isinstance(self.task_response.get("error"), dict):
            status = self.task_now().get("status")
            if is_terminal(status) and status != "cancelled":
                raise NotTestable(f"the task had already ended {status!r} when the cancel reached it (refused: "
                                  f"{self.task_response['error']}): a working task cannot be observed")

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
            response: dict[str, Any] = last.args[0]  # gone() gives NotYet the response
            return response
