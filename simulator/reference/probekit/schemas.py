"""The design's JSON Schemas (mcp-probe-kit-v2-design §3): ``WorkflowReportSchema`` and ``CommitMessageSchema``,
word for word, plus pre-compiled Draft 2020-12 validators (design "Schema 验证优化")."""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker  # type: ignore[import-untyped]  # types-jsonschema not installed

__all__ = ["WorkflowReportSchema", "CommitMessageSchema", "COMMIT_TYPES", "STEP_STATUSES", "validator", "errors_of"]

COMMIT_TYPES = ("feat", "fix", "docs", "style", "refactor", "test", "chore", "perf", "build", "ci", "revert")
STEP_STATUSES = ("pending", "running", "completed", "failed", "skipped")

WorkflowReportSchema: dict[str, Any] = {
    "type": "object",
    "properties": {
        "workflowName": {"type": "string", "description": "工作流名称（如 start_bugfix）"},
        "summary": {"type": "string", "description": "一句话总结"},
        "steps": {
            "type": "array",
            "description": "执行步骤",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "status": {"type": "string", "enum": list(STEP_STATUSES)},
                    "input": {"type": "object"},
                    "outputs": {"type": "array"},
                    "notes": {"type": "string"},
                    "duration": {"type": "number"},
                },
                "required": ["name", "status"],
            },
        },
        "artifacts": {
            "type": "array",
            "description": "产出物",
            "items": {
                "type": "object",
                "properties": {
                    "type": {"type": "string", "enum": ["file", "code", "config", "doc", "test"]},
                    "path": {"type": "string"},
                    "description": {"type": "string"},
                    "contentPreview": {"type": "string"},
                },
                "required": ["type", "path", "description"],
            },
        },
        "risks": {
            "type": "array",
            "description": "风险点",
            "items": {
                "type": "object",
                "properties": {
                    "level": {"type": "string", "enum": ["low", "medium", "high"]},
                    "description": {"type": "string"},
                    "mitigation": {"type": "string"},
                },
            },
        },
        "assumptions": {"type": "array", "description": "假设条件", "items": {"type": "string"}},
        "nextActions": {
            "type": "array",
            "description": "下一步建议",
            "items": {
                "type": "object",
                "properties": {
                    "priority": {"type": "number"},
                    "action": {"type": "string"},
                    "reason": {"type": "string"},
                },
                "required": ["priority", "action"],
            },
        },
        "timestamps": {
            "type": "object",
            "properties": {
                "started": {"type": "string", "format": "date-time"},
                "completed": {"type": "string", "format": "date-time"},
            },
        },
    },
    "required": ["workflowName", "summary", "steps", "nextActions"],
}

CommitMessageSchema: dict[str, Any] = {
    "type": "object",
    "properties": {
        "type": {"type": "string", "enum": list(COMMIT_TYPES), "description": "提交类型"},
        "scope": {"type": "string", "description": "影响范围（可选）"},
        "subject": {"type": "string", "description": "简短描述"},
        "body": {"type": "string", "description": "详细描述（可选）"},
        "breaking": {"type": "boolean", "description": "是否包含破坏性更改"},
        "footers": {"type": "array", "description": "页脚信息（如 Closes #123）", "items": {"type": "string"}},
        "finalMessage": {"type": "string", "description": "完整的提交消息（可直接复制）"},
    },
    "required": ["type", "subject", "finalMessage"],
}

_BY_ID = {"WorkflowReport": WorkflowReportSchema, "CommitMessage": CommitMessageSchema}


_FORMATS = FormatChecker()
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def _date_time(value: object) -> bool:
    """RFC 3339 date-time (JSON Schema "format"), checked here so no optional jsonschema extra is needed."""
    if not isinstance(value, str):
        return True
    if not _RFC3339.match(value):
        return False
    datetime.fromisoformat(value.replace("z", "Z").replace("Z", "+00:00"))
    return True


_FORMATS.checks("date-time", raises=ValueError)(_date_time)  # registered by a call: the decorator is untyped


@lru_cache(maxsize=None)
def validator(name: str) -> Draft202012Validator:
    """The compiled validator of ``"WorkflowReport"`` or ``"CommitMessage"`` (date-time formats checked)."""
    return Draft202012Validator(_BY_ID[name], format_checker=_FORMATS)


def errors_of(name: str, data: Any) -> list[str]:
    """Every violation of schema ``name`` by ``data`` as ``/json/pointer: message`` (empty when valid)."""
    return [f"/{'/'.join(str(p) for p in e.absolute_path)}: {e.message}"
            for e in sorted(validator(name).iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))]
