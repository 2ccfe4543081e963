"""Broken cc-web references that send, prompt or deliver wrongly (PRD "统一 ccweb 消息回传接口" 目标, §2
compatibility, §4 the target run prompt, §5 the source continuation), and one whose control API answers off its
contract: each is the correct ``CcwebMachine`` (or ``ControlApi``) with the one method overridden that states the
rule it breaks. ``LegacyNoModeRefused`` is conformant: the refusal of an optional behaviour."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Final

from ...ccweb.contract import PUBLIC_TOOL_NAMES, SEND_TOOL, ReplyMode, SendRequest
from ...ccweb.control import ControlApi
from ...ccweb.machine import AddMessage, CallPath, CcwebMachine, Effect, NewId, PutRun, Step, ToolOutcome
from ...ccweb.records import Conversation, Message, PendingReply, Run, RunKind, RunStatus
from ..registry import broken

__all__ = [
    "AliasRejected", "DynamicAliasRejected", "LegacyNoModeBroken", "LegacyNoModeRefused", "SendWaitsForTarget",
    "ResultWithoutDeliveryFields", "TargetPromptWithoutSourceId", "OneWayPromptWithoutContent",
    "ReturnPromptWithoutContent", "NoDelivery", "ContinuationWithoutRequestId", "ContinuationUnlinked",
    "ControlMalformed",
]

SUBJECT: Final = "ccweb-mcp"
_ALIAS_CLAUSE: Final = ("§2 \"正式 MCP 的 tools/call 与 Codex App 旧 dynamic call 必须继续接受该隐藏旧名；它只从 "
                        "tools/list/新 dynamic tools 中移除，不能在 dispatcher 前被 allowlist 拒绝。\"")
#: What a return_and_continue request fails when its reply never comes back, or comes back unlinked.
_DELIVERY_IDS: Final = ["CCWEB-ALIAS-MAPPING-01", "CCWEB-PENDING-LEGACY-01", "CCWEB-RETURN-DELIVERY-01",
                        "CCWEB-SOURCE-PROMPT-FIELDS-01", "CCWEB-SOURCE-PROMPT-COMPLETENESS-01"]


# -- §2 compatibility ---------------------------------------------------------------------------------------------


@broken("alias-rejected", subject=SUBJECT, breaks=["CCWEB-ALIAS-MCP-CALL-01", "CCWEB-ALIAS-MAPPING-01"],
        also=["CCWEB-CALL-ASYNC-01", "CCWEB-ALIAS-DYNAMIC-CALL-01"], clause=_ALIAS_CLAUSE)
class AliasRejected(CcwebMachine):
    """``alias-rejected``: ``tools/call`` allowlists the listed names before the dispatcher, so
    ``ccweb_request_reply`` is refused there (the legacy dynamic call still takes it)."""

    def call_tool(self, name: str, arguments: Any, *, new_id: NewId, source_conversation_id: str | None = None,
                  via: CallPath = CallPath.MCP) -> Step[ToolOutcome]:
        if name not in PUBLIC_TOOL_NAMES:
            return Step(ToolOutcome.error(f"Unknown tool {name!r}. The available tools are: "
                                          f"{', '.join(PUBLIC_TOOL_NAMES)}."))
        return super().call_tool(name, arguments, new_id=new_id, source_conversation_id=source_conversation_id,
                                 via=via)


@broken("dynamic-alias-rejected", subject=SUBJECT, run="machine", breaks=["CCWEB-ALIAS-DYNAMIC-CALL-01"],
        also=["CCWEB-ALIAS-MAPPING-01", "CCWEB-CALL-ASYNC-01"], clause=_ALIAS_CLAUSE)
class DynamicAliasRejected(CcwebMachine):
    """``dynamic-alias-rejected``: the legacy dynamic call allowlists the fallback names before the dispatcher, so
    ``ccweb_request_reply`` is refused there (``tools/call`` still takes it); the alias mapping and the immediate
    return through that entry fail with it."""

    def dynamic_call(self, name: Any, arguments: Any, *, new_id: NewId,
                     source_conversation_id: str | None = None) -> Step[ToolOutcome]:
        names = self._dynamic_names()
        if name not in names:
            return Step(ToolOutcome.error(f"Unknown dynamic tool {name!r}. The available tools are: "
                                          f"{', '.join(names)}."))
        return super().dynamic_call(name, arguments, new_id=new_id, source_conversation_id=source_conversation_id)


_LEGACY_CLAUSE: Final = ("§2 \"内部 dispatcher 可继续把缺少 replyMode 的旧 ccweb_send_message 调用按 one_way 处理\" "
                         "(a refusal must name the missing field)")


@broken("legacy-nomode-broken", subject=SUBJECT, run="embedded", breaks=["CCWEB-LEGACY-NOMODE-01"],
        clause=_LEGACY_CLAUSE)
class LegacyNoModeBroken(CcwebMachine):
    """``legacy-nomode-broken``: a legacy ``ccweb_send_message`` without ``replyMode`` fails for a reason unrelated
    to the field: an answer to judge, never a declared absence of the optional behaviour."""

    def _send_without_mode(self, request: SendRequest, source_id: str, new_id: NewId) -> Step[ToolOutcome]:
        return Step(ToolOutcome.error(f"{request.tool}: internal error: the conversation store is unavailable."))


class LegacyNoModeRefused(CcwebMachine):
    """``legacy-nomode-refused`` (conformant): a legacy call without ``replyMode`` is refused, the refusal naming the
    field (PRD §2 可继续: the one_way handling is optional), so that requirement is not applicable."""

    def _send_without_mode(self, request: SendRequest, source_id: str, new_id: NewId) -> Step[ToolOutcome]:
        return Step(ToolOutcome.error(f"{request.tool}: nothing was sent. /replyMode: required (one_way or "
                                      f"return_and_continue); calls without it are no longer accepted."))


#: What ``send-waits-for-target``'s target run answers before the call returns.
_INLINE_OUTPUT: Final = "Done."


@broken("send-waits-for-target", subject=SUBJECT, run="machine", breaks=["CCWEB-CALL-ASYNC-01"],
        clause="目标 \"调用始终立即返回，任何模式都不表达同步阻塞等待。\"")
class SendWaitsForTarget(CcwebMachine):
    """``send-waits-for-target``: a send runs the target's turn to its end before answering, so the target run has
    completed when the call returns."""

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


@broken("result-without-delivery-fields", subject=SUBJECT, run="machine", breaks=["CCWEB-RESULT-FIELDS-01"],
        clause="§2 \"自动回传模式继续返回 requestId、status: waiting、 replyDelivery 与 sourceAutoRun。\"")
class ResultWithoutDeliveryFields(CcwebMachine):
    """``result-without-delivery-fields``: a return_and_continue ``ccweb_send_message`` is answered without
    ``replyDelivery`` and ``sourceAutoRun`` (the alias keeps the old result)."""

    def _send(self, request: SendRequest, source_id: str, new_id: NewId) -> Step[ToolOutcome]:
        step = super()._send(request, source_id, new_id)
        outcome = step.result
        if (request.tool != SEND_TOOL or request.reply_mode is not ReplyMode.RETURN_AND_CONTINUE
                or outcome.structured is None):
            return step
        slim = {k: v for k, v in outcome.structured.items() if k not in ("replyDelivery", "sourceAutoRun")}
        return Step(ToolOutcome(False, json.dumps(slim, ensure_ascii=False), slim), step.effects)


# -- §4 the target run prompt ---------------------------------------------------------------------------------------

_CONTEXT_CLAUSE: Final = "§4 \"目标提示继续包含来源标题、来源 ID 和原消息内容。\""


@broken("target-prompt-without-source-id", subject=SUBJECT, run="machine",
        breaks=["CCWEB-TARGET-PROMPT-CONTEXT-01"], clause=_CONTEXT_CLAUSE)
class TargetPromptWithoutSourceId(CcwebMachine):
    """``target-prompt-without-source-id``: the target prompt names the source by its title only."""

    def _target_prompt(self, mode: ReplyMode, source: Conversation, content: str, request_id: str | None) -> str:
        prompt = super()._target_prompt(mode, source, content, request_id)
        return prompt.replace(f" (id: {source.id})", "")


class _PromptWithoutContent(CcwebMachine):
    """The target prompt of ``MODE`` keeps its header and notices and leaves the message to the conversation (the
    message is appended there as by the correct machine), so the prompt no longer carries it: the reader-judged
    wording of that mode fails its mechanical check before any reader is asked."""

    MODE: ReplyMode

    def _target_prompt(self, mode: ReplyMode, source: Conversation, content: str, request_id: str | None) -> str:
        prompt = super()._target_prompt(mode, source, content, request_id)
        if mode is not self.MODE:
            return prompt
        return prompt.replace("\n\nMessage from the source conversation:\n" + content, "")


@broken("oneway-prompt-without-content", subject=SUBJECT, run="machine", breaks=["CCWEB-TARGET-PROMPT-ONEWAY-01"],
        also=["CCWEB-TARGET-PROMPT-CONTEXT-01"],
        clause="§4 \"one_way 模式必须明确：本轮输出不会自动回传来源。\" in the part a machine checks (the prompt "
               "carries the message), and " + _CONTEXT_CLAUSE + " for one_way")
class OneWayPromptWithoutContent(_PromptWithoutContent):
    """``oneway-prompt-without-content``: the one_way target prompt without the message."""

    MODE = ReplyMode.ONE_WAY


@broken("return-prompt-without-content", subject=SUBJECT, run="machine", breaks=["CCWEB-TARGET-PROMPT-RETURN-01"],
        also=["CCWEB-TARGET-PROMPT-CONTEXT-01"],
        clause="§4 \"return_and_continue 模式必须明确：…\" in the part a machine checks (the prompt carries the "
               "message), and " + _CONTEXT_CLAUSE + " for return_and_continue")
class ReturnPromptWithoutContent(_PromptWithoutContent):
    """``return-prompt-without-content``: the return_and_continue target prompt without the message."""

    MODE = ReplyMode.RETURN_AND_CONTINUE


# -- 目标 / §5 delivery and the source continuation ---------------------------------------------------------------


@broken("no-delivery", subject=SUBJECT, run="embedded", breaks=_DELIVERY_IDS,
        clause="目标 \"return_and_continue：建立异步回传请求；目标完成后把结果写回来源，并触发来源续跑。\"")
class NoDelivery(CcwebMachine):
    """``no-delivery``: a finished return_and_continue target run is never delivered (no write-back, no
    continuation) while the control API keeps answering: a failure, not a timeout."""

    def _reply_due(self, run: Run, pending: PendingReply) -> bool:
        return False


@broken("continuation-without-request-id", subject=SUBJECT, breaks=["CCWEB-SOURCE-PROMPT-FIELDS-01"],
        also=["CCWEB-PENDING-LEGACY-01", "CCWEB-SOURCE-PROMPT-COMPLETENESS-01"],
        clause="§5 \"自动续跑运行文本至少包含：\" the request id")
class ContinuationWithoutRequestId(CcwebMachine):
    """``continuation-without-request-id``: the source continuation prompt omits the request id (also for a pending
    reply stored in the old shape; the completeness wording then fails its mechanical check first)."""

    def _continuation_prompt(self, pending: PendingReply, target_title: str, body: str, blocked: bool) -> str:
        prompt = super()._continuation_prompt(pending, target_title, body, blocked)
        return "\n".join(line for line in prompt.split("\n") if pending.request_id not in line)


@broken("continuation-unlinked", subject=SUBJECT, run="embedded", breaks=_DELIVERY_IDS,
        clause="目标 \"目标完成后把结果写回来源，并触发来源续跑\" (the continuation run names its request: "
               "docs/control-api.md, ccweb list-runs)")
class ContinuationUnlinked(CcwebMachine):
    """``continuation-unlinked``: the control API lists the continuation run without its request id, so nothing
    shows that this request continued."""

    def runs(self, conversation_id: str | None = None) -> list[dict[str, Any]]:
        return [{**r, "requestId": None} if r.get("kind") == RunKind.SOURCE_CONTINUATION.value else r
                for r in super().runs(conversation_id)]


# -- the control API (docs/control-api.md, ccweb) ------------------------------------------------------------------


@broken("control-malformed", subject=SUBJECT, run="embedded",
        breaks=["CCWEB-ALIAS-MAPPING-01", "CCWEB-CALL-INVALID-MODE-01", "CCWEB-CALL-UNKNOWN-TOOL-01",
                "CCWEB-LEGACY-NOMODE-01", "CCWEB-ONEWAY-DELIVERY-01", "CCWEB-PENDING-LEGACY-01",
                "CCWEB-PENDING-ORIGINAL-01"],
        clause="docs/control-api.md, ccweb: \"pending-replies {} → {\"pending\": [pending]}\" (the subject's "
               "answer, judged: a fail, not an infrastructure error)")
class ControlMalformed(ControlApi):
    """``control-malformed``: ``pending-replies`` answers a JSON array where the contract says an object."""

    def _pending_replies(self, body: dict[str, Any]) -> Any:
        return self.core.pending_replies()
