"""Broken variants of the reference cc-web that wrap the machine (README.md "Broken variants").

Each class is the correct ``CcwebMachine`` with one method overridden, so that exactly one sentence of the PRD is
broken the way an implementer might break it; the correct machine's code paths know nothing about them.
``machine_class(variant)`` picks the class for a ``Variant`` (the other variants are switches inside the machine,
the server or the control API, and run ``CcwebMachine`` itself). They are test fixtures: the conformance features
must catch each one (tests/ccweb/test_ccweb_variants.py).
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any, Final

from . import contract
from .contract import LEGACY_REQUEST_REPLY_TOOL, SEND_TOOL, ReplyMode, SendRequest
from .machine import AddMessage, CcwebMachine, Effect, NewId, PutRun, Step, ToolOutcome
from .records import Conversation, Message, RunKind, RunStatus
from .variants import Variant

__all__ = ["WRAPPED", "machine_class"]


def _send_tool(tools: list[dict[str, Any]]) -> dict[str, Any]:
    return next(t for t in tools if t["name"] == SEND_TOOL)


# -- §1 the public tool contract ---------------------------------------------------------------------------------


class SendListedTwice(CcwebMachine):
    """``send-listed-twice``: tools/list lists the send tool twice, a leftover registration next to the shared one.
    Breaks 目标 "向新模型只公开一个 ccweb_send_message"."""

    def listed_tools(self) -> list[dict[str, Any]]:
        tools = super().listed_tools()
        return [*tools, copy.deepcopy(_send_tool(tools))]


class TargetIdNumberOrString(CcwebMachine):
    """``target-id-number-or-string``: the shared definition lets ``targetConversationId`` be an integer too.
    Breaks §1 "ccweb_send_message 的输入必须包含：- targetConversationId: string"."""

    def tool_definitions(self) -> list[dict[str, Any]]:
        tools = super().tool_definitions()
        _send_tool(tools)["inputSchema"]["properties"]["targetConversationId"]["type"] = ["string", "integer"]
        return tools


class ReplyModeNoEnum(CcwebMachine):
    """``replymode-no-enum``: ``replyMode`` is a plain string whose values only the description names. Breaks §1
    "replyMode: "one_way" | "return_and_continue""."""

    def tool_definitions(self) -> list[dict[str, Any]]:
        tools = super().tool_definitions()
        del _send_tool(tools)["inputSchema"]["properties"]["replyMode"]["enum"]
        return tools


class ReplyModeOptional(CcwebMachine):
    """``replymode-optional``: the schema keeps the legacy ``required`` list, without ``replyMode``. Breaks §1
    "JSON Schema 必须把 replyMode 列入 required"."""

    def tool_definitions(self) -> list[dict[str, Any]]:
        tools = super().tool_definitions()
        schema = _send_tool(tools)["inputSchema"]
        schema["required"] = [r for r in schema["required"] if r != "replyMode"]
        return tools


# -- §3 the Codex App fallback list -------------------------------------------------------------------------------


class AliasInFallback(CcwebMachine):
    """``alias-in-fallback``: the fallback allowlist still names ``ccweb_request_reply``. Breaks §1
    "ccweb_request_reply 不再出现在 … Codex App 备用工具列表中"."""

    def fallback_tools(self, namespace: str = contract.DEFAULT_FALLBACK_NAMESPACE) -> list[dict[str, Any]]:
        alias = {"name": LEGACY_REQUEST_REPLY_TOOL, "namespace": namespace,
                 "description": "Send a message to another conversation and get its reply back automatically.",
                 "inputSchema": contract.tool_schema(LEGACY_REQUEST_REPLY_TOOL)}
        return [*super().fallback_tools(namespace), alias]


class FallbackWithoutSend(CcwebMachine):
    """``fallback-without-send``: the fallback allowlist lacks the send tool, so the list shows only
    ``ccweb_list_conversations``; the dispatcher of the legacy dynamic call still takes every communication tool.
    Breaks 验收标准 "正式 MCP 与 Codex App 备用定义引用同一个共享契约" (the fallback list offers ccweb_send_message)."""

    def fallback_tools(self, namespace: str = contract.DEFAULT_FALLBACK_NAMESPACE) -> list[dict[str, Any]]:
        return [t for t in super().fallback_tools(namespace) if t["name"] != SEND_TOOL]

    def _dynamic_names(self) -> list[str]:
        return [t["name"] for t in super().fallback_tools()]


class FallbackAllTools(CcwebMachine):
    """``fallback-all-tools``: every formal tool goes to the fallback list with a namespace (no allowlist). Breaks
    §3 "筛选不得把 task-board、图片显示或用户表单等非备用通信工具意外加入 dynamic tools"."""

    def fallback_tools(self, namespace: str = contract.DEFAULT_FALLBACK_NAMESPACE) -> list[dict[str, Any]]:
        return [{"name": t["name"], "namespace": namespace, "description": t["description"],
                 "inputSchema": t["inputSchema"]} for t in self.tool_definitions()]


# -- §2 compatibility, 目标 calls return at once -------------------------------------------------------------------


class DynamicAliasRejected(CcwebMachine):
    """``dynamic-alias-rejected``: the legacy dynamic call allowlists the fallback names before the dispatcher, so
    ``ccweb_request_reply`` is refused there (tools/call still takes it). Breaks §2 "Codex App 旧 dynamic call 必须继续
    接受该隐藏旧名 … 不能在 dispatcher 前被 allowlist 拒绝"."""

    def dynamic_call(self, name: Any, arguments: Any, *, new_id: NewId,
                     source_conversation_id: str | None = None) -> Step[ToolOutcome]:
        names = self._dynamic_names()
        if name not in names:
            return Step(ToolOutcome.error(f"Unknown dynamic tool {name!r}. The available tools are: "
                                          f"{', '.join(names)}."))
        return super().dynamic_call(name, arguments, new_id=new_id, source_conversation_id=source_conversation_id)


#: What the ``send-waits-for-target`` variant's target run answers before the call returns.
_INLINE_OUTPUT: Final = "Done."


class SendWaitsForTarget(CcwebMachine):
    """``send-waits-for-target``: a send runs the target's turn to its end before answering, so the target run has
    completed when the call returns. Breaks 目标 "调用始终立即返回，任何模式都不表达同步阻塞等待"."""

    def _send(self, request: SendRequest, source_id: str, new_id: NewId) -> Step[ToolOutcome]:
        step = super()._send(request, source_id, new_id)
        effects: list[Effect] = []
        for effect in step.effects:
            if isinstance(effect, PutRun) and effect.run.kind is RunKind.TARGET:
                run = replace(effect.run, status=RunStatus.COMPLETED, output=_INLINE_OUTPUT)
                effects += [PutRun(run), AddMessage(run.conversation_id, Message(
                    "assistant", _INLINE_OUTPUT, new_id("msg"), request_id=run.request_id, run_id=run.run_id))]
            else:
                effects.append(effect)
        return Step(step.result, tuple(effects))


class ResultWithoutDeliveryFields(CcwebMachine):
    """``result-without-delivery-fields``: the new send path answers a return_and_continue ``ccweb_send_message``
    without ``replyDelivery`` and ``sourceAutoRun`` (the alias keeps the old result). Breaks §2 "自动回传模式继续返回
    requestId、status: waiting、 replyDelivery 与 sourceAutoRun"."""

    def _send(self, request: SendRequest, source_id: str, new_id: NewId) -> Step[ToolOutcome]:
        step = super()._send(request, source_id, new_id)
        outcome = step.result
        if (request.tool != SEND_TOOL or request.reply_mode is not ReplyMode.RETURN_AND_CONTINUE
                or outcome.structured is None):
            return step
        slim = {k: v for k, v in outcome.structured.items() if k not in ("replyDelivery", "sourceAutoRun")}
        return Step(ToolOutcome(False, json.dumps(slim, ensure_ascii=False), slim), step.effects)


# -- §4 the target run prompt ---------------------------------------------------------------------------------------


class TargetPromptWithoutSourceId(CcwebMachine):
    """``target-prompt-without-source-id``: the target prompt names the source by its title only. Breaks §4
    "目标提示继续包含来源标题、来源 ID 和原消息内容"."""

    def _target_prompt(self, mode: ReplyMode, source: Conversation, content: str, request_id: str | None) -> str:
        prompt = super()._target_prompt(mode, source, content, request_id)
        return prompt.replace(f" (id: {source.id})", "")


class _PromptWithoutContent(CcwebMachine):
    """The target prompt of ``MODE`` keeps its header and notices and leaves the message to the conversation (the
    message is appended there as in the correct machine), so the prompt no longer carries it."""

    MODE: ReplyMode

    def _target_prompt(self, mode: ReplyMode, source: Conversation, content: str, request_id: str | None) -> str:
        prompt = super()._target_prompt(mode, source, content, request_id)
        if mode is not self.MODE:
            return prompt
        return prompt.replace("\n\nMessage from the source conversation:\n" + content, "")


class OneWayPromptWithoutContent(_PromptWithoutContent):
    """``oneway-prompt-without-content``: the one_way target prompt without the message. Breaks §4 "one_way 模式必须
    明确：本轮输出不会自动回传来源" in the part a machine checks (the prompt is the message's, carrying it), and
    "目标提示继续包含 … 原消息内容" for one_way."""

    MODE = ReplyMode.ONE_WAY


class ReturnPromptWithoutContent(_PromptWithoutContent):
    """``return-prompt-without-content``: the return_and_continue target prompt without the message. Breaks §4
    "return_and_continue 模式必须明确：…" in the part a machine checks, and "目标提示继续包含 … 原消息内容" for
    return_and_continue."""

    MODE = ReplyMode.RETURN_AND_CONTINUE


#: variant → the subclass of the machine that breaks its rule
WRAPPED: Final[dict[Variant, type[CcwebMachine]]] = {
    Variant.SEND_LISTED_TWICE: SendListedTwice,
    Variant.TARGET_ID_NUMBER_OR_STRING: TargetIdNumberOrString,
    Variant.REPLYMODE_NO_ENUM: ReplyModeNoEnum,
    Variant.REPLYMODE_OPTIONAL: ReplyModeOptional,
    Variant.ALIAS_IN_FALLBACK: AliasInFallback,
    Variant.FALLBACK_WITHOUT_SEND: FallbackWithoutSend,
    Variant.FALLBACK_ALL_TOOLS: FallbackAllTools,
    Variant.DYNAMIC_ALIAS_REJECTED: DynamicAliasRejected,
    Variant.SEND_WAITS_FOR_TARGET: SendWaitsForTarget,
    Variant.RESULT_WITHOUT_DELIVERY_FIELDS: ResultWithoutDeliveryFields,
    Variant.TARGET_PROMPT_WITHOUT_SOURCE_ID: TargetPromptWithoutSourceId,
    Variant.ONEWAY_PROMPT_WITHOUT_CONTENT: OneWayPromptWithoutContent,
    Variant.RETURN_PROMPT_WITHOUT_CONTENT: ReturnPromptWithoutContent,
}


def machine_class(variant: Variant | None) -> type[CcwebMachine]:
    """The class to run for ``variant`` (None: the correct machine)."""
    return WRAPPED.get(variant, CcwebMachine) if variant is not None else CcwebMachine
