"""What the mixins of the reference hook server's machine use of each other (for the type checker only).

``HookServerMachine`` (machine.py) is built from mixins: ``ControlCommands`` (commands.py), ``Restore``
(restore.py), ``SlackFamilies``, ``ProviderFamilies``, ``RelayFamilies``, ``GatewayFamilies``. Each reads state and
calls helpers another part defines. ``MachineHost``, their common base, declares those members: attribute
annotations and method signatures only, so the class adds nothing at run time (its methods are declared under
``TYPE_CHECKING``; the definitions in machine.py and the mixins are checked against them as overrides).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...hook import HookMessage, QueryKind, TaskSource
    from .channel import ChannelMessage, Notice
    from .delivery import Delivery
    from .dropped_log import DroppedLog
    from .effects import Effect, Send
    from .lanes import Lane, LaneKey
    from .provider_binding import ProviderBook
    from .slack_binding import SlackBindings
    from .state import Connection, Device, FailRule, Route, Task

__all__ = ["MachineHost"]


class MachineHost:
    """The machine's state and helpers the mixins share (set by ``HookServerMachine.__init__`` and the families'
    ``_*_init``)."""

    connections: dict[str, Connection]
    devices: dict[str, Device]
    lanes: dict[LaneKey, Lane]
    tasks: dict[str, Task]
    messages: dict[str, ChannelMessage]
    routes: dict[str, Route]
    deliveries: dict[str, Delivery]
    #: requestId → (mark, reopenOf)
    marks: dict[str, tuple[str, str | None]]
    notices: list[Notice]
    dropped: DroppedLog
    hold_publishes: bool
    _ids: Callable[[], str]
    _held: list[str]
    _fail_rules: list[FailRule]
    _waiting: dict[str, dict[str, None]]
    #: the Slack bindings (slack_families.py) and the provider bindings (provider_families.py)
    slack: SlackBindings
    pbook: ProviderBook

    if TYPE_CHECKING:
        # -- machine.py
        def _next_seq(self) -> int: ...

        def _frame(self, conn: str, message: HookMessage | dict[str, Any]) -> Send: ...

        def _log(self, conn: str | None, now: int, reason: str, *, type_: str | None = None,
                 code: str | None = None, path: str | None = None, request_id: str | None = None) -> None: ...

        def _timer(self, out: list[Effect], at: int, kind: str, key: str) -> None: ...

        def _open_conn_of(self, device_id: str | None) -> Connection | None: ...

        def _persist_message(self, out: list[Effect], m: ChannelMessage, *, lazy: bool = False) -> None: ...

        def message_of(self, request_id: str) -> ChannelMessage | None: ...

        def _dispatch(self, task: Task, conn: Connection, now: int, out: list[Effect], *,
                      redelivery: bool) -> None: ...

        def _publish(self, d: Delivery, now: int, out: list[Effect]) -> None: ...

        def _interrupt(self, m: ChannelMessage, out: list[Effect]) -> None: ...

        def tick(self, now: int) -> list[Effect]: ...

        # -- commands.py
        def inject_message(self, body: Mapping[str, Any], now: int, *,
                           trigger_message_id: str | None = None) -> tuple[dict[str, Any], list[Effect]]: ...

        # -- slack_families.py
        def _multi_team(self, conn: Connection | None) -> bool: ...

        def _team_source(self, source: TaskSource, team_id: str | None, provider: str,
                         device_id: str) -> TaskSource: ...

        def _slack_restore(self, tables: Mapping[str, Iterable[Mapping[str, Any]]]) -> None: ...

        # -- provider_families.py
        def inject_bind(self, body: Mapping[str, Any], token: str, now: int) -> list[Effect]: ...

        def list_provider_bindings(self, device_id: str | None) -> dict[str, Any]: ...

        def _provider_restore(self, tables: Mapping[str, Iterable[Mapping[str, Any]]],
                              out: list[Effect]) -> None: ...

        # -- relay_families.py
        def _relay_restore(self, tables: Mapping[str, Iterable[Mapping[str, Any]]]) -> None: ...

        # -- gateway_families.py
        def _query_kind(self, command: str) -> QueryKind | None: ...

        def _ask_query(self, lane: Lane, device_id: str, external_key: str, kind: QueryKind, now: int,
                       out: list[Effect]) -> dict[str, Any]: ...
