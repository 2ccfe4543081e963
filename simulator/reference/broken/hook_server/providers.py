"""Broken variants of the reference hook server: the provider families provider.bind.*, provider.prefs.*,
provider.behavior.* and the one-time token (spec slack-hook-protocol.md §2 "provider 能力必须双向协商", §5
Provider-neutral 绑定与偏好, 阶段 14 "一次性凭证 … 由 server 过滤,不转发", 阶段 19 Telegram 行为配置; docs/control-api.md
Durability; docs/hook-server-plan.md "Broken variants").

Each class is the correct ``HookServerMachine`` with one method overridden, or one of its pure books (``ProviderBook``,
``BehaviorBook``) swapped for a subclass that overrides one rule, so that exactly one rule is broken; each is
registered with the requirements that catch it (tests/hook_server/test_server_variants.py reads them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, TypeGuard

import orjson

from ....hook import ABSENT, DEFAULT_TELEGRAM_BEHAVIOR, TYPES, HookMessage, HookParseResult, IssueCode, MessageType
from ...hookserver.behavior import BEHAVIOR_KEYS, BehaviorBook, Overrides
from ...hookserver.effects import Effect, Persist
from ...hookserver.machine import HookServerMachine
from ...hookserver.provider_binding import Attempt, Binding, Change, ProviderBook, connect_url
from ...hookserver.provider_prefs import PREF_KEYS, Selector
from ...hookserver.state import Connection
from ..registry import broken


class _SwappedBooks(HookServerMachine):
    """The machine with its provider book (``BOOK``) or behaviour book (``BEHAVIOR``) swapped."""

    BOOK: ClassVar[type[ProviderBook]] = ProviderBook
    BEHAVIOR: ClassVar[type[BehaviorBook]] = BehaviorBook

    def _provider_init(self) -> None:
        super()._provider_init()
        self.pbook, self.behavior = self.BOOK(), self.BEHAVIOR()


class _TakesRefused(HookServerMachine):
    """Takes a frame of ``TAKEN[0]`` that the core refuses for the one rule ``TAKEN[1]`` only, as if it were valid."""

    TAKEN: ClassVar[tuple[MessageType, IssueCode]]

    def _parse(self, raw: str | bytes) -> HookParseResult:
        result = super()._parse(raw)
        taken, code = self.TAKEN
        if result.ok or result.error is None or result.error.code is not code:
            return result
        data = orjson.loads(raw)
        if data.get("type") != taken.value:
            return result
        return HookParseResult(True, HookMessage(taken, data["id"], data["ts"],
                                                 TYPES[taken].payload.from_wire(data["payload"])), None)


class _NotDurable(HookServerMachine):
    """Keeps the provider tables ``TABLES`` in memory only (their rows are never written)."""

    TABLES: ClassVar[frozenset[str]]

    def _persist(self, out: list[Effect], table: str, key: str, row: Mapping[str, Any] | None) -> None:
        if table not in self.TABLES:
            super()._persist(out, table, key, row)


@broken("provider-frames-without-feature", subject="hook-server", run="bare", breaks=["HOOK-SERVER-PROVIDER-BIND-10"],
        clause='§2 "provider 能力必须双向协商"')
@broken("provider-frames-without-feature", subject="hook-server",
        breaks=["HOOK-SERVER-BEHAVIOR-08", "HOOK-SERVER-PROVIDER-BIND-09"], clause='§2 "provider 能力必须双向协商"')
class ProviderFramesWithoutFeature(HookServerMachine):
    """``provider-frames-without-feature``: the provider families are handled and sent whatever hello and welcome
    declared. Breaks §2 "provider 能力必须双向协商"."""

    def _family_on(self, conn: Connection | None, feature: str,
                   provider: str | None = None) -> TypeGuard[Connection]:
        return conn is not None


# -- provider.bind.* (spec §5) ------------------------------------------------------------------------------------------


class _LooseUrlBook(ProviderBook):
    def connect_url(self, a: Attempt) -> str:
        url = super().connect_url(a)
        return url + "&ref=simulator" if a.provider == "telegram" else url


@broken("telegram-url-loose", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-BIND-02"],
        clause='§5 "严格的 https://t.me/<bot>?start=<token>"')
class TelegramUrlLoose(_SwappedBooks):
    """``telegram-url-loose``: the Telegram connect URL carries an extra parameter. Breaks §5 "Telegram 客户端只接受严格的
    https://t.me/<bot>?start=<token>"."""

    BOOK = _LooseUrlBook


class _AttemptIdUrlBook(ProviderBook):
    def connect_url(self, a: Attempt) -> str:
        return connect_url(a.provider, a.attempt_id)


@broken("connect-url-without-token", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-BIND-01"],
        also=["HOOK-SERVER-PROVIDER-BIND-02", "HOOK-SERVER-TOKEN-01"], clause='§5 "pending 必带 HTTPS connectUrl"')
class ConnectUrlWithoutToken(_SwappedBooks):
    """``connect-url-without-token``: the pending connect URL carries the attemptId, not the one-time token. Breaks §5
    "pending 必带 HTTPS connectUrl"."""

    BOOK = _AttemptIdUrlBook


class _AwaitingEndsBook(ProviderBook):
    def await_confirmation(self, a: Attempt) -> Change:
        change = super().await_confirmation(a)
        a.state = "ended"
        return Change(change.device_id, change.payload, (("provider_attempts", a.attempt_id, a.row()),))


@broken("awaiting-ends-attempt", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-BIND-04"],
        clause='§5 "状态:none → pending → awaiting_confirmation? → confirmed"')
class AwaitingEndsAttempt(_SwappedBooks):
    """``awaiting-ends-attempt``: an attempt awaiting confirmation counts as ended, so its confirmation is refused.
    Breaks §5 "状态:none → pending → awaiting_confirmation? → confirmed"."""

    BOOK = _AwaitingEndsBook


class _EndedTokenBook(ProviderBook):
    def open_attempt_by_token(self, token: str, now: int) -> Attempt | None:
        return next((a for a in self.attempts.values() if a.token == token), None)


@broken("ended-token-binds", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-BIND-05"],
        clause='§5 "denied/expired/failed 必带机器可读 reason 并清空"')
class EndedTokenBinds(_SwappedBooks):
    """``ended-token-binds``: a denied / failed / expired attempt's token still binds. Breaks §5 "denied/expired/failed
    必带机器可读 reason 并清空"."""

    BOOK = _EndedTokenBook


class _NoSupersedeBook(ProviderBook):
    def _superseded(self, a: Attempt, scope_id: str) -> list[Binding]:
        return []


@broken("no-supersede", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-BIND-08"], clause='§5 终态 "superseded"')
class NoSupersede(_SwappedBooks):
    """``no-supersede``: a new confirmation for a scope the device holds keeps the older binding. Breaks §5 终态
    "superseded"."""

    BOOK = _NoSupersedeBook


@broken("cancel-cancels-all", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-BIND-06"],
        clause='"只取消指定 attemptId"')
class CancelCancelsAll(HookServerMachine):
    """``cancel-cancels-all``: provider.bind.cancel ends every open attempt of the device. Breaks §5 "只取消指定
    attemptId"."""

    def _cancelled(self, a: Attempt) -> list[Attempt]:
        return [a] + [o for o in self.pbook.attempts.values() if o.open and o.device_id == a.device_id and o is not a]


@broken("revoke-revokes-all", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-BIND-07"],
        clause='§5 "只解除指定 bindingId"')
class RevokeRevokesAll(HookServerMachine):
    """``revoke-revokes-all``: provider.bind.revoke ends every binding of the device. Breaks §5 "只解除指定
    bindingId"."""

    def _revoked(self, b: Binding) -> list[Binding]:
        return [b] + [o for o in self.pbook.bindings_of(b.device_id) if o is not b]


@broken("revoke-ignores-owner", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-BIND-11"],
        clause='§5 "只解除指定 bindingId"; §3 丢帧不断连')
class RevokeIgnoresOwner(HookServerMachine):
    """``revoke-ignores-owner``: provider.bind.revoke of another device's binding revokes it. Breaks §5 "只解除指定
    bindingId" and §3 丢帧不断连 (the frame is dropped)."""

    def _revocable_by(self, conn: Connection, b: Binding) -> bool:
        return True


@broken("provider-bindings-not-durable", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-BIND-12"],
        also=["HOOK-SERVER-BEHAVIOR-07", "HOOK-SERVER-PROVIDER-PREFS-06"], clause='docs/control-api.md Durability')
class ProviderBindingsNotDurable(_NotDurable):
    """``provider-bindings-not-durable``: provider bindings and attempts are not written to the store. Breaks
    docs/control-api.md Durability."""

    TABLES = frozenset({"provider_attempts", "provider_bindings"})


# -- the one-time token (spec 阶段 14) -----------------------------------------------------------------------------------


@broken("token-echoed", subject="hook-server", breaks=["HOOK-SERVER-TOKEN-01"], clause='阶段 14 "一次性凭证由 server 过滤,不转发"')
class TokenEchoed(HookServerMachine):
    """``token-echoed``: the one-time token comes back in the confirmation (and every later state) as scopeName.
    Breaks 阶段 14 "一次性凭证由 server 过滤,不转发"."""

    def _confirm(self, a: Attempt, principal_id: str, principal_name: str | None, scope_id: str,
                 scope_name: str | None, now: int, out: list[Effect]) -> str:
        return super()._confirm(a, principal_id, principal_name, scope_id, f"/start {a.token}", now, out)


@broken("start-token-dispatched", subject="hook-server", breaks=["HOOK-SERVER-TOKEN-02"],
        also=["HOOK-SERVER-TOKEN-01"], clause='阶段 14 "一次性凭证 … 不转发"')
class StartTokenDispatched(HookServerMachine):
    """``start-token-dispatched``: ``/start <token>`` also becomes a task (its dispatch carries the token). Breaks
    阶段 14 "一次性凭证(如绑定深链 /start <token>)由 server 过滤,不转发"."""

    def _start_command(self, body: Mapping[str, Any], command: str, now: int) -> list[Effect]:
        out = super()._start_command(body, command, now)
        if self.devices:
            out += self.inject_message({**body, "text": f"/relay {command}"}, now)[1]
        return out


@broken("start-scope-is-user", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-BIND-03"],
        also=["HOOK-SERVER-PROVIDER-BIND-06", "HOOK-SERVER-PROVIDER-BIND-07", "HOOK-SERVER-PROVIDER-BIND-08", "HOOK-SERVER-PROVIDER-BIND-09", "HOOK-SERVER-PROVIDER-BIND-11", "HOOK-SERVER-PROVIDER-BIND-12", "HOOK-SERVER-TOKEN-01"],
        clause='§5 "confirmed 必带 bindingId、principalId、scopeId"')
class StartScopeIsUser(HookServerMachine):
    """``start-scope-is-user``: /start <token> confirms with the user as scopeId, not the chat. Breaks §5 "confirmed
    必带 bindingId、principalId、scopeId"."""

    def _start_scope(self, body: Mapping[str, Any]) -> str:
        user_id: str = body["userId"]  # raw control JSON: inject_message checked it is a string
        return user_id


# -- provider.prefs.* (spec §5) -----------------------------------------------------------------------------------------


@broken("provider-prefs-set-replaces", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-PREFS-01"],
        clause='§5 "set 再按 workspace alias 部分更新"')
class ProviderPrefsSetReplaces(HookServerMachine):
    """``provider-prefs-set-replaces``: provider.prefs.set clears the keys it does not name. Breaks §5 "set 再按
    workspace alias 部分更新"."""

    def _store_provider_prefs(self, conn: Connection, selector: Selector, workspace: str, wire: Mapping[str, Any],
                              out: list[Effect]) -> None:
        key, row = self.pprefs.patch(selector, workspace, {k: wire.get(k) for k in PREF_KEYS})
        self._persist(out, "provider_prefs", key, row)


@broken("provider-prefs-share-slack-rows", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-PREFS-03"],
        clause='§2 "不会读取或覆写旧 prefs.* 的 Slack 行"')
class ProviderPrefsShareSlackRows(HookServerMachine):
    """``provider-prefs-share-slack-rows``: provider.prefs.set also overwrites the device's Slack rows of that
    workspace. Breaks §2 "不会读取或覆写旧 prefs.* 的 Slack 行"."""

    def _store_provider_prefs(self, conn: Connection, selector: Selector, workspace: str, wire: Mapping[str, Any],
                              out: list[Effect]) -> None:
        super()._store_provider_prefs(conn, selector, workspace, wire, out)
        patch = {k: wire[k] for k in PREF_KEYS if k in wire}
        for b in self.slack.of(conn.device_id or ""):
            out.append(Persist(*self.slack_prefs.patch(b.team_id, b.slack_user_id, workspace, patch)))


@broken("provider-prefs-any-selector-bound", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-PREFS-02"],
        clause='§5 "bound=false 时 prefs 必为空"')
class ProviderPrefsAnySelectorBound(HookServerMachine):
    """``provider-prefs-any-selector-bound``: a provider.prefs selector no binding of the device matches counts as
    bound. Breaks §5 "bound=false 时 prefs 必为空"."""

    def _selector(self, device_id: str, provider: str, binding_id: Any, scope_id: Any) -> tuple[Selector, bool]:
        if isinstance(binding_id, str):
            return (provider, "binding", binding_id), True
        return (provider, "scope", scope_id), True


@broken("provider-prefs-accepts-absolute-path", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-PREFS-04"],
        clause='§5 "校验器拒绝绝对路径"')
class ProviderPrefsAcceptsAbsolutePath(_TakesRefused):
    """``provider-prefs-accepts-absolute-path``: provider.prefs.set with an absolute-path workspace is accepted and
    stored. Breaks §5 "校验器拒绝绝对路径"."""

    TAKEN = (MessageType.PROVIDER_PREFS_SET, IssueCode.ABSOLUTE_PATH)


@broken("provider-prefs-not-pushed", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-PREFS-05"],
        clause='§3 latest-wins "prefs.state 主动推送"')
class ProviderPrefsNotPushed(HookServerMachine):
    """``provider-prefs-not-pushed``: a provider prefs change made in the channel is not pushed to the bound devices.
    Breaks §3 latest-wins "prefs.state 主动推送"."""

    def _push_provider_prefs(self, devices: Any, provider: str, selector: Selector, now: int,
                             out: list[Effect]) -> int:
        return 0


@broken("provider-prefs-not-durable", subject="hook-server", breaks=["HOOK-SERVER-PROVIDER-PREFS-06"],
        clause='docs/control-api.md Durability')
class ProviderPrefsNotDurable(_NotDurable):
    """``provider-prefs-not-durable``: provider preference rows are not written to the store. Breaks
    docs/control-api.md Durability."""

    TABLES = frozenset({"provider_prefs"})


# -- provider.behavior.* (spec 阶段 19) ---------------------------------------------------------------------------------


class _ReplacingBehavior(BehaviorBook):
    def patch(self, binding_id: str, patch: Mapping[str, Any], activation: Mapping[str, Any] | None) -> dict[str, Any]:
        named = {k: None if patch.get(k, ABSENT) is ABSENT else patch[k] for k in BEHAVIOR_KEYS}
        return super().patch(binding_id, named, activation)


@broken("behavior-set-replaces", subject="hook-server", breaks=["HOOK-SERVER-BEHAVIOR-01"],
        also=["HOOK-SERVER-BEHAVIOR-03"], clause='阶段 19 "缺省(undefined)= 不动"')
class BehaviorSetReplaces(_SwappedBooks):
    """``behavior-set-replaces``: provider.behavior.set clears the overrides it does not name. Breaks 阶段 19
    "缺省(undefined)= 不动"."""

    BEHAVIOR = _ReplacingBehavior


class _DropsExplicitDefault(BehaviorBook):
    def _set(self, o: Overrides, key: str, value: str | None) -> None:
        if value == DEFAULT_TELEGRAM_BEHAVIOR[key]:
            value = None
        super()._set(o, key, value)


@broken("behavior-drops-explicit-default", subject="hook-server", breaks=["HOOK-SERVER-BEHAVIOR-02"],
        clause='阶段 19 "即使等于当前默认值也要保留用户意图"')
class BehaviorDropsExplicitDefault(_SwappedBooks):
    """``behavior-drops-explicit-default``: an explicit value equal to the default is dropped instead of kept as an
    override. Breaks 阶段 19 "即使等于当前默认值也要保留用户意图"."""

    BEHAVIOR = _DropsExplicitDefault


class _NullKeeps(BehaviorBook):
    def _set(self, o: Overrides, key: str, value: str | None) -> None:
        if value is not None:
            super()._set(o, key, value)


@broken("behavior-null-keeps-override", subject="hook-server", breaks=["HOOK-SERVER-BEHAVIOR-03"],
        clause='阶段 19 "显式 null = 清除 override、回落到 DEFAULT_TELEGRAM_BEHAVIOR"')
class BehaviorNullKeepsOverride(_SwappedBooks):
    """``behavior-null-keeps-override``: an explicit null keeps the override. Breaks 阶段 19 "显式 null = 清除 override、
    回落到 DEFAULT_TELEGRAM_BEHAVIOR"."""

    BEHAVIOR = _NullKeeps


class _NullClearsAllChats(BehaviorBook):
    def _activate(self, o: Overrides, chat_id: str, value: str | None) -> None:
        if value is None:
            o.group_activation.clear()
        else:
            super()._activate(o, chat_id, value)


@broken("group-activation-null-clears-all", subject="hook-server", breaks=["HOOK-SERVER-BEHAVIOR-04"],
        clause='阶段 19 "value=null 表示清除该群的白名单条目"')
class GroupActivationNullClearsAll(_SwappedBooks):
    """``group-activation-null-clears-all``: groupActivation {chatId, null} clears the whole map. Breaks 阶段 19
    "value=null 表示清除该群的白名单条目"."""

    BEHAVIOR = _NullClearsAllChats


@broken("behavior-any-binding-bound", subject="hook-server", breaks=["HOOK-SERVER-BEHAVIOR-05"],
        clause='阶段 19 "bound=false 时字段联动收敛为默认值 + 空 map"')
class BehaviorAnyBindingBound(HookServerMachine):
    """``behavior-any-binding-bound``: any bindingId counts as a bound Telegram binding of the device. Breaks 阶段 19
    "bound=false 时字段联动收敛为默认值 + 空 map"."""

    def _behavior_bound(self, device_id: str, binding_id: str) -> bool:
        return True


@broken("behavior-accepts-empty-set", subject="hook-server", breaks=["HOOK-SERVER-BEHAVIOR-06"],
        clause='阶段 19 "至少要有一个实际改动 … 空 set 被拒收"')
class BehaviorAcceptsEmptySet(_TakesRefused):
    """``behavior-accepts-empty-set``: an empty provider.behavior.set is accepted and answered. Breaks 阶段 19 "至少要有
    一个实际改动 … 空 set 被拒收"."""

    TAKEN = (MessageType.PROVIDER_BEHAVIOR_SET, IssueCode.EMPTY_PATCH)


@broken("behavior-not-durable", subject="hook-server", breaks=["HOOK-SERVER-BEHAVIOR-07"],
        clause='docs/control-api.md Durability')
class BehaviorNotDurable(_NotDurable):
    """``behavior-not-durable``: behaviour overrides are not written to the store. Breaks docs/control-api.md
    Durability."""

    TABLES = frozenset({"provider_behavior"})
