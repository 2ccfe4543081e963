"""Interactions during a turn: interaction.request, interaction.decision, interaction.cancel (spec §5 阶段 10).

A card has 1 to 24 buttons (``MAX_INTERACTION_BUTTONS``); button ids are unique within the card and contain no
``|`` (the server's composite-value separator); every button has a ``label`` and a ``style`` (primary, danger,
default; required, UPSTREAM-FACTS). The decision's ``buttonId`` is not checked for ``|``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .checks import Obj, is_array, is_object
from .constants import MAX_INTERACTION_BUTTONS, ButtonStyle, MessageType
from .issues import SPEC, HookIssue, IssueCode
from .registry import define
from .wire import Wire, extra_field, nested_list

__all__ = ["InteractionButton", "InteractionRequestPayload", "InteractionDecisionPayload", "InteractionCancelPayload"]

REF = f"{SPEC} §5 阶段 10"
_STYLES = tuple(s.value for s in ButtonStyle)


@dataclass(frozen=True, slots=True)
class InteractionButton(Wire):
    id: str
    label: str
    style: str = ButtonStyle.DEFAULT.value
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class InteractionRequestPayload(Wire):
    request_id: str
    interaction_id: str
    kind: str
    title: str
    body: str
    buttons: tuple[InteractionButton, ...] = nested_list(InteractionButton)
    extra: Mapping[str, Any] = extra_field()


def check_request(p: Obj) -> HookIssue | None:
    issue = (
        p.nonempty_str("requestId")
        or p.nonempty_str("interactionId")
        or p.nonempty_str("kind")
        or p.nonempty_str("title")
        or p.string("body")
    )
    if issue:
        return issue
    buttons = p.get("buttons")
    if not is_array(buttons):
        return p.array("buttons")
    if not buttons:
        return p.issue("buttons", IssueCode.EMPTY, "interaction.request.buttons must have at least one button")
    if issue := p.max_items("buttons", MAX_INTERACTION_BUTTONS):
        return issue
    seen: set[str] = set()
    for i, b in enumerate(buttons):
        if not is_object(b):
            return p.item_issue("buttons", i, "an object")
        button = p.item("buttons", i, b)
        if issue := button.nonempty_str("id"):
            return issue
        if "|" in b["id"]:
            return button.issue("id", IssueCode.BAD_FORMAT, f"{button.label}.id must not contain '|'")
        if b["id"] in seen:
            return button.issue("id", IssueCode.DUPLICATE, f"{button.label}.id must be unique within the card")
        seen.add(b["id"])
        if issue := button.nonempty_str("label") or button.enum("style", _STYLES):
            return issue
    return None


@dataclass(frozen=True, slots=True)
class InteractionDecisionPayload(Wire):
    request_id: str
    interaction_id: str
    button_id: str
    extra: Mapping[str, Any] = extra_field()


def check_decision(p: Obj) -> HookIssue | None:
    return p.nonempty_str("requestId") or p.nonempty_str("interactionId") or p.nonempty_str("buttonId")


@dataclass(frozen=True, slots=True)
class InteractionCancelPayload(Wire):
    request_id: str
    interaction_id: str
    reason: str
    extra: Mapping[str, Any] = extra_field()


def check_cancel(p: Obj) -> HookIssue | None:
    return p.nonempty_str("requestId") or p.nonempty_str("interactionId") or p.string("reason")


define(MessageType.INTERACTION_REQUEST, InteractionRequestPayload, check_request, f"{REF} interaction.request")
define(MessageType.INTERACTION_DECISION, InteractionDecisionPayload, check_decision, f"{REF} interaction.decision")
define(MessageType.INTERACTION_CANCEL, InteractionCancelPayload, check_cancel, f"{REF} interaction.cancel")
