"""The recorded timeline of one scenario, replayed in step with the harness (sans-I/O: times are passed in).

A recorded scenario's wire events (``simulator.replay.recording``) are of three kinds (``Kind``):

* **harness** events, what the harness did: every frame, JSON-RPC message and control call it sent, and the
  connection actions it took (``listen``, ``connect``, ``closing <code>``, ``drop``, a WebSocket ``ws ping``);
* **subject** events, what the subject did or answered: every frame, message and control answer received, and the
  outcomes of connections (a desktop's upgrade request, opened, refused, closed, lost, a WebSocket pong or none, the
  end of an MCP stream), a control call left unanswered, a stdio subject's stderr lines;
* everything else (the harness's own notes), which a replay records again by itself.

While the scenario runs again, each harness event the harness records is *matched* to the next recorded harness
event with the same role, channel, direction, summary and connection number (within ``LOOKAHEAD`` unmatched
ones: a pong the harness sends in answer to a subject's ping may come a little earlier or later than in the
recording relative to the test thread's actions); a harness event with no match is a *divergence* (the harness
plays the scenario differently from the recording). Each subject event becomes *due* once every harness event
recorded before it has been matched, at the time the last of them was matched plus the delay recorded between them,
and never before the subject event recorded before it: the subject answers as it answered, as late as it answered,
in the order it answered. A subject event recorded after the scenario's teardown began (the harness's ``teardown``
note) waits for the replay's teardown too (``begin_teardown``), as long after it as it came after the recorded one:
the teardown stops the subject (a reference instance's stop is not on the wire), and what the stop caused (a
desktop's closing handshake, a few milliseconds after the scenario's last pong) must not reach the harness while the
replay's last step still reads the connection.

Values the harness makes up afresh each run (UUIDs, chat ids, timestamps) differ between the recording and the
replay: matching learns, from each matched pair of texts, which recorded strings became which (``learn``), and
the subject's recorded texts are rewritten with them before they are delivered (``substitute``), so that a
subject's answer that echoed a recorded request id echoes the replay's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ...wirelog import is_teardown

__all__ = ["Kind", "LOOKAHEAD", "Step", "Timeline", "kind_of"]

#: How many unmatched recorded harness events a replayed one may skip to find its match.
LOOKAHEAD = 64
#: The shortest made-up string the substitution rewrites (shorter ones, e.g. "ok", could be anything's value).
MIN_SUBSTITUTED = 6
_HARNESS_NOTES = frozenset({"connect", "drop", "ws ping", "listen"})
_SUBJECT_NOTES = frozenset({"open", "refused", "bad handshake", "connect failed", "timeout", "unreachable", "ws pong",
                            "no ws pong", "eof", "handshake"})


class Kind(StrEnum):
    HARNESS = "harness"
    SUBJECT = "subject"
    OTHER = "other"


def kind_of(event: Mapping[str, Any]) -> Kind:
    """Who caused a recorded event (see the module docstring)."""
    direction, summary = event.get("direction"), str(event.get("summary", ""))
    if direction == "sent":
        return Kind.HARNESS
    if direction == "received":
        return Kind.SUBJECT
    channel = event.get("channel")
    if channel == "connection":
        if summary in _HARNESS_NOTES or summary.startswith("closing "):
            return Kind.HARNESS
        if summary in _SUBJECT_NOTES or summary.startswith("close "):
            return Kind.SUBJECT
    if channel == "control" and summary in _SUBJECT_NOTES:
        return Kind.SUBJECT
    if channel == "stderr":  # what a stdio subject wrote on its stderr
        return Kind.SUBJECT
    return Kind.OTHER


def _signature(event: Mapping[str, Any]) -> tuple[Any, ...]:
    return (event.get("role"), event.get("channel"), event.get("direction"), event.get("summary"), event.get("conn"))


@dataclass(frozen=True)
class Step:
    """A subject event that is due: its index in the recording, the event (texts rewritten) and when it is due."""

    index: int
    event: dict[str, Any]
    at: float


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}/{i}")
    else:
        yield path, value


@dataclass
class Timeline:
    events: list[dict[str, Any]]
    #: When the replay of the scenario began (the recorded times count from the recording's start).
    start: float = 0.0
    kinds: list[Kind] = field(init=False)
    matched: dict[int, float] = field(init=False, default_factory=dict)
    divergences: list[str] = field(init=False, default_factory=list)
    substitutions: dict[str, str] = field(init=False, default_factory=dict)
    #: When the replay's teardown began (``begin_teardown``); None before.
    teardown_at: float | None = field(init=False, default=None)
    _next_subject: int = field(init=False, default=0)
    _last_due: float = field(init=False, default=0.0)

    def __post_init__(self) -> None:
        self.kinds = [kind_of(e) for e in self.events]
        #: The recorded teardown note's index (None in a recording without one: nothing waits for the teardown).
        self._teardown = next((i for i, e in enumerate(self.events) if is_teardown(e)), None)
        self._subjects = [i for i, k in enumerate(self.kinds) if k is Kind.SUBJECT]
        self._harness = [i for i, k in enumerate(self.kinds) if k is Kind.HARNESS]
        self.skipped: list[int] = []
        self._answers: dict[int, int] = {}
        asked: int | None = None
        for i, e in enumerate(self.events):
            if e.get("channel") != "control":
                continue
            if self.kinds[i] is Kind.HARNESS:
                asked = i
            elif self.kinds[i] is Kind.SUBJECT and asked is not None:
                self._answers[asked] = i
                asked = None

    # -- the harness's side ----------------------------------------------------------------------------------------

    def match(self, event: Mapping[str, Any], now: float) -> int | None:
        """Match a harness event the replay recorded: its recorded index, or None when the recording has no such
        step next (a divergence: the caller decides what it means). Recorded harness events the match skips over
        (a poll the recording made once more than the replay, within a timed window) count as taken, and their
        subject answers are never asked for."""
        want = _signature(event)
        skipped: list[int] = []
        for i in self._harness:
            if i in self.matched:
                continue
            if _signature(self.events[i]) == want:
                for s in skipped:
                    self.matched[s] = now
                    self.skipped.append(s)
                self.matched[i] = now
                self.learn(self.events[i].get("text", ""), str(event.get("text", "")))
                return i
            skipped.append(i)
            if len(skipped) >= LOOKAHEAD:
                break
        return None

    @property
    def tearing_down(self) -> bool:
        """Whether the scenario's teardown has begun: what diverges then cannot have changed the scenario's verdict."""
        return self.teardown_at is not None

    def begin_teardown(self, now: float) -> None:
        """The replay's teardown begins: the subject events recorded after the recorded teardown note may fall due."""
        if self.teardown_at is None:
            self.teardown_at = now

    def diverged(self, event: Mapping[str, Any]) -> None:
        where = " while tearing the scenario down" if self.tearing_down else ""
        self.divergences.append(f"the harness sent {event.get('summary') or event.get('channel')!r} as "
                                f"{event.get('role')!r}{where} where the recording has no such step next")

    def answer_of(self, request: int) -> int | None:
        """The recorded answer to the control call at ``request``: the next control event of the subject before
        the next control call (calls are one at a time)."""
        return self._answers.get(request)

    def learn(self, recorded: str, replayed: str) -> None:
        """Which recorded made-up values the replay's text has in their place (JSON leaves at the same path)."""
        if recorded == replayed or not recorded or not replayed:
            return
        try:
            old, new = json.loads(recorded), json.loads(replayed)
        except ValueError:
            return
        new_leaves = dict(_leaves(new))
        for path, value in _leaves(old):
            other = new_leaves.get(path)
            if isinstance(value, str) and isinstance(other, str) and value != other and len(value) >= MIN_SUBSTITUTED:
                self.substitutions.setdefault(value, other)
            elif isinstance(value, int) and isinstance(other, int) and not isinstance(value, bool) \
                    and value != other and value >= 10 ** 9:  # a timestamp or another large made-up number
                self.substitutions.setdefault(str(value), str(other))

    def substitute(self, text: str) -> str:
        """``text`` with every recorded made-up value the replay replaced, replaced (longest first)."""
        for old in sorted(self.substitutions, key=len, reverse=True):
            if old in text:
                text = text.replace(old, self.substitutions[old])
        return text

    # -- the subject's side ----------------------------------------------------------------------------------------

    def due(self) -> Step | None:
        """The next subject event, once every harness event recorded before it has been matched (and, for one
        recorded after the teardown note, once the replay's teardown has begun), with the time it is due; None while
        it waits for the harness (or when there is none left)."""
        if self._next_subject >= len(self._subjects):
            return None
        j = self._subjects[self._next_subject]
        before = [i for i in self._harness if i < j]
        if any(i not in self.matched for i in before):
            return None
        t_j = float(self.events[j].get("t", 0.0))
        if before:
            k = before[-1]
            at = self.matched[k] + max(0.0, t_j - float(self.events[k].get("t", 0.0)))
        else:
            at = self.start + t_j
        if self._teardown is not None and j > self._teardown:
            if self.teardown_at is None:
                return None  # it came after the teardown began: it waits for the replay's
            since = max(0.0, t_j - float(self.events[self._teardown].get("t", 0.0)))
            at = max(at, self.teardown_at + since)
        at = max(at, self._last_due)
        event = dict(self.events[j])
        event["text"] = self.substitute(str(event.get("text", "")))
        return Step(j, event, at)

    def taken(self, step: Step) -> None:
        """The engine delivered ``step``: the next subject event is next."""
        self._next_subject += 1
        self._last_due = step.at

    def next_open(self, after: int, role: str) -> int | None:
        """The connection number of ``role``'s first connection opened after event ``after`` (the one a recorded
        upgrade request led to)."""
        for e in self.events[after + 1:]:
            if e.get("role") == role and e.get("channel") == "connection" and e.get("summary") == "open":
                return e.get("conn")
            if e.get("role") == role and e.get("channel") == "connection" and e.get("summary") == "handshake":
                return None  # the next request came first: this one was refused
        return None

    @property
    def finished(self) -> bool:
        return self._next_subject >= len(self._subjects)

    def repeated_poll(self, index: int) -> bool:
        """Whether the recorded harness event at ``index`` is a control call the replay made too, with the same
        body, at another moment: a poll of a timed window, which the replay may make fewer times."""
        e = self.events[index]
        if e.get("channel") != "control":
            return False
        return any(self.events[i].get("summary") == e.get("summary") and self.events[i].get("text") == e.get("text")
                   for i in self.matched if i not in self.skipped)

    def unmatched(self) -> list[int]:
        """The recorded harness events the replay never did."""
        return [i for i in self._harness if i not in self.matched]
