"""The probe-kit behind the MCP face (server.py): the allowlist of the active toolset (design §1), the validation of
arguments against each tool's inputSchema (Draft 2020-12), the ``errorResponse`` results (design §2), elicitation
and its text fallback, and task-augmented calls. Pure decisions live in elicitation.py, tasks.py and toolsets.py; the
awaited I/O a call needs (the ``elicitation/create`` requests, the task work) is here.

Each rule a call follows is one method of ``ProbeKit`` (``listed``, ``callable``, ``_spec``, ``_input_problems``,
``check_call``, ``_finish``, ``_ask``, ``_mode``, ``_client_modes``, ``task_middleware``; the task runner's class), so
a subclass can state another rule in one place; server.py takes the class (``parts.ProbekitParts``).
"""

from __future__ import annotations

import logging
import os
import sys
import uuid
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any, cast

import mcp.types as types
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # types-jsonschema not installed
from mcp import MCPError
from mcp.server import ServerRequestContext

from . import elicitation
from .catalog import CATALOG, Env, ToolSpec, tool_definition
from .output import error_response
from .task_runner import TaskRunner
from .tasks import TaskCall, requested_ttl
from .toolsets import UI_INTERNAL_STEPS, ToolsetConfig
from .workflows import WORKFLOWS

__all__ = ["ProbeKit", "SERVER_NAME", "TASK_STEP_ENV", "listed_tools", "tools_named"]

log = logging.getLogger(__name__)

SERVER_NAME = "mcp-probe-kit-reference"
#: Simulated duration of each workflow step when run as a task (ms; default 100), so clients can watch it work.
TASK_STEP_ENV = "PROBEKIT_TASK_STEP_MS"

_LIST_CACHE: dict[tuple[Any, ...], list[types.Tool]] = {}


def listed_tools(config: ToolsetConfig) -> list[types.Tool]:
    """What ``tools/list`` serves for ``config`` (cached per toolset, design "工具列表缓存")."""
    key = (config.toolset, config.show_all)
    if key not in _LIST_CACHE:
        _LIST_CACHE[key] = tools_named(config.listed())
    return _LIST_CACHE[key]


def tools_named(names: Iterable[str]) -> list[types.Tool]:
    """The definitions of the tools ``names``, in that order."""
    return [types.Tool.model_validate(tool_definition(CATALOG[n])) for n in names]


@lru_cache(maxsize=None)
def _input_validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(CATALOG[name].input_schema)


class ProbeKit:
    """One configured server's behaviour (toolset, clock, task store), independent of transports; its tasks run in
    a ``task_runner_class``."""

    task_runner_class: type[TaskRunner] = TaskRunner

    def __init__(self, env: Mapping[str, str] | None = None, *, now: Callable[[], datetime] | None = None,
                 warn: Callable[[str], None] | None = None) -> None:
        env = dict(os.environ if env is None else env)
        self.config = ToolsetConfig.from_env(env)
        if self.config.warning:
            (warn or (lambda m: print(m, file=sys.stderr, flush=True)))(self.config.warning)
        self.now = now or (lambda: datetime.now(timezone.utc))
        try:
            step_seconds = max(0.0, float(env.get(TASK_STEP_ENV, "100")) / 1000)
        except ValueError:
            step_seconds = 0.1
        self.tasks = self.task_runner_class(self.call, now=self.now, step_seconds=step_seconds)
        self.env = Env(now=self.now, run_step=self._run_internal_step)

    def listed(self) -> list[types.Tool]:
        """What ``tools/list`` serves (``listed_tools``)."""
        return listed_tools(self.config)

    # -- calls -----------------------------------------------------------------------------------------------

    def _run_internal_step(self, name: str, args: dict[str, Any]) -> str:
        """start_ui's internal steps run whatever the toolset (design "UI 工具特殊说明")."""
        assert name in UI_INTERNAL_STEPS
        text: str = CATALOG[name].handler(args, self.env)["content"][0]["text"]  # okText's one text block
        return text

    def callable(self, name: str) -> bool:
        """Design §1: a tool is callable when the active toolset (or MCP_SHOW_ALL) has it."""
        return self.config.callable(name)

    def _spec(self, name: str) -> ToolSpec | None:
        """The tool ``name`` of the catalog (None: no such tool)."""
        return CATALOG.get(name)

    def _input_problems(self, name: str, args: dict[str, Any]) -> list[str]:
        """Where ``args`` break the tool's inputSchema (JSON Schema Draft 2020-12; MCP 2025-11-25 tools: "Servers
        MUST: Validate all tool inputs")."""
        return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}"
                for e in _input_validator(name).iter_errors(args)]

    def check_call(self, name: str, arguments: Any) -> tuple[ToolSpec | None, dict[str, Any] | None, dict[str, Any] | None]:
        """(spec, arguments, None) for an acceptable call, else (None, None, error result)."""
        spec = self._spec(name)
        if spec is None:
            return None, None, error_response(f"未知工具 {name!r}（unknown tool）",
                                              {"code": "unknown_tool", "tool": name})
        if not self.callable(name):
            ts = self.config.toolset.value
            return None, None, error_response(
                f"工具 {name} 不在当前工具集 '{ts}' 中（tool {name} is not in the active toolset '{ts}'; "
                f"set MCP_TOOLSET=full to use it）",
                {"code": "tool_not_in_toolset", "tool": name, "toolset": ts})
        args = dict(arguments or {}) if isinstance(arguments, Mapping) or arguments is None else None
        if args is None:
            return None, None, error_response(f"{name}: arguments must be an object",
                                              {"code": "invalid_arguments", "tool": name})
        problems = self._input_problems(name, args)
        if problems:
            return None, None, error_response(f"{name}: invalid arguments: {'; '.join(problems)}",
                                              {"code": "invalid_arguments", "tool": name, "problems": problems})
        return spec, args, None

    async def call(self, ctx: Any, name: str, arguments: Any, input_responses: Mapping[str, Any] | None = None
                   ) -> dict[str, Any] | types.InputRequiredResult:
        """The result dict (output.py form) of one ``tools/call`` (or, on a 2026-07-28 connection, the
        ``InputRequiredResult`` asking for an elicitation); never raises."""
        try:
            spec, args, error = self.check_call(name, arguments)
            if error is not None:
                return self._finish(name, error)
            assert spec is not None and args is not None
            result: dict[str, Any] | types.InputRequiredResult
            if name in WORKFLOWS and ctx is not None:
                filled = await self._workflow_input(ctx, name, args, input_responses)
                if isinstance(filled, types.InputRequiredResult):
                    return filled
                result = spec.handler(filled, self.env)
            elif name in ("interview", "ask_user") and ctx is not None:
                result = await self._ask(ctx, name, args, input_responses)
                if isinstance(result, types.InputRequiredResult):
                    return result
            else:
                result = spec.handler(args, self.env)
            return self._finish(name, result)
        except Exception as exc:  # noqa: BLE001 - a tool failure is a result, never a JSON-RPC error
            log.exception("tools/call %s failed", name)
            return self._finish(name, error_response(f"{name}: internal error: {type(exc).__name__}: {exc}",
                                                     {"code": "internal_error", "tool": name}))

    def _finish(self, name: str, result: dict[str, Any]) -> dict[str, Any]:
        """The result of ``name`` as it is answered: the handler's, already in the design's output forms (§2
        errorResponse / okText, §3 okStructured)."""
        return result

    async def _ask(self, ctx: Any, name: str, args: dict[str, Any], input_responses: Mapping[str, Any] | None
                   ) -> dict[str, Any] | types.InputRequiredResult:
        """interview / ask_user through elicitation when the client declared it, else the text question
        (``elicitation.tool_question``, ``elicitation.tool_result``)."""
        spec = CATALOG[name]
        question = elicitation.tool_question(name, args)
        if question is None:
            return spec.handler(args, self.env)
        try:
            answer = await self._question(ctx, name, question, input_responses)
        except MCPError as exc:  # the client refused the request: ask in text instead
            log.info("elicitation failed (%s); falling back to text", exc)
            return spec.handler(args, self.env)
        if isinstance(answer, types.InputRequiredResult):
            return answer
        result = elicitation.tool_result(answer)
        return spec.handler(args, self.env) if result is None else result

    async def _workflow_input(self, ctx: Any, name: str, args: dict[str, Any],
                              input_responses: Mapping[str, Any] | None) -> dict[str, Any] | types.InputRequiredResult:
        """A workflow called without its main argument asks for it (form mode) when the client declared
        elicitation; otherwise, or when the user declines, the report says what is missing."""
        question = elicitation.workflow_question(name, args)
        if question is None:
            return args
        try:
            answer = await self._question(ctx, name, question, input_responses)
        except MCPError as exc:  # the client refused the request: report the input as missing
            log.info("elicitation failed (%s)", exc)
            return args
        if isinstance(answer, types.InputRequiredResult):
            return answer
        return elicitation.filled(args, question, answer)

    async def _question(self, ctx: Any, name: str, question: elicitation.Question,
                        input_responses: Mapping[str, Any] | None) -> elicitation.Answer | types.InputRequiredResult:
        """Ask ``question`` the way the connection allows (``elicitation.plan``): the answer (``TEXT_ANSWER`` when it
        must be asked in text), or the ``InputRequiredResult`` to return (2026-07-28 connections, first call)."""
        plan = elicitation.plan_in(self._mode(question, self._client_modes(ctx)), question,
                                   new_id=lambda: str(uuid.uuid4()))
        if plan.mode is elicitation.Mode.TEXT:
            return elicitation.TEXT_ANSWER
        if elicitation.asks_by_request(ctx.protocol_version):
            return await self._elicit(ctx, plan)
        response = (input_responses or {}).get(elicitation.INPUT_KEY)
        if response is None:
            return elicitation.input_required(name, plan)
        return elicitation.resumed(plan, response, ctx.params)

    def _mode(self, question: elicitation.Question, modes: set[elicitation.Mode]) -> elicitation.Mode:
        """The mode to ask ``question`` in (``elicitation.mode_for``: never a form for a sensitive value)."""
        return elicitation.mode_for(question, modes)

    def _client_modes(self, ctx: Any) -> set[elicitation.Mode]:
        """The elicitation modes the client of ``ctx`` declared."""
        return elicitation.supported_modes(getattr(ctx.session, "client_capabilities", None))

    async def _elicit(self, ctx: Any, plan: elicitation.Plan) -> elicitation.Answer:
        """Carry out ``plan`` on a handshake-era connection: its ``elicitation/create`` request through the session,
        related to the call being answered."""
        assert plan.request is not None
        params = plan.request.params
        # casts: elicitation.plan_in() builds form params for a FORM plan and url params for a URL one
        if plan.mode is elicitation.Mode.FORM:
            form = cast(types.ElicitRequestFormParams, params)
            result = await ctx.session.elicit_form(form.message, form.requested_schema,
                                                   related_request_id=ctx.request_id)
        else:
            assert plan.elicitation_id is not None
            url = cast(types.ElicitRequestURLParams, params)
            result = await ctx.session.elicit_url(url.message, url.url, plan.elicitation_id,
                                                  related_request_id=ctx.request_id)
        return elicitation.answer_of(plan, result.action, result.content)

    # -- tasks -----------------------------------------------------------------------------------------------

    def task_call(self, method: str, params: Any) -> TaskCall:
        """How a request meets the tasks machinery: only a task-augmented ``tools/call`` of a known, callable tool is
        a task (``TASK`` with ``execution.taskSupport``, else ``UNSUPPORTED``); an unknown or out-of-toolset tool
        gets its ordinary ``isError`` answer (``PLAIN``)."""
        if method != "tools/call" or not isinstance(params, Mapping) or not isinstance(params.get("task"), Mapping):
            return TaskCall.PLAIN
        name = params.get("name")
        spec = CATALOG.get(name) if isinstance(name, str) else None
        if spec is None or not isinstance(name, str) or not self.callable(name):
            return TaskCall.PLAIN
        return TaskCall.UNSUPPORTED if spec.task_support is None else TaskCall.TASK

    async def task_middleware(self, ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        kind = self.task_call(ctx.method, ctx.params)
        if kind is TaskCall.PLAIN:
            return await call_next(ctx)
        params = cast(Mapping[str, Any], ctx.params)  # task_call() has checked that the params are a Mapping
        name = params["name"]
        if kind is TaskCall.UNSUPPORTED:
            raise MCPError(code=-32601, message=f"tool {name} does not support task-augmented calls")
        meta: Mapping[str, Any] = params["_meta"] if isinstance(params.get("_meta"), Mapping) else {}
        task = self.tasks.start(ctx, name, params.get("arguments"), requested_ttl(params["task"]),
                                meta.get("progressToken"))
        return {"task": task.wire()}
