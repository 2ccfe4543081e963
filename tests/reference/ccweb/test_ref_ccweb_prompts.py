"""prompts.py: the target run prompt (PRD §4) and the source continuation prompt (PRD §5).

The PRD states what the prompts must say, not their words: the notices (``prompts.*_NOTICE``,
``ORIGINAL_REQUEST_UNAVAILABLE``) are the reference's own wording, so the checks naming them test the reference's
choice; the literal phrases beside them ("will NOT be returned", "truly done", "blocked", "first judge whether …")
are what carries each PRD sentence.
"""

from __future__ import annotations

import pytest

from simulator.reference.ccweb import prompts
from simulator.reference.ccweb.contract import ReplyMode


def target(mode: ReplyMode, request_id: str | None = None) -> str:
    return prompts.target_run_prompt(reply_mode=mode, source_title="Planning", source_id="conv-a",
                                     content="Please test the parser.", request_id=request_id)


def test_one_way_target_prompt():
    text = target(ReplyMode.ONE_WAY)
    assert prompts.ONE_WAY_NOTICE in text and "will NOT be returned" in text
    assert prompts.AUTO_RETURN_NOTICE not in text and prompts.NO_MANUAL_REPLY_NOTICE not in text
    for part in ('"Planning"', "conv-a", "Please test the parser."):
        assert part in text


def test_return_and_continue_target_prompt():
    text = target(ReplyMode.RETURN_AND_CONTINUE, "req-9")
    for part in (prompts.AUTO_RETURN_NOTICE, prompts.COMPLETE_DELIVERY_NOTICE, prompts.NO_MANUAL_REPLY_NOTICE,
                 "Request id: req-9", '"Planning"', "conv-a", "Please test the parser."):
        assert part in text
    assert "truly done" in text and "blocked" in text and "Do NOT call ccweb_send_message" in text
    assert prompts.ONE_WAY_NOTICE not in text


def test_return_and_continue_needs_a_request_id():
    with pytest.raises(ValueError):
        target(ReplyMode.RETURN_AND_CONTINUE)


def test_continuation_prompt_carries_everything():
    text = prompts.source_continuation_prompt(request_id="req-9", target_title="Worker", target_id="conv-b",
                                              original_request="Please test the parser.", body="All 12 tests pass.")
    for part in ("req-9", '"Worker"', "conv-b", "Please test the parser.", "All 12 tests pass.",
                 prompts.COMPLETENESS_CHECK_NOTICE, "first judge whether this reply fully satisfies"):
        assert part in text
    assert prompts.ORIGINAL_REQUEST_UNAVAILABLE not in text
    assert "reported being blocked" in prompts.source_continuation_prompt(
        request_id="r", target_title="W", target_id="b", original_request="x", body="stuck", blocked=True)


def test_continuation_prompt_of_a_legacy_record():
    text = prompts.source_continuation_prompt(request_id="req-old", target_title="Worker", target_id="conv-b",
                                              original_request=None, body="done")
    assert prompts.ORIGINAL_REQUEST_UNAVAILABLE in text and "req-old" in text and "done" in text
