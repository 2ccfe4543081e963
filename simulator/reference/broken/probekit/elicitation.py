"""Broken probe-kit references that ask the user wrongly (mcp-probe-kit-v2-design.md §5 Elicitation 处理器, 安全考虑
1 敏感信息处理): each is the correct ``ProbeKit`` with the one method overridden that states the rule it breaks
(``_mode``, the mode a question is asked in; ``_client_modes``; ``_ask``, a question's result)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from ...probekit import elicitation
from ...probekit.catalog import CATALOG
from ...probekit.kit import ProbeKit
from ..registry import broken
from .output import text_of, with_text

__all__ = ["SecretInForm", "NoSecretElicitation", "OptionsAsBullets", "FormAnswerDropped", "FormForAnyElicitation"]

SUBJECT: Final = "probekit-mcp"


@broken("secret-in-form", subject=SUBJECT, breaks=["PROBE-ELICIT-SECRET-01"], also=["PROBE-ELICIT-URL-ONLY-01"],
        clause="安全考虑 1 \"**不在表单中收集敏感信息**（token/密码/密钥）\"")
class SecretInForm(ProbeKit):
    """``secret-in-form``: a token or password is asked in a form like any other question."""

    def _mode(self, question: elicitation.Question, modes: set[elicitation.Mode]) -> elicitation.Mode:
        return elicitation.Mode.FORM if elicitation.Mode.FORM in modes else elicitation.Mode.TEXT


@broken("no-secret-elicitation", subject=SUBJECT, breaks=["PROBE-ELICIT-SECRET-URL-01"],
        clause="安全考虑 1 \"使用 URL 模式引导到安全页面\"")
class NoSecretElicitation(ProbeKit):
    """``no-secret-elicitation``: a token question to a client declaring both modes is asked in text, no url
    elicitation is sent; "every elicitation is url mode" must not hold vacuously (a should)."""

    async def _ask(self, ctx: Any, name: str, args: dict[str, Any], input_responses: Mapping[str, Any] | None
                   ) -> Any:
        question = elicitation.tool_question(name, args)
        if question is not None and elicitation.is_sensitive(question.message):
            return CATALOG[name].handler(args, self.env)
        return await super()._ask(ctx, name, args, input_responses)


@broken("options-as-bullets", subject=SUBJECT, breaks=["PROBE-ELICIT-FALLBACK-01"],
        clause="§5 fallbackToText \"text += `${i + 1}. ${opt}\\n`\"")
class OptionsAsBullets(ProbeKit):
    """``options-as-bullets``: the text question lists its options as bullets (``- PostgreSQL``), not numbered."""

    async def _ask(self, ctx: Any, name: str, args: dict[str, Any], input_responses: Mapping[str, Any] | None
                   ) -> Any:
        result = await super()._ask(ctx, name, args, input_responses)
        if not isinstance(result, dict) or result.get("isError") or not args.get("options"):
            return result
        return with_text(result, re.sub(r"(?m)^\d+\. ", "- ", text_of(result)))


@broken("form-answer-dropped", subject=SUBJECT, breaks=["PROBE-ELICIT-FORM-01"],
        clause="§5 \"创建表单式提问\" (the answer is what the tool returns)")
class FormAnswerDropped(ProbeKit):
    """``form-answer-dropped``: an accepted form's answers go only to ``_meta.answers``; the text just says the user
    answered."""

    async def _ask(self, ctx: Any, name: str, args: dict[str, Any], input_responses: Mapping[str, Any] | None
                   ) -> Any:
        result = await super()._ask(ctx, name, args, input_responses)
        meta = result.get("_meta") if isinstance(result, dict) else None
        if not isinstance(result, dict) or not isinstance(meta, dict) or meta.get("mode") != "form" \
                or meta.get("action") != "accept":
            return result
        return with_text(result, "The user answered the form.")


@broken("form-for-any-elicitation", subject=SUBJECT, breaks=["PROBE-ELICIT-URL-ONLY-01"],
        clause="§5 \"检测客户端是否支持 Elicitation\" (MCP 2025-11-25 client/elicitation: only the modes the client "
               "declared)")
class FormForAnyElicitation(ProbeKit):
    """``form-for-any-elicitation``: any declared elicitation capability is taken to include form mode, so a
    url-only client gets forms."""

    def _client_modes(self, ctx: Any) -> set[elicitation.Mode]:
        modes = super()._client_modes(ctx)
        return modes | {elicitation.Mode.FORM} if modes else modes
