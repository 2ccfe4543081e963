"""A minimal probe-kit MCP server: mcp-probe-kit-v2-design.md over stdio (how to run and judge it: README.md).

Theory of operation. ``TOOLS`` is the one table of the 49 tools of full (design §1: 完整工具集（49个）, 向后兼容):
name, main argument, what the tool is for and, for the start_* workflows, the tools they orchestrate. Every
definition (inputSchema, outputSchema, task support) is derived from it, and the toolsets are the design's lists
(``TOOLSETS``), read from ``MCP_TOOLSET`` (default full) with ``MCP_SHOW_ALL`` widening the listing only. One
dispatcher (``ProbeKit.call``) answers every ``tools/call`` with the design's three shapes (§2 okText, okStructured,
errorResponse): toolset check, then the input against the tool's own inputSchema (安全考虑 2 validateInput), then the
handler: a generic guidance text, gencommit (§3.2 CommitMessage), a start_* WorkflowReport (§3.1) or ask_user (§5
Elicitation). Task-augmented calls of start_* (§4, MCP 2025-11-25 tasks) are taken in a server middleware and run in
a task group owned by ``main``; ``tasks/get|result|list|cancel`` are request handlers over ``Tasks``.
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

# -- the tools (design §1): name | main argument ("-": none) | purpose | steps of a start_* workflow -------------------
TOOLS_TABLE = """
init_project           | description   | Plan the scaffolding of a new project
gencommit              | changes       | Write a Conventional Commits message for staged changes (a unified diff)
genchangelog           | changes       | Draft a changelog entry from the changes
genpr                  | changes       | Draft a pull request description from the changes
resolve_conflict       | conflict      | Resolve a merge conflict
debug                  | error_message | Locate the cause of an error
code_review            | code          | Review code for bugs, clarity and style
perf                   | code          | Find performance problems in code
security_scan          | code          | Scan code for security problems
refactor               | code          | Propose a refactoring of code
fix_bug                | error_message | Propose a fix for a bug
gentest                | code          | Write tests for code
gendoc                 | code          | Write documentation for code
genapi                 | code          | Write API documentation
gensql                 | description   | Write SQL for a request in plain words
gen_mock               | description   | Generate mock data
genreadme              | description   | Write a README for a project
check_deps             | project_path  | Check a project's dependencies
analyze_project        | project_path  | Analyse a project's structure and stack
init_project_context   | project_path  | Write the project context docs an agent reads first
add_feature            | description   | Plan a feature: spec, tasks, tests
estimate               | description   | Estimate the effort of a piece of work
start_feature          | description   | Develop a feature end to end     | analyze_project add_feature estimate gentest gencommit
start_bugfix           | error_message | Fix a bug end to end             | debug fix gentest gencommit
start_review           | code          | Review code in depth             | code_review security_scan perf
start_release          | version       | Prepare a release                | check_deps gentest genchangelog genpr
start_refactor         | code          | Refactor safely                  | analyze_project refactor gentest
start_onboard          | project_path  | Get to know a project            | init_project_context analyze_project gendoc
start_api              | description   | Design and document an API       | genapi gen_mock gentest
start_doc              | description   | Write a project's documentation  | analyze_project gendoc genreadme
start_ralph            | goal          | Loop on a goal until it is done  | interview add_feature gentest gencommit
interview              | description   | Interview the user before a feature is built
ask_user               | question      | Ask the user a question (a form, a secure page or plain text)
ui_design_system       | description   | Generate a design system
init_component_catalog | description   | Build the component catalog (a start_ui step)
ui_search              | query         | Search UI styles, palettes and components
sync_ui_data           | description   | Sync UI data with the design system
render_ui              | description   | Render a UI from the component catalog (a start_ui step)
start_ui               | description   | Build a UI end to end            | ui_design_system init_component_catalog render_ui
convert                | code          | Convert code between frameworks
css_order              | code          | Order CSS properties
design2code            | description   | Turn a design into code
detect_shell           | -             | Detect the user's shell
explain                | code          | Explain code
fix                    | code          | Fix lint and type errors in code
gen_skill              | description   | Write an agent skill
genui                  | description   | Generate a UI component
init_setting           | -             | Write the editor settings for AI assistants
split                  | file          | Split a large file into modules
"""
TOOLS: dict[str, tuple[str | None, str, list[str]]] = {}
for _line in TOOLS_TABLE.strip().splitlines():
    _name, _arg, _purpose, *_steps = [c.strip() for c in _line.split("|")]
    TOOLS[_name] = (None if _arg == "-" else _arg, _purpose, _steps[0].split() if _steps else [])
WORKFLOWS = [n for n, (_, _, steps) in TOOLS.items() if steps]
UI_STEPS = {"init_component_catalog", "render_ui"}  # start_ui runs them itself in every toolset (UI 工具特殊说明)

TOOLSETS = {  # design §1 TOOLSET_DEFINITIONS; full is 'all'
    "full": list(TOOLS),
    "core": "interview ask_user init_project_context analyze_project code_review security_scan perf debug fix gentest "
            "genapi genpr gencommit estimate start_bugfix".split(),
    "ui": "start_ui ui_search ui_design_system design2code genui sync_ui_data".split(),
    "workflow": "start_feature start_onboard start_bugfix start_ui start_ralph start_review start_release "
                "start_refactor start_api start_doc interview ask_user init_project_context analyze_project add_feature "
                "estimate code_review security_scan perf debug fix gentest gencommit genpr genchangelog genapi gen_mock "
                "design2code ui_design_system ui_search".split(),
}

# -- the design's schemas (§3.1 WorkflowReport, §3.2 CommitMessage), served as outputSchema and in _meta.schema -------
STR, NUM = {"type": "string"}, {"type": "number"}
WORKFLOW_REPORT = {"type": "object", "properties": {
    "workflowName": {"type": "string", "description": "工作流名称（如 start_bugfix）"},
    "summary": {"type": "string", "description": "一句话总结"},
    "steps": {"type": "array", "description": "执行步骤", "items": {"type": "object", "properties": {
        "name": STR, "status": {"type": "string", "enum": ["pending", "running", "completed", "failed", "skipped"]},
        "input": {"type": "object"}, "outputs": {"type": "array"}, "notes": STR, "duration": NUM},
        "required": ["name", "status"]}},
    "artifacts": {"type": "array", "description": "产出物", "items": {"type": "object", "properties": {
        "type": {"type": "string", "enum": ["file", "code", "config", "doc", "test"]}, "path": STR,
        "description": STR, "contentPreview": STR}, "required": ["type", "path", "description"]}},
    "risks": {"type": "array", "description": "风险点", "items": {"type": "object", "properties": {
        "level": {"type": "string", "enum": ["low", "medium", "high"]}, "description": STR, "mitigation": STR}}},
    "assumptions": {"type": "array", "description": "假设条件", "items": STR},
    "nextActions": {"type": "array", "description": "下一步建议", "items": {"type": "object", "properties": {
        "priority": NUM, "action": STR, "reason": STR}, "required": ["priority", "action"]}},
    "timestamps": {"type": "object", "properties": {"started": {"type": "string", "format": "date-time"},
                                                    "completed": {"type": "string", "format": "date-time"}}}},
    "required": ["workflowName", "summary", "steps", "nextActions"]}
COMMIT_TYPES = ["feat", "fix", "docs", "style", "refactor", "test", "chore", "perf", "build", "ci", "revert"]
COMMIT_MESSAGE = {"type": "object", "properties": {
    "type": {"type": "string", "enum": COMMIT_TYPES, "description": "提交类型"},
    "scope": {"type": "string", "description": "影响范围（可选）"}, "subject": {"type": "string", "description": "简短描述"},
    "body": {"type": "string", "description": "详细描述（可选）"},
    "breaking": {"type": "boolean", "description": "是否包含破坏性更改"},
    "footers": {"type": "array", "description": "页脚信息（如 Closes #123）", "items": STR},
    "finalMessage": {"type": "string", "description": "完整的提交消息（可直接复制）"}},
    "required": ["type", "subject", "finalMessage"]}
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


def tool_definition(name: str) -> types.Tool:
    return types.Tool(name=name, description=TOOLS[name][1] + ".", input_schema=input_schema(name),
                      output_schema=OUTPUT_SCHEMAS.get(name),
                      execution=types.ToolExecution(task_support="optional") if name in WORKFLOWS else None)


# -- output (design §2 统一输出封装) -----------------------------------------------------------------------------------
def ok_text(text: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], **({"_meta": meta} if meta else {})}


def ok_structured(schema: dict[str, Any], data: dict[str, Any], text_fallback: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text_fallback}], "structuredContent": data, "_meta": {"schema": schema}}


def error_response(message: str, code: str, **details: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": f"❌ 错误: {message}"}], "isError": True,
            "_meta": {"error": {"code": code, **details}}}


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# -- gencommit (§3.2, 迁移步骤; Conventional Commits 1.0.0) ---------------------------------------------------------
FILE_KINDS = [("docs", r"\.(md|rst|txt|adoc)$|^docs/"), ("test", r"(^|/)(tests?|__tests__)/|\.(test|spec)\.|(^|/)test_"),
              ("ci", r"^\.github/workflows/|^\.gitlab-ci|^\.circleci/"),
              ("build", r"(^|/)(package(-lock)?\.json|pyproject\.toml|setup\.py|Makefile|Dockerfile|go\.mod)$")]
FIX_WORDS = re.compile(r"\b(fix|bug|error|null|none|guard|handle|crash)\b", re.IGNORECASE)
GENERIC_DIRS = {"", ".", "src", "lib", "app", "tests", "test", "docs", "pkg"}


def parse_diff(diff: str) -> list[dict[str, Any]]:
    """The files of a unified diff: path, new/deleted, lines added and removed."""
    files: list[dict[str, Any]] = []
    for line in diff.splitlines():
        if m := re.match(r"diff --git a/(\S+) b/(\S+)", line):
            files.append({"path": m[2], "new": False, "deleted": False, "added": [], "removed": 0})
        elif files and line.startswith("new file mode"):
            files[-1]["new"] = True
        elif files and line.startswith("deleted file mode"):
            files[-1]["deleted"] = True
        elif files and line.startswith("+") and not line.startswith("+++"):
            files[-1]["added"].append(line[1:])
        elif files and line.startswith("-") and not line.startswith("---"):
            files[-1]["removed"] += 1
    return files


def commit_type(files: list[dict[str, Any]]) -> str:
    """The first rule that applies: one non-code kind for all files, a new code file (feat), fix-like words in the
    changed lines (fix), pure deletions (refactor), more added than removed (feat), else refactor."""
    kinds = {next((k for k, rx in FILE_KINDS if re.search(rx, f["path"])), "code") for f in files}
    if len(kinds) == 1 and "code" not in kinds:
        return kinds.pop()
    if any(f["new"] for f in files):
        return "feat"
    if any(FIX_WORDS.search(line) for f in files for line in f["added"]):
        return "fix"
    if all(f["deleted"] for f in files):
        return "refactor"
    return "feat" if sum(len(f["added"]) for f in files) > sum(f["removed"] for f in files) else "refactor"


def gencommit(args: dict[str, Any]) -> dict[str, Any]:
    changes: str = args["changes"]
    files = parse_diff(changes)
    if files:
        kind = args.get("type") or commit_type(files)
        common = posixpath.commonpath([posixpath.dirname(f["path"]) for f in files])
        scope = args.get("scope") or next((d for d in reversed(common.split("/")) if d not in GENERIC_DIRS), "")
        verb = "add" if all(f["new"] for f in files) else "remove" if all(f["deleted"] for f in files) else "update"
        names = [posixpath.basename(f["path"]) for f in files]
        subject = f"{verb} {', '.join(names[:3])}" + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        body = "\n".join(f"- {'added' if f['new'] else 'deleted' if f['deleted'] else 'modified'} {f['path']} "
                         f"(+{len(f['added'])} -{f['removed']})" for f in files[:20])
    else:  # free text: its first line is the subject
        kind, scope, body = args.get("type") or "chore", args.get("scope") or "", ""
        subject = changes.strip().splitlines()[0][:72] if changes.strip() else "update"
    breaking = bool(args.get("breaking")) or bool(re.search(r"BREAKING[ -]CHANGE", changes))
    footers = [f"BREAKING CHANGE: {subject}"] if breaking else []
    header = f"{kind}{f'({scope})' if scope else ''}{'!' if breaking else ''}: {subject}"
    final = "\n\n".join(part for part in (header, body, "\n".join(footers)) if part)
    data = {"type": kind, **({"scope": scope} if scope else {}), "subject": subject, **({"body": body} if body else {}),
            "breaking": breaking, "footers": footers, "finalMessage": final}
    text = "\n".join(line for line in ("📝 生成的提交消息：", "", final, "", "---", f"类型: {kind}",
                                       f"范围: {scope}" if scope else "", "⚠️ 包含破坏性更改" if breaking else "") if line
                     is not None)
    return ok_structured(COMMIT_MESSAGE, data, text.strip())


# -- a generic tool and the start_* workflows (§3.1) ---------------------------------------------------------------
def guidance(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """What a probe-kit tool answers: guidance for the agent that carries the work out."""
    arg, purpose, _ = TOOLS[name]
    given = f"\n\n{arg}: {args[arg]}" if arg else ""
    return ok_text(f"## {name}\n{purpose}.{given}\n\nCarry out the steps above in the project and report the result.")


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
              "artifacts": [{"type": "doc", "path": f"docs/{name}/{slugify(value)}.md", "description": summary}],
              "timestamps": {"started": started, "completed": now_iso()}}
    text = "\n".join([f"# {name}", summary, ""] + [f"{i}. {s['name']} [{s['status']}]" for i, s in
                                                     enumerate(steps, 1)])
    return ok_structured(WORKFLOW_REPORT, report, text)


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "report"


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
    caps = ctx.session.client_capabilities
    declared = caps.elicitation if caps else None
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
                       "never passes through this server).", {"mode": "url", "action": answer.action,
                                                              "elicitationId": eid})
    if not form:
        return ok_text(fallback_to_text(question, options), {"mode": "text"})
    field_schema: dict[str, Any] = {"type": "string", "title": question[:100]}
    if options:
        field_schema["enum"] = options
    answer = await ctx.session.elicit_form(question, {"type": "object", "properties": {"answer": field_schema},
                                                      "required": ["answer"]}, related_request_id=ctx.request_id)
    if answer.action != "accept" or not answer.content:
        return ok_text(f"The user did not answer ({answer.action}): {question}", {"mode": "form",
                                                                                  "action": answer.action})
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
        self.show_all = (env.get("MCP_SHOW_ALL") or "").strip().lower() in ("1", "true", "yes")
        listed = TOOLSETS["full"] if self.show_all else TOOLSETS[self.toolset]
        self.listing = [tool_definition(name) for name in listed]  # cached: the definitions never change
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
        problems = [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in self.validators[name].iter_errors(args)]
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
    wire: dict[str, Any]
    created: float = field(default_factory=time.monotonic)
    result: dict[str, Any] | None = None
    done: anyio.Event = field(default_factory=anyio.Event)
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)

    def update(self, status: str, result: dict[str, Any] | None = None) -> None:
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
        options.capabilities.tasks = types.ServerTasksCapability(
            list=types.TasksListCapability(), cancel=types.TasksCancelCapability(),
            requests=types.ServerTasksRequestsCapability(tools=types.TasksToolsCapability(call=types.TasksCallCapability())))
        async with stdio_server() as (read, write):
            await server.run(read, write, options)
        group.cancel_scope.cancel()


def main() -> None:
    env = dict(os.environ)
    debug = (env.get("MCP_DEBUG") or "").strip().lower() in ("1", "true", "yes")
    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING, stream=sys.stderr)
    anyio.run(serve, env)


if __name__ == "__main__":
    main()
