"""Group relay and message operations as a part of ``DesktopMachine`` (sans-I/O, like it: ``now`` passed in, effects
returned). Contract: docs/control-api.md "Queries, gateway tools, group relay and message operations (desktop)".

Spec: slack-hook-protocol.md §1 群消息中继, §3 兼容策略 ("新端在能力缺席时不会发送它们"), §5 阶段 14 (group.message,
task.dispatch.source.triggerMessageId), 阶段 19 (group.message.author); UPSTREAM-FACTS.md (msg.op, msg-op-v1).

``RelayFamilies`` is mixed into ``DesktopMachine``:

* ``on_group_message``: a group.message enters the window (``group_relay.GroupWindow``) only while group relay is on
  and, with the recipient check on, its recipient equals a binding of its provider the desktop holds as confirmed;
  anything else is dropped (nothing changes, the connection stays). The effects keep the window on the device.
* ``group_context``: the context of a dispatch (``runs[].groupContext``), from its ``source.triggerMessageId``.
* ``message_op`` (control ``message-op``): the agent of a dispatched turn operates on its channel thread: msg.op
  with a fresh opId and ``scope.externalKey`` of the turn, or nothing sent (``unavailable``) while the family is off.
* ``on_msg_op_result``: ends the pending op of its opId (``message_ops.OpBook``).

The small hooks (``_relay_on``, ``_recipient_ok``, ``_window_entry``, ``_ops_on``, ``_op_scope``, ``_new_window``,
``_new_op_book``) each state one rule, so a subclass can change exactly one. Frames that fail parsing never reach
these handlers (the machine drops them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from ...hook import ABSENT, Feature, HookBuildError, MessageOpScope, make_msg_op
from .effects import Send
from .group_relay import GroupWindow, WindowEntry, recipient_check_on, recipient_matches, relay_on
from .message_ops import OpBook, ops_on
from .provider_bindings import ProviderBook, Refused
from .state import Turn

__all__ = ["RELAY_FEATURES", "RelayFamilies"]

#: The features of these families this desktop declares in every hello (part of ``CONSUMED_FEATURES``).
RELAY_FEATURES: Final = (Feature.GROUP_RELAY.value, Feature.GROUP_RELAY_RECIPIENT.value, Feature.MESSAGE_OPS.value)


class RelayFamilies:
    """Group relay and message operations of ``DesktopMachine`` (which supplies ``welcomed``, ``negotiated_features``,
    ``turns``, ``ids``, ``provider_book``, ``_channel_on``, ``_frame`` and ``_env``)."""

    welcomed: bool
    turns: dict[str, Turn]
    ids: Callable[[], str]
    provider_book: ProviderBook
    _channel_on: Callable[[str], bool]
    _frame: Callable[..., Send]
    _env: Callable[[float], dict[str, Any]]

    if TYPE_CHECKING:
        @property
        def negotiated_features(self) -> frozenset[str]: ...

    def _new_window(self) -> GroupWindow:
        return GroupWindow()

    def _new_op_book(self) -> OpBook:
        return OpBook()

    def _init_relay(self, saved_window: Iterable[tuple[int, str]] = ()) -> None:
        self.group_window = self._new_window()
        self.group_window.load(saved_window)
        self.op_book = self._new_op_book()

    # -- gating ---------------------------------------------------------------------------------------------------

    def _relay_on(self) -> bool:
        return relay_on(RELAY_FEATURES, self.negotiated_features)

    def _recipient_check_on(self) -> bool:
        return self._relay_on() and recipient_check_on(RELAY_FEATURES, self.negotiated_features)

    def _ops_on(self) -> bool:
        return ops_on(RELAY_FEATURES, self.negotiated_features)

    # -- group relay ----------------------------------------------------------------------------------------------

    def _confirmed(self, provider: str) -> list[tuple[str, str | None]]:
        """(bindingId, principalId) of the bindings of ``provider`` the desktop holds as confirmed now (its channel on:
        a hidden channel holds nothing the user could see)."""
        book = self.provider_book.bindings.get(provider)
        if book is None or not self._channel_on(provider):
            return []
        return [(b.binding_id, b.principal_id) for b in book.values() if b.state == "confirmed"]

    def _recipient_ok(self, payload: Any) -> bool:
        """阶段 14 / §1: "desktop 仅在它与当前 confirmed binding 精确匹配时入窗"."""
        return recipient_matches(payload.recipient, self._confirmed(payload.provider))

    def _window_entry(self, payload: Any) -> WindowEntry:
        return WindowEntry.from_payload(payload)

    def on_group_message(self, msg: Any, now: float) -> list[Any]:
        """group.message: entered, or dropped (relay off, or the recipient check refuses it)."""
        p = msg.payload
        if not self._relay_on():
            return []
        if self._recipient_check_on() and not self._recipient_ok(p):
            return []
        return list(self.group_window.add(self._window_entry(p)))

    def group_context(self, source: Any) -> list[str] | None:
        """``runs[].groupContext`` of a dispatch with ``source`` (阶段 14: the trigger itself left out)."""
        if source is ABSENT or source is None or source.trigger_message_id is ABSENT:
            return None
        return self.group_window.context(source.trigger_message_id)

    # -- message operations ---------------------------------------------------------------------------------------

    def _op_scope(self, turn: Any) -> MessageOpScope:
        """UPSTREAM-FACTS: message operations "scoped by `externalKey`": the turn's own externalKey."""
        return MessageOpScope(turn.external_key)

    def message_op(self, request_id: Any, action: Any, now: float) -> tuple[str | None, list[Any]]:
        """The agent of the dispatched turn ``request_id`` operates on its channel thread with ``action``."""
        turns: Mapping[str, Any] = self.turns
        turn = turns.get(request_id) if isinstance(request_id, str) else None
        if turn is None or turn.kind.value != "dispatch":
            raise Refused("not-found", f"no dispatched turn {request_id!r}")
        if not isinstance(action, Mapping):
            raise Refused("invalid-request", "action: an object is required")
        op_id = self.ids()
        try:
            msg = make_msg_op(op_id, self._op_scope(turn), dict(action), request_id=request_id,
                              **self._env(now))
        except HookBuildError as exc:
            raise Refused("invalid-request", str(exc)) from None
        kind = str(action.get("kind"))
        if not self.welcomed or not self._ops_on():
            self.op_book.unavailable(request_id, kind)  # 新端在能力缺席时不会发送它们 (§3): nothing sent
            return None, []
        self.op_book.sent(op_id, request_id, kind)
        return op_id, [self._frame(msg, request_id)]

    def on_msg_op_result(self, msg: Any, now: float) -> list[Any]:
        """msg.op.result: ends the pending op of its opId; an unknown or repeated opId changes nothing."""
        self.op_book.take_result(msg.payload)
        return []

    def relay_state(self) -> dict[str, Any]:
        """The ``messageOps`` and ``groupWindow`` fields of the control ``state``."""
        return {"messageOps": self.op_book.state(), "groupWindow": self.group_window.state()}
