"""``HookServerDriver``: a hook server under test, driven from the desktop side. The driver holds the scenario state
(``scenario``: a ``HookServerScenario``) and one part per family of operations, named after its module
(``driver.turns.ack(…)``, ``driver.bindings.sign_in(…)``, ``driver.channel.inject_task(…)``). Each part takes the
scenario and, where it builds on another part, that part as a constructor argument (``HookServerDriver.__init__``):

| part | class | builds on |
|---|---|---|
| ``connections`` | ``ConnectionOps`` | |
| ``auth`` | ``AuthOps`` | |
| ``channel`` | ``ChannelOps`` | |
| ``channel_checks`` | ``ChannelChecks`` | ``channel`` |
| ``records`` | ``RecordChecks`` | ``channel`` |
| ``tasks`` | ``TaskChecks`` | ``channel`` |
| ``turns`` | ``TurnOps`` | |
| ``bad_input`` | ``BadInputOps`` | |
| ``deliveries`` | ``DeliveryChecks`` | ``channel`` |
| ``cards`` | ``CardOps`` | ``channel`` |
| ``card_limits`` | ``CardLimitOps`` | ``channel``, ``cards`` |
| ``privacy`` | ``PrivacyChecks`` | |
| ``provider_errors`` | ``ProviderErrorChecks`` | ``privacy`` |
| ``bindings`` | ``BindingOps`` | ``channel``, ``records`` |
| ``provider_bindings`` | ``ProviderBindingOps`` | ``connections``, ``channel`` |
| ``behavior`` | ``BehaviorOps`` | ``provider_bindings`` |
| ``group_relay`` | ``GroupRelayOps`` | ``channel``, ``provider_bindings`` |
| ``message_ops`` | ``MessageOps`` | ``tasks`` |
| ``queries`` | ``QueryOps`` | ``channel`` |
| ``tools`` | ``ToolOps`` | ``provider_errors``, ``bindings`` |
| ``workspaces`` | ``WorkspaceOps`` | |

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

from ...subjects.targets import Role
from .auth import AuthOps
from .bad_input import BadInputOps
from .behavior import BehaviorOps
from .bindings import BindingOps
from .card_limits import CardLimitOps
from .cards import CardOps
from .channel import ChannelOps
from .channel_checks import ChannelChecks
from .connections import ConnectionOps
from .deliveries import DeliveryChecks
from .group_relay import GroupRelayOps
from .message_ops import MessageOps
from .privacy import PrivacyChecks
from .provider_bindings import ProviderBindingOps
from .provider_errors import ProviderErrorChecks
from .queries import QueryOps
from .records import RecordChecks
from .scenario import HookServerScenario
from .tasks import TaskChecks
from .tools import ToolOps
from .turns import TurnOps
from .workspaces import WorkspaceOps

__all__ = ["HOOK_SERVER_ROLE", "HookServerDriver"]

#: The role name of the subject (harness options, the subject's identity in the report).
HOOK_SERVER_ROLE = Role.HOOK_SERVER.value


class HookServerDriver:
    """One scenario against the hook server under test. Build it with the scenario state (the run's server URL,
    token, control client, wire log, step limit and a ``note`` callback for the server's identity); call ``finish``
    when the scenario ends."""

    def __init__(self, scenario: HookServerScenario) -> None:
        self.scenario = scenario
        self.connections = ConnectionOps(scenario)
        self.auth = AuthOps(scenario)
        self.channel = ChannelOps(scenario)
        self.channel_checks = ChannelChecks(scenario, channel=self.channel)
        self.records = RecordChecks(scenario, channel=self.channel)
        self.tasks = TaskChecks(scenario, channel=self.channel)
        self.turns = TurnOps(scenario)
        self.bad_input = BadInputOps(scenario)
        self.deliveries = DeliveryChecks(scenario, channel=self.channel)
        self.cards = CardOps(scenario, channel=self.channel)
        self.card_limits = CardLimitOps(scenario, channel=self.channel, cards=self.cards)
        self.privacy = PrivacyChecks(scenario)
        self.provider_errors = ProviderErrorChecks(scenario, privacy=self.privacy)
        self.bindings = BindingOps(scenario, channel=self.channel, records=self.records)
        self.provider_bindings = ProviderBindingOps(scenario, connections=self.connections, channel=self.channel)
        self.behavior = BehaviorOps(scenario, provider_bindings=self.provider_bindings)
        self.group_relay = GroupRelayOps(scenario, channel=self.channel, provider_bindings=self.provider_bindings)
        self.message_ops = MessageOps(scenario, tasks=self.tasks)
        self.queries = QueryOps(scenario, channel=self.channel)
        self.tools = ToolOps(scenario, provider_errors=self.provider_errors, bindings=self.bindings)
        self.workspaces = WorkspaceOps(scenario)

    def finish(self) -> None:
        """The scenario's end (``HookServerScenario.finish``): its control settings undone, every device closed."""
        self.scenario.finish()
