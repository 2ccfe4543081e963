"""The start_* orchestration tools: each returns a WorkflowReport (design §3.1) built offline from its arguments.

A workflow is a table of steps (name, the tool it delegates to, what the step needs). The reference does the
steps it can do without the project (collecting input, planning) and marks them ``completed``; the steps an
agent must carry out are ``pending``; a step whose input is missing is ``skipped`` with a note, and the report
asks for that input in ``nextActions`` (docs/probekit-decisions.md). The clock is an argument.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

__all__ = ["WORKFLOWS", "WORKFLOW_INPUTS", "build_report", "report_text", "step_count"]

#: workflow → (the argument it is about, its description, [(step, delegated tool or "", done offline?)]).
WORKFLOWS: dict[str, tuple[str, str, list[tuple[str, str, bool]]]] = {
    "start_feature": ("description", "the feature to build", [
        ("collect requirements", "interview", True), ("estimate effort", "estimate", True),
        ("write feature spec", "add_feature", True), ("implement", "", False), ("write tests", "gentest", False),
        ("review", "code_review", False), ("commit", "gencommit", False)]),
    "start_bugfix": ("error_message", "the error or symptom to fix", [
        ("reproduce", "debug", True), ("locate root cause", "debug", True), ("fix", "fix", False),
        ("regression test", "gentest", False), ("commit", "gencommit", False)]),
    "start_review": ("code", "the code or change to review", [
        ("code review", "code_review", True), ("security scan", "security_scan", True), ("performance", "perf", True),
        ("report", "", True)]),
    "start_release": ("version", "the version to release", [
        ("changelog", "genchangelog", True), ("release notes", "genpr", True), ("tag", "", False),
        ("publish", "", False)]),
    "start_refactor": ("code", "the code to refactor", [
        ("analyse", "code_review", True), ("plan refactoring", "refactor", True), ("refactor", "", False),
        ("tests", "gentest", False), ("commit", "gencommit", False)]),
    "start_onboard": ("project_path", "the project to onboard onto", [
        ("analyse project", "analyze_project", True), ("project context", "init_project_context", True),
        ("read the docs", "", False)]),
    "start_api": ("description", "the API to design", [
        ("design API", "genapi", True), ("mock data", "gen_mock", True), ("implement", "", False),
        ("tests", "gentest", False), ("documentation", "gendoc", False)]),
    "start_doc": ("code", "the code to document", [
        ("analyse", "analyze_project", True), ("API docs", "gendoc", True), ("README", "genreadme", False)]),
    "start_ralph": ("goal", "the goal of the loop", [
        ("set goal", "", True), ("plan iteration", "", True), ("implement", "", False), ("verify", "gentest", False),
        ("loop until done", "", False)]),
    "start_ui": ("description", "the UI to build", [
        ("design system", "ui_design_system", True), ("component catalog", "init_component_catalog", True),
        ("search patterns", "ui_search", True), ("render UI", "render_ui", True), ("generate code", "genui", False)]),
}

#: Each workflow's main argument, for the input schemas.
WORKFLOW_INPUTS: dict[str, str] = {name: spec[0] for name, spec in WORKFLOWS.items()}

Runner = Callable[[str, dict[str, Any]], str]


def step_count(name: str) -> int:
    """How many steps a task of tool ``name`` reports progress for: a workflow's steps, else one."""
    return len(WORKFLOWS[name][2]) if name in WORKFLOWS else 1


def _iso(now: datetime) -> str:
    return now.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def build_report(name: str, args: dict[str, Any], *, now: Callable[[], datetime],
                 run_step: Runner | None = None) -> dict[str, Any]:
    """The WorkflowReport of workflow ``name`` for ``args``. ``run_step(tool, args)`` runs an internal step
    (start_ui's init_component_catalog and render_ui) and returns its text, kept in the step's outputs."""
    key, what, table = WORKFLOWS[name]
    started = now()
    subject = str(args.get(key) or "").strip()
    steps: list[dict[str, Any]] = []
    for step, tool, offline in table:
        entry: dict[str, Any] = {"name": step, "status": "pending", "input": {key: subject} if subject else {}}
        if tool:
            entry["notes"] = f"tool: {tool}"
        if offline and subject:
            entry["status"] = "completed"
            if run_step is not None and tool in ("init_component_catalog", "render_ui"):
                entry["outputs"] = [run_step(tool, {"description": subject})]
            entry["duration"] = 0
        elif offline:
            entry["status"] = "skipped"
            entry["notes"] = f"{entry.get('notes', '')}; skipped: no {key} given".lstrip("; ")
        steps.append(entry)
    slug = "".join(c if c.isalnum() else "-" for c in (subject or name).lower())[:40].strip("-") or name
    artifacts = [{"type": "doc", "path": f"docs/{name.removeprefix('start_')}/{slug}.md",
                  "description": f"plan for {what}", "contentPreview": f"# {subject or what}"}] if subject else []
    risks = [{"level": "medium", "description": f"{what} was described in {len(subject.split())} words only",
              "mitigation": "confirm the requirements with interview before implementing"}] if subject and len(
        subject.split()) < 5 else []
    if not subject:
        risks.append({"level": "high", "description": f"no {key} was given: nothing could be planned",
                      "mitigation": f"call {name} again with {key}"})
    next_actions = []
    if not subject:
        next_actions.append({"priority": 1, "action": f"call {name} with the argument {key} ({what})",
                             "reason": "the workflow needs it"})
    for i, (step, tool, _offline) in enumerate((s for s in table if not s[2]), start=len(next_actions) + 1):
        next_actions.append({"priority": i, "action": step + (f" (use {tool})" if tool else ""),
                             "reason": "left to the agent: needs the project's files"})
    done = sum(1 for s in steps if s["status"] == "completed")
    summary = (f"{name}: {done}/{len(steps)} steps done for {subject!r}" if subject
               else f"{name}: waiting for {key} ({what})")
    return {
        "workflowName": name, "summary": summary, "steps": steps, "artifacts": artifacts, "risks": risks,
        "assumptions": [f"{key} is {subject!r}" if subject else f"{key} not given",
                        "the reference server works offline and does not read the project"],
        "nextActions": next_actions,
        "timestamps": {"started": _iso(started), "completed": _iso(now())},
    }


def report_text(report: dict[str, Any]) -> str:
    marks = {"completed": "✅", "pending": "⏳", "skipped": "⏭️", "failed": "❌", "running": "🔄"}
    lines = [f"# {report['workflowName']}", "", report["summary"], "", "## Steps"]
    lines += [f"{i}. {marks.get(s['status'], '')} {s['name']} ({s['status']})" for i, s in
              enumerate(report["steps"], 1)]
    lines += ["", "## Next actions"] + [f"{a['priority']}. {a['action']}" for a in report["nextActions"]]
    return "\n".join(lines)
