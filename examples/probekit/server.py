"""A minimal probe-kit MCP server: mcp-probe-kit-v2-design.md over stdio (how to run and judge it: README.md).

Theory of operation. ``TOOLS_TABLE`` is the one table of the 49 tools of full (§1: 完整工具集（49个）), their toolsets
(§1 TOOLSET_DEFINITIONS), main argument, purpose and, for start_*, the tools a workflow orchestrates; every definition
is derived from it. ``ProbeKit.call`` answers every tools/call in the design's shapes (§2 okText, okStructured,
errorResponse): toolset check (isToolAvailable), the arguments against the tool's own inputSchema (安全考虑 2), then a
guidance text, gencommit (§3.2), a WorkflowReport (§3.1) or ask_user (§5). Task-augmented start_* calls (§4; MCP
2025-11-25 tasks) are taken by a server middleware and run in a task group ``serve`` owns.
"""

from __future__ import annotations

import logging
import os
import posixpath
import re
import sys
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import anyio
import jsonschema
import mcp.types as types
from mcp import MCPError
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

# -- the tools (design §1): name | toolsets (core, ui, workflow) | main argument ("-": none) | purpose | start_* steps
TOOLS_TABLE = """
init_project           | ... | description   | Plan the scaffolding of a new project
gencommit              | c.w | changes       | Write a Conventional Commits message for staged changes (a unified diff)
genchangelog           | ..w | changes       | Draft a changelog entry from the changes
genpr                  | c.w | changes       | Draft a pull request description from the changes
resolve_conflict       | ... | conflict      | Resolve a merge conflict
debug                  | c.w | error_message | Locate the cause of an error
code_review            | c.w | code          | Review code for bugs, clarity and style
perf                   | c.w | code          | Find performance problems in code
security_scan          | c.w | code          | Scan code for security problems
refactor               | ... | code          | Propose a refactoring of code
fix_bug                | ... | error_message | Propose a fix for a bug
gentest                | c.w | code          | Write tests for code
gendoc                 | ... | code          | Write documentation for code
genapi                 | c.w | code          | Write API documentation
gensql                 | ... | description   | Write SQL for a request in plain words
gen_mock               | ..w | description   | Generate mock data
genreadme              | ... | description   | Write a README for a project
check_deps             | ... | project_path  | Check a project's dependencies
analyze_project        | c.w | project_path  | Analyse a project's structure and stack
init_project_context   | c.w | project_path  | Write the project context docs an agent reads first
add_feature            | ..w | description   | Plan a feature: spec, tasks, tests
estimate               | c.w | description   | Estimate the effort of a piece of work
start_feature          | ..w | description   | Build a feature      | analyze_project add_feature gentest gencommit
start_bugfix           | c.w | error_message | Fix a bug            | debug fix gentest gencommit
start_review           | ..w | code          | Review code in depth | code_review security_scan perf
start_release          | ..w | version       | Prepare a release    | check_deps gentest genchangelog genpr
start_refactor         | ..w | code          | Refactor safely      | analyze_project refactor gentest
start_onboard          | ..w | project_path  | Learn a project      | init_project_context analyze_project gendoc
start_api              | ..w | description   | Design an API        | genapi gen_mock gentest
start_doc              | ..w | description   | Document a project   | analyze_project gendoc genreadme
start_ralph            | ..w | goal          | Loop on a goal       | interview add_feature gentest gencommit
interview              | c.w | description   | Interview the user before a feature is built
ask_user               | c.w | question      | Ask the user a question (a form, a secure page or plain text)
ui_design_system       | .uw | description   | Generate a design system
init_component_catalog | ... | description   | Build the component catalog (a start_ui step)
ui_search              | .uw | query         | Search UI styles, palettes and components
sync_ui_data           | .u. | description   | Sync UI data with the design system
render_ui              | ... | description   | Render a UI from the component catalog (a start_ui step)
start_ui               | .uw | description   | Build a UI           | ui_design_system init_component_catalog render_ui
convert                | ... | code          | Convert code between frameworks
css_order              | ... | code          | Order CSS properties
design2code            | .uw | description   | Turn a design into code
detect_shell           | ... | -             | Detect the user's shell
explain                | ... | code          | Explain code
fix                    | c.w | code          | Fix lint and type errors in code
gen_skill              | ... | description   | Write an agent skill
genui                  | .u. | description   | Generate a UI component
init_setting           | ... | -             | Write the editor settings for AI assistants
split                  | ... | file          | Split a large file into modules
"""
TOOLS: dict[str, tuple[str | None, str, list[str]]] = {}
TOOLSETS: dict[str, list[str]] = {"full": [], "core": [], "ui": [], "workflow": []}  # §1 TOOLSET_DEFINITIONS
for _line in TOOLS_TABLE.strip().splitlines():
    _name, _flags, _arg, _purpose, *_steps = [c.strip() for c in _line.split("|")]
    TOOLS[_name] = (None if _arg == "-" else _arg, _purpose, _steps[0].split() if _steps else [])
    for _toolset in ["full"] + [t for t, f in zip(("core", "ui", "workflow"), _flags, strict=False) if f != "."]:
        TOOLSETS[_toolset].append(_name)
WORKFLOWS = [n for n, (_, _, steps) in TOOLS.items() if steps]
UI_STEPS = {"init_component_catalog", "render_ui"}  # start_ui runs them itself in every toolset (UI 工具特殊说明)

# -- the design's schemas (§3.1 WorkflowReport, §3.2 CommitMessage), served as outputSchema and in _meta.schema -------
STR, NUM, OBJ = {"type": "string"}, {"type": "number"}, "object"
WORKFLOW_REPORT = {"type": OBJ, "required": ["workflowName", "summary", "steps", "nextActions"], "properties": {
    "workflowName": STR, "summary": STR,
    "steps": {"type": "array", "items": {"type": OBJ, "required": ["name", "status"], "properties": {
        "name": STR, "status": {"type": "string", "enum": ["pending", "running", "completed", "failed", "skipped"]},
        "input": {"type": OBJ}, "outputs": {"type": "array"}, "notes": STR, "duration": NUM}}},
    "artifacts": {"type": "array", "items": {"type": OBJ, "required": ["type", "path", "description"], "properties": {
        "type": {"type": "string", "enum": ["file", "code", "config", "doc", "test"]}, "path": STR,
        "description": STR, "contentPreview": STR}}},
    "risks": {"type": "array", "items": {"type": OBJ, "properties": {
        "level": {"type": "string", "enum": ["low", "medium", "high"]}, "description": STR, "mitigation": STR}}},
    "assumptions": {"type": "array", "items": STR},
    "nextActions": {"type": "array", "items": {"type": OBJ, "required": ["priority", "action"], "properties": {
        "priority": NUM, "action": STR, "reason": STR}}},
    "timestamps": {"type": OBJ, "properties": {"started": {"type": "string", "format": "date-time"},
                                               "completed": {"type": "string", "format": "date-time"}}}}}
COMMIT_TYPES = ["feat", "fix", "docs", "style", "refactor", "test", "chore", "perf", "build", "ci", "revert"]
COMMIT_MESSAGE = {"type": OBJ, "required": ["type", "subject", "finalMessage"], "properties": {
    "type": {"type": "string", "enum": COMMIT_TYPES}, "scope": STR, "subject": STR, "body": STR,
    "breaking": {"type": "boolean"}, "footers": {"type": "array", "items": STR}, "finalMessage": STR}}
OUTPUT_SCHEMAS = {"gencommit": COMMIT_MESSAGE, **{name: WORKFLOW_REPORT for name in WORKFLOWS}}
EXTRA_PROPERTIES = {  # the arguments beyond the main one
    "gencommit": {"type": {"type": "string", "enum": COMMIT_TYPES}, "scope": STR, "breaking": {"type": "boolean"}},
    "ask_user": {"options": {"type": "array", "items": STR, "description": "The choices offered, if any"}},
}


def input_schema(name: str) -> dict[str, Any]:
    """The tool's inputSchema: its main argument, required, plus its extras (none for a tool without one)."""
    arg = TOOLS[name][0]
    props = {arg: {"type": "string", "description": f"The {arg.replace('_', ' ')}"}} if arg else {}
    return {"type": "object", "properties": {**props, **EXTRA_PROPERTIES.get(name, {})},
            "required": [arg] if arg else []}


# -- output (design §2 统一输出封装) -----------------------------------------------------------------------------------
def ok_text(text: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], **({"_meta": meta} if meta else {})}


def ok_structured(schema: dict[str, Any], data: dict[str, Any], text_fallback: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text_fallback}], "structuredContent": data,
            "_meta": {"schema": schema}}


def error_response(message: str, code: str, **details: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": f"❌ 错误: {message}"}], "isError": True,
            "_meta": {"error": {"code": code, **details}}}


def flag(env: Any, name: str) -> bool:
    return (env.get(name) or "").strip().lower() in ("1", "true", "yes")


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# -- gencommit (§3.2, 迁移步骤; Conventional Commits 1.0.0) ---------------------------------------------------------
FILE_KINDS = [("docs", r"\.(md|rst|txt|adoc)$|^docs/"),
              ("test", r"(^|/)(tests?|__tests__)/|\.(test|spec)\.|(^|/)test_"),
              ("ci", r"^\.github/workflows/|^\.gitlab-ci|^\.circleci/"),
              ("build", r"(^|/)(package(-lock)?\.json|pyproject\.toml|setup\.py|Makefile|Dockerfile|go\.mod)$")]
FIX_WORDS = re.compile(r"\b(fix|bug|error|null|none|guard|handle|crash)\b", re.IGNORECASE)
GENERIC_DIRS = {"", ".", "src", "lib", "app", "tests", "test", "docs", "pkg"}


def parse_diff(diff: str) -> list[dict[str, Any]]:
    """The files of a unified diff: path, whether it is new, the lines added, how many were removed."""
    files: list[dict[str, Any]] = []
    for line in diff.splitlines():
        if m := re.match(r"diff --git a/(\S+) b/(\S+)", line):
            files.append({"path": m[2], "new": False, "added": [], "removed": 0})
        elif files and line.startswith("new file mode"):
            files[-1]["new"] = True
        elif files and line.startswith("+") and not line.startswith("+++"):
            files[-1]["added"].append(line[1:])
        elif files and line.startswith("-") and not line.startswith("---"):
            files[-1]["removed"] += 1
    return files


def commit_type(files: list[dict[str, Any]]) -> str:
    """The first rule that applies: one non-code kind for all files, a new code file (feat), fix-like words in the
    changed lines (fix), more lines added than removed (feat), else refactor."""
    kinds = {next((k for k, rx in FILE_KINDS if re.search(rx, f["path"])), "code") for f in files}
    if len(kinds) == 1 and "code" not in kinds:
        return kinds.pop()
    if any(f["new"] for f in files):
        return "feat"
    if any(FIX_WORDS.search(line) for f in files for line in f["added"]):
        return "fix"
    return "feat" if sum(len(f["added"]) for f in files) > sum(f["removed"] for f in files) else "refactor"


def gencommit(args: dict[str, Any]) -> dict[str, Any]:
    """CommitMessage data (okStructured) and the design's textFallback, which carries finalMessage (迁移步骤)."""
    changes: str = args["changes"]
    files = parse_diff(changes)
    if files:
        kind = args.get("type") or commit_type(files)
        common = posixpath.commonpath([posixpath.dirname(f["path"]) for f in files])
        scope = args.get("scope") or next((d for d in reversed(common.split("/")) if d not in GENERIC_DIRS), "")
        names = [posixpath.basename(f["path"]) for f in files]
        subject = f"{'add' if all(f['new'] for f in files) else 'update'} {', '.join(names[:3])}" \
            + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        body = "\n".join(f"- {'added' if f['new'] else 'modified'} {f['path']} (+{len(f['added'])} -{f['removed']})"
                         for f in files[:20])
    else:  # free text: its first line is the subject
        kind, scope, body = args.get("type") or "chore", args.get("scope") or "", ""
        subject = changes.strip().splitlines()[0][:72] if changes.strip() else "update"
    breaking = bool(args.get("breaking")) or bool(re.search(r"BREAKING[ -]CHANGE", changes))
    footers = [f"BREAKING CHANGE: {subject}"] if breaking else []
    header = f"{kind}{f'({scope})' if scope else ''}{'!' if breaking else ''}: {subject}"
    final = "\n\n".join(part for part in (header, body, "\n".join(footers)) if part)
    data = {"type": kind, **({"scope": scope} if scope else {}), "subject": subject, **({"body": body} if body else {}),
            "breaking": breaking, "footers": footers, "finalMessage": final}
    text = f"📝 生成的提交消息：\n\n{final}\n\n---\n类型: {kind}" + (f"\n范围: {scope}" if scope else "") \
        + ("\n⚠️ 包含破坏性更改" if breaking else "")
    return ok_structured(COMMIT_MESSAGE, data, text)


# -- a generic tool and the start_* workflows (§3.1) ---------------------------------------------------------------
def guidance(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """What a probe-kit tool answers: guidance for the agent that carries the work out."""
    arg, purpose, _ = TOOLS[name]
    given = f"\n\n{arg}: {args[arg]}" if arg else ""
    return ok_text(f"## {name}\n{purpose}.{given}\n\nCarry this out in the project, then report the result.")


async def workflow(name: str, args: dict[str, Any], pace: float) -> dict[str, Any]:
    """A WorkflowReport: start_ui's internal steps run here (completed, their text in outputs); every other step is
    a tool the agent calls next (pending, one next action each). ``pace``: seconds per step (tasks only)."""
    arg, purpose, step_names = TOOLS[name]
    started, value = now_iso(), args[arg]
    steps, actions = [], []
    for step in step_names:
        await anyio.sleep(pace)
        if step in UI_STEPS:
            steps.append({"name": step, "status": "completed", "input": {arg: value},
                          "outputs": [guidance(step, {"description": value})["content"][0]["text"]]})
        else:
            steps.append({"name": step, "status": "pending", "input": {arg: value}, "notes": TOOLS[step][1]})
            actions.append({"priority": len(actions) + 1, "action": f"Call {step}", "reason": TOOLS[step][1]})
    summary = f"{purpose}: {value}"
    report = {"workflowName": name, "summary": summary, "steps": steps, "nextActions": actions,
              "timestamps": {"started": started, "completed": now_iso()}}
    text = "\n".join([f"# {name}", summary, ""] + [f"{i}. {s['name']} [{s['status']}]" for i, s in
                                                     enumerate(steps, 1)])
    return ok_structured(WORKFLOW_REPORT, report, text)


# -- ask_user (§5 Elicitation, 安全考虑 1: no secret in a form, a URL to a secure page) --------------------------------
SECRET = re.compile(r"token|password|passphrase|secret|\bkey\b|credential|密码|密钥|令牌|凭证", re.IGNORECASE)


def fallback_to_text(message: str, options: list[str] | None = None) -> str:
    """The design's fallbackToText, word for word."""
    text = f"❓ {message}\n\n"
    if options:
        text += "可选项：\n" + "".join(f"{i}. {opt}\n" for i, opt in enumerate(options, 1))
    return text + "\n请回答："


async def ask_user(ctx: ServerRequestContext[Any], args: dict[str, Any]) -> dict[str, Any]:
    """A secret goes to a secure page (url mode) or, without it, to text; anything else to a form or text; a client
    gets only the modes it declared (MCP 2025-11-25 client/elicitation: ``elicitation: {}`` means form)."""
    question, options = args["question"], args.get("options") or []
    declared = ctx.session.client_capabilities.elicitation if ctx.session.client_capabilities else None
    form = declared is not None and (declared.form is not None or declared.url is None)
    url = declared is not None and declared.url is not None
    if SECRET.search(question):
        if not url:
            return ok_text(fallback_to_text(question, options) + "\n(Do not paste it here: set it in an environment "
                           "variable or a config file the tool reads.)", {"mode": "text"})
        eid = str(uuid.uuid4())
        page = f"https://probekit.invalid/secure-input?id={eid}"
        answer = await ctx.session.elicit_url(question, page, eid, related_request_id=ctx.request_id)
        return ok_text(f"The secure page {page} was offered: the user answered {answer.action} (the value itself "
                       "never passes through this server).", {"mode": "url", "action": answer.action, "id": eid})
    if not form:
        return ok_text(fallback_to_text(question, options), {"mode": "text"})
    field_schema = {"type": "string", "title": question[:100], **({"enum": options} if options else {})}
    answer = await ctx.session.elicit_form(question, {"type": "object", "properties": {"answer": field_schema},
                                                      "required": ["answer"]}, related_request_id=ctx.request_id)
    if answer.action != "accept" or not answer.content:
        return ok_text(f"The user did not answer ({answer.action}): {question}", {"mode": "form"})
    lines = "\n".join(f"{k}: {v}" for k, v in answer.content.items())
    return ok_text(f"{question}\n{lines}", {"mode": "form", "action": "accept", "answers": answer.content})


# -- the server: toolset, validation, dispatch -----------------------------------------------------------------------
class ProbeKit:
    """The toolset manager (§1) and the dispatcher every tools/call goes through."""

    def __init__(self, env: dict[str, str]) -> None:
        raw = (env.get("MCP_TOOLSET") or "").strip().lower()
        if raw and raw not in TOOLSETS:
            print(f"probekit-example: warning: unknown MCP_TOOLSET {raw!r}; using full", file=sys.stderr)
        self.toolset = raw if raw in TOOLSETS else "full"
        listed = TOOLSETS["full"] if flag(env, "MCP_SHOW_ALL") else TOOLSETS[self.toolset]
        self.listing = [types.Tool(  # cached: the definitions never change
            name=n, description=TOOLS[n][1] + ".", input_schema=input_schema(n), output_schema=OUTPUT_SCHEMAS.get(n),
            execution=types.ToolExecution(task_support="optional") if n in WORKFLOWS else None) for n in listed]
        self.validators = {name: jsonschema.Draft202012Validator(input_schema(name)) for name in TOOLS}

    def callable(self, name: str) -> bool:
        """isToolAvailable: a tool outside the toolset is refused even when MCP_SHOW_ALL lists it."""
        return name in TOOLSETS[self.toolset]

    async def call(self, ctx: ServerRequestContext[Any] | None, name: str, args: Any, pace: float = 0) -> dict:
        if name not in TOOLS:
            return error_response(f"unknown tool {name}", "unknown_tool", tool=name)
        if not self.callable(name):
            return error_response(f"工具 {name} 不在当前工具集 '{self.toolset}' 中 (tool {name} is not in the active "
                                  f"toolset '{self.toolset}'; set MCP_TOOLSET=full to use it)", "tool_not_in_toolset",
                                  tool=name, toolset=self.toolset)
        args = args if args is not None else {}
        problems = [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}"
                    for e in self.validators[name].iter_errors(args)]
        if problems:
            return error_response(f"invalid arguments for {name}: " + "; ".join(problems), "invalid_arguments",
                                  problems=problems)
        try:
            if name == "gencommit":
                return gencommit(args)
            if name == "ask_user":
                return await ask_user(ctx, args)
            if name in WORKFLOWS:
                return await workflow(name, args, pace)
            return guidance(name, args)
        except Exception as exc:  # noqa: BLE001 - an answer, never a JSON-RPC error
            logging.exception("tool %s failed", name)
            return error_response(f"{name} failed: {exc}", "internal_error")


# -- tasks (§4 Tasks 管理器, MCP 2025-11-25 basic/utilities/tasks) ----------------------------------------------------
RELATED_TASK = "io.modelcontextprotocol/related-task"
TERMINAL = {"completed", "failed", "cancelled"}
STEP_SECONDS = 0.1  # each workflow step of a task takes this long, so a client can watch it working


@dataclass
class Task:
    """One task: its wire form (§4 Task; MCP 2025-11-25 Task), and what tasks/result and tasks/cancel need."""
    wire: dict[str, Any]
    created: float = field(default_factory=time.monotonic)
    result: dict[str, Any] | None = None
    done: anyio.Event = field(default_factory=anyio.Event)
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)

    def update(self, status: str, result: dict[str, Any] | None = None) -> None:
        if self.wire["status"] in TERMINAL:  # a cancelled task stays cancelled
            return
        self.wire.update(status=status, lastUpdatedAt=now_iso())
        if status in TERMINAL:
            self.result = result
            self.done.set()


class Tasks:
    """The task store: created by a task-augmented start_* call, cleaned lazily once its ttl has passed."""

    def __init__(self, kit: ProbeKit, group: anyio.abc.TaskGroup) -> None:
        self.kit, self.group, self.tasks = kit, group, {}

    async def middleware(self, ctx: ServerRequestContext[Any], call_next: Any) -> Any:
        """Take a task-augmented tools/call of a start_* tool (the SDK's on_call_tool cannot answer a task)."""
        params = ctx.params or {}
        if ctx.method != "tools/call" or not isinstance(params.get("task"), dict):
            return await call_next(ctx)
        name = params.get("name")
        if name in TOOLS and self.kit.callable(name) and name not in WORKFLOWS:
            raise MCPError(code=types.METHOD_NOT_FOUND, message=f"{name} does not support task-augmented calls")
        if name not in WORKFLOWS or not self.kit.callable(name):
            return await call_next(ctx)  # the ordinary refusal
        ttl = params["task"].get("ttl")
        stamp = now_iso()
        task = Task({"taskId": str(uuid.uuid4()), "status": "working", "createdAt": stamp, "lastUpdatedAt": stamp,
                     "ttl": ttl if isinstance(ttl, int) and ttl > 0 else None, "pollInterval": 5000})
        self.tasks[task.wire["taskId"]] = task
        self.group.start_soon(self.run, task, name, params.get("arguments"))
        return {"task": dict(task.wire)}

    async def run(self, task: Task, name: str, args: Any) -> None:
        with task.scope:
            result = await self.kit.call(None, name, args, pace=STEP_SECONDS)
            task.update("failed" if result.get("isError") else "completed", result)

    def cleanup(self) -> None:
        """cleanupExpiredTasks: drop every task whose ttl has passed (a running one is cancelled)."""
        now = time.monotonic()
        for tid, t in list(self.tasks.items()):
            if t.wire["ttl"] is not None and (now - t.created) * 1000 > t.wire["ttl"]:
                t.scope.cancel()
                del self.tasks[tid]

    def find(self, task_id: str) -> Task:
        self.cleanup()
        if task_id not in self.tasks:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown or expired task {task_id!r}")
        return self.tasks[task_id]

    async def get(self, ctx: Any, params: types.GetTaskRequestParams) -> dict[str, Any]:
        return dict(self.find(params.task_id).wire)

    async def result(self, ctx: Any, params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        task = self.find(params.task_id)
        await task.done.wait()
        result = task.result or {}
        return {**result, "_meta": {**result.get("_meta", {}), RELATED_TASK: {"taskId": task.wire["taskId"]}}}

    async def cancel(self, ctx: Any, params: types.CancelTaskRequestParams) -> dict[str, Any]:
        task = self.find(params.task_id)
        if task.wire["status"] in TERMINAL:  # the spec refuses every terminal task (the design forgot cancelled)
            raise MCPError(code=types.INVALID_PARAMS, message=f"task {params.task_id} is already {task.wire['status']}")
        task.scope.cancel()
        task.update("cancelled", error_response("the task was cancelled", "task_cancelled"))
        return dict(task.wire)

    async def list(self, ctx: Any, params: types.PaginatedRequestParams) -> dict[str, Any]:
        self.cleanup()
        return {"tasks": [dict(t.wire) for t in self.tasks.values()]}


# -- process ---------------------------------------------------------------------------------------------------------
async def serve(env: dict[str, str]) -> None:
    kit = ProbeKit(env)

    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=kit.listing)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> dict[str, Any]:
        return await kit.call(ctx, params.name, params.arguments)

    server = Server("probekit-example", version="0.1.0", on_list_tools=list_tools, on_call_tool=call_tool)
    async with anyio.create_task_group() as group:
        tasks = Tasks(kit, group)
        server.middleware.append(tasks.middleware)
        server.add_request_handler("tasks/get", types.GetTaskRequestParams, tasks.get)
        server.add_request_handler("tasks/result", types.GetTaskPayloadRequestParams, tasks.result)
        server.add_request_handler("tasks/cancel", types.CancelTaskRequestParams, tasks.cancel)
        server.add_request_handler("tasks/list", types.PaginatedRequestParams, tasks.list)
        options = server.create_initialization_options()
        options.capabilities.tasks = types.ServerTasksCapability.model_validate(
            {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
        async with stdio_server() as (read, write):
            await server.run(read, write, options)
        group.cancel_scope.cancel()


if __name__ == "__main__":
    logging.basicConfig(level=logging.DEBUG if flag(os.environ, "MCP_DEBUG") else logging.WARNING, stream=sys.stderr)
    anyio.run(serve, dict(os.environ))
