"""``DesktopDriver``: a desktop under test, driven and judged from the hook-server side.

The driver holds the scenario state (``session``: a ``DesktopSession``) and one part per family of operations, named
after its module (``desk.acks.check_accepted(…)``, ``desk.bindings.sign_in_with_slack(…)``,
``desk.actions.dispatch(…)``). Each part takes the session and, where it builds on another part, that part as a
constructor argument (``DesktopDriver.__init__``):

| part | class | builds on |
|---|---|---|
| ``actions`` | ``DesktopActions``: the When operations, as hook server and as the desktop's user | |
| ``interactions`` | ``InteractionOps``: interaction cards | |
| ``hello`` / ``acks`` / ``turns`` / ``reopen`` | judgements of the desktop's frames of each family | |
| ``connection`` | ``ConnectionChecks``: heartbeat, bearer token, lifecycle.preference, frame types never sent | |
| ``rules`` | ``RuleChecks``: rules across frames and time | |
| ``state`` | ``StateChecks``: the control ``state`` and ``retry-turn`` answers | |
| ``providers`` | ``ProviderChecks``: provider binding, and the bookkeeping the provider families share | ``state`` |
| ``provider_prefs`` / ``behavior`` | provider preferences, Telegram behaviour | ``state``, ``providers`` |
| ``group_relay`` / ``message_ops`` | group relay, message operations | ``state``, ``providers`` |
| ``queries`` | ``QueryChecks``: query.request from the harness, the answers judged | |
| ``tools`` | ``ToolChecks``: gateway tools | ``state`` |
| ``default_workspace`` | ``DefaultWorkspaceChecks``: an X-lane task to the hello's default workspace | ``state`` |
| ``bindings`` | ``BindingOps``: Slack binding, multi-team and Slack preferences | |

Each operation is one named method a step calls; a failed judgement raises ``AssertionError`` (a failure),
``MissingFrame`` / ``NegativeWindowBroken`` from the role, or ``NotTestable`` when the run cannot observe what it
needs.
"""

from __future__ import annotations

from .acks import AckChecks
from .actions import DesktopActions
from .behavior import BehaviorChecks
from .bindings import BindingOps
from .connection import ConnectionChecks
from .default_workspace import DefaultWorkspaceChecks
from .group_relay import GroupRelayChecks
from .hello import HelloChecks
from .interactions import InteractionOps
from .message_ops import MessageOpChecks
from .provider_prefs import ProviderPrefsChecks
from .providers import ProviderChecks
from .queries import QueryChecks
from .reopen import ReopenChecks
from .rules import RuleChecks
from .session import DesktopSession
from .state import StateChecks
from .tools import ToolChecks
from .turns import TurnChecks

__all__ = ["DesktopDriver"]


class DesktopDriver:
    """One scenario with a desktop under test: the session (``DesktopSession``) and every family's part (see the
    module docstring)."""

    def __init__(self, session: DesktopSession) -> None:
        self.session = session
        self.actions = DesktopActions(session)
        self.interactions = InteractionOps(session)
        self.hello = HelloChecks(session)
        self.acks = AckChecks(session)
        self.turns = TurnChecks(session)
        self.reopen = ReopenChecks(session)
        self.connection = ConnectionChecks(session)
        self.rules = RuleChecks(session)
        self.state = StateChecks(session)
        self.providers = ProviderChecks(session, state=self.state)
        self.behavior = BehaviorChecks(session, state=self.state, providers=self.providers)
        self.provider_prefs = ProviderPrefsChecks(session, state=self.state, providers=self.providers)
        self.group_relay = GroupRelayChecks(session, state=self.state, providers=self.providers)
        self.message_ops = MessageOpChecks(session, state=self.state, providers=self.providers)
        self.queries = QueryChecks(session)
        self.tools = ToolChecks(session, state=self.state)
        self.default_workspace = DefaultWorkspaceChecks(session, state=self.state)
        self.bindings = BindingOps(session)
