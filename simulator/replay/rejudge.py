"""The comparison of ``simulator judge``, sans-I/O: a recording and what was judged again in,
a ``Judgement`` out (``simulator.replay.judging`` runs the playback and prints it).

What this harness judges again, it judges with its own current code:

* **the scenarios a playback ran again** (``simulator.replay.playback``: the recorded subjects' side played to the
  harness's unchanged steps): their new results, by scenario key (``replayed``), with where the replay went
  otherwise than the recording (``divergences``);
* **the frames the subjects sent** (every received hook frame of every scenario): each is parsed again by the
  protocol core (``describe_frame``, the single entry point of received frames, spec §2), and the run-wide
  emitted-frames requirements (``simulator.drivers.emitted_frames``) are judged again over them, with the recording's
  selection and strictness.

A scenario no playback ran (the robustness and fault profiles) keeps its recorded result: its requirement is listed
as *kept* and never counted as reproduced. Every requirement's verdict is worked out again (the worst of its
results, ``requirement_verdict``) and compared with the recorded one; a difference is a ``Change`` with why: the
scenarios whose verdict changed and their new reasons, or the emitted-frames result's reason, and how many frames
the parser now judges differently (``FrameChange``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ..drivers.emitted_frames import EmittedFrames, judge_emitted
from ..harness.frame_cases import frame_rule_index
from ..drivers.emitted_lines import EmittedLines, judge_emitted_lines
from .recording import Recording
from ..verdicts.requirements import load_registry
from ..verdicts.results import ScenarioResult, requirement_verdict
from ..roles.hook_conn import describe_frame
from ..wirelog import Direction, WireEvent

__all__ = ["Change", "FrameChange", "Judgement", "rejudge"]


@dataclass(frozen=True)
class FrameChange:
    """A recorded hook frame that the protocol core now judges differently."""

    scenario: str
    index: int
    direction: str
    recorded: str | None
    now: str | None

    def __str__(self) -> str:
        return (f"{self.scenario} event #{self.index} ({self.direction}): recorded {self.recorded!r}, "
                f"now {self.now!r}")


@dataclass(frozen=True)
class Change:
    requirement: str
    recorded: str
    now: str
    why: str


@dataclass
class Judgement:
    #: Requirement → verdict, for the requirements judged again from the recording.
    rejudged: dict[str, str] = field(default_factory=dict)
    #: Requirement → verdict as recorded (the end line's, else worked out from the scenario lines).
    recorded: dict[str, str] = field(default_factory=dict)
    #: Requirement → why it was not judged again (its verdict came from steps that acted on the subject).
    kept: dict[str, str] = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)
    frame_changes: list[FrameChange] = field(default_factory=list)
    frames_checked: int = 0
    #: Keys that name more than one scenario line (a recording this harness cannot tell apart).
    duplicate_keys: list[str] = field(default_factory=list)
    #: How many scenarios a playback ran again, and where the replays went otherwise than the recording.
    replayed: int = 0
    divergences: dict[str, list[str]] = field(default_factory=dict)

    @property
    def reproduced(self) -> list[str]:
        return sorted(r for r, v in self.rejudged.items() if self.recorded.get(r) == v)

    def to_json(self) -> dict[str, Any]:
        return {"rejudged": dict(sorted(self.rejudged.items())), "reproduced": self.reproduced,
                "changes": [c.__dict__ for c in self.changes], "kept": dict(sorted(self.kept.items())),
                "framesChecked": self.frames_checked,
                "frameChanges": [f.__dict__ for f in self.frame_changes], "duplicateKeys": self.duplicate_keys,
                "replayedScenarios": self.replayed, "divergences": self.divergences}

    def text(self) -> str:
        lines = [f"judged again from the recording: {len(self.rejudged)} requirement(s) ({self.replayed} scenario(s) "
                 f"played back, the frames the subjects sent judged again), {len(self.reproduced)} reproduced, "
                 f"{len(self.changes)} judged differently; {self.frames_checked} recorded frame(s) parsed again, "
                 f"{len(self.frame_changes)} judged differently",
                 f"not judged again (their roles have no playback yet; verdicts as recorded): {len(self.kept)} "
                 f"requirement(s)"]
        for c in self.changes:
            lines.append(f"  CHANGED {c.requirement}: recorded {c.recorded}, now {c.now}: {c.why}")
        for f in self.frame_changes[:20]:
            lines.append(f"  frame: {f}")
        if len(self.frame_changes) > 20:
            lines.append(f"  … and {len(self.frame_changes) - 20} more frame(s)")
        during = {k: [x for x in v if "tearing the scenario down" not in x] for k, v in self.divergences.items()}
        during = {k: v for k, v in during.items() if v}
        if during:
            lines.append(f"  the playback went otherwise than the recording in {len(during)} scenario(s) (beyond their "
                         f"teardown):")
        for key, found in sorted(during.items())[:20]:
            lines.append(f"    {key}: {'; '.join(found[:3])}")
        for key in self.duplicate_keys:
            lines.append(f"  warning: the key {key!r} names more than one scenario line")
        return "\n".join(lines)


def _events(line: dict[str, Any]) -> list[WireEvent]:
    """The scenario's wire events; a clipped text stays clipped (its head only)."""
    return [WireEvent.from_json(e) for e in line["events"]]


def _frame_changes(key: str, line: dict[str, Any]) -> tuple[int, list[FrameChange]]:
    """Each whole, text hook frame of the scenario parsed again; the ones whose verdict differs."""
    checked, out = 0, []
    for i, e in enumerate(line["events"]):
        if e.get("channel") != "hook" or "textClipped" in e or e.get("direction") == "note":
            continue
        if str(e.get("summary", "")).startswith("[binary]") or e.get("verdict") is None:
            continue  # a binary frame's text is a lossy decoding; an unparsed large frame has no verdict
        origin = "subject" if e["direction"] == Direction.RECEIVED.value else "harness"
        now = describe_frame(e["text"], origin=origin).verdict
        checked += 1
        if now != e.get("verdict"):
            out.append(FrameChange(key, i, e["direction"], e.get("verdict"), now))
    return checked, out


def rejudge(recording: Recording, root: Path, replayed: dict[str, dict[str, Any]] | None = None,
            divergences: dict[str, list[str]] | None = None) -> Judgement:
    """Judge ``recording`` again with this harness's code and the suite at ``root`` (features, registry).

    ``replayed`` holds, by scenario key, the results of the scenarios a playback ran again (``simulator judge``
    runs them: ``simulator.replay.playback``), ``divergences`` where those replays went otherwise than the recording; every
    other scenario keeps its recorded result. A requirement is judged again when all its results were (replayed
    scenarios, emitted-frames results); its verdict is compared with the recorded one either way."""
    replayed = replayed or {}
    divergences = divergences or {}
    registry = load_registry(root / "scenarios" / "requirements")[0]
    header = recording.header
    j = Judgement()
    counts = Counter(line["key"] for line in recording.scenarios)
    j.duplicate_keys = sorted(k for k, n in counts.items() if n > 1)
    emitted = EmittedFrames()
    lines = EmittedLines()
    was_by_req: dict[str, list[ScenarioResult]] = {}
    now_by_req: dict[str, list[ScenarioResult]] = {}
    kept: dict[str, int] = Counter()
    why: dict[str, list[str]] = {}
    for line in recording.scenarios:
        result, key = line["result"], line["key"]
        checked, changed = _frame_changes(key, line)
        j.frames_checked += checked
        j.frame_changes.extend(changed)
        events = _events(line)
        emitted.observe_scenario(result.get("subject"), result["nodeid"], events)
        lines.observe_scenario(result.get("subject"), result["nodeid"], events)
        rid = result.get("requirement")
        if not rid:
            continue
        was = ScenarioResult.from_json({**result, "wire": []})
        was_by_req.setdefault(rid, []).append(was)
        again = replayed.get(key)
        if again is None:
            kept[rid] += 1
            now_by_req.setdefault(rid, []).append(was)
            continue
        now = ScenarioResult.from_json({**again, "wire": []})
        now_by_req.setdefault(rid, []).append(now)
        if now.verdict is not was.verdict:
            note = f"{key}: recorded {was.verdict.value}, now {now.verdict.value}: {now.reason or was.reason}"
            if key in divergences:
                note += f" (the replay went otherwise: {'; '.join(divergences[key][:3])})"
            why.setdefault(rid, []).append(note)
    selection, strict = list(header.get("selection", [])), bool(header.get("strict"))
    for result in [*judge_emitted(emitted, partial(frame_rule_index, root / "features"), registry, selection, strict=strict),
                   *judge_emitted_lines(lines, registry, selection, strict=strict)]:
        now_by_req.setdefault(result.requirement or "", []).append(result)
    recorded = dict((recording.end or {}).get("requirements", {}))
    for rid, scenarios in was_by_req.items():
        recorded.setdefault(rid, requirement_verdict(scenarios).value)
    j.recorded = recorded
    j.divergences = {k: v for k, v in divergences.items() if k in {line["key"] for line in recording.scenarios}}
    for rid in sorted(set(recorded) | set(now_by_req)):
        results = now_by_req.get(rid, [])
        verdict = requirement_verdict(results).value if results else "no result"
        if kept[rid]:
            j.kept[rid] = f"{kept[rid]} scenario(s) not played back (no playback of their roles yet)"
        else:
            j.rejudged[rid] = verdict
        if recorded.get(rid) != verdict:
            reasons = why.get(rid) or [r.reason or (r.evidence[0] if r.evidence else "") for r in results
                                       if r.nodeid.startswith(("emitted-frames::", "emitted-lines::"))]
            j.changes.append(Change(rid, recorded.get(rid, "no result"), verdict,
                                    "; ".join(x for x in reasons if x) or "no recorded frame bears on it now"))
    j.replayed = len(replayed)
    _attach_frame_reasons(j)
    return j


def _attach_frame_reasons(j: Judgement) -> None:
    """A change with frames judged differently names how many (the frames themselves are listed below it)."""
    if not j.frame_changes:
        return
    j.changes = [Change(c.requirement, c.recorded, c.now,
                        f"{c.why} ({len(j.frame_changes)} recorded frame(s) parse differently now)")
                 for c in j.changes]

