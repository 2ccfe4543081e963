"""The desktop's control ``state`` (docs/control-api.md, desktop): read, checked, and judged.

A ``state`` answer is the desktop's own word about its sessions, runs, outbox and reopen bookkeeping (and what it
shows of the other families). It is checked against ``$defs/state.response`` of
docs/desktop-control-api.schema.json before anything reads it (``answers``): a field it omits or mistypes is the
desktop's malformed answer (a failure), never an empty default that would let "lists no outbox entry" or "does not
offer" pass. The ``retry-turn`` answer is checked the same way (``$defs/retry-turn.response``:
``{"ok": true, "reopenRequestId": str|null}``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...errors import NotTestable
from ...hook import MessageType, TurnEndStatus
from .answers import checked_answer
from .session import DesktopSession

__all__ = ["FINISHED_STATUSES", "StateChecks", "checked_retry_answer", "checked_state"]

#: A run has finished once its status is one of the turn.end statuses (§5 turn.end ``status``; docs/control-api.md,
#: desktop ``run``).
FINISHED_STATUSES = frozenset(status.value for status in TurnEndStatus)


def checked_state(answer: Any) -> dict[str, Any]:
    """``answer`` when it matches ``$defs/state.response``; else ``AssertionError`` naming the schema entry and the
    JSON pointer of what is missing or mistyped."""
    state: dict[str, Any] = checked_answer(answer, "state")
    return state


def checked_retry_answer(answer: Any) -> str | None:
    """The ``reopenRequestId`` of a ``retry-turn`` answer (``$defs/retry-turn.response``); an answer without the
    field is malformed (a failure)."""
    assert answer is not None, "the desktop user did not retry a turn before this step"
    reopen_request_id: str | None = checked_answer(answer, "retry-turn")["reopenRequestId"]
    return reopen_request_id


def _finished(rid: str) -> Callable[[dict[str, Any]], bool]:
    return lambda state: any(r["requestId"] == rid and r["status"] in FINISHED_STATUSES for r in state["runs"])


@dataclass(eq=False)
class StateChecks:
    """Operations on the control ``state``."""

    session: DesktopSession

    def state(self) -> dict[str, Any]:
        """The desktop's control ``state``, checked against ``$defs/state.response`` (``DesktopSession.call``)."""
        state: dict[str, Any] = self.session.call("state")  # checked: $defs/state.response is an object
        return state

    def runs_of(self, name: str) -> list[dict[str, Any]]:
        """The ``runs`` entries of request ``name``."""
        rid = self.session.rid(name)
        return [r for r in self.state()["runs"] if r["requestId"] == rid]

    def poll_state(self, shows: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        """Read ``state`` until ``shows(state)`` holds (``DesktopSession.poll``)."""
        return self.session.poll(self.state, shows, what)

    def check_ran_once(self, name: str) -> None:
        """The desktop ran ``name`` exactly once (§4 "requestId 幂等:任务重投不重跑"), by the run count its state
        reports once a second run would have started."""
        rid = self.session.rid(name)
        self.session.wait_for_work()  # a second run, if any, has started by now
        runs = self.runs_of(name)  # each run count an integer ≥ 0 ($defs/run)
        assert runs, f"the desktop's state lists no run of {name!r} ({rid})"
        count = sum(r["runs"] for r in runs)
        assert count == 1, f"the desktop's state reports {count} runs of {rid}: {runs!r}"

    def check_run_in_session_of(self, name: str, other: str) -> None:
        """The state shows ``name`` run in the session the desktop acked for ``other`` (a takeover)."""
        want = self.session.first_ack(other).session_id
        runs = self.runs_of(name)
        run = runs[-1] if runs else None
        assert run is not None, f"the desktop's state lists no run of {name!r}"
        assert run.get("sessionId") == want, (
            f"the state shows {name!r} in session {run.get('sessionId')!r}, not {want!r}")

    def check_finished_offline(self, name: str) -> None:
        """``name``'s run finished while the desktop was offline (its state, polled), with no turn.end of it received
        before the desktop went offline."""
        self._finished_offline(self.session.rid(name), repr(name))

    def check_reopened_round_finished_offline(self) -> None:
        """The reopened round finished while the desktop was offline (as ``check_finished_offline``)."""
        self._finished_offline(self.session.last_reopen_id(), "the reopened round")

    def _finished_offline(self, rid: str, what: str) -> None:
        """Poll ``state`` until the run of ``rid`` has finished. A turn.end of ``rid`` the harness already received
        means the turn ended before the desktop went offline, so the scenario's offline path was not exercised (§4
        "断线重连:…;desktop 补发未送达的 turn.end"; turn.reopen: "一轮续跑的 turn.end 没能发出去时,desktop 不得再把
        这条消息线登记成\"可续跑\"") and what follows would pass on the frame sent while online. That is not testable
        (the turn scripted with ``script-next-turn`` did not outlast the ``disconnect``), never a pass."""
        self.poll_state(_finished(rid), f"{what} finished")
        early = [i for i, e in self.session.received() if e.type == MessageType.TURN_END and e.request_id == rid]
        if early:
            raise NotTestable(f"{what} ended before the desktop went offline (its turn.end arrived on connection "
                              f"{early[0] + 1}): the turn scripted with script-next-turn did not outlast the "
                              f"disconnect, so the offline path was not exercised")

    def check_offered_for_reopen(self, name: str) -> None:
        offered = self.state()["reopenable"]
        assert self.session.rid(name) in offered, f"the desktop's state does not offer {name!r} for reopen: {offered!r}"

    def check_not_offered_for_reopen(self, name: str) -> None:
        offered = self.state()["reopenable"]
        assert self.session.rid(name) not in offered, f"the desktop's state still offers {name!r} for reopen"

    def check_reopened_round_not_offered(self) -> None:
        rid = self.session.last_reopen_id()
        offered = self.state()["reopenable"]
        assert rid not in offered, "the desktop's state still offers the reopened round for reopen"

    def check_outbox_empty(self) -> None:
        """No request of this scenario waits in the desktop's outbox."""
        outbox = self.state()["outbox"]
        mine = [r for r in outbox if r in self.session.request_ids.values()]
        assert not mine, f"the desktop keeps {mine!r} in its outbox"

    def check_retry_desktop_only(self) -> None:
        """The last ``retry-turn`` answer names no reopen round (a desktop-only round)."""
        reopen_id = checked_retry_answer(self.session.last_reopen_answer)
        assert reopen_id is None, (
            f"retry-turn answered reopenRequestId {reopen_id!r}: the round was offered for reopen")
