"""Broken variants of the reference desktop (simulator/reference/desktop), each registered with
``registry.broken(name, subject="desktop", …)`` on the class that breaks one rule, grouped by family:
``handshake`` (hello, ping, lifecycle.preference, the dial's token, task.dispatch / task.ack, sessions, task.cancel,
session.archive), ``turns`` (turn.progress, turn.end and its reliability, interactions, turn.reopen), ``slack``,
``providers``, ``relay``, ``gateway`` (queries, gateway tools, the rest of interactions, the default workspace),
``robustness`` and ``faults``. ``select`` picks the build a desktop runs by name.
"""

from __future__ import annotations

from . import faults, gateway, handshake, providers, relay, robustness, slack, turns

__all__ = ["faults", "gateway", "handshake", "providers", "relay", "robustness", "slack", "turns"]
