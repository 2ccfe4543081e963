"""The frame cases of ``features/hook/frames``, read as data: which requirement each rejection case belongs to.

The frame features state, per requirement, which frames are valid and where an invalid one is rejected (a sample
type, a JSON pointer, an error code). The harness uses that table twice:

* **receive** (steps/hook_frames.py): each rejection case is sent over the wire to the subject, which must drop it;
* **emit** (``simulator.drivers.emitted_frames``): a frame the subject sent that the protocol core rejects is charged to
  the requirement whose rejection cases share its message type and pointer (``FrameRuleIndex.requirement_for``).

Nothing here judges anything; it only reads the feature files (with pytest-bdd's own parser) and indexes them.
Parsing the fifteen files costs about half a second, which every run that judges emitted frames pays at its end, so
the expanded cases are cached as JSON under the user's cache directory (``$HOOK_CONFORMANCE_CACHE``, else
``$XDG_CACHE_HOME/hook-conformance``, else ``~/.cache/hook-conformance``), keyed by the digest of the feature files,
of this module and of the pytest-bdd version: an edited feature is parsed again, and a cache that cannot be read or
written is simply not used.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

__all__ = ["FrameCase", "FrameRuleIndex", "load_frame_cases", "frame_rule_index", "normalise_pointer"]

_SAMPLE = re.compile(r'^the sample frame "(?P<type>[^"/]+)/[^"]*"')
_REJECTED = re.compile(r'^the frame is rejected at "(?P<pointer>[^"]*)"$')
_CODE = re.compile(r'^the error code is "(?P<code>[^"]+)"$')
_INDEX = re.compile(r"/\d+(?=/|$)")


def normalise_pointer(pointer: str) -> str:
    """A JSON pointer with every array index written ``*`` (``/payload/buttons/3/id`` → ``/payload/buttons/*/id``)."""
    return _INDEX.sub("/*", pointer)


@dataclass(frozen=True, slots=True)
class FrameCase:
    requirement: str
    #: The message type of the frame (the sample's type, or the ``type`` of a literal text frame; "" if none).
    type: str
    #: Where the frame is rejected (None: an accepted frame).
    pointer: str | None
    code: str | None
    feature: str


def _cases_of(feature_path: Path, base: Path) -> list[FrameCase]:
    from pytest_bdd.feature import get_feature

    feature = get_feature(str(base), str(feature_path.relative_to(base)))
    out: list[FrameCase] = []
    for template in feature.scenarios.values():
        req = next((t[len("req:"):] for t in template.tags if t.startswith("req:")), None)
        if req is None:
            continue
        contexts = [c for ex in template.examples for c in ex.as_contexts()] or [{}]
        for context in contexts:
            scenario = template.render(context)
            type_, pointer, code = "", None, None
            for step in scenario.steps:
                if m := _SAMPLE.match(step.name):
                    type_ = m["type"]
                elif step.type == "given" and step.name == "the text frame:" and step.docstring:
                    type_ = _claimed_type(step.docstring)
                elif m := _REJECTED.match(step.name):
                    pointer = m["pointer"]
                elif m := _CODE.match(step.name):
                    code = m["code"]
            out.append(FrameCase(req, type_, pointer, code, str(feature_path.relative_to(base.parent))))
    return out


def _claimed_type(text: str) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        return ""
    value = data.get("type") if isinstance(data, dict) else None
    return value if isinstance(value, str) else ""


def load_frame_cases(features_dir: Path) -> list[FrameCase]:
    """Every expanded case of ``features_dir/hook/frames/*.feature``, in file order (from the cache when it holds
    the cases of exactly these files)."""
    paths = sorted((features_dir / "hook" / "frames").glob("*.feature"))
    cache = _cache_file(features_dir, paths)
    if cache is not None:
        try:
            return [FrameCase(**row) for row in json.loads(cache.read_text(encoding="utf-8"))]
        except (OSError, ValueError, TypeError):
            pass
    out: list[FrameCase] = []
    for path in paths:
        out.extend(_cases_of(path, features_dir))
    if cache is not None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            partial = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
            partial.write_text(json.dumps([asdict(c) for c in out], ensure_ascii=False), encoding="utf-8")
            partial.replace(cache)
        except OSError:
            pass
    return out


def _cache_file(features_dir: Path, paths: list[Path]) -> Path | None:
    """Where the cases of ``paths`` are cached: a name made of the digest of their contents, of this module's
    source and of the pytest-bdd version (None when a file cannot be read)."""
    digest = hashlib.sha256()
    try:
        digest.update(Path(__file__).read_bytes())
        digest.update(version("pytest-bdd").encode())
        for path in paths:
            digest.update(str(path.relative_to(features_dir)).encode() + b"\0" + path.read_bytes() + b"\0")
    except (OSError, PackageNotFoundError):
        return None
    root = os.environ.get("HOOK_CONFORMANCE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "hook-conformance")
    return Path(root) / f"frame-cases-{digest.hexdigest()[:32]}.json"


class FrameRuleIndex:
    """Which requirement a parse issue (message type, pointer, code) violates, from the rejection cases."""

    def __init__(self, cases: list[FrameCase]) -> None:
        self.cases = cases
        self._by_type_path: dict[tuple[str, str], list[FrameCase]] = {}
        self._by_path: dict[str, list[FrameCase]] = {}
        self._by_code: dict[str, list[FrameCase]] = {}
        self._types: dict[str, set[str]] = {}
        for case in cases:
            self._types.setdefault(case.requirement, set()).add(case.type)
            if case.pointer is None:
                continue
            path = normalise_pointer(case.pointer)
            self._by_type_path.setdefault((case.type, path), []).append(case)
            self._by_path.setdefault(path, []).append(case)
            if case.code:
                self._by_code.setdefault(case.code, []).append(case)

    def requirements(self) -> list[str]:
        return sorted(self._types)

    def sender_rules(self) -> list[str]:
        """The requirements a frame can break: those with a rejection case. A rule with only acceptance cases (a
        valid frame of every type is accepted, an unknown key or action is not a reason to reject) binds the
        receiver; the frames a subject sends say nothing about it."""
        return sorted({c.requirement for c in self.cases if c.pointer is not None})

    def applies_to(self, requirement: str, type_: str) -> bool:
        """Whether frames of ``type_`` are judged by ``requirement``: its cases use that type, or it is an
        envelope requirement (``HOOK-FRAME-ENV-*``: every frame)."""
        return requirement.startswith("HOOK-FRAME-ENV-") or type_ in self._types.get(requirement, ())

    def requirement_for(self, type_: str | None, path: str, code: str) -> str:
        """The requirement a rejected frame violates: the rejection cases of the same type and pointer (those
        with the same code first), else of the same type and the nearest pointer, else of the same pointer in any
        type, else of the same code, else the envelope rule that a frame is a valid protocol message
        (HOOK-FRAME-ENV-PAYLOAD-01)."""
        path = normalise_pointer(path)
        for pool in (self._by_type_path.get((type_ or "", path)), self._nearest(type_ or "", path),
                     self._by_path.get(path), self._by_code.get(code)):
            if pool:
                same_code = [c for c in pool if c.code == code]
                return sorted({c.requirement for c in (same_code or pool)})[0]
        return "HOOK-FRAME-ENV-PAYLOAD-01"

    def _nearest(self, type_: str, path: str) -> list[FrameCase]:
        """The rejection cases of ``type_`` whose pointer shares the most leading segments (at least one) with
        ``path``: ``/payload/late`` on a pong is judged by the rule that rejects ``/payload/nonce`` on a pong."""
        want = path.split("/")[1:]
        best: list[FrameCase] = []
        best_score = 0
        for (t, p), cases in self._by_type_path.items():
            if t != type_ or not type_:
                continue
            have = p.split("/")[1:]
            score = 0
            for a, b in zip(want, have, strict=False):
                if a != b:
                    break
                score += 1
            if score > best_score:
                best, best_score = list(cases), score
            elif score == best_score and score:
                best.extend(cases)
        return best


@lru_cache(maxsize=4)
def frame_rule_index(features_dir: Path) -> FrameRuleIndex:
    return FrameRuleIndex(load_frame_cases(features_dir))
