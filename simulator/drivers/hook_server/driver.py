"""``HookServerDriver``: a hook server under test, driven from the desktop side — the operations of every area
(connections, authentication, the channel, tasks, turns, bad input, deliveries, cards, the server's records, the
queries, gateway tools, cards at their limits, the default workspace's membership, provider raw errors) over
one scenario state (``HookServerScenario``).

Verdicts: no pass without evidence. *Not applicable* only when the server itself declares it lacks what the
requirement concerns (its ``welcome.features``: ``require_declared``). What the run does not give the harness, a
control capability the server lacks or a ``--hook-token`` it was not told, makes the scenario *not testable* (a
failure), never a pass. Every control answer is the server's own word and is checked against
docs/control-api.schema.json before it is read: a missing or mistyped field is the server's malformed answer (a
failure), never a default that happens to pass; an HTTP error status is ``SubjectRefused`` (a failure) except for
the one documented refusal a step expects (``409 card-closed`` of ``press-button`` on a withdrawn card). A
"nothing arrives" check holds only on a connection that stays open and answers ping (``expect_none``); an operation
that needs the server to close waits for the close and fails (not times out) when the server stays alive but open.
"""

from __future__ import annotations

from ...targets import Role
from .auth import AuthOps
from .behavior import BehaviorOps
from .bad_input import BadInputOps
from .bindings import BindingOps
from .card_limits import CardLimitOps
from .cards import CardOps
from .channel_checks import ChannelChecks
from .connections import ConnectionOps
from .deliveries import DeliveryChecks
from .group_relay import GroupRelayOps
from .message_ops import MessageOps
from .privacy import PrivacyChecks
from .queries import QueryOps
from .records import RecordChecks
from .tasks import TaskChecks
from .tools import ToolOps
from .turns import TurnOps
from .workspaces import WorkspaceOps

__all__ = ["HOOK_SERVER_ROLE", "HookServerDriver"]

#: The role name of the subject (harness options, the subject's identity in the report).
HOOK_SERVER_ROLE = Role.HOOK_SERVER.value


class HookServerDriver(QueryOps, ToolOps, CardLimitOps, WorkspaceOps, GroupRelayOps, MessageOps,
                       BehaviorOps, ConnectionOps, AuthOps, TaskChecks, TurnOps, BadInputOps, ChannelChecks, BindingOps,
                       RecordChecks, DeliveryChecks, CardOps, PrivacyChecks):
    """One scenario against the hook server under test. Build it with the run's server URL, token, control client,
    wire log, step limit and a ``note`` callback for the server's identity; call ``finish`` when the scenario ends."""
