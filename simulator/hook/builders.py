"""One builder per message type: ``make_<type with dots as underscores>`` (spec §8 ``make*()``).

``make_task_ack(request_id="r1", result="accepted", session_id="s1")`` builds the typed payload from its
fields, wraps it with ``build_hook_message`` (UUID v4 ``id``, unix-ms ``ts``, both injectable through the
keyword arguments ``id``, ``ts``, ``ids``, ``clock``) and validates it. A builder's parameters are its payload
class's fields, in their order and with their defaults (tests/hook/test_builders.py pins that; a mutable default,
``provider.behavior.state``'s ``group_activation``, is None for a fresh empty one), then the envelope options,
keyword-only; an envelope option given as None means "the default", as the signature advertises.
``BUILDERS`` maps each message type to its builder.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .behavior import ProviderBehaviorGetPayload, ProviderBehaviorSetPayload, ProviderBehaviorStatePayload
from .binding import BindRevokePayload, BindStartPayload, BindStatePayload, BindUpdatePayload
from .checks import ABSENT
from .constants import MessageType
from .envelope import HookMessage, build_hook_message
from .group import GroupMessagePayload
from .interaction import InteractionCancelPayload, InteractionDecisionPayload, InteractionRequestPayload
from .msg_op import MessageOpPayload, MessageOpResultPayload
from .prefs import (
    PrefsGetPayload,
    PrefsSetPayload,
    PrefsStatePayload,
    ProviderPrefsGetPayload,
    ProviderPrefsSetPayload,
    ProviderPrefsStatePayload,
)
from .provider_bind import (
    ProviderBindCancelPayload,
    ProviderBindRevokePayload,
    ProviderBindStartPayload,
    ProviderBindStatePayload,
    ProviderBindUpdatePayload,
)
from .query import QueryRequestPayload, QueryResponsePayload
from .session import HelloPayload, LifecyclePreferencePayload, PingPayload, PongPayload, WelcomePayload
from .tasks import SessionArchivePayload, TaskAckPayload, TaskCancelPayload, TaskDispatchPayload
from .tools import ToolRequestPayload, ToolResponsePayload
from .turns import TurnDeliveryPayload, TurnEndPayload, TurnProgressPayload, TurnReopenPayload, TurnUsage
from .wire import Wire

if TYPE_CHECKING:
    from .attachments import Attachment
    from .behavior import GroupActivationPatch
    from .binding import BindStateEntry
    from .group import GroupMessageAuthor, GroupMessageRecipient
    from .interaction import InteractionButton
    from .msg_op import MessageOpScope
    from .prefs import ProviderWorkspacePrefsEntry, WorkspacePrefsEntry
    from .query import QueryAgentModels, QuerySessionEntry
    from .tasks import DispatchOptions, TaskSource
    from .tools import ToolError
    from .turns import DeliveryError

__all__ = [
    "BUILDERS",
    "builder_name",
    "make_bind_revoke",
    "make_bind_start",
    "make_bind_state",
    "make_bind_update",
    "make_group_message",
    "make_hello",
    "make_interaction_cancel",
    "make_interaction_decision",
    "make_interaction_request",
    "make_lifecycle_preference",
    "make_msg_op",
    "make_msg_op_result",
    "make_ping",
    "make_pong",
    "make_prefs_get",
    "make_prefs_set",
    "make_prefs_state",
    "make_provider_behavior_get",
    "make_provider_behavior_set",
    "make_provider_behavior_state",
    "make_provider_bind_cancel",
    "make_provider_bind_revoke",
    "make_provider_bind_start",
    "make_provider_bind_state",
    "make_provider_bind_update",
    "make_provider_prefs_get",
    "make_provider_prefs_set",
    "make_provider_prefs_state",
    "make_query_request",
    "make_query_response",
    "make_session_archive",
    "make_task_ack",
    "make_task_cancel",
    "make_task_dispatch",
    "make_tool_request",
    "make_tool_response",
    "make_turn_delivery",
    "make_turn_end",
    "make_turn_progress",
    "make_turn_reopen",
    "make_welcome",
]

#: The default of every builder's ``extra``: no keys beyond the type's own.
_NO_EXTRA: Mapping[str, Any] = MappingProxyType({})
#: The default of a parameter whose payload field may be left out of the frame: ``ABSENT``, typed ``Any`` as the
#: fields' own ``opt()`` / ``optional=True`` defaults are, so each parameter keeps its field's (present) type.
_ABSENT: Any = ABSENT
#: The default of ``make_turn_end``'s ``usage``: no figures.
_NO_USAGE = TurnUsage()


def builder_name(type_: MessageType) -> str:
    return "make_" + type_.value.replace(".", "_")


def _built(
    payload: Wire,
    id: str | None,  # noqa: A002 - the envelope field's name
    ts: int | float | None,
    ids: Callable[[], str] | None,
    clock: Callable[[], int | float] | None,
    validate: bool | None,
) -> HookMessage:
    """The frame of ``payload``: ``build_hook_message`` with the envelope options given (None: its default)."""
    options: dict[str, Any] = {k: v for k, v in (("id", id), ("ts", ts), ("ids", ids), ("clock", clock), ("validate", validate))
               if v is not None}
    return build_hook_message(payload, **options)


def make_hello(
    protocol_version: int | float,
    device_id: str,
    device_name: str,
    workspaces: tuple[str, ...],
    agents: tuple[str, ...],
    features: tuple[str, ...] = _ABSENT,
    lifecycle_announcement: bool = _ABSENT,
    default_workspace: str | None = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``hello`` (slack-hook-protocol.md §5 阶段 1)."""
    payload = HelloPayload(
        protocol_version, device_id, device_name, workspaces, agents, features, lifecycle_announcement,
        default_workspace, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_welcome(
    server_name: str,
    features: tuple[str, ...],
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``welcome`` (slack-hook-protocol.md §5 阶段 1)."""
    return _built(WelcomePayload(server_name, features, extra), id, ts, ids, clock, validate)


def make_ping(
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``ping`` (slack-hook-protocol.md §5 阶段 1 ping/pong)."""
    return _built(PingPayload(extra), id, ts, ids, clock, validate)


def make_pong(
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``pong`` (slack-hook-protocol.md §5 阶段 1 ping/pong)."""
    return _built(PongPayload(extra), id, ts, ids, clock, validate)


def make_task_dispatch(
    request_id: str,
    external_key: str,
    workspace: str | None,
    session_id: str | None,
    prompt: str,
    options: DispatchOptions = _ABSENT,
    attachments: tuple[Attachment, ...] = _ABSENT,
    source: TaskSource = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``task.dispatch`` (slack-hook-protocol.md §5 阶段 2/4/7/9)."""
    payload = TaskDispatchPayload(
        request_id, external_key, workspace, session_id, prompt, options, attachments, source, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_task_ack(
    request_id: str,
    result: str,
    reason: str | None = None,
    session_id: str | None = None,
    queue_position: int | None = None,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``task.ack`` (slack-hook-protocol.md §5 阶段 2/4/7/9)."""
    payload = TaskAckPayload(request_id, result, reason, session_id, queue_position, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_turn_end(
    request_id: str,
    external_key: str,
    session_id: str | None,
    status: str,
    final_text: str,
    error_message: str | None,
    usage: TurnUsage = _NO_USAGE,
    attachments: tuple[Attachment, ...] = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``turn.end`` (slack-hook-protocol.md §5 阶段 2/4/7/9)."""
    payload = TurnEndPayload(
        request_id, external_key, session_id, status, final_text, error_message, usage, attachments, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_turn_delivery(
    request_id: str,
    state: str,
    attempt: int,
    retry_at: int | None = None,
    error: DeliveryError | None = None,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``turn.delivery`` (slack-hook-protocol.md §5 turn.delivery 可靠性与兼容)."""
    return _built(TurnDeliveryPayload(request_id, state, attempt, retry_at, error, extra), id, ts, ids, clock, validate)


def make_turn_progress(
    request_id: str,
    text: str,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``turn.progress`` (slack-hook-protocol.md §5 阶段 2/4/7/9)."""
    return _built(TurnProgressPayload(request_id, text, extra), id, ts, ids, clock, validate)


def make_turn_reopen(
    request_id: str,
    reopen_of: str,
    external_key: str,
    session_id: str | None,
    reason: str = 'user-continued',
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``turn.reopen`` (slack-hook-protocol.md §5 阶段 18)."""
    payload = TurnReopenPayload(request_id, reopen_of, external_key, session_id, reason, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_msg_op(
    op_id: str,
    scope: MessageOpScope,
    action: Mapping[str, Any],
    request_id: str = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``msg.op`` (UPSTREAM-FACTS.md msg.op / msg.op.result (msg-op-v1))."""
    return _built(MessageOpPayload(op_id, scope, action, request_id, extra), id, ts, ids, clock, validate)


def make_msg_op_result(
    op_id: str,
    ok: bool,
    message_id: str | None = _ABSENT,
    message_ids: tuple[str, ...] = _ABSENT,
    error: str | None = _ABSENT,
    retry_after_ms: int | float | None = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``msg.op.result`` (UPSTREAM-FACTS.md msg.op / msg.op.result (msg-op-v1))."""
    payload = MessageOpResultPayload(op_id, ok, message_id, message_ids, error, retry_after_ms, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_bind_start(
    email: str = _ABSENT,
    team_id: str | None = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``bind.start`` (slack-hook-protocol.md §5 阶段 5)."""
    return _built(BindStartPayload(email, team_id, extra), id, ts, ids, clock, validate)


def make_bind_update(
    state: str,
    slack_user_id: str | None = None,
    slack_user_name: str | None = None,
    message: str | None = None,
    authorize_url: str | None = _ABSENT,
    reason: str | None = _ABSENT,
    install_url: str | None = _ABSENT,
    team_name: str | None = _ABSENT,
    team_id: str | None = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``bind.update`` (slack-hook-protocol.md §5 阶段 5)."""
    payload = BindUpdatePayload(
        state, slack_user_id, slack_user_name, message, authorize_url, reason, install_url, team_name, team_id, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_bind_revoke(
    team_id: str | None = _ABSENT,
    pending_only: bool = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``bind.revoke`` (slack-hook-protocol.md §5 阶段 5)."""
    return _built(BindRevokePayload(team_id, pending_only, extra), id, ts, ids, clock, validate)


def make_provider_bind_start(
    request_id: str,
    provider: str,
    scope_id: str | None = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``provider.bind.start`` (slack-hook-protocol.md §5 Provider-neutral 绑定与偏好)."""
    return _built(ProviderBindStartPayload(request_id, provider, scope_id, extra), id, ts, ids, clock, validate)


def make_provider_bind_cancel(
    request_id: str,
    provider: str,
    attempt_id: str,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``provider.bind.cancel`` (slack-hook-protocol.md §5 Provider-neutral 绑定与偏好)."""
    return _built(ProviderBindCancelPayload(request_id, provider, attempt_id, extra), id, ts, ids, clock, validate)


def make_provider_bind_revoke(
    request_id: str,
    provider: str,
    binding_id: str,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``provider.bind.revoke`` (slack-hook-protocol.md §5 Provider-neutral 绑定与偏好)."""
    return _built(ProviderBindRevokePayload(request_id, provider, binding_id, extra), id, ts, ids, clock, validate)


def make_provider_bind_update(
    provider: str,
    state: str,
    reply_to: str | None = None,
    attempt_id: str | None = None,
    binding_id: str | None = None,
    principal_id: str | None = None,
    principal_name: str | None = None,
    scope_id: str | None = None,
    scope_name: str | None = None,
    connect_url: str | None = None,
    expires_at: int | None = None,
    reason: str | None = None,
    remediation_url: str | None = None,
    actions: tuple[str, ...] = (),
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``provider.bind.update`` (slack-hook-protocol.md §5 Provider-neutral 绑定与偏好)."""
    payload = ProviderBindUpdatePayload(
        provider, state, reply_to, attempt_id, binding_id, principal_id, principal_name, scope_id, scope_name,
        connect_url, expires_at, reason, remediation_url, actions, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_provider_bind_state(
    provider: str,
    state: str,
    reply_to: str | None = None,
    attempt_id: str | None = None,
    binding_id: str | None = None,
    principal_id: str | None = None,
    principal_name: str | None = None,
    scope_id: str | None = None,
    scope_name: str | None = None,
    connect_url: str | None = None,
    expires_at: int | None = None,
    reason: str | None = None,
    remediation_url: str | None = None,
    actions: tuple[str, ...] = (),
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``provider.bind.state`` (slack-hook-protocol.md §5 Provider-neutral 绑定与偏好)."""
    payload = ProviderBindStatePayload(
        provider, state, reply_to, attempt_id, binding_id, principal_id, principal_name, scope_id, scope_name,
        connect_url, expires_at, reason, remediation_url, actions, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_query_request(
    query_id: str,
    kind: str,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``query.request`` (slack-hook-protocol.md §5 阶段 6)."""
    return _built(QueryRequestPayload(query_id, kind, extra), id, ts, ids, clock, validate)


def make_query_response(
    query_id: str,
    kind: str,
    ok: bool,
    error: str | None = None,
    workspaces: tuple[str, ...] = _ABSENT,
    agents: tuple[QueryAgentModels, ...] = _ABSENT,
    sessions: tuple[QuerySessionEntry, ...] = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``query.response`` (slack-hook-protocol.md §5 阶段 6)."""
    payload = QueryResponsePayload(query_id, kind, ok, error, workspaces, agents, sessions, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_task_cancel(
    request_id: str,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``task.cancel`` (slack-hook-protocol.md §5 阶段 2/4/7/9)."""
    return _built(TaskCancelPayload(request_id, extra), id, ts, ids, clock, validate)


def make_session_archive(
    external_key: str,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``session.archive`` (slack-hook-protocol.md §5 阶段 8)."""
    return _built(SessionArchivePayload(external_key, extra), id, ts, ids, clock, validate)


def make_interaction_request(
    request_id: str,
    interaction_id: str,
    kind: str,
    title: str,
    body: str,
    buttons: tuple[InteractionButton, ...],
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``interaction.request`` (slack-hook-protocol.md §5 阶段 10)."""
    payload = InteractionRequestPayload(request_id, interaction_id, kind, title, body, buttons, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_interaction_decision(
    request_id: str,
    interaction_id: str,
    button_id: str,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``interaction.decision`` (slack-hook-protocol.md §5 阶段 10)."""
    payload = InteractionDecisionPayload(request_id, interaction_id, button_id, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_interaction_cancel(
    request_id: str,
    interaction_id: str,
    reason: str,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``interaction.cancel`` (slack-hook-protocol.md §5 阶段 10)."""
    return _built(InteractionCancelPayload(request_id, interaction_id, reason, extra), id, ts, ids, clock, validate)


def make_prefs_get(
    request_id: str,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``prefs.get`` (slack-hook-protocol.md §5 阶段 11)."""
    return _built(PrefsGetPayload(request_id, extra), id, ts, ids, clock, validate)


def make_prefs_set(
    request_id: str,
    workspace: str,
    model: str | None = _ABSENT,
    effort: str | None = _ABSENT,
    agent_kind: str | None = _ABSENT,
    permission_mode: str | None = _ABSENT,
    team_id: str | None = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``prefs.set`` (slack-hook-protocol.md §5 阶段 11)."""
    payload = PrefsSetPayload(request_id, workspace, model, effort, agent_kind, permission_mode, team_id, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_prefs_state(
    bound: bool,
    reply_to: str | None = None,
    prefs: tuple[WorkspacePrefsEntry, ...] = (),
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``prefs.state`` (slack-hook-protocol.md §5 阶段 11)."""
    return _built(PrefsStatePayload(bound, reply_to, prefs, extra), id, ts, ids, clock, validate)


def make_provider_prefs_get(
    request_id: str,
    provider: str,
    binding_id: str | None = None,
    scope_id: str | None = None,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``provider.prefs.get`` (slack-hook-protocol.md §2 provider 偏好隔离; §5 Provider-neutral 绑定与偏好)."""
    payload = ProviderPrefsGetPayload(request_id, provider, binding_id, scope_id, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_provider_prefs_set(
    request_id: str,
    provider: str,
    workspace: str,
    binding_id: str | None = None,
    scope_id: str | None = None,
    model: str | None = _ABSENT,
    effort: str | None = _ABSENT,
    agent_kind: str | None = _ABSENT,
    permission_mode: str | None = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``provider.prefs.set`` (slack-hook-protocol.md §2 provider 偏好隔离; §5 Provider-neutral 绑定与偏好)."""
    payload = ProviderPrefsSetPayload(
        request_id, provider, workspace, binding_id, scope_id, model, effort, agent_kind, permission_mode, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_provider_prefs_state(
    provider: str,
    bound: bool,
    binding_id: str | None = None,
    scope_id: str | None = None,
    reply_to: str | None = None,
    prefs: tuple[ProviderWorkspacePrefsEntry, ...] = (),
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``provider.prefs.state`` (slack-hook-protocol.md §2 provider 偏好隔离; §5 Provider-neutral 绑定与偏好)."""
    payload = ProviderPrefsStatePayload(provider, bound, binding_id, scope_id, reply_to, prefs, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_tool_request(
    request_id: str,
    tool: str,
    args: Mapping[str, Any] = _ABSENT,
    team_id: str | None = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``tool.request`` (slack-hook-protocol.md §5 阶段 12)."""
    return _built(ToolRequestPayload(request_id, tool, args, team_id, extra), id, ts, ids, clock, validate)


def make_tool_response(
    reply_to: str,
    ok: bool,
    result: Any = _ABSENT,
    error: ToolError | None = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``tool.response`` (slack-hook-protocol.md §5 阶段 12)."""
    return _built(ToolResponsePayload(reply_to, ok, result, error, extra), id, ts, ids, clock, validate)


def make_bind_state(
    bindings: tuple[BindStateEntry, ...],
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``bind.state`` (slack-hook-protocol.md §5 阶段 13 multi-team)."""
    return _built(BindStatePayload(bindings, extra), id, ts, ids, clock, validate)


def make_group_message(
    provider: str,
    chat_id: str,
    message_id: str,
    author: GroupMessageAuthor,
    text: str = '',
    sent_at: int = 0,
    thread_id: str | None = None,
    chat_name: str | None = None,
    recipient: GroupMessageRecipient = _ABSENT,
    file_names: tuple[str, ...] = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``group.message`` (slack-hook-protocol.md §5 阶段 14)."""
    payload = GroupMessagePayload(
        provider, chat_id, message_id, author, text, sent_at, thread_id, chat_name, recipient, file_names, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_lifecycle_preference(
    enabled: bool,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``lifecycle.preference`` (slack-hook-protocol.md §5 上下线通知偏好)."""
    return _built(LifecyclePreferencePayload(enabled, extra), id, ts, ids, clock, validate)


def make_provider_behavior_get(
    request_id: str,
    binding_id: str,
    provider: str = 'telegram',
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``provider.behavior.get`` (slack-hook-protocol.md §5 阶段 19 Telegram 行为配置)."""
    return _built(ProviderBehaviorGetPayload(request_id, binding_id, provider, extra), id, ts, ids, clock, validate)


def make_provider_behavior_set(
    request_id: str,
    binding_id: str,
    provider: str = 'telegram',
    emoji_reactions: str | None = _ABSENT,
    reply_quote_dm: str | None = _ABSENT,
    reply_quote_group: str | None = _ABSENT,
    group_activation: GroupActivationPatch = _ABSENT,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``provider.behavior.set`` (slack-hook-protocol.md §5 阶段 19 Telegram 行为配置)."""
    payload = ProviderBehaviorSetPayload(
        request_id, binding_id, provider, emoji_reactions, reply_quote_dm, reply_quote_group, group_activation, extra)
    return _built(payload, id, ts, ids, clock, validate)


def make_provider_behavior_state(
    binding_id: str,
    bound: bool,
    provider: str = 'telegram',
    reply_to: str | None = None,
    emoji_reactions: str = 'minimal',
    reply_quote_dm: str = 'off',
    reply_quote_group: str = 'first',
    group_activation: Mapping[str, str] | None = None,
    extra: Mapping[str, Any] = _NO_EXTRA,
    *,
    id: str | None = None,  # noqa: A002 - the envelope field's name
    ts: int | float | None = None,
    ids: Callable[[], str] | None = None,
    clock: Callable[[], int | float] | None = None,
    validate: bool | None = None,
) -> HookMessage:
    """``provider.behavior.state`` (slack-hook-protocol.md §5 阶段 19 Telegram 行为配置)."""
    payload = ProviderBehaviorStatePayload(
        binding_id, bound, provider, reply_to, emoji_reactions, reply_quote_dm, reply_quote_group,
        {} if group_activation is None else group_activation, extra)
    return _built(payload, id, ts, ids, clock, validate)


BUILDERS: dict[MessageType, Callable[..., HookMessage]] = {
    MessageType.HELLO: make_hello,
    MessageType.WELCOME: make_welcome,
    MessageType.PING: make_ping,
    MessageType.PONG: make_pong,
    MessageType.TASK_DISPATCH: make_task_dispatch,
    MessageType.TASK_ACK: make_task_ack,
    MessageType.TURN_END: make_turn_end,
    MessageType.TURN_DELIVERY: make_turn_delivery,
    MessageType.TURN_PROGRESS: make_turn_progress,
    MessageType.TURN_REOPEN: make_turn_reopen,
    MessageType.MSG_OP: make_msg_op,
    MessageType.MSG_OP_RESULT: make_msg_op_result,
    MessageType.BIND_START: make_bind_start,
    MessageType.BIND_UPDATE: make_bind_update,
    MessageType.BIND_REVOKE: make_bind_revoke,
    MessageType.PROVIDER_BIND_START: make_provider_bind_start,
    MessageType.PROVIDER_BIND_CANCEL: make_provider_bind_cancel,
    MessageType.PROVIDER_BIND_REVOKE: make_provider_bind_revoke,
    MessageType.PROVIDER_BIND_UPDATE: make_provider_bind_update,
    MessageType.PROVIDER_BIND_STATE: make_provider_bind_state,
    MessageType.QUERY_REQUEST: make_query_request,
    MessageType.QUERY_RESPONSE: make_query_response,
    MessageType.TASK_CANCEL: make_task_cancel,
    MessageType.SESSION_ARCHIVE: make_session_archive,
    MessageType.INTERACTION_REQUEST: make_interaction_request,
    MessageType.INTERACTION_DECISION: make_interaction_decision,
    MessageType.INTERACTION_CANCEL: make_interaction_cancel,
    MessageType.PREFS_GET: make_prefs_get,
    MessageType.PREFS_SET: make_prefs_set,
    MessageType.PREFS_STATE: make_prefs_state,
    MessageType.PROVIDER_PREFS_GET: make_provider_prefs_get,
    MessageType.PROVIDER_PREFS_SET: make_provider_prefs_set,
    MessageType.PROVIDER_PREFS_STATE: make_provider_prefs_state,
    MessageType.TOOL_REQUEST: make_tool_request,
    MessageType.TOOL_RESPONSE: make_tool_response,
    MessageType.BIND_STATE: make_bind_state,
    MessageType.GROUP_MESSAGE: make_group_message,
    MessageType.LIFECYCLE_PREFERENCE: make_lifecycle_preference,
    MessageType.PROVIDER_BEHAVIOR_GET: make_provider_behavior_get,
    MessageType.PROVIDER_BEHAVIOR_SET: make_provider_behavior_set,
    MessageType.PROVIDER_BEHAVIOR_STATE: make_provider_behavior_state,
}
