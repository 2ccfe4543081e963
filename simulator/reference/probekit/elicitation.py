"""Elicitation (design §5 "Elicitation 处理器"), the decisions only: what to ask, in which mode, how an answer maps
to a result. Sans-I/O: the awaited requests (``ctx.session.elicit_form`` / ``elicit_url``) are the server's
(server.py), which carries out a ``Plan`` and hands the answer back here.

Mode choice: form when the client declared it, url for anything sensitive (tokens, passwords, keys are never asked
in a form, design "安全考虑"), and the design's numbered text question (``fallback_to_text``) when the client
declared no usable mode. Handshake-era connections (``REQUEST_ERA_VERSIONS``) get an ``elicitation/create``
request; later ones (2026-07-28) an ``InputRequiredResult`` (``input_required``) whose answer comes back in the
retry's ``inputResponses`` (``resumed``).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mcp.types as types

from .output import ok_text
from .workflows import WORKFLOWS

__all__ = ["Mode", "supported_modes", "is_sensitive", "fallback_to_text", "choose_mode", "form_schema",
           "INTERVIEW_QUESTIONS", "SECURE_INPUT_URL", "INPUT_KEY", "REQUEST_ERA_VERSIONS", "Question", "Plan",
           "Answer", "TEXT_ANSWER", "asks_by_request", "tool_question", "workflow_question", "task_question",
           "mode_for", "plan", "plan_in", "answer_of", "input_required", "resumed", "tool_result", "filled"]

SECURE_INPUT_URL = "https://probekit.invalid/secure-input"

_SENSITIVE = re.compile(r"(token|password|passwd|passphrase|secret|api[ _-]?key|private[ _-]?key|credential|"
                        r"密码|密钥|令牌|凭证)", re.I)

INTERVIEW_QUESTIONS: list[tuple[str, str]] = [
    ("goal", "What problem should this solve, and for whom?"),
    ("scope", "What is in scope for the first version, and what is explicitly out?"),
    ("constraints", "Which constraints apply (tech stack, deadlines, compatibility)?"),
    ("acceptance", "How will we know it is done (acceptance criteria)?"),
]

#: The key of the one input request an InputRequiredResult carries (2026-07-28 connections).
INPUT_KEY = "probekit-question"
#: Protocol revisions on which the server asks with an ``elicitation/create`` request (handshake era).
REQUEST_ERA_VERSIONS = ("2025-06-18", "2025-11-25")


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


def asks_by_request(protocol_version: Any) -> bool:
    """True on a handshake-era connection (an ``elicitation/create`` request), False on a later one (an
    ``InputRequiredResult``)."""
    return protocol_version in REQUEST_ERA_VERSIONS


@dataclass(frozen=True, slots=True)
class Question:
    """What to ask: the message and the form's fields (key, question); ``options`` for a one-field choice."""

    message: str
    fields: list[tuple[str, str]]
    options: list[str] | None = None

    @property
    def sensitive(self) -> bool:
        return is_sensitive(self.message + " " + " ".join(q for _, q in self.fields))


def tool_question(name: str, args: Mapping[str, Any]) -> Question | None:
    """The question of ``interview`` / ``ask_user``; None when there is nothing to ask (``ask_user`` without a
    question: its text handler answers)."""
    if name == "ask_user":
        question = str(args.get("question") or "").strip()
        if not question:
            return None
        return Question(question, [("answer", question)], args.get("options") or None)
    topic = str(args.get("description") or "").strip()
    return Question(f"Interview{f' about: {topic}' if topic else ''}", INTERVIEW_QUESTIONS,
                    args.get("options") or None)


def workflow_question(name: str, args: Mapping[str, Any]) -> Question | None:
    """A workflow called without its main argument asks for it (one field); None when it has it (or is no
    workflow)."""
    if name not in WORKFLOWS:
        return None
    key, what, _ = WORKFLOWS[name]
    if str(args.get(key) or "").strip():
        return None
    return Question(f"{name} needs {key}: {what}", [(key, f"Describe {what}")])


def task_question(name: str, args: Mapping[str, Any], protocol_version: Any, capabilities: Any) -> Question | None:
    """A workflow task without its main argument asks for it in a form while it is ``input_required``: only on a
    handshake-era connection whose client declared form mode (a task has no ``InputRequiredResult``)."""
    question = workflow_question(name, args)
    if question is None or not asks_by_request(protocol_version) or Mode.FORM not in supported_modes(capabilities):
        return None
    return question


@dataclass(frozen=True)
class Plan:
    """What to ask and how: ``request`` is the ``elicitation/create`` request (None for text)."""
    mode: Mode
    request: types.ElicitRequest | None = None
    elicitation_id: str | None = None


def mode_for(question: Question, modes: set[Mode]) -> Mode:
    """The mode to ask ``question`` in, of those the client declared (``modes``): a sensitive value only through url
    mode, never a form (MCP 2025-11-25 elicitation: "Servers MUST NOT use form mode to request sensitive
    information"); anything else in a form; text when the client declared neither."""
    if question.sensitive:
        return Mode.URL if Mode.URL in modes else Mode.TEXT
    return Mode.FORM if Mode.FORM in modes else Mode.TEXT


def plan(question: Question, modes: set[Mode], *, new_id: Callable[[], str]) -> Plan:
    """Choose the mode from what the client declared (``mode_for``) and build the request (``plan_in``)."""
    return plan_in(mode_for(question, modes), question, new_id=new_id)


def plan_in(mode: Mode, question: Question, *, new_id: Callable[[], str]) -> Plan:
    """The request asking ``question`` in ``mode``; ``new_id()`` names a url elicitation."""
    if mode is Mode.FORM:
        schema = form_schema(question.fields, question.options)
        params: Any = types.ElicitRequestFormParams(message=question.message, requested_schema=schema)
        return Plan(mode, types.ElicitRequest(params=params))
    if mode is Mode.URL:
        eid = new_id()
        params = types.ElicitRequestURLParams(message=question.message, url=f"{SECURE_INPUT_URL}?id={eid}",
                                              elicitation_id=eid)
        return Plan(mode, types.ElicitRequest(params=params), eid)
    return Plan(Mode.TEXT)


@dataclass(frozen=True)
class Answer:
    mode: Mode
    action: str  # accept | decline | cancel | text (a text question was returned)
    content: dict[str, Any] | None = None
    elicitation_id: str | None = None


#: The answer of a question that goes out as text (the caller returns the text question).
TEXT_ANSWER = Answer(Mode.TEXT, "text")


def answer_of(plan: Plan, action: str, content: Mapping[str, Any] | None, elicitation_id: str | None = None
              ) -> Answer:
    """The client's answer to ``plan`` (url mode returns no content: the secret never comes back)."""
    if plan.mode is Mode.URL:
        return Answer(plan.mode, action, None, elicitation_id or plan.elicitation_id)
    return Answer(plan.mode, action, dict(content or {}) or None, elicitation_id or plan.elicitation_id)


def input_required(name: str, plan: Plan) -> types.InputRequiredResult:
    """The 2026-07-28 way to ask: one input request under ``INPUT_KEY``; ``requestState`` names the tool and the url
    elicitation (``probekit:<tool>:<elicitationId or empty>``)."""
    assert plan.request is not None  # a plan in form or url mode (never text) carries its request
    return types.InputRequiredResult(input_requests={INPUT_KEY: plan.request},
                                     request_state=f"probekit:{name}:{plan.elicitation_id or ''}")


def resumed(plan: Plan, response: Any, params: Any) -> Answer:
    """The answer in a retry's ``inputResponses[INPUT_KEY]`` (``params``: the retry's raw params, whose
    ``requestState`` names the url elicitation that was asked)."""
    result = types.ElicitResult.model_validate(
        response if isinstance(response, Mapping) else response.model_dump(by_alias=True))
    state = params.get("requestState") if isinstance(params, Mapping) else None
    asked_id = str(state).rpartition(":")[2] if isinstance(state, str) else ""
    return answer_of(plan, result.action, result.content, asked_id or None)


def tool_result(answer: Answer) -> dict[str, Any] | None:
    """The result of ``interview`` / ``ask_user`` for ``answer`` (output.py form); None for a text answer (the
    tool's text handler answers). A url-mode answer never carries the secret."""
    if answer.mode is Mode.TEXT:
        return None
    meta: dict[str, Any] = {"mode": answer.mode.value, "action": answer.action}
    if answer.mode is Mode.URL:
        if answer.elicitation_id:
            meta["elicitationId"] = answer.elicitation_id
        text = ("The user was sent to a secure page to enter the sensitive value; it is not returned here."
                if answer.action == "accept" else f"The user did not open the secure page ({answer.action}).")
        return ok_text(text, meta)
    if answer.action != "accept":
        return ok_text(f"The user did not answer ({answer.action}). Proceed with stated assumptions or ask "
                       f"again later.", meta)
    lines = [f"{key}: {value}" for key, value in (answer.content or {}).items()]
    return ok_text("User answers:\n" + ("\n".join(lines) or "(empty)"), {**meta, "answers": answer.content})


def filled(args: dict[str, Any], question: Question, answer: Answer) -> dict[str, Any]:
    """A workflow's arguments with the answer to its ``workflow_question`` filled in (accepted, non-blank), else
    unchanged: the report then says what is missing."""
    key = question.fields[0][0]
    value = (answer.content or {}).get(key) if answer.action == "accept" else None
    return {**args, key: value} if isinstance(value, str) and value.strip() else args
