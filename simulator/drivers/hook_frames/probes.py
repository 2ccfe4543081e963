"""The run's receive probes (``simulator.roles.frame_probe.FrameProbe``): one per hook subject, opened on the first
case delivered to it and kept for every case after (a case costs one round trip), closed together at the end.

The hook server under test is dialled by a fresh simulated desktop (its control API, when given, lists the drops);
the desktop under test dials the harness's hook server (the embedded reference is started to dial it; an external
desktop dials on its own, with ``--hook-token``, and redials after a lost connection).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ...roles.frame_probe import DesktopOpener, FrameProbe, HookServerOpener
from ...subjects.targets import Role

if TYPE_CHECKING:
    from ...subjects.config import HarnessConfig
    from ...harness.subjects import Subjects
    from ..hook_desktop import SubjectNotes

__all__ = ["DESKTOP_REDIAL_S", "FrameProbes", "open_probe"]

#: How long the probe waits for a desktop under test to dial (again): its reconnect back-off.
DESKTOP_REDIAL_S = 15.0


def open_probe(subject: str, *, config: HarnessConfig, subjects: Subjects, notes: SubjectNotes) -> FrameProbe:
    """A probe of ``subject`` (``hook-server``, else the desktop), noting the subject's identity in ``notes``."""
    if subject == Role.HOOK_SERVER.value:
        return FrameProbe(subject, _hook_server_opener(subject, config, subjects, notes))
    return FrameProbe(subject, _desktop_opener(subject, config, subjects, notes))


def _hook_server_opener(subject: str, config: HarnessConfig, subjects: Subjects,
                        notes: SubjectNotes) -> HookServerOpener:
    target = config.target(Role.HOOK_SERVER)
    return HookServerOpener(
        subjects.hook_server_url(), subjects.hook_server_token(), config.step_timeout,
        subjects.control(Role.HOOK_SERVER, None),
        note=lambda identity: notes.note_subject(subject, target.raw, identity))


def _desktop_opener(subject: str, config: HarnessConfig, subjects: Subjects, notes: SubjectNotes) -> DesktopOpener:
    target = config.target(Role.DESKTOP)
    reference = target.is_reference
    step = config.step_timeout
    return DesktopOpener(
        subjects.desktop_listen(), step, max(step, DESKTOP_REDIAL_S),
        (lambda url: subjects.dial_reference_desktop(url, None)) if reference else None,
        None if reference else config.hook_token,
        note=lambda identity: notes.note_subject(subject, target.raw, identity),
        dial_watch=subjects.desktop_dial_watch(),
        control=None if reference else subjects.control(Role.DESKTOP, None),
        sock=subjects.desktop_listen_socket())


class FrameProbes:
    """The probes of the run by subject, each made by ``open_probe(subject)`` when first asked for."""

    def __init__(self, open_probe: Callable[[str], FrameProbe]) -> None:
        self._open = open_probe
        self._probes: dict[str, FrameProbe] = {}

    def get(self, subject: str) -> FrameProbe:
        probe = self._probes.get(subject)
        if probe is None:
            probe = self._probes[subject] = self._open(subject)
        return probe

    def close(self) -> None:
        for probe in self._probes.values():
            probe.close()
        self._probes.clear()
