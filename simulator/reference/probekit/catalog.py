"""The 49 tools of probe-kit 1.15.1: name, description, inputSchema, outputSchema (structured tools) and handler.

Handlers are plain functions ``(args, env) -> result dict`` (output.py form), offline and deterministic. The
guidance tools share one builder (``_guidance``): a checklist specific to the tool, filled with the arguments
given. ``interview`` and ``ask_user`` need the session (elicitation) and are run by server.py; their handlers
here give the text fallback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from . import elicitation, gencommit, workflows
from .output import error_response, ok_structured, ok_text
from .schemas import CommitMessageSchema, WorkflowReportSchema
from .toolsets import ALL_TOOLS

__all__ = ["ToolSpec", "CATALOG", "STRUCTURED_TOOLS", "tool_definition", "Env"]


@dataclass
class Env:
    """What a handler may use besides its arguments: the clock and the internal-step runner."""
    now: Callable[[], datetime] = field(default=lambda: datetime.now(timezone.utc))
    run_step: Callable[[str, dict[str, Any]], str] | None = None


Handler = Callable[[dict[str, Any], Env], dict[str, Any]]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Handler
    output_schema: dict[str, Any] | None = None
    #: "optional" for tools that accept task-augmented calls (the start_* workflows).
    task_support: str | None = None


def _schema(props: dict[str, str], required: tuple[str, ...] = ()) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for key, desc in props.items():
        kind = "string"
        if desc.startswith("[array] "):
            kind, desc = "array", desc[8:]
        elif desc.startswith("[boolean] "):
            kind, desc = "boolean", desc[10:]
        properties[key] = {"type": kind, "description": desc}
        if kind == "array":
            properties[key]["items"] = {"type": "string"}
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


# name → (description, {argument: description}, [checklist items]). Every argument is optional: a tool called
# with {} still answers with its generic checklist (design test strategy §3).
_GUIDANCE: dict[str, tuple[str, dict[str, str], list[str]]] = {
    "init_project": ("Create a project skeleton plan from a description.", {"input": "what to build", "project_name": "name"},
                     ["choose the stack", "create the directory layout", "add README, licence, .gitignore", "set up lint and tests"]),
    "genchangelog": ("Generate a changelog from commits.", {"version": "version to release", "from": "start ref", "to": "end ref"},
                     ["collect commits between the refs", "group by Conventional Commits type", "list breaking changes first", "write the version section"]),
    "genpr": ("Generate a pull-request description.", {"branch": "branch name", "changes": "summary or diff"},
              ["title in Conventional Commits form", "what changed and why", "how it was tested", "risks and rollout"]),
    "resolve_conflict": ("Guide the resolution of merge conflicts.", {"conflicts": "conflicting hunks"},
                         ["list the conflicted files", "understand both sides", "keep behaviour of both where possible", "re-run the tests"]),
    "debug": ("Debug an error systematically.", {"error": "error message or stack trace", "context": "what was happening"},
              ["reproduce reliably", "read the stack trace bottom-up", "bisect the cause", "confirm with a failing test"]),
    "code_review": ("Review code for quality, bugs and style.", {"code": "code or diff to review"},
                    ["correctness and edge cases", "naming and structure", "error handling", "tests"]),
    "perf": ("Find performance problems.", {"code": "code to analyse", "type": "cpu | memory | io"},
             ["measure first", "find hot paths", "avoid repeated work (cache, batch)", "measure again"]),
    "security_scan": ("Scan code for security issues.", {"code": "code to scan", "language": "language"},
                      ["injection (SQL, shell, template)", "secrets in code", "authentication and authorisation", "unsafe deserialisation"]),
    "refactor": ("Plan a refactoring.", {"code": "code to refactor", "goal": "what to improve"},
                 ["keep behaviour: tests first", "small steps", "extract functions, remove duplication", "re-run tests after each step"]),
    "fix_bug": ("Fix a bug end to end.", {"error_message": "the error", "code": "relevant code"},
                ["reproduce", "find root cause", "fix minimally", "add a regression test"]),
    "gentest": ("Generate tests for code.", {"code": "code to test", "framework": "test framework"},
                ["happy path", "edge cases and errors", "one behaviour per test", "no network in unit tests"]),
    "gendoc": ("Generate documentation for code.", {"code": "code to document", "style": "doc style"},
               ["purpose of each public name", "parameters and return values", "errors raised", "an example"]),
    "genapi": ("Design an API.", {"description": "what the API does", "style": "rest | graphql | rpc"},
               ["resources and operations", "request and response schemas", "error model", "authentication"]),
    "gensql": ("Generate SQL from a description.", {"description": "the query in words", "dialect": "SQL dialect"},
               ["tables and joins", "filters and parameters (never string-built)", "indexes needed", "expected result shape"]),
    "gen_mock": ("Generate mock data.", {"schema": "data shape", "count": "how many records"},
                 ["field types", "realistic values", "edge values", "deterministic seed"]),
    "genreadme": ("Generate a README.", {"project_name": "project name", "description": "what it does"},
                  ["what and why", "install", "usage example", "licence"]),
    "check_deps": ("Check dependencies.", {"manifest": "package manifest content"},
                   ["outdated versions", "known vulnerabilities", "unused dependencies", "licences"]),
    "analyze_project": ("Analyse a project's structure.", {"project_path": "path", "focus": "what to look at"},
                        ["languages and frameworks", "entry points", "build and test commands", "hot spots"]),
    "init_project_context": ("Write the project context document.", {"project_path": "path"},
                             ["tech stack", "architecture", "conventions", "how to run and test"]),
    "add_feature": ("Write a feature specification.", {"feature_name": "feature", "description": "what it does"},
                    ["requirements", "design", "tasks", "acceptance criteria"]),
    "estimate": ("Estimate effort.", {"task": "what to estimate", "description": "details"},
                 ["break down into tasks", "estimate each (best/likely/worst)", "add risk buffer", "state assumptions"]),
    "ui_design_system": ("Generate a design system.", {"product": "product type", "style": "visual style"},
                         ["colour palette", "typography", "spacing scale", "components"]),
    "init_component_catalog": ("Create the component catalog (internal step of start_ui).", {"description": "the UI"},
                               ["button, input, card, modal", "props of each", "states (hover, disabled, error)"]),
    "ui_search": ("Search UI patterns and styles.", {"query": "what to search", "domain": "style | color | typography"},
                  ["match the product type", "check accessibility contrast", "pick one consistent style"]),
    "sync_ui_data": ("Synchronise the UI data set.", {"force": "[boolean] re-download even if cached"},
                     ["the reference is offline: the bundled data set is used", "nothing to download"]),
    "render_ui": ("Render a UI from a template (internal step of start_ui).", {"description": "the UI", "template": "template"},
                  ["layout", "components from the catalog", "responsive breakpoints"]),
    "convert": ("Convert code between languages or frameworks.", {"code": "code", "from": "source", "to": "target"},
                ["map idioms, not lines", "types and error handling", "tests in the target"]),
    "css_order": ("Order CSS properties.", {"css": "CSS to order"},
                  ["positioning", "box model", "typography", "visual", "misc"]),
    "design2code": ("Turn a design into code.", {"design": "design description or URL", "framework": "framework"},
                    ["layout grid", "components", "styles from the design system", "responsive behaviour"]),
    "detect_shell": ("Detect the shell environment.", {},
                     ["the reference does not inspect the machine", "check $SHELL and the OS yourself"]),
    "explain": ("Explain code.", {"code": "code to explain"},
                ["what it does", "how (step by step)", "why this way", "pitfalls"]),
    "fix": ("Fix lint, type or format errors.", {"code": "code", "type": "lint | type | format"},
            ["read each error", "fix the cause, not the symptom", "re-run the checker"]),
    "gen_skill": ("Generate an agent skill document.", {"scope": "what the skill covers"},
                  ["when to use it", "steps", "examples", "limits"]),
    "genui": ("Generate UI components.", {"description": "the component", "framework": "framework"},
              ["props", "states", "accessibility", "styles"]),
    "init_setting": ("Write recommended editor/agent settings.", {},
                     ["model and context settings", "formatting on save", "ignore files"]),
    "split": ("Split a large file.", {"file": "file path or content", "strategy": "by type | function | feature"},
              ["find cohesive groups", "move one group at a time", "fix imports", "re-run tests"]),
}


def _guidance(name: str) -> Handler:
    desc, props, checklist = _GUIDANCE[name]

    def handler(args: dict[str, Any], env: Env) -> dict[str, Any]:
        given = {k: v for k, v in args.items() if v not in (None, "", [])}
        lines = [f"# {name}", "", desc, ""]
        if given:
            lines.append("## Input")
            for key, value in given.items():
                text = value if isinstance(value, str) else repr(value)
                lines.append(f"- {key}: {text[:200]}{'…' if len(text) > 200 else ''}")
            lines.append("")
        else:
            missing = ", ".join(props) or "none"
            lines += [f"(no arguments given; this tool accepts: {missing})", ""]
        lines.append("## Checklist")
        subject = next((str(v) for v in given.values() if isinstance(v, str)), "")
        short = subject.splitlines()[0][:60] if subject else ""
        lines += [f"{i}. {item}" + (f" — for: {short}" if short and i == 1 else "")
                  for i, item in enumerate(checklist, 1)]
        return ok_text("\n".join(lines), {"tool": name})

    return handler


def _gencommit(args: dict[str, Any], env: Env) -> dict[str, Any]:
    diff = args.get("changes") or args.get("diff")
    path = args.get("repo_path") or args.get("path")
    if not diff and not path:
        return error_response("gencommit needs changes (a unified diff or a description) or repo_path "
                              "(a git repository whose staged changes are used)",
                              {"code": "missing_argument", "arguments": ["changes", "repo_path"]})
    description = None
    if not diff:
        try:
            diff = gencommit.staged_diff(str(path))
        except gencommit.GitError as exc:
            return error_response(f"cannot read the staged changes of {path}: {exc}",
                                  {"code": "git_failed", "path": str(path)})
        if not diff.strip():
            return error_response(f"no staged changes in {path} (run git add first)",
                                  {"code": "nothing_staged", "path": str(path)})
    elif not gencommit.parse_diff(diff):
        description = diff.strip().splitlines()[0][:72]
    data = gencommit.build_commit(diff, type_=args.get("type"), scope=args.get("scope"), issue=args.get("issue"),
                                  breaking=args.get("breaking"), description=description)
    text = f"📝 生成的提交消息：\n\n{data['finalMessage']}\n\n---\n类型: {data['type']}"
    if data.get("scope"):
        text += f"\n范围: {data['scope']}"
    if data["breaking"]:
        text += "\n⚠️ 包含破坏性更改"
    return ok_structured(schema=CommitMessageSchema, data=data, text_fallback=text)


def _workflow(name: str) -> Handler:
    def handler(args: dict[str, Any], env: Env) -> dict[str, Any]:
        report = workflows.build_report(name, args, now=env.now, run_step=env.run_step)
        return ok_structured(schema=WorkflowReportSchema, data=report, text_fallback=workflows.report_text(report))
    return handler


def _question_text(name: str) -> Handler:
    def handler(args: dict[str, Any], env: Env) -> dict[str, Any]:
        if name == "ask_user":
            question = str(args.get("question") or "").strip()
            if not question:
                return error_response("ask_user needs question (the question to ask the user)",
                                      {"code": "missing_argument", "arguments": ["question"]})
            if elicitation.is_sensitive(question):
                return ok_text(elicitation.fallback_to_text(
                    question + "（敏感信息：请不要在对话中输入，请通过环境变量或安全的配置文件提供）"),
                    {"mode": "text", "sensitive": True})
            return ok_text(elicitation.fallback_to_text(question, args.get("options") or None), {"mode": "text"})
        topic = str(args.get("description") or "").strip()
        questions = "\n".join(f"{i}. {q}" for i, (_, q) in enumerate(elicitation.INTERVIEW_QUESTIONS, 1))
        return ok_text(elicitation.fallback_to_text(
            f"Interview{f' about: {topic}' if topic else ''}. Please answer each question:\n{questions}"),
            {"mode": "text"})
    return handler


def _build() -> dict[str, ToolSpec]:
    specs: dict[str, ToolSpec] = {}
    for name, (desc, props, _) in _GUIDANCE.items():
        specs[name] = ToolSpec(name, desc, _schema(props), _guidance(name))
    specs["gencommit"] = ToolSpec(
        "gencommit", "Generate a Conventional Commits message from a diff or a repository's staged changes.",
        _schema({"changes": "a unified diff (or a one-line description of the change)",
                 "repo_path": "a git repository: its staged changes (git diff --cached) are used",
                 "type": "force the commit type", "scope": "force the scope", "issue": "issue closed by the commit",
                 "breaking": "[boolean] mark as a breaking change"}),
        _gencommit, output_schema=CommitMessageSchema)
    specs["gencommit"].input_schema["properties"]["issue"]["type"] = ["string", "integer"]
    specs["gencommit"].input_schema["properties"]["type"]["enum"] = list(CommitMessageSchema["properties"]["type"]["enum"])
    for name, (key, what, _) in workflows.WORKFLOWS.items():
        specs[name] = ToolSpec(name, f"Workflow: {what.replace('the ', '', 1)} — returns a WorkflowReport.",
                               _schema({key: what}), _workflow(name), output_schema=WorkflowReportSchema,
                               task_support="optional")
    specs["interview"] = ToolSpec("interview", "Interview the user about requirements before building.",
                                  _schema({"description": "what the interview is about"}), _question_text("interview"))
    specs["ask_user"] = ToolSpec("ask_user", "Ask the user a question (form, secure URL, or text).",
                                 _schema({"question": "the question", "options": "[array] choices, if any"}),
                                 _question_text("ask_user"))
    missing = set(ALL_TOOLS) ^ set(specs)
    assert not missing, missing
    return {name: specs[name] for name in ALL_TOOLS}


CATALOG: dict[str, ToolSpec] = _build()
STRUCTURED_TOOLS: tuple[str, ...] = tuple(n for n, s in CATALOG.items() if s.output_schema is not None)


def tool_definition(spec: ToolSpec) -> dict[str, Any]:
    """The wire form of a tool in ``tools/list``."""
    tool: dict[str, Any] = {"name": spec.name, "description": spec.description, "inputSchema": spec.input_schema}
    if spec.output_schema is not None:
        tool["outputSchema"] = spec.output_schema
    if spec.task_support:
        tool["execution"] = {"taskSupport": spec.task_support}
    return tool
