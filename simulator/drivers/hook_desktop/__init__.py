"""The desktop driver: a desktop under test dials the harness's hook server, and the scenario logic of
``features/hook/desktop`` runs here as named, documented operations (slack-hook-protocol.md §1, §2, §4, §5,
阶段 18 desktop side; docs/control-api.md, desktop).

Theory of operation. ``connect_desktop`` listens with a fresh ``ServerRole`` per scenario and lets the desktop dial
in (the embedded reference, or an external desktop on ``listen:HOST:PORT``); the returned ``DesktopDriver`` holds
the scenario state (``desk.session``, a ``DesktopSession``: names → fresh requestIds and externalKeys, what the desktop
sent so far) and one part per family of operations, each a module below (``desk.acks``, ``desk.bindings``, …). The turns the desktop's agent runs are scripted through its control API
(``script-next-turn``): expectations come from the feature.

Verdicts: no pass without evidence. A judgement reads what the desktop sent or what its control API answered, never a
counter an action kept. A "nothing was sent" check holds only on a connection that stays open and answers ping; every
control answer is checked against docs/desktop-control-api.schema.json before it is read, and one that omits or
mistypes a documented field is the desktop's malformed answer (a failure), never an empty default;
an "every X is Y" check fails when there is no X. What the run does not give the harness (``--hook-token`` for an
external desktop, a control capability) makes the scenario *not testable*, never *not applicable*. Every rule the
protocol core states (frame shapes, ``QUERY_KINDS``, ``find_local_paths_in_frame``, the supported image types) is
called from ``simulator.hook``.

| module | holds |
|---|---|
| ``session`` | ``DesktopSession``: the scenario state, names, handshake, the frames remembered |
| ``answers`` | the control answers, checked against docs/desktop-control-api.schema.json before they are read |
| ``actions`` | the harness as hook server and as the desktop's user (When operations) |
| ``interactions`` | interaction cards: expecting, answering (also wrongly, or malformed), the timeout's cancel |
| ``hello`` / ``acks`` / ``turns`` / ``reopen`` | judgements of the desktop's frames of each family |
| ``connection`` | heartbeat, bearer token, lifecycle.preference, frame types never sent |
| ``rules`` | rules across frames and time: progress replacement and throttling, queries, no local path |
| ``state`` | the control ``state`` and ``retry-turn`` answers: checked shapes and judgements |
| ``bindings`` | Slack binding (OIDC), multi-team and Slack preferences: the user's actions, the server's frames, judgements |
| ``providers`` / ``provider_prefs`` / ``behavior`` | provider binding, provider prefs, Telegram behaviour: operations |
| ``group_relay`` / ``message_ops`` | group relay (window, recipient, context) and message operations: operations |
| ``queries`` | query.request from the harness, the answers judged against the hello and the sessions |
| ``tools`` | gateway tools: the agent's ``call-tool``, tool.request / tool.response, ``state.toolCalls`` |
| ``default_workspace`` | an X-lane task to the hello's default workspace, the session it runs in |
| ``driver`` | ``DesktopDriver``: the session and one part per module above, each given what it builds on |
| ``connect`` | ``connect_desktop``, ``bearer_token``, ``parse_features`` |
"""

from .answers import DESKTOP_CONTROL_SCHEMA, checked_answer
from .bindings import checked_slack_view
from .connect import ROLE, SubjectNotes, bearer_token, connect_desktop, parse_features
from .driver import DesktopDriver
from .reopen import UUID4
from .session import RECONNECT_MIN_S, DesktopSession
from .state import FINISHED_STATUSES, checked_retry_answer, checked_state
from .tools import checked_call_answer, checked_tool_calls
from .turns import check_snapshot_order

__all__ = [
    "DESKTOP_CONTROL_SCHEMA",
    "FINISHED_STATUSES",
    "RECONNECT_MIN_S",
    "ROLE",
    "UUID4",
    "DesktopDriver",
    "DesktopSession",
    "SubjectNotes",
    "bearer_token",
    "check_snapshot_order",
    "checked_answer",
    "checked_retry_answer",
    "checked_slack_view",
    "checked_state",
    "checked_call_answer",
    "checked_tool_calls",
    "connect_desktop",
    "parse_features",
]
