"""``DesktopDriver``: a desktop under test, driven and judged from the hook-server side.

One class, assembled from the modules that each hold one family of operations over the same scenario state
(``DesktopSession``): the When operations (``actions``, ``interactions``) and the judgements of what the desktop
sent or its control API answered (``hello``, ``acks``, ``turns``, ``reopen``, ``connection``, ``rules``,
``state``), and the Slack binding / preference operations (``bindings``). Each operation is one named method a step calls; a failed judgement raises ``AssertionError`` (a
failure), ``MissingFrame`` / ``NegativeWindowBroken`` from the role, or ``NotTestable`` when the run cannot observe
what it needs. The provider families (``providers``, ``provider_prefs``, ``behavior``) act as the server and the
user and judge both; so do group relay (``group_relay``) and message operations (``message_ops``, the user being the
desktop's agent). So do the queries (``queries``), the gateway tools (``tools``: the agent's ``call-tool``, the
server's tool.response, ``state.toolCalls``), the rest of the interaction cards (``interactions``) and the default
workspace of single-message channels (``default_workspace``).
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
from .queries import QueryChecks
from .reopen import ReopenChecks
from .rules import RuleChecks
from .state import StateChecks
from .tools import ToolChecks
from .turns import TurnChecks

__all__ = ["DesktopDriver"]


class DesktopDriver(DesktopActions, InteractionOps, HelloChecks, AckChecks, TurnChecks, ReopenChecks,
                    ConnectionChecks, RuleChecks, BehaviorChecks, ProviderPrefsChecks, GroupRelayChecks, MessageOpChecks,
                    QueryChecks, ToolChecks, DefaultWorkspaceChecks, StateChecks, BindingOps):
    """The scenario state of ``DesktopSession`` with every desktop operation (see the module docstring)."""
