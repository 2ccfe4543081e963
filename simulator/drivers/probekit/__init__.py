"""The probe-kit driver: the harness as the MCP client of an mcp-probe-kit v2 server, judging what the design
"vNext 架构升级 - 设计文档" (mcp-probe-kit-v2-design.md) asks: toolsets, the output contract, gencommit,
WorkflowReport, Tasks and Elicitation.

Theory of operation. Every scenario opens one MCP session with the ``probekit`` subject (``session``); a toolset
scenario may first make the same call on a second, short session under another toolset, the contrast that tells a
toolset's refusal from an ordinary failure (``ProbeKitDriver.prepare_contrast``). Expectations (tool names, toolset
members, schemas, commit types) are written in the feature files, taken from the design; the driver never holds
them. Inputs: the design defines a few; everywhere else a call carries arguments the subject's own ``inputSchema``
accepts (``arguments``), and arguments a feature wrote out that the subject does not accept make the scenario *not
testable*, never a verdict on the subject.

Evidence rules: an "every X is Y" check fails when no X was seen; a tool the subject does not list is reported,
never a reason to stop checking the others; a structured result is judged against the schema it carries in
``_meta.schema`` (the design's channel, §2 ``okStructured``), the tool's ``outputSchema`` when it declares one
(MCP 2025-11-25 server/tools#output-schema) and the design's own schema for that tool (§3), all three.

| module | holds |
|---|---|
| ``driver`` | ``ProbeKitDriver``: sessions, calls, tasks, elicitation answers (the scenario's state) |
| ``session`` | ``ProbeSession`` (one client session and its tool list), ``ProbeKitSubject`` / ``HarnessSubject`` |
| ``calls`` | ``Call`` (one ``tools/call`` and its response) and the output contract (§2, 测试策略 3) |
| ``arguments`` | the arguments of a call: written out and checked, or built from the ``inputSchema`` |
| ``working`` | the arguments of a call that must work: schema-valid sets tried until the tool accepts one |
| ``schemas`` | JSON Schema dialects and problems, the design's schemas by tool glob |
| ``structured`` | ``structuredContent`` against ``_meta.schema``, ``outputSchema`` and the design's schema |
| ``commits`` | gencommit's Conventional Commits header (§3.2) |
| ``toolsets`` | what ``tools/list`` offers under a toolset (§1) |
| ``tasks`` | task statuses and what ``tasks/*`` answer (MCP 2025-11-25 basic/utilities/tasks, §4) |
| ``elicitation`` | form / url elicitation, secret words, the numbered text fallback (§5, 安全考虑 1) |
| ``expect`` | how a check fails (an ``AssertionError`` that ``python -O`` keeps) |
"""

from __future__ import annotations

from .arguments import breaking_arguments_for, checked_arguments, every_tool
from .calls import (
    UNKNOWN_TOOL, Call, check_answered, check_error_with_text, check_failures_are_error_responses,
    check_output_contract, check_refused, check_succeeds_with_text, check_text_contains, content0_text,
    content_problems, failed, has_text, is_unknown_tool_error, malformed_content, output_contract_problem,
)
from .commits import (
    CONVENTIONAL, CommitHeader, check_conventional_header, check_text_carries_final_message, parse_header,
)
from .driver import ProbeKitDriver
from .elicitation import (
    SECRET_WORDS, check_form_sent, check_no_elicitation, check_no_form, check_no_secret_in_forms,
    check_numbered_options, check_url_only, check_url_sent, fill_form, form_answerer, secret_fields,
)
from .expect import expect
from .schemas import DesignSchemas, SchemaDialect, check_valid, schema_problems
from .session import ROLE, HarnessSubject, ProbeKitSubject, ProbeSession
from .structured import (
    StructuredJudgement, check_design_schema, check_every_structured, check_field_non_empty, check_meta_schema,
    check_meta_schema_requires, check_structured, check_workflow_name, judge_structured, meta_of, structured_of,
)
from .tasks import (
    RELATED_TASK_META, TASK_STATUSES, TERMINAL, TaskStatus, check_cancel_accepted, check_cancel_refused,
    check_related_task, check_status_unchanged, check_task, check_task_got, check_task_gone, check_task_listed,
    check_task_not_listed, check_task_result, check_task_status, check_task_timing, created_task, is_terminal,
)
from .toolsets import check_listed_exactly, check_listed_including, check_not_listed, listed_twice
from .working import ASKING_MODE, WorkingCall, asking_mode, search, with_asking_mode

__all__ = [
    "ASKING_MODE", "CONVENTIONAL", "RELATED_TASK_META", "ROLE", "SECRET_WORDS", "TASK_STATUSES", "TERMINAL",
    "UNKNOWN_TOOL",
    "Call", "CommitHeader", "DesignSchemas", "HarnessSubject", "ProbeKitDriver", "ProbeKitSubject", "ProbeSession",
    "SchemaDialect", "StructuredJudgement", "TaskStatus", "WorkingCall",
    "asking_mode", "breaking_arguments_for", "check_answered", "check_cancel_accepted", "check_cancel_refused",
    "check_conventional_header", "check_design_schema", "check_error_with_text",
    "check_failures_are_error_responses", "check_refused", "failed",
    "check_every_structured", "check_field_non_empty", "check_form_sent", "check_listed_exactly",
    "check_listed_including", "check_meta_schema", "check_meta_schema_requires", "check_no_elicitation",
    "check_no_form", "check_no_secret_in_forms", "check_not_listed", "check_numbered_options",
    "check_output_contract", "check_related_task", "check_structured", "check_succeeds_with_text", "check_task",
    "check_status_unchanged", "check_task_got", "check_task_gone", "check_task_listed", "check_task_not_listed",
    "check_task_result", "check_task_status", "check_task_timing", "check_text_carries_final_message",
    "check_text_contains", "check_url_only", "check_url_sent", "check_valid", "check_workflow_name",
    "checked_arguments", "content0_text", "content_problems", "created_task", "every_tool", "expect", "fill_form",
    "form_answerer", "has_text", "is_terminal", "is_unknown_tool_error", "judge_structured", "listed_twice",
    "malformed_content", "meta_of", "output_contract_problem", "parse_header", "schema_problems", "search",
    "secret_fields", "structured_of", "with_asking_mode",
]
