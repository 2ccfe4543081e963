"""Broken cc-web references that list or define the tools wrongly (PRD "统一 ccweb 消息回传接口" §1 the public
tool contract, §3 the Codex App fallback list): each is the correct ``CcwebMachine`` with the one method overridden
that states the rule it breaks (``tool_definitions``, ``listed_tools`` or ``fallback_tools``)."""

from __future__ import annotations

import copy
from typing import Any, Final

from ...ccweb import contract
from ...ccweb.contract import LEGACY_REQUEST_REPLY_TOOL, SEND_TOOL
from ...ccweb.machine import CcwebMachine
from ..registry import broken

__all__ = [
    "ReplyModeDefault", "DescriptionOneMode", "SendListedTwice", "TargetIdNumberOrString", "ReplyModeNoEnum",
    "ReplyModeOptional", "AliasListed", "FallbackCopiedDrift", "AliasInFallback", "FallbackWithoutSend",
    "FallbackAllTools",
]

SUBJECT: Final = "ccweb-mcp"


def _send_tool(tools: list[dict[str, Any]]) -> dict[str, Any]:
    return next(t for t in tools if t["name"] == SEND_TOOL)


def _alias_definition(namespace: str | None = None) -> dict[str, Any]:
    """``ccweb_request_reply`` as an old server defined it (PRD §2: the alias stays callable, never listed)."""
    alias = {"name": LEGACY_REQUEST_REPLY_TOOL,
             "description": "Send a message to another conversation and get its reply back automatically.",
             "inputSchema": contract.tool_schema(LEGACY_REQUEST_REPLY_TOOL)}
    return alias if namespace is None else {"name": alias["name"], "namespace": namespace,
                                            "description": alias["description"], "inputSchema": alias["inputSchema"]}


# -- §1 the public tool contract ---------------------------------------------------------------------------------


@broken("replymode-default", subject=SUBJECT, breaks=["CCWEB-SCHEMA-NODEFAULT-01"],
        also=["CCWEB-FALLBACK-SAME-DEF-01"],
        clause="§1 \"JSON Schema 必须把 replyMode 列入 required，且不得为新调用提供默认值。\"")
class ReplyModeDefault(CcwebMachine):
    """``replymode-default``: the shared definitions give ``replyMode`` ``"default": "one_way"``. Its
    ``tools/list`` now differs from the fallback list built from the untouched definitions, so that check may fail
    with it."""

    def tool_definitions(self) -> list[dict[str, Any]]:
        tools = super().tool_definitions()
        _send_tool(tools)["inputSchema"]["properties"]["replyMode"]["default"] = contract.REPLY_MODE_ONE_WAY
        return tools


@broken("description-one-mode", subject=SUBJECT, run="embedded",
        breaks=["CCWEB-DESC-MODES-01", "CCWEB-DESC-RULES-01"],
        clause="§1 \"工具描述必须包含强选择规则\" (both modes, and when return_and_continue is required)")
class DescriptionOneMode(CcwebMachine):
    """``description-one-mode``: the send tool's description names only one_way; the mechanical check fails
    before any reader is asked."""

    def tool_definitions(self) -> list[dict[str, Any]]:
        tools = super().tool_definitions()
        _send_tool(tools)["description"] = ("Send a message to another cc-web conversation. Use replyMode one_way to "
                                            "deliver it.")
        return tools


@broken("send-listed-twice", subject=SUBJECT, run="machine", breaks=["CCWEB-TOOL-SEND-SINGLE-01"],
        clause="目标 \"向新模型只公开一个 ccweb_send_message\"")
class SendListedTwice(CcwebMachine):
    """``send-listed-twice``: tools/list lists the send tool twice, a leftover registration next to the shared
    one."""

    def listed_tools(self) -> list[dict[str, Any]]:
        tools = super().listed_tools()
        return [*tools, copy.deepcopy(_send_tool(tools))]


@broken("target-id-number-or-string", subject=SUBJECT, run="machine", breaks=["CCWEB-SCHEMA-FIELDS-01"],
        clause="§1 \"ccweb_send_message 的输入必须包含：- targetConversationId: string\"")
class TargetIdNumberOrString(CcwebMachine):
    """``target-id-number-or-string``: the shared definition lets ``targetConversationId`` be an integer too."""

    def tool_definitions(self) -> list[dict[str, Any]]:
        tools = super().tool_definitions()
        _send_tool(tools)["inputSchema"]["properties"]["targetConversationId"]["type"] = ["string", "integer"]
        return tools


@broken("replymode-no-enum", subject=SUBJECT, run="machine", breaks=["CCWEB-SCHEMA-REPLYMODE-ENUM-01"],
        clause="§1 \"replyMode: \"one_way\" | \"return_and_continue\"\"")
class ReplyModeNoEnum(CcwebMachine):
    """``replymode-no-enum``: ``replyMode`` is a plain string whose values only the description names."""

    def tool_definitions(self) -> list[dict[str, Any]]:
        tools = super().tool_definitions()
        del _send_tool(tools)["inputSchema"]["properties"]["replyMode"]["enum"]
        return tools


@broken("replymode-optional", subject=SUBJECT, run="machine", breaks=["CCWEB-SCHEMA-REQUIRED-01"],
        clause="§1 \"JSON Schema 必须把 replyMode 列入 required\"")
class ReplyModeOptional(CcwebMachine):
    """``replymode-optional``: the schema keeps the legacy ``required`` list, without ``replyMode``."""

    def tool_definitions(self) -> list[dict[str, Any]]:
        tools = super().tool_definitions()
        schema = _send_tool(tools)["inputSchema"]
        schema["required"] = [r for r in schema["required"] if r != "replyMode"]
        return tools


@broken("alias-listed", subject=SUBJECT, breaks=["CCWEB-ALIAS-UNLISTED-01"],
        also=["CCWEB-ALIAS-UNLISTED-02", "CCWEB-FALLBACK-SAME-DEF-01"],
        clause="§1 \"ccweb_request_reply 不再出现在正式 MCP 工具列表或 Codex App 备用工具列表中。\"")
class AliasListed(CcwebMachine):
    """``alias-listed``: ``tools/list`` also lists the hidden alias ``ccweb_request_reply`` (a subject may then
    list it in the fallback list too)."""

    def listed_tools(self) -> list[dict[str, Any]]:
        return [*super().listed_tools(), _alias_definition()]


# -- §3 the Codex App fallback list -------------------------------------------------------------------------------

#: What ``fallback-copied-drift`` serves instead of the filtered send tool: the kind of hand-copied definition PRD §3
#: forbids (old wording, no replyMode).
_HAND_COPIED_SEND_TOOL: Final = {
    "name": SEND_TOOL,
    "description": "Send a message to another conversation. Use ccweb_request_reply when you need an answer.",
    "inputSchema": {
        "type": "object",
        "properties": {"targetConversationId": {"type": "string"}, "content": {"type": "string"}},
        "required": ["targetConversationId", "content"],
    },
}


@broken("fallback-copied-drift", subject=SUBJECT, breaks=["CCWEB-FALLBACK-SAME-DEF-01"],
        clause="§3 \"Codex App 备用工具列表必须从该数组按通信工具白名单筛选并添加 namespace，不能继续复制文案/Schema。\"")
class FallbackCopiedDrift(CcwebMachine):
    """``fallback-copied-drift``: the fallback list carries a hand-copied send tool that drifted from
    ``tools/list``."""

    def fallback_tools(self, namespace: str = contract.DEFAULT_FALLBACK_NAMESPACE) -> list[dict[str, Any]]:
        return [{**copy.deepcopy(_HAND_COPIED_SEND_TOOL), "namespace": namespace} if t["name"] == SEND_TOOL else t
                for t in super().fallback_tools(namespace)]


@broken("alias-in-fallback", subject=SUBJECT, run="machine", breaks=["CCWEB-ALIAS-UNLISTED-02"],
        also=["CCWEB-FALLBACK-SAME-DEF-01"],
        clause="§1 \"ccweb_request_reply 不再出现在 … Codex App 备用工具列表中\"")
class AliasInFallback(CcwebMachine):
    """``alias-in-fallback``: the fallback allowlist still names ``ccweb_request_reply`` (so the list also holds a
    tool ``tools/list`` does not)."""

    def fallback_tools(self, namespace: str = contract.DEFAULT_FALLBACK_NAMESPACE) -> list[dict[str, Any]]:
        return [*super().fallback_tools(namespace), _alias_definition(namespace)]


@broken("fallback-without-send", subject=SUBJECT, run="machine", breaks=["CCWEB-FALLBACK-SEND-01"],
        clause="验收标准 \"正式 MCP 与 Codex App 备用定义引用同一个共享契约\" (the fallback list offers "
               "ccweb_send_message)")
class FallbackWithoutSend(CcwebMachine):
    """``fallback-without-send``: the fallback allowlist lacks the send tool, so the list shows only
    ``ccweb_list_conversations``; the dispatcher of the legacy dynamic call still takes every communication tool."""

    def fallback_tools(self, namespace: str = contract.DEFAULT_FALLBACK_NAMESPACE) -> list[dict[str, Any]]:
        return [t for t in super().fallback_tools(namespace) if t["name"] != SEND_TOOL]

    def _dynamic_names(self) -> list[str]:
        return [t["name"] for t in super().fallback_tools()]


@broken("fallback-all-tools", subject=SUBJECT, run="machine", breaks=["CCWEB-FALLBACK-FILTER-01"],
        clause="§3 \"筛选不得把 task-board、图片显示或用户表单等非备用通信工具意外加入 dynamic tools\"")
class FallbackAllTools(CcwebMachine):
    """``fallback-all-tools``: every formal tool goes to the fallback list with a namespace (no allowlist)."""

    def fallback_tools(self, namespace: str = contract.DEFAULT_FALLBACK_NAMESPACE) -> list[dict[str, Any]]:
        return [{"name": t["name"], "namespace": namespace, "description": t["description"],
                 "inputSchema": t["inputSchema"]} for t in self.tool_definitions()]
