"""Step vocabulary for ``features/robustness`` (the robustness profile, ``-m robustness``): Hypothesis's
batches of frames every peer must drop, delivered to the hook subject of the feature's ``@subject:`` tag through the
frame probe (steps/hook_frames.py's ``frame_probes``), one property judged per scenario.

Theory of operation: ``simulator.drivers.robustness.hook_fuzz``. Options: ``--fuzz-frames N`` (frames per property,
default 2000), ``--replay FILE`` (send a saved failing batch instead of searching; the file names its requirement,
and only that requirement's scenario uses it). Hypothesis is imported only when a robustness scenario runs.

* ``Given fuzzed frames every peer must drop, sent to the <subject>``
* ``Then no batch of them makes it close the connection`` / ``Then the ping after every batch of them is answered``
  / ``Then nothing is sent in reaction to any batch of them``
* ``When <n> pings are sent to it back to back`` / ``Then <n> pongs arrive``
* ``Then <n> task lifecycles run beside them on one connection, none lost and none run twice`` (a hook server with a
  control API: ``simulator.drivers.robustness.hook_lifecycle``); ``Then <n> task lifecycles run at the desktop beside
  them, none lost and none run twice`` (a desktop with ``script-next-turn``: ``…robustness.desktop_lifecycle``)
* ``Given a robustness probe of the <subject>`` / ``Then pings padded to <a>, <b> … and <z> characters are each
  answered`` / ``And on every connection of up to <n> held at once a ping is answered`` (the limits:
  ``simulator.drivers.robustness.limits``; ``--limit-connections N`` replaces the feature's ceiling). Their figures
  and the ping flood's go to the report's limits section (the ``limit`` fixture).
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest
import pytest_bdd as bdd
from pytest_bdd import parsers

__all__: list[str] = []

_SUBJECTS = {"hook server": "hook-server", "desktop": "desktop"}


def _samples(rootdir: Path) -> list[dict]:
    folder = rootdir / "scenarios" / "hook" / "samples"
    return [frame for path in sorted(folder.glob("*.json"))
            for frame in json.loads(path.read_text(encoding="utf-8")).values()]


@pytest.fixture
def robustness(request: pytest.FixtureRequest) -> dict:
    """The scenario's fuzzer and what its steps found (filled by the steps)."""
    return {}


@bdd.given(parsers.re(r"fuzzed frames every peer must drop, sent to the (?P<subject>hook server|desktop)$"))
def given_fuzzer(request: pytest.FixtureRequest, robustness: dict, harness, frame_probes, subject: str) -> None:
    from simulator.drivers.robustness.hook_fuzz import HookFuzzer
    from simulator.profiles.fuzz.replay import load_replay

    marker = request.node.get_closest_marker("req")
    requirement = marker.kwargs.get("id") if marker else ""
    replay_path = request.config.getoption("--replay")
    replay = load_replay(Path(replay_path)) if replay_path else None
    if replay is not None and replay.requirement != requirement:
        replay = None  # the file is another requirement's: this scenario searches as usual
    # beside the reports when the run names their folder, else in the directory the run started from
    save_dir = Path(harness.config.report_dir or Path.cwd()) / "robustness-replays"
    robustness["requirement"] = requirement
    robustness["fuzzer"] = HookFuzzer(
        frame_probes.get(_SUBJECTS[subject]), _samples(harness.rootdir),
        frames=int(request.config.getoption("--fuzz-frames") or 2000), save_dir=save_dir, replay=replay,
        replay_source=str(replay_path or ""), rng_seed=zlib.crc32(requirement.encode()))


def _reached(what: str, action):
    """``action()``; a subject gone during the profile fails the scenario (it went away: docs/targets.md "The
    robustness profile"), it is not a harness error."""
    from simulator.errors import SubjectTimeout, TargetError

    try:
        return action()
    except (SubjectTimeout, TargetError) as exc:
        raise AssertionError(f"the subject could not be reached for {what}: {exc}") from None


def _check(robustness: dict, prop_name: str, record_evidence) -> None:
    from simulator.drivers.robustness.hook_fuzz import Property

    report = robustness["fuzzer"].check(Property(prop_name), robustness["requirement"])
    record_evidence(report.evidence())


@bdd.then("no batch of them makes it close the connection")
def then_keeps(robustness: dict, evidence) -> None:
    _check(robustness, "keep", evidence)


@bdd.then("the ping after every batch of them is answered")
def then_pings(robustness: dict, evidence) -> None:
    _check(robustness, "ping", evidence)


@bdd.then("nothing is sent in reaction to any batch of them")
def then_no_effect(robustness: dict, evidence) -> None:
    _check(robustness, "no-effect", evidence)


@bdd.then(parsers.parse("{rounds:d} task lifecycles run beside them on one connection, none lost and none run twice"))
def then_lifecycles(robustness: dict, rounds: int, harness, subjects, harness_config, wire_log, evidence) -> None:
    from simulator.drivers.robustness.hook_lifecycle import run_lifecycles
    from simulator.subjects.targets import Role

    fuzzer = robustness["fuzzer"]
    control = subjects.control(Role.HOOK_SERVER, wire_log)
    report = _reached("the task lifecycles", lambda: run_lifecycles(
        fuzzer.probe, control, fuzzer.samples, rounds=rounds, step_timeout=harness_config.step_timeout,
        rng_seed=fuzzer.rng_seed))
    evidence(report.evidence())


@bdd.then(parsers.parse("{rounds:d} task lifecycles run at the desktop beside them, none lost and none run twice"))
def then_desktop_lifecycles(robustness: dict, rounds: int, subjects, harness_config, wire_log, evidence) -> None:
    from simulator.drivers.robustness.desktop_lifecycle import run_desktop_lifecycles
    from simulator.subjects.targets import Role

    from simulator.subjects.control import ControlClient

    fuzzer = robustness["fuzzer"]
    _reached("the task lifecycles", lambda: fuzzer.probe.connection(wire_log))  # starts an embedded reference
    handle = getattr(fuzzer.probe.opener, "handle", None)
    control = (ControlClient(handle.control_url, role=Role.DESKTOP.value, timeout=harness_config.step_timeout,
                             wire=wire_log) if getattr(handle, "control_url", None)
               else subjects.control(Role.DESKTOP, wire_log))
    report = _reached("the task lifecycles", lambda: run_desktop_lifecycles(
        fuzzer.probe, control, fuzzer.samples, rounds=rounds, step_timeout=harness_config.step_timeout,
        rng_seed=fuzzer.rng_seed))
    evidence(report.evidence())


@bdd.when(parsers.parse("{count:d} pings are sent to it back to back"))
def when_flood(robustness: dict, count: int) -> None:
    from simulator.errors import SubjectTimeout, TargetError

    import time

    robustness["pings"] = count
    started = time.monotonic()
    try:
        robustness["pongs"] = robustness["fuzzer"].flood(count)
        robustness["flood_seconds"] = time.monotonic() - started
    except (SubjectTimeout, TargetError) as exc:  # gone during the profile: the subject's failure, not the harness's
        raise AssertionError(f"the subject could not be reached for the ping flood: {exc}") from None


@bdd.then(parsers.parse("{count:d} pongs arrive"))
def then_pongs(robustness: dict, count: int, evidence, limit) -> None:
    got, seconds = robustness["pongs"], robustness["flood_seconds"]
    limit("pongs under a flood", got, "pongs",
          f"{robustness['pings']:,} pings sent back to back; {seconds:.2f} s until the last pong (or the step limit): "
          f"{got / seconds if seconds else 0:,.0f} pongs/s")
    assert got == count, (f"{robustness['pings']} pings sent back to back got {got} pongs within the step limit "
                          f"(阶段 1: 收到 ping 必须回 pong)")
    evidence(f"{robustness['pings']} pings, {got} pongs in {seconds:.2f} s")


# -- limits -----------------------------------------------------------------------------------------------------


@bdd.given(parsers.re(r"a robustness probe of the (?P<subject>hook server|desktop)$"))
def given_probe(robustness: dict, frame_probes, subject: str) -> None:
    robustness["probe"] = frame_probes.get(_SUBJECTS[subject])
    robustness["subject"] = _SUBJECTS[subject]


@bdd.then(parsers.re(r"pings padded to (?P<sizes>[\d, ]+(?: and \d+)?) characters are each answered$"))
def then_ladder(robustness: dict, sizes: str, evidence, limit) -> None:
    from simulator.drivers.robustness.limits import ping_ladder

    wanted = sorted(int(x) for x in sizes.replace(" and ", ",").split(",") if x.strip())
    steps = _reached("the padded pings", lambda: ping_ladder(robustness["probe"], wanted))
    answered = [s for s in steps if s.answered]
    if answered:
        best = answered[-1]
        limit("largest ping answered", best.chars, "UTF-16 units",
              f"pings padded to {', '.join(f'{c:,}' for c in wanted)} characters; the largest answered in "
              f"{best.seconds:.2f} s")
    evidence("; ".join(f"{s.chars:,} characters: {'answered' if s.answered else 'NOT answered'} in {s.seconds:.2f} s"
                       for s in steps))
    if len(answered) < len(wanted):
        failed = steps[-1]
        raise AssertionError(f"a valid ping of {failed.chars:,} characters (within the 48 MiB frame limit, §3 帧上限 "
                             f"HOOK_MAX_FRAME_CHARS) was not answered: {failed.note} (阶段 1: 收到 ping 必须回 pong)")


@bdd.then(parsers.parse("on every connection of up to {ceiling:d} held at once a ping is answered"))
def then_connections(request: pytest.FixtureRequest, robustness: dict, ceiling: int, subjects, harness_config,
                     evidence, limit) -> None:
    from simulator.drivers.robustness.limits import connections_held

    ceiling = int(request.config.getoption("--limit-connections") or ceiling)
    found = connections_held(subjects.hook_server_url(), subjects.hook_server_token(), ceiling,
                             harness_config.step_timeout)
    limit("connections held", found.welcomed, "connections",
          f"{ceiling} desktops dialled at once; {found.welcomed} welcomed, {found.answered} answered a ping, "
          f"{len(found.refused)} refused; {found.seconds:.1f} s")
    evidence(f"{ceiling} connections dialled at once: {found.welcomed} welcomed, {found.answered} pongs"
             + (f"; refused: {found.refused[0]}" if found.refused else ""))
    if found.welcomed == 0:
        raise AssertionError(f"none of {ceiling} connections dialled at once was welcomed: no evidence "
                             f"({found.refused[0] if found.refused else 'no reason seen'})")
    if found.unanswered:
        raise AssertionError(f"{len(found.unanswered)} of the {found.welcomed} connections the hook server welcomed "
                             f"did not answer a ping (阶段 1: 收到 ping 必须回 pong): {found.unanswered[0]}")
