"""The MCP face of the reference probe-kit: a low-level ``mcp.server.Server`` configured by an environment.

Why the low-level server (MCP-SDK-NOTES): it does not compare ``tools/call`` names with ``tools/list`` nor
validate arguments, so ``call_tool`` here is the allowlist (the active toolset, design §1) and the validator
(Draft 2020-12 against each tool's inputSchema). Every failure is an ``isError`` result (design §2
``errorResponse``), never a JSON-RPC error.

Tasks (2025-11-25) are hand-built (tasks.py): the ``tasks`` capability is added to ``get_capabilities``, a
server middleware intercepts task-augmented ``tools/call`` of tools with ``execution.taskSupport`` and answers
``CreateTaskResult``; the work runs in a task group owned by the server's lifespan.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Mapping
from contextlib import asynccontextmanager
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

import anyio
import mcp.types as types
from jsonschema import Draft202012Validator
from mcp import MCPError
from mcp.server import Server, ServerRequestContext

from ... import __version__
from . import elicitation
from .catalog import CATALOG, Env, ToolSpec, tool_definition
from .output import error_response, ok_text, to_call_tool_result
from .tasks import DEFAULT_POLL_INTERVAL_MS, RELATED_TASK_META, TaskError, TaskStatus, TaskStore
from .toolsets import UI_INTERNAL_STEPS, ToolsetConfig
from .variants import Variant
from .workflows import WORKFLOWS

__all__ = ["SERVER_NAME", "build_server", "listed_tools", "ProbeKit", "TASK_STEP_ENV"]

log = logging.getLogger(__name__)

SERVER_NAME = "mcp-probe-kit-reference"
#: Simulated duration of each workflow step when run as a task (ms; default 100), so clients can watch it work.
TASK_STEP_ENV = "PROBEKIT_TASK_STEP_MS"

_LIST_CACHE: dict[tuple[Any, ...], list[types.Tool]] = {}


def listed_tools(config: ToolsetConfig, variant: Variant | None = None) -> list[types.Tool]:
    """What ``tools/list`` serves for ``config`` (cached per toolset, design "工具列表缓存")."""
    key = (config.toolset, config.show_all, variant)
    if key not in _LIST_CACHE:
        names = [n for n in config.listed()
                 if not (variant is Variant.CORE_MISSING_TOOL and n == "gencommit" and config.toolset.value == "core")]
        _LIST_CACHE[key] = [types.Tool.model_validate(_definition(n, variant)) for n in names]
    return _LIST_CACHE[key]


def _definition(name: str, variant: Variant | None) -> dict[str, Any]:
    tool = tool_definition(CATALOG[name])
    if variant is not None and variant.requires_main_argument and name in WORKFLOWS:
        tool = {**tool, "inputSchema": {**tool["inputSchema"], "required": [WORKFLOWS[name][0]]}}
    return tool


@lru_cache(maxsize=None)
def _input_validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(CATALOG[name].input_schema)


class ProbeKit:
    """One configured server's behaviour (toolset, variant, clock, task store), independent of transports."""

    def __init__(self, env: Mapping[str, str] | None = None, *, variant: Variant | None = None,
                 now: Callable[[], datetime] | None = None, warn: Callable[[str], None] | None = None) -> None:
        env = dict(os.environ if env is None else env)
        self.config = ToolsetConfig.from_env(env)
        if self.config.warning:
            (warn or (lambda m: print(m, file=sys.stderr, flush=True)))(self.config.warning)
        self.variant = variant if variant is not None else Variant.from_env(env)
        self.now = now or (lambda: datetime.now(timezone.utc))
        self.tasks = TaskStore(self.now, cancel_terminal_allowed=self.variant is Variant.CANCEL_AFTER_COMPLETE)
        try:
            self.step_seconds = max(0.0, float(env.get(TASK_STEP_ENV, "100")) / 1000)
        except ValueError:
            self.step_seconds = 0.1
        self.env = Env(now=self.now, run_step=self._run_internal_step)
        self.task_group: anyio.abc.TaskGroup | None = None

    # -- calls -----------------------------------------------------------------------------------------------

    def _run_internal_step(self, name: str, args: dict[str, Any]) -> str:
        """start_ui's internal steps run whatever the toolset (design "UI 工具特殊说明")."""
        assert name in UI_INTERNAL_STEPS
        return CATALOG[name].handler(args, self.env)["content"][0]["text"]

    def callable(self, name: str) -> bool:
        if self.variant is Variant.CORE_MISSING_TOOL and name == "gencommit" and self.config.toolset.value == "core":
            return False
        if self.variant is Variant.TOOLSET_LEAK:  # broken on purpose: only the listing is filtered
            return name in CATALOG
        return self.config.callable(name)

    def check_call(self, name: str, arguments: Any) -> tuple[ToolSpec | None, dict[str, Any] | None, dict | None]:
        """(spec, arguments, None) for an acceptable call, else (None, None, error result)."""
        spec = CATALOG.get(name)
        if spec is None or (self.variant is Variant.UNKNOWN_TOOL_ERROR and name == "detect_shell"):
            return None, None, error_response(f"未知工具 {name!r}（unknown tool）",  # the variant: broken on purpose
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
        problems = [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}"
                    for e in _input_validator(name).iter_errors(args)]
        if self.variant is Variant.LAX_INPUT:  # broken on purpose: nothing is validated
            problems = []
        if self.variant is not None and self.variant.requires_main_argument and name in WORKFLOWS:
            key = WORKFLOWS[name][0]
            if not str(args.get(key) or "").strip():
                problems.append(f"/{key}: required ({WORKFLOWS[name][1]})")
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
            if self.variant is Variant.STRICT_INPUTS and not _has_main_input(name, args):
                return self._finish(name, ok_text(f"# {name}\n\nUsage: {_USAGE[name]}", {"tool": name}))
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
        if self.variant is Variant.ALL_CALLS_FAIL:  # broken on purpose: nothing ever succeeds
            return error_response(f"{name}: refused (all-calls-fail)", {"code": "internal_error", "tool": name})
        if self.variant is Variant.NO_META_SCHEMA and isinstance(result.get("_meta"), dict):
            result = {**result, "_meta": {k: v for k, v in result["_meta"].items() if k != "schema"}}  # broken
        if self.variant is Variant.ERROR_WITHOUT_ISERROR and result.get("isError"):
            result = {k: v for k, v in result.items() if k != "isError"}  # broken on purpose
        if self.variant is Variant.INVALID_STRUCTURED and name == "gencommit" and "structuredContent" in result:
            bad = dict(result["structuredContent"])
            bad.pop("finalMessage", None)
            bad["type"] = "feature"  # broken on purpose: not in the enum, and a required field missing
            result = {**result, "structuredContent": bad}
        return result

    async def _ask(self, ctx: Any, name: str, args: dict[str, Any], input_responses: Mapping[str, Any] | None
                   ) -> dict[str, Any] | types.InputRequiredResult:
        """interview / ask_user through elicitation when the client declared it, else the text question.
        Handshake-era connections get an ``elicitation/create`` request; later ones (2026-07-28) an
        ``InputRequiredResult`` whose answer comes back in the retry's ``inputResponses``."""
        spec = CATALOG[name]
        if name == "ask_user":
            question = str(args.get("question") or "").strip()
            if not question:
                return spec.handler(args, self.env)
            fields = [("answer", question)]
            message = question
        else:
            topic = str(args.get("description") or "").strip()
            fields = elicitation.INTERVIEW_QUESTIONS
            message = f"Interview{f' about: {topic}' if topic else ''}"
        options = args.get("options") or None
        if self.variant is Variant.NO_SECRET_ELICITATION and elicitation.is_sensitive(message):
            return spec.handler(args, self.env)  # broken on purpose: a secret is asked in text, never via a url
        secrets_in_form = self.variant is Variant.SECRET_IN_FORM
        if ctx.protocol_version in ("2025-06-18", "2025-11-25"):
            try:
                answer = await elicitation.ask(ctx, message, fields, options=options,
                                               form_for_secrets=secrets_in_form)
            except MCPError as exc:  # the client refused the request: ask in text instead
                log.info("elicitation failed (%s); falling back to text", exc)
                return spec.handler(args, self.env)
        else:
            plan = elicitation.plan(ctx, message, fields, options=options, form_for_secrets=secrets_in_form)
            if plan.mode is elicitation.Mode.TEXT:
                return spec.handler(args, self.env)
            response = (input_responses or {}).get(elicitation.INPUT_KEY)
            if response is None:
                return types.InputRequiredResult(input_requests={elicitation.INPUT_KEY: plan.request},
                                                 request_state=f"probekit:{name}:{plan.elicitation_id or ''}")
            result = types.ElicitResult.model_validate(
                response if isinstance(response, Mapping) else response.model_dump(by_alias=True))
            state = ctx.params.get("requestState") if isinstance(ctx.params, Mapping) else None
            asked_id = str(state).rpartition(":")[2] if isinstance(state, str) else ""
            answer = elicitation.Answer(plan.mode, result.action, dict(result.content or {}) or None,
                                        asked_id or plan.elicitation_id)
        if answer.mode is elicitation.Mode.TEXT:
            return spec.handler(args, self.env)
        meta = {"mode": answer.mode.value, "action": answer.action}
        if answer.mode is elicitation.Mode.URL:
            if answer.elicitation_id:
                meta["elicitationId"] = answer.elicitation_id
            text = ("The user was sent to a secure page to enter the sensitive value; it is not returned here."
                    if answer.action == "accept" else f"The user did not open the secure page ({answer.action}).")
            return ok_text(text, meta)
        if answer.action != "accept":
            return ok_text(f"The user did not answer ({answer.action}). Proceed with stated assumptions or ask "
                           f"again later.", meta)
        lines = [f"{key}: {value}" for key, value in (answer.content or {}).items()]
        return ok_text("User answers:\n" + ("\n".join(lines) or "(empty)"), {**meta, "answers": answer.content})

    async def _workflow_input(self, ctx: Any, name: str, args: dict[str, Any],
                              input_responses: Mapping[str, Any] | None) -> dict[str, Any] | types.InputRequiredResult:
        """A workflow called without its main argument asks for it (form mode) when the client declared
        elicitation; otherwise, or when the user declines, the report says what is missing."""
        key, what, _ = WORKFLOWS[name]
        if str(args.get(key) or "").strip():
            return args
        message = f"{name} needs {key}: {what}"
        fields = [(key, f"Describe {what}")]
        if ctx.protocol_version in ("2025-06-18", "2025-11-25"):
            try:
                answer = await elicitation.ask(ctx, message, fields)
            except MCPError as exc:  # the client refused the request: report the input as missing
                log.info("elicitation failed (%s)", exc)
                return args
        else:
            plan = elicitation.plan(ctx, message, fields)
            if plan.mode is elicitation.Mode.TEXT:
                return args
            response = (input_responses or {}).get(elicitation.INPUT_KEY)
            if response is None:
                return types.InputRequiredResult(input_requests={elicitation.INPUT_KEY: plan.request},
                                                 request_state=f"probekit:{name}:")
            result = types.ElicitResult.model_validate(
                response if isinstance(response, Mapping) else response.model_dump(by_alias=True))
            answer = elicitation.Answer(plan.mode, result.action, dict(result.content or {}) or None)
        value = (answer.content or {}).get(key) if answer.action == "accept" else None
        return {**args, key: value} if isinstance(value, str) and value.strip() else args

    # -- tasks -----------------------------------------------------------------------------------------------

    async def run_task(self, task_id: str, ctx: Any, name: str, arguments: Any, progress_token: Any) -> None:
        task = self.tasks.get(task_id)
        total = len(WORKFLOWS[name][2]) if name in WORKFLOWS else 1
        with anyio.CancelScope() as scope:
            task.cancel_scope = scope
            if task.status.terminal:
                return
            await self._set_status(ctx, task_id, TaskStatus.WORKING, message=f"running {name}")
            arguments = await self._task_input(task_id, ctx, name, arguments)
            for i in range(total):
                await anyio.sleep(self.step_seconds)
                if progress_token is not None:
                    try:
                        await ctx.session.send_progress_notification(progress_token, i + 1, total,
                                                                     f"{name}: step {i + 1}/{total}")
                    except Exception:  # noqa: BLE001 - the client may be gone; the task goes on
                        log.debug("progress notification failed", exc_info=True)
            result = await self.call(None, name, arguments)
            status = TaskStatus.FAILED if result.get("isError") else TaskStatus.COMPLETED
            if not self.tasks.get(task_id).status.terminal:
                await self._set_status(ctx, task_id, status, result=result,
                                       message="completed" if status is TaskStatus.COMPLETED else "failed")

    async def _set_status(self, ctx: Any, task_id: str, status: TaskStatus, **changes: Any) -> None:
        """Update the task and tell the client (``notifications/tasks/status``, best effort)."""
        task = self.tasks.update(task_id, status, **changes)
        await self._notify_status(ctx, task)

    async def _notify_status(self, ctx: Any, task: Any) -> None:
        if ctx is None:
            return
        try:
            wire = task.wire()
            await ctx.session.send_notification(types.TaskStatusNotification(
                params=types.TaskStatusNotificationParams.model_validate(wire)))
        except Exception:  # noqa: BLE001 - the client may be gone; the task goes on
            log.debug("task status notification failed", exc_info=True)

    async def _task_input(self, task_id: str, ctx: Any, name: str, arguments: Any) -> Any:
        """A task whose workflow lacks its main argument goes to ``input_required`` while it asks (form mode,
        handshake-era connections only), then back to ``working``."""
        key, what, _ = WORKFLOWS.get(name, ("", "", []))
        args = dict(arguments) if isinstance(arguments, Mapping) else {}
        if not key or str(args.get(key) or "").strip() or ctx.protocol_version not in ("2025-06-18", "2025-11-25"):
            return arguments
        if elicitation.Mode.FORM not in elicitation.supported_modes(ctx.session.client_capabilities):
            return arguments
        await self._set_status(ctx, task_id, TaskStatus.INPUT_REQUIRED, message=f"waiting for {key} ({what})")
        try:
            result = await ctx.session.elicit_form(f"{name} needs {key}: {what}",
                                                   elicitation.form_schema([(key, f"Describe {what}")]))
            value = (result.content or {}).get(key) if result.action == "accept" else None
            if isinstance(value, str) and value.strip():
                args[key] = value
        except Exception:  # noqa: BLE001 - no answer: the report says what is missing
            log.debug("task elicitation failed", exc_info=True)
        await self._set_status(ctx, task_id, TaskStatus.WORKING, message=f"running {name}")
        return args

    async def task_middleware(self, ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        params = ctx.params if isinstance(ctx.params, Mapping) else None
        if ctx.method != "tools/call" or params is None or not isinstance(params.get("task"), Mapping):
            return await call_next(ctx)
        name = params.get("name")
        spec = CATALOG.get(name) if isinstance(name, str) else None
        if spec is None or spec.task_support is None or not self.callable(name):
            if spec is not None and spec.task_support is None and self.callable(name):
                raise MCPError(code=-32601, message=f"tool {name} does not support task-augmented calls")
            return await call_next(ctx)  # unknown or out-of-toolset: the ordinary isError answer
        if self.task_group is None:
            raise MCPError(code=-32603, message="the task runner is not started")
        ttl = params["task"].get("ttl")
        task = self.tasks.create(ttl if isinstance(ttl, int) and ttl > 0 else None, DEFAULT_POLL_INTERVAL_MS)
        meta = params.get("_meta") if isinstance(params.get("_meta"), Mapping) else {}
        self.task_group.start_soon(self.run_task, task.task_id, ctx, name, params.get("arguments"),
                                   meta.get("progressToken"))
        return {"task": task.wire()}

    async def tasks_get(self, ctx: Any, params: types.GetTaskRequestParams) -> dict[str, Any]:
        return self._task_or_raise(params.task_id).wire()

    async def tasks_result(self, ctx: Any, params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        task = self._task_or_raise(params.task_id)
        await task.done.wait()
        related = {RELATED_TASK_META: {"taskId": task.task_id}}
        if task.result is not None:
            result = dict(task.result)
            result["_meta"] = {**(result.get("_meta") or {}), **related}
            return result
        out = error_response(f"task {task.task_id} was {task.status.value} before it produced a result",
                             {"code": f"task_{task.status.value}", "taskId": task.task_id})
        out["_meta"].update(related)
        return out

    async def tasks_list(self, ctx: Any, params: types.PaginatedRequestParams) -> dict[str, Any]:
        return {"tasks": [t.wire() for t in self.tasks.list()]}

    async def tasks_cancel(self, ctx: Any, params: types.CancelTaskRequestParams) -> dict[str, Any]:
        try:
            task = self.tasks.cancel(params.task_id)
        except TaskError as exc:
            raise MCPError(code=exc.code, message=str(exc)) from None
        await self._notify_status(ctx, task)
        return task.wire()

    def _task_or_raise(self, task_id: str) -> Any:
        try:
            return self.tasks.get(task_id)
        except TaskError as exc:
            raise MCPError(code=exc.code, message=str(exc)) from None


#: What the strict-inputs variant answers to ask_user called without a question (guidance, as 1.x did). gencommit
#: keeps its error: a success of a tool that declares an outputSchema must be structured (MCP 2025-11-25), and the
#: design's gencommit always answers okStructured.
_USAGE = {"ask_user": "ask_user {\"question\": \"<the question>\", \"options\": [\"<choice>\", …]}"}


def _has_main_input(name: str, args: dict[str, Any]) -> bool:
    if name == "ask_user":
        return bool(str(args.get("question") or "").strip())
    return True


class _ProbeKitServer(Server[Any]):
    """A low-level server that also advertises the ``tasks`` capability (the SDK does not know it)."""

    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        caps = super().get_capabilities(*args, **kwargs)
        caps.tasks = types.ServerTasksCapability.model_validate(
            {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
        return caps


def build_server(env: Mapping[str, str] | None = None, *, variant: Variant | None = None,
                 now: Callable[[], datetime] | None = None, name: str = SERVER_NAME) -> Server[Any]:
    """A fresh server configured by ``env`` (MCP_TOOLSET, MCP_SHOW_ALL, MCP_DEBUG, PROBEKIT_REFERENCE_VARIANT)."""
    kit = ProbeKit(env, variant=variant, now=now)
    if kit.config.debug:
        logging.getLogger("simulator.reference.probekit").setLevel(logging.DEBUG)

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed_tools(kit.config, kit.variant))

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
                        ) -> types.CallToolResult | types.InputRequiredResult:
        result = await kit.call(ctx, params.name, params.arguments, params.input_responses)
        return result if isinstance(result, types.InputRequiredResult) else to_call_tool_result(result)

    @asynccontextmanager
    async def lifespan(server: Server[Any]) -> Any:
        async with anyio.create_task_group() as tg:
            kit.task_group = tg
            try:
                yield {"probekit": kit}
            finally:
                kit.task_group = None
                tg.cancel_scope.cancel()

    server = _ProbeKitServer(name, version=__version__, lifespan=lifespan,
                             instructions="mcp-probe-kit reference: development tools and start_* workflows.",
                             on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.append(kit.task_middleware)
    server.add_request_handler("tasks/get", types.GetTaskRequestParams, kit.tasks_get)
    server.add_request_handler("tasks/result", types.GetTaskPayloadRequestParams, kit.tasks_result)
    server.add_request_handler("tasks/list", types.PaginatedRequestParams, kit.tasks_list)
    server.add_request_handler("tasks/cancel", types.CancelTaskRequestParams, kit.tasks_cancel)
    server.probekit = kit  # type: ignore[attr-defined]  # for tests and the harness
    return server
