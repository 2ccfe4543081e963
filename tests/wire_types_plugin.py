"""A pytest plugin (``-p wire_types_plugin``) that records which hook message types travelled on the wire, each in
the direction the spec gives it (simulator/hook/directions.py), across every scenario of a run.

The rule it checks: "every one of the spec's 41 message types travels on the wire between the harness and a reference
subject in some scenario — a test counts them from the wire logs and names any type that never did". A frame
counts when it parses clean (the core's ``parse_hook_message``) and went from the peer the spec makes send it:
with ``WIRE_TYPES_HARNESS=desktop`` the harness plays the desktop (a hook-server run), so its sent frames are the
desktop's and the received ones the server's; ``server`` the other way round. A bad frame, or a valid one a
scenario throws the wrong way on purpose, does not count. At the end of the run the counts go to the JSON file
``WIRE_TYPES_OUT`` (under pytest-xdist one file per worker, ``WIRE_TYPES_OUT.<worker>``; ``read_wire_types``
merges them): ``{"harness": …, "types": {type: {"frames": n, "scenarios": [nodeid…]}}, "leaks": […], "scanned":
n}``.

The same pass is the whole-run privacy check of the references ("no absolute path and no one-time token appears
in any frame either reference sends"): every frame the *subject* sent, valid or not, is scanned for a local
path (``find_local_paths_in_frame``, slack-hook-protocol.md §2 "本地绝对路径只存在于 desktop,永不过网线": in an alias
field always; in any other field or free text unless the path is part of words the subject was handed to pass on,
i.e. a user's message it relays, ``_given_words``) and for a one-time connect token handed out earlier in the run (by
whichever peer plays the server) anywhere but in the link that hands it out (``token_leaks``, 阶段 14 "一次性凭证 …
不转发"). Each finding is a ``leaks`` entry ``{"scenario", "type", "kind": "path" | "token", "detail"}``;
``read_leaks`` merges them.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from simulator.hook import PathRule, find_local_paths_in_frame, parse_hook_message
from simulator.hook.connect_links import pending_connect_tokens, token_leaks
from simulator.hook.directions import Sender, sent_by
from simulator.harness.plugin import scenario_wire_log
from simulator.wirelog import Direction

_frames: dict[str, int] = defaultdict(int)
_scenarios: dict[str, set[str]] = defaultdict(set)
#: one-time tokens the server side handed out so far in this process's share of the run
_tokens: set[str] = set()
_leaks: list[dict[str, str]] = []
_scanned = [0]


def _harness() -> Sender:
    return Sender(os.environ.get("WIRE_TYPES_HARNESS", "desktop"))


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    log = scenario_wire_log(item)
    if log is None:
        return
    harness = _harness()
    subject = Sender.SERVER if harness is Sender.DESKTOP else Sender.DESKTOP
    events = [e for e in log.events() if e.direction is not Direction.NOTE]
    given = _given_words(events, harness)
    for event in events:
        if event.channel != "hook":
            continue
        sender = harness if event.direction is Direction.SENT else subject
        if sender is Sender.SERVER:
            _tokens.update(pending_connect_tokens(event.text))
        if sender is subject:
            _scan(item.nodeid, event.text, given)
        result = parse_hook_message(event.text)
        if not result.ok:
            continue
        if sent_by(result.message.type) in (sender, Sender.EITHER):
            _frames[result.message.type.value] += 1
            _scenarios[result.message.type.value].add(item.nodeid)


def _given_words(events: list, harness: Sender) -> list[str]:
    """The strings the subject was handed in a scenario to pass on: every string of every hook frame the harness
    sent, and, when the subject is the hook server, of every control request (the channel's users' words, e.g. an
    injected message). A desktop's control requests are its own configuration (its folders), never words to relay."""
    words: list[str] = []
    for event in events:
        if event.direction is not Direction.SENT:
            continue
        if event.channel == "hook" or (event.channel == "control" and harness is Sender.DESKTOP):
            try:
                _strings(json.loads(event.text), words)
            except ValueError:
                words.append(event.text)
    return words


def _strings(value: object, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            out.append(key)
            _strings(item, out)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)


def _scan(scenario: str, text: str, given: list[str]) -> None:
    """Record every local path and every leaked one-time token in one frame the subject sent."""
    _scanned[0] += 1
    _leaks.extend({"scenario": scenario, **leak} for leak in frame_leaks(text, _tokens, given))


def frame_leaks(text: str, tokens: set[str], given: list[str] = ()) -> list[dict[str, str]]:
    """The local paths and the leaked one-time ``tokens`` in one frame as sent. A path is any path in an alias field
    (never a place for one), and any path in another field or free text unless it is part of a string in ``given``:
    the words a user wrote, which the subject passes on as they are (a hook server relays them into prompts)."""
    kind = _frame_type(text)
    paths = [found for found in find_local_paths_in_frame(text)
             if found.rule is PathRule.ALIAS_FIELD or not any(found.text in words for words in given)]
    return ([{"type": kind, "kind": "path", "detail": str(found)} for found in paths]
            + [{"type": kind, "kind": "token", "detail": token} for token in token_leaks(text, tokens)])


def _frame_type(text: str) -> str:
    try:
        value = json.loads(text)
    except ValueError:
        return "<not JSON>"
    return str(value.get("type")) if isinstance(value, dict) else "<not an object>"


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = os.environ.get("WIRE_TYPES_OUT")
    if not out:
        return
    worker = getattr(session.config, "workerinput", {}).get("workerid")
    if worker:  # an xdist worker saw only its share: it writes WIRE_TYPES_OUT.<worker> (read_wire_types merges)
        out = f"{out}.{worker}"
    elif not _frames and not _scanned[0]:
        return  # the controller of an xdist run: the workers wrote the counts
    data = {"harness": _harness().value,
            "types": {t: {"frames": n, "scenarios": sorted(_scenarios[t])} for t, n in sorted(_frames.items())},
            "leaks": _leaks, "scanned": _scanned[0]}
    Path(out).write_text(json.dumps(data, indent=1), encoding="utf-8")


def _written(out: Path) -> list[dict]:
    return [json.loads(path.read_text(encoding="utf-8"))
            for path in [out, *sorted(out.parent.glob(out.name + ".gw*"))] if path.is_file()]


def read_wire_types(out: Path) -> dict[str, int]:
    """Frames per type in the file(s) a run wrote at ``out`` (merged over xdist workers)."""
    counts: dict[str, int] = defaultdict(int)
    for data in _written(out):
        for name, entry in data["types"].items():
            counts[name] += entry["frames"]
    return dict(counts)


def assert_every_type_travelled(out: Path, role: str, explain: str) -> None:
    """Each of the 41 message types travelled, in the direction the spec gives it, in the run that wrote ``out``."""
    from simulator.hook import HOOK_MESSAGE_TYPES

    missing = sorted(set(HOOK_MESSAGE_TYPES) - set(read_wire_types(out)))
    assert not missing, f"message types that never travelled in a {role} run: {missing}\n{explain}"


def assert_no_leaks(out: Path, role: str, explain: str) -> None:
    """At least one frame of the subject was scanned in the run that wrote ``out``, and none held a local path or
    a leaked one-time token."""
    scanned, leaks = read_leaks(out)
    assert scanned > 0, f"no frame of the reference {role} was scanned\n{explain}"
    assert not leaks, f"the reference {role} sent a local path or a one-time token: {leaks[:10]}"


def read_leaks(out: Path) -> tuple[int, list[dict[str, str]]]:
    """How many frames of the subject were scanned, and every local path or leaked token found in them (merged
    over xdist workers)."""
    written = _written(out)
    return sum(d["scanned"] for d in written), [leak for d in written for leak in d["leaks"]]
