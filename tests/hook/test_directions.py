"""The sender table (simulator/hook/directions.py) against the spec's own 方向 column (slack-hook-protocol.md §5):
the table is read from the spec file beside the checkout, so a typo in either shows here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from simulator.hook import HOOK_MESSAGE_TYPES, MessageType
from simulator.hook.directions import MESSAGE_SENDER, Sender, sent_by

SPEC = Path(__file__).resolve().parents[3] / "shared" / "specs" / "slack-hook-protocol.md"
_COLUMN = {"desktop → server": Sender.DESKTOP, "server → desktop": Sender.SERVER, "双向": Sender.EITHER}
#: Newer than the spec document (UPSTREAM-FACTS "msg.op / msg.op.result ... server-resolved message operations").
_NOT_IN_SPEC = {MessageType.MSG_OP: Sender.DESKTOP, MessageType.MSG_OP_RESULT: Sender.SERVER}


def _spec_directions() -> dict[str, Sender]:
    rows: dict[str, Sender] = {}
    for line in SPEC.read_text(encoding="utf-8").splitlines():
        cells = line.split("\t")
        if len(cells) >= 2 and re.fullmatch(r"`[a-z.]+`( / `[a-z.]+`)*", cells[0]) and cells[1] in _COLUMN:
            for name in re.findall(r"`([a-z.]+)`", cells[0]):
                rows[name] = _COLUMN[cells[1]]
    return rows


def test_every_type_has_one_sender() -> None:
    assert set(MESSAGE_SENDER) == set(MessageType)
    assert len(MESSAGE_SENDER) == len(HOOK_MESSAGE_TYPES) == 41


def test_the_table_agrees_with_the_spec_catalogue() -> None:
    if not SPEC.is_file():
        pytest.skip(f"the spec file is not beside this checkout ({SPEC}): the direction column cannot be read")
    spec = _spec_directions()
    assert len(spec) == 39, sorted(spec)  # the 41 types less msg.op / msg.op.result
    ours = {t.value: s for t, s in MESSAGE_SENDER.items() if t not in _NOT_IN_SPEC}
    assert ours == spec
    assert {t: MESSAGE_SENDER[t] for t in _NOT_IN_SPEC} == _NOT_IN_SPEC


def test_sent_by_rejects_an_unknown_type() -> None:
    assert sent_by("tool.request") is Sender.DESKTOP
    with pytest.raises(ValueError):
        sent_by("tool.requests")
