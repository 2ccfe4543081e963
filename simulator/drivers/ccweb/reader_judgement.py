"""The wording only a reader can judge (ccweb-reply-mode-prd.md §1 description rules, §4 target prompt, §5 source
continuation prompt): the text is recorded as evidence and the verdict is *review* (``NeedsReview``), neither a pass
nor a failure, until a reviewed-decisions file (``--reviews``) settles it.

The material handed to the reader is the subject's text with the values this run made (the conversations the
scenario created, the request id) shown as stable placeholders, so that the same wording gives the same material
digest in every run and a reviewed decision pinned to it keeps applying; the wire log keeps the text exactly as
received. The checks a machine can make (the text exists, names what it must name) run before and fail on their own.
"""

from __future__ import annotations

from ...errors import NeedsReview
from ...wirelog import Direction, WireLog

__all__ = ["Placeholders", "stable_material", "hand_to_reader"]

#: (run-specific value, the placeholder that stands for it).
Placeholders = list[tuple[str, str]]


def stable_material(text: str, placeholders: Placeholders) -> str:
    """``text`` with every run-specific value replaced by its placeholder, the longest value first (no id is then
    replaced inside a longer one it prefixes)."""
    for value, placeholder in sorted(placeholders, key=lambda pair: -len(pair[0])):
        if value:
            text = text.replace(value, placeholder)
    return text


def hand_to_reader(wire: WireLog, thing: str, text: str, asks: str, placeholders: Placeholders) -> None:
    """Record ``text`` (what the subject gave as the ``thing``) as evidence and raise ``NeedsReview``: "does the
    <thing> say “<asks>”?". An empty text fails: there is nothing for a reader to judge."""
    assert text.strip(), f"the {thing} is empty: there is nothing for a reader to judge"
    wire.record("reader", Direction.NOTE, "evidence", text, summary=f"the {thing}, for a reader to judge")
    raise NeedsReview(f"Reader judgement needed: does the {thing} say \u201c{asks}\u201d?",
                      material=stable_material(text, placeholders))
