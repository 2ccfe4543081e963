"""Elicitation (design §5 "Elicitation 处理器"): ask in form mode when the client declared it, in url mode for
anything sensitive (tokens, passwords, keys are never asked in a form, design "安全考虑"), and fall back to the
design's numbered text question (``fallback_to_text``) when the client declared no elicitation.

The pure part (what to ask, how) is here; ``ask`` does the server-to-client request through the SDK session.
"""

from __future__ import annotations

import enum
import re
import uuid
from dataclasses import dataclass
from typing import Any

import mcp.types as types

__all__ = ["Mode", "supported_modes", "is_sensitive", "fallback_to_text", "choose_mode", "form_schema",
           "INTERVIEW_QUESTIONS", "SECURE_INPUT_URL", "Answer", "ask", "plan", "Plan", "INPUT_KEY"]

SECURE_INPUT_URL = "https://probekit.invalid/secure-input"

_SENSITIVE = re.compile(r"(token|password|passwd|passphrase|secret|api[ _-]?key|private[ _-]?key|credential|"
                        r"密码|密钥|令牌|凭证)", re.I)

INTERVIEW_QUESTIONS: list[tuple[str, str]] = [
    ("goal", "What problem should this solve, and for whom?"),
    ("scope", "What is in scope for the first version, and what is explicitly out?"),
    ("constraints", "Which constraints apply (tech stack, deadlines, compatibility)?"),
    ("acceptance", "How will we know it is done (acceptance criteria)?"),
]


class Mode(enum.Enum):
    FORM = "form"
    URL = "url"
    TEXT = "text"


def supported_modes(capabilities: Any) -> set[Mode]:
    """Modes the client declared: ``elicitation: {}`` means form (spec 2025-11-25 §elicitation)."""
    elicitation = getattr(capabilities, "elicitation", None) if capabilities is not None else None
    if elicitation is None:
        return set()
    modes = set()
    if getattr(elicitation, "form", None) is not None:
        modes.add(Mode.FORM)
    if getattr(elicitation, "url", None) is not None:
        modes.add(Mode.URL)
    return modes or {Mode.FORM}


def is_sensitive(text: str) -> bool:
    return bool(_SENSITIVE.search(text or ""))


def choose_mode(question: str, modes: set[Mode]) -> Mode:
    """URL for a sensitive question (or text if the client has no url mode), else form if declared, else text."""
    if is_sensitive(question):
        return Mode.URL if Mode.URL in modes else Mode.TEXT
    return Mode.FORM if Mode.FORM in modes else Mode.TEXT


def fallback_to_text(message: str, options: list[str] | None = None) -> str:
    """The design's text question, word for word."""
    text = f"❓ {message}\n\n"
    if options:
        text += "可选项：\n" + "".join(f"{i}. {o}\n" for i, o in enumerate(options, 1))
    return text + "\n请回答："


def form_schema(fields: list[tuple[str, str]], options: list[str] | None = None) -> dict[str, Any]:
    """A flat form (the only shape form mode allows): one string property per field."""
    props: dict[str, Any] = {}
    for key, question in fields:
        prop: dict[str, Any] = {"type": "string", "title": key, "description": question}
        if options and len(fields) == 1:
            prop["enum"] = list(options)
        props[key] = prop
    return {"type": "object", "properties": props, "required": [k for k, _ in fields]}


@dataclass(frozen=True)
class Answer:
    mode: Mode
    action: str  # accept | decline | cancel | text (a text question was returned)
    content: dict[str, Any] | None = None
    elicitation_id: str | None = None


#: The key of the one input request an InputRequiredResult carries (2026-07-28 connections).
INPUT_KEY = "probekit-question"


@dataclass(frozen=True)
class Plan:
    """What to ask and how: ``request`` is the ``elicitation/create`` request (None for text)."""
    mode: Mode
    request: types.ElicitRequest | None = None
    elicitation_id: str | None = None


def plan(ctx: Any, message: str, fields: list[tuple[str, str]], *, options: list[str] | None = None,
         sensitive: bool | None = None, form_for_secrets: bool = False) -> Plan:
    """Choose the mode from what the client declared and build the request. ``form_for_secrets`` is the
    ``secret-in-form`` variant (broken on purpose)."""
    modes = supported_modes(getattr(ctx.session, "client_capabilities", None))
    secret = is_sensitive(message + " " + " ".join(q for _, q in fields)) if sensitive is None else sensitive
    if secret and not form_for_secrets:
        mode = Mode.URL if Mode.URL in modes else Mode.TEXT
    else:
        mode = Mode.FORM if Mode.FORM in modes else Mode.TEXT
    if mode is Mode.FORM:
        params: Any = types.ElicitRequestFormParams(message=message, requested_schema=form_schema(fields, options))
        return Plan(mode, types.ElicitRequest(params=params))
    if mode is Mode.URL:
        eid = str(uuid.uuid4())
        params = types.ElicitRequestURLParams(message=message, url=f"{SECURE_INPUT_URL}?id={eid}", elicitation_id=eid)
        return Plan(mode, types.ElicitRequest(params=params), eid)
    return Plan(Mode.TEXT)


async def ask(ctx: Any, message: str, fields: list[tuple[str, str]], *, options: list[str] | None = None,
              sensitive: bool | None = None, form_for_secrets: bool = False) -> Answer:
    """Ask through ``ctx.session`` (handshake-era connections); ``Mode.TEXT`` answers mean the caller must
    return the text question."""
    chosen = plan(ctx, message, fields, options=options, sensitive=sensitive, form_for_secrets=form_for_secrets)
    if chosen.mode is Mode.FORM:
        assert chosen.request is not None
        result = await ctx.session.elicit_form(message, chosen.request.params.requested_schema,
                                               related_request_id=ctx.request_id)
        return Answer(chosen.mode, result.action, dict(result.content or {}) if result.content else None)
    if chosen.mode is Mode.URL:
        assert chosen.request is not None and chosen.elicitation_id is not None
        result = await ctx.session.elicit_url(message, chosen.request.params.url, chosen.elicitation_id,
                                              related_request_id=ctx.request_id)
        return Answer(chosen.mode, result.action, None, chosen.elicitation_id)
    return Answer(Mode.TEXT, "text")
