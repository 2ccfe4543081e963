"""Asking the user: the elicitation requests a server sends, the harness's answers, and the text fallback.

mcp-probe-kit-v2-design.md §5 Elicitation 处理器: a form (``requestedSchema``) or a url (``url``,
``elicitationId``), and fallbackToText, a question with numbered options ("1. …"), for a client without
elicitation; 安全考虑 1 敏感信息处理: 不在表单中收集敏感信息（token/密码/密钥）, 使用 URL 模式引导到安全页面. MCP
2025-11-25 client/elicitation: a server sends only the modes the client declared (form, url).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from simulator.roles.mcp_values import AnswerFn, ElicitAnswer, ElicitationRequest, tool_text

from .calls import Call, malformed_content
from .expect import expect

__all__ = [
    "SECRET_WORDS", "check_form_sent", "check_no_elicitation", "check_no_form", "check_no_secret_in_forms",
    "check_numbered_options", "check_url_only", "check_url_sent", "fill_form", "form_answerer", "secret_fields",
]

#: Words that name a secret (design 安全考虑 1: 不在表单中收集敏感信息 token/密码/密钥).
SECRET_WORDS = re.compile(r"token|password|passwd|passphrase|secret|api[ _-]?key|private[ _-]?key|\bkey\b|密码|密钥|令牌|"
                          r"凭证|credential", re.IGNORECASE)
_NUMBERED_1 = re.compile(r"(?m)^\s*1\.\s+\S")
_NUMBERED_2 = re.compile(r"(?m)^\s*2\.\s+\S")


def _options(enum: Any, branches: Any) -> list[Any]:
    """The values a property offers: its ``enum`` list, else the ``const`` of each object of its ``branches``
    (``oneOf`` / ``anyOf``)."""
    if isinstance(enum, list) and enum:
        return enum
    return [o.get("const") for o in branches if isinstance(o, dict)] if isinstance(branches, list) else []


def fill_form(schema: Mapping[str, Any] | None, text: str) -> dict[str, Any]:
    """An answer for a form: every property of the requested schema filled (strings with ``text``; an enum or
    ``oneOf`` with its first value, a boolean true, a number its minimum or 1, an array its first option or
    ``[text]``). A schema without a ``properties`` object asks for nothing (``check_form_sent`` judges it), a
    property that is not an object is filled with ``text``."""
    content: dict[str, Any] = {}
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    for name, prop in (props.items() if isinstance(props, Mapping) else ()):
        prop = prop if isinstance(prop, dict) else {}
        enum = _options(prop.get("enum"), prop.get("oneOf"))
        kind = prop.get("type")
        if enum:
            content[name] = enum[0]
        elif kind == "boolean":
            content[name] = True
        elif kind in ("number", "integer"):
            content[name] = prop.get("minimum", 1)
        elif kind == "array":
            items = given if isinstance(given := prop.get("items"), dict) else {}
            opts = _options(items.get("enum"), items.get("anyOf"))
            content[name] = opts[:1] if opts else [text]
        else:
            content[name] = text
    return content


def form_answerer(text: str) -> AnswerFn:
    """How the client answers: a form accepted with every field filled (``fill_form``), a url accepted."""
    def answer(req: ElicitationRequest) -> ElicitAnswer:
        if req.mode == "url":
            return ElicitAnswer.accept()
        return ElicitAnswer.accept(fill_form(req.requested_schema, text))

    return answer


def check_no_elicitation(sent: list[ElicitationRequest]) -> None:
    """A client that declared no elicitation gets none (MCP 2025-11-25 client/elicitation#capabilities)."""
    expect(not sent, f"the server sent {len(sent)} elicitation request(s) to a client that declared none: "
                     f"{[e.params for e in sent]}"[:2000])


def check_numbered_options(call: Call) -> None:
    """The text fallback offers numbered options, ``1. …`` and ``2. …`` (§5 fallbackToText)."""
    text = tool_text(call.result)
    expect(_NUMBERED_1.search(text) and _NUMBERED_2.search(text),
           f"the text fallback does not offer numbered options (1. …, 2. …): {text[:1000]!r}"
           f"{malformed_content(call.result)}")


def check_form_sent(sent: list[ElicitationRequest], asked: Iterable[str] = ()) -> None:
    """At least one form elicitation was sent, and each carries a requested schema with properties (§5);
    ``asked`` names the calls that put the question (for the reason)."""
    forms = [e for e in sent if e.mode == "form"]
    tried = "; ".join(asked)
    expect(forms, f"no form elicitation was sent (sent: {[e.params for e in sent]})"
                  + (f"; asked through: {tried}" if tried else ""))
    for e in forms:
        props = e.requested_schema.get("properties") if isinstance(e.requested_schema, dict) else None
        expect(isinstance(props, dict) and props,
               f"a form elicitation without a requested schema whose properties are a non-empty object "
               f"(/requestedSchema/properties): {e.params}"[:2000])


def check_no_form(sent: list[ElicitationRequest]) -> None:
    """No form elicitation reached a client that did not declare form mode."""
    forms = [e.params for e in sent if e.mode == "form"]
    expect(not forms, f"form elicitation(s) sent to a client that did not declare form mode: {forms}"[:2000])


def check_url_sent(sent: list[ElicitationRequest], call: Call) -> None:
    """A url-mode elicitation with a url and an elicitationId was sent (安全考虑 1: 使用 URL 模式引导到安全页面);
    ``call`` is what the tool answered, for the evidence."""
    urls = [e for e in sent if _complete_url(e)]
    expect(urls, (f"no url-mode elicitation with a url and an elicitationId was sent (design 安全考虑: 使用 URL 模式"
                  f"引导到安全页面); sent: {[e.params for e in sent]}, answered: {call.describe()}")[:2000])


def check_url_only(sent: Iterable[ElicitationRequest]) -> None:
    """Every elicitation sent is in url mode with a url and an elicitationId."""
    for e in sent:
        expect(_complete_url(e), f"not a complete url-mode elicitation (a url and an elicitationId, both non-empty "
                                 f"strings): {e.params}"[:2000])


def _complete_url(request: ElicitationRequest) -> bool:
    """A url-mode elicitation with a non-empty string ``url`` and ``elicitationId`` (MCP 2025-11-25
    client/elicitation#url-mode: both required strings)."""
    return (request.mode == "url" and isinstance(request.url, str) and bool(request.url)
            and isinstance(request.elicitation_id, str) and bool(request.elicitation_id))


def secret_fields(request: ElicitationRequest) -> list[str]:
    """The fields of a form that ask for a secret: ``SECRET_WORDS`` in the message, the field's name, title,
    description or format, or ``format: password`` (empty for a url elicitation)."""
    if request.mode != "form":
        return []
    bad = []
    props = (request.requested_schema or {}).get("properties")
    for name, prop in (props.items() if isinstance(props, dict) else []):
        prop = prop if isinstance(prop, dict) else {}
        words = " ".join(_words(v) for v in (request.message, name, prop.get("title"), prop.get("description"),
                                             prop.get("format")))
        if SECRET_WORDS.search(words) or prop.get("format") == "password":
            bad.append(f"{name}: {prop}")
    return bad


def _words(value: Any) -> str:
    """What a member of a form says, searched for secret words: a string as it is, anything else (a message or a
    title that is not a string) as its JSON, so that a malformed member still shows what it asks for."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def check_no_secret_in_forms(sent: Iterable[ElicitationRequest]) -> None:
    """No form elicitation asks for a token, a password or a key (安全考虑 1)."""
    bad = [field for request in sent for field in secret_fields(request)]
    expect(not bad, f"a form elicitation asks for a secret: {bad}"[:2000])
