"""The desktop's control ``state`` (docs/control-api.md, desktop): read, checked, and judged.

A ``state`` answer is the desktop's own word about its sessions, runs, outbox and reopen bookkeeping. It is checked
against the documented shape before anything reads it: a field it omits or mistypes is the desktop's malformed
answer (a failure), never an empty default that would let "lists no outbox entry" or "does not offer" pass. The
``retry-turn`` answer is checked the same way (``{"ok": true, "reopenRequestId": str|null}``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ...hook import TurnEndStatus
from .session import DesktopSession

__all__ = ["FINISHED_STATUSES", "RUN_FIELDS", "STATE_FIELDS", "StateChecks", "checked_retry_answer",
           "checked_state"]

#: docs/control-api.md "desktop": the fields of the ``state`` answer and their JSON types.
STATE_FIELDS: dict[str, type] = {"sessions": list, "runs": list, "outbox": list, "reopenable": list,
                                 "connected": bool, "serverFeatures": list}
#: docs/control-api.md "desktop": the fields of each entry of ``runs``.
RUN_FIELDS = ("requestId", "runs", "status", "sessionId", "kind", "reopenOf", "decision")
#: A run has finished once its status is one of the turn.end statuses (§5 turn.end ``status``).
FINISHED_STATUSES = frozenset(status.value for status in TurnEndStatus)


def checked_state(answer: Any) -> dict[str, Any]:
    """``answer`` when it has the documented shape of a ``state`` answer; else ``AssertionError`` naming the
    missing or mistyped fields."""
    if not isinstance(answer, dict):
        raise AssertionError(f"the desktop's control answer to state is not an object: {answer!r}"[:600])
    bad = [k for k, t in STATE_FIELDS.items() if not isinstance(answer.get(k), t)]
    if bad:
        raise AssertionError(f"the desktop's control answer to state lacks (or mistypes) {bad} "
                             f"(docs/control-api.md, desktop): {json.dumps(answer)[:600]}")
    for index, run in enumerate(answer["runs"]):
        missing = [k for k in RUN_FIELDS if not isinstance(run, dict) or k not in run]
        if missing:
            raise AssertionError(f"the desktop's control answer to state is malformed at /runs/{index}: missing "
                                 f"{missing} (docs/control-api.md, desktop): {run!r}"[:600])
    return answer


def checked_retry_answer(answer: Any) -> str | None:
    """The ``reopenRequestId`` of a ``retry-turn`` answer; an answer without the field is malformed (a failure)."""
    assert answer is not None, "the desktop user did not retry a turn before this step"
    assert isinstance(answer, dict) and "reopenRequestId" in answer, (
        f"the desktop's answer to retry-turn lacks reopenRequestId (docs/control-api.md, desktop): {answer!r}")
    return answer["reopenRequestId"]


def _finished(rid: str) -> Callable[[dict[str, Any]], bool]:
    return lambda state: any(r["requestId"] == rid and r["status"] in FINISHED_STATUSES for r in state["runs"])


class StateChecks(DesktopSession):
    """Operations on the control ``state``."""

    def state(self) -> dict[str, Any]:
        """The desktop's control ``state``, checked (``checked_state``)."""
        return checked_state(self.call("state"))

    def runs_of(self, name: str) -> list[dict[str, Any]]:
        """The ``runs`` entries of request ``name``."""
        rid = self.rid(name)
        return [r for r in self.state()["runs"] if r["requestId"] == rid]

    def poll_state(self, shows: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        """Read ``state`` until ``shows(state)`` holds (``DesktopSession.poll``)."""
        return self.poll(self.state, shows, what)

    def check_ran_once(self, name: str) -> None:
        """The desktop ran ``name`` exactly once (§4 "requestId 幂等:任务重投不重跑"), by the run count its state
        reports once a second run would have started."""
        rid = self.rid(name)
        self.sleep(self.quiet)  # a second run, if any, has started by now
        runs = self.runs_of(name)
        assert runs, f"the desktop's state lists no run of {name!r} ({rid})"
        bad = [r["runs"] for r in runs if not isinstance(r["runs"], int) or isinstance(r["runs"], bool)]
        assert not bad, f"the desktop's state gives a run count that is not an integer: {bad!r}"
        count = sum(r["runs"] for r in runs)
        assert count == 1, f"the desktop's state reports {count} runs of {rid}: {runs!r}"

    def check_run_in_session_of(self, name: str, other: str) -> None:
        """The state shows ``name`` run in the session the desktop acked for ``other`` (a takeover)."""
        want = self.first_ack(other).session_id
        runs = self.runs_of(name)
        run = runs[-1] if runs else None
        assert run is not None, f"the desktop's state lists no run of {name!r}"
        assert run.get("sessionId") == want, (
            f"the state shows {name!r} in session {run.get('sessionId')!r}, not {want!r}")

    def check_finished(self, name: str) -> None:
        self.poll_state(_finished(self.rid(name)), f"{name!r} finished")

    def check_reopened_round_finished(self) -> None:
        self.poll_state(_finished(self.last_reopen_id()), "the reopened round finished")

    def check_offered_for_reopen(self, name: str) -> None:
        offered = self.state()["reopenable"]
        assert self.rid(name) in offered, f"the desktop's state does not offer {name!r} for reopen: {offered!r}"

    def check_not_offered_for_reopen(self, name: str) -> None:
        offered = self.state()["reopenable"]
        assert self.rid(name) not in offered, f"the desktop's state still offers {name!r} for reopen"

    def check_reopened_round_not_offered(self) -> None:
        rid = self.last_reopen_id()
        offered = self.state()["reopenable"]
        assert rid not in offered, "the desktop's state still offers the reopened round for reopen"

    def check_outbox_empty(self) -> None:
        """No request of this scenario waits in the desktop's outbox."""
        outbox = self.state()["outbox"]
        mine = [r for r in outbox if r in self.request_ids.values()]
        assert not mine, f"the desktop keeps {mine!r} in its outbox"

    def check_retry_desktop_only(self) -> None:
        """The last ``retry-turn`` answer names no reopen round (a desktop-only round)."""
        reopen_id = checked_retry_answer(self.last_reopen_answer)
        assert reopen_id is None, (
            f"retry-turn answered reopenRequestId {reopen_id!r}: the round was offered for reopen")
