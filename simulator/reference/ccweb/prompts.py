"""The exact prompt texts the agents of cc-web receive (PRD §4 target run prompt, §5 source continuation prompt).

Pure functions of their arguments. The sentences that carry a requirement are module constants so that tests
(and readers of docs/control-api.md) can find them verbatim:

* one_way target run: ``ONE_WAY_NOTICE`` (the output is NOT returned to the source);
* return_and_continue target run: ``AUTO_RETURN_NOTICE``, ``COMPLETE_DELIVERY_NOTICE`` and
  ``NO_MANUAL_REPLY_NOTICE``, plus the request id;
* both: the source title, the source id and the original content;
* source continuation run: the request id, the target title and id, the original request (or
  ``ORIGINAL_REQUEST_UNAVAILABLE`` for a pending reply stored by an older version) and the returned body, then
  ``COMPLETENESS_CHECK_NOTICE`` (returned is not done).
"""

from __future__ import annotations

from typing import Final

from .contract import SEND_TOOL, ReplyMode

__all__ = [
    "ONE_WAY_NOTICE",
    "AUTO_RETURN_NOTICE",
    "COMPLETE_DELIVERY_NOTICE",
    "NO_MANUAL_REPLY_NOTICE",
    "ORIGINAL_REQUEST_UNAVAILABLE",
    "COMPLETENESS_CHECK_NOTICE",
    "target_run_prompt",
    "source_continuation_prompt",
    "reply_message_text",
]

ONE_WAY_NOTICE: Final = (
    "Reply mode: one_way. Your output for this message will NOT be returned to the source conversation "
    "automatically; it stays in this conversation."
)
AUTO_RETURN_NOTICE: Final = (
    "Reply mode: return_and_continue. The system will automatically return the final output of this run to the "
    "source conversation, which then continues from it."
)
COMPLETE_DELIVERY_NOTICE: Final = (
    "Give a complete delivery only once the work is truly done, or state clearly that you are blocked and why."
)
NO_MANUAL_REPLY_NOTICE: Final = (
    f"Do NOT call {SEND_TOOL} (or any other cross-conversation send tool) to reply to this request: your final "
    f"output is the reply, and a manual send would deliver it twice."
)
ORIGINAL_REQUEST_UNAVAILABLE: Final = (
    "(The original request is unavailable: this pending reply was recorded by an older version that did not keep "
    "its text.)"
)
COMPLETENESS_CHECK_NOTICE: Final = (
    "Before you continue, first judge whether this reply fully satisfies the original request. A returned reply is "
    "not the same as finished work: if anything is missing, wrong or blocked, follow up (for example with "
    f"{SEND_TOOL} and replyMode return_and_continue) instead of treating the request as done."
)


def _quote(title: str) -> str:
    return '"' + title.replace('"', "'") + '"'


def target_run_prompt(
    *,
    reply_mode: ReplyMode,
    source_title: str,
    source_id: str,
    content: str,
    request_id: str | None = None,
) -> str:
    """PRD §4: the prompt of the run a cross-conversation message starts in its target conversation.
    ``request_id`` is required for ``return_and_continue``."""
    lines = [
        "[ccweb cross-conversation message]",
        f"From conversation: {_quote(source_title)} (id: {source_id})",
    ]
    if reply_mode is ReplyMode.RETURN_AND_CONTINUE:
        if not request_id:
            raise ValueError("a return_and_continue target prompt needs its request id")
        lines += [
            f"Request id: {request_id}",
            "",
            AUTO_RETURN_NOTICE,
            COMPLETE_DELIVERY_NOTICE,
            NO_MANUAL_REPLY_NOTICE,
        ]
    else:
        lines += ["", ONE_WAY_NOTICE]
    lines += ["", "Message from the source conversation:", content]
    return "\n".join(lines)


def source_continuation_prompt(
    *,
    request_id: str,
    target_title: str,
    target_id: str,
    original_request: str | None,
    body: str,
    blocked: bool = False,
) -> str:
    """PRD §5: the prompt of the run that continues the source conversation once the reply is back."""
    outcome = "reported being blocked" if blocked else "finished its run"
    return "\n".join([
        "[ccweb reply returned]",
        f"Request id: {request_id}",
        f"From target conversation: {_quote(target_title)} (id: {target_id})",
        f"The target {outcome}; its final output is returned below.",
        "",
        "Original request:",
        original_request if original_request is not None else ORIGINAL_REQUEST_UNAVAILABLE,
        "",
        "Returned reply:",
        body,
        "",
        COMPLETENESS_CHECK_NOTICE,
    ])


def reply_message_text(*, request_id: str, target_title: str, target_id: str, body: str, blocked: bool) -> str:
    """The message written back into the source conversation when a reply returns."""
    state = "blocked" if blocked else "completed"
    return (f"Reply to request {request_id} from {_quote(target_title)} (id: {target_id}), target run {state}:\n"
            f"{body}")
