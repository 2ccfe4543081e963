"""Deliberately broken behaviours of the reference hook server (docs/hook-server-plan.md "Broken variants").

Each variant flips exactly one rule of the correct server; the conformance features must catch every one of them
(``tests/hook_server/test_server_variants.py``). Selected with ``--variant NAME`` or the environment variable
``HOOK_SERVER_REFERENCE_VARIANT``; ``None`` (or "", "none", "correct") is the correct server.
"""

from __future__ import annotations

from typing import Final

from ..broken_variants import BrokenVariant

__all__ = ["Variant", "VARIANT_ENV"]

VARIANT_ENV: Final = "HOOK_SERVER_REFERENCE_VARIANT"


class Variant(BrokenVariant):
    #: the disconnect clean-up writes without the ownership check (spec 阶段 18 "收口必须在真正落笔时校验所有权").
    CLEANUP_IGNORES_OWNER = "cleanup-ignores-owner"
    #: a reopen with an already-bound requestId re-routes it (spec 阶段 18 "不得覆盖已有路由").
    REOPEN_OVERWRITES_ROUTE = "reopen-overwrites-route"
    #: a refused reopen's later frames land on the old route or task (spec 阶段 18 "要把该 requestId 隔离掉").
    NO_ISOLATION = "no-isolation"
    #: turn.progress is appended instead of replacing (spec §4 latest-wins "不拼接不累积").
    PROGRESS_APPENDS = "progress-appends"
    #: turn.delivery is sent without the desktop's turn-delivery-v1 (spec "turn.delivery 可靠性与兼容").
    DELIVERY_WITHOUT_FEATURE = "delivery-without-feature"
    #: redelivery of an un-acked task uses a fresh requestId (spec §4 "requestId 幂等").
    REDELIVERY_NEW_ID = "redelivery-new-id"
    #: the retrying error carries the provider's raw response (spec "provider 的原始响应正文不得上 wire").
    LEAKS_PROVIDER_ERROR = "leaks-provider-error"
    #: prefs.set clears the keys it does not name (spec 阶段 11 "部分更新 ... undefined 不动").
    PREFS_SET_REPLACES = "prefs-set-replaces"
    #: no bind.state after a change of the device's bindings (spec 阶段 5 bind.state "任何绑定变化 ... 后推送").
    BIND_STATE_MISSING = "bind-state-missing"
    #: bind.revoke {pendingOnly: true} removes the confirmed bindings too (spec 阶段 5 "不动已确认绑定").
    REVOKE_PENDING_DROPS_BINDINGS = "revoke-pending-drops-bindings"
    #: multi-team is on although the desktop's hello lacks it (spec 阶段 13 "任一侧缺席则整体回落单绑定行为").
    MULTI_TEAM_WITHOUT_DESKTOP_FEATURE = "multi-team-without-desktop-feature"
    #: prefs.state with bound=false lists rows anyway (spec 阶段 11 "bound=false 时 prefs 恒空数组").
    PREFS_UNBOUND_LEAKS = "prefs-unbound-leaks"
    #: provider.bind.cancel ends every open attempt of the device (spec "只取消指定 attemptId").
    CANCEL_CANCELS_ALL = "cancel-cancels-all"
    #: the one-time token shows up again after its pending update (阶段 14 "一次性凭证由 server 过滤,不转发").
    TOKEN_ECHOED = "token-echoed"
    #: /start <token> also becomes a task.dispatch (阶段 14 "一次性凭证 … 不转发").
    START_TOKEN_DISPATCHED = "start-token-dispatched"
    #: provider.behavior.set drops an explicit value equal to the default (阶段 19 "即使等于当前默认值也要保留用户意图").
    BEHAVIOR_DROPS_EXPLICIT_DEFAULT = "behavior-drops-explicit-default"
    #: provider frames are handled and sent without the feature in hello (§2 "provider 能力必须双向协商").
    PROVIDER_FRAMES_WITHOUT_FEATURE = "provider-frames-without-feature"
    #: the Telegram connect URL carries an extra parameter (§5 "严格的 https://t.me/<bot>?start=<token>").
    TELEGRAM_URL_LOOSE = "telegram-url-loose"
    #: provider.prefs.set also patches the device's Slack rows (§2 "不会读取或覆写旧 prefs.* 的 Slack 行").
    PROVIDER_PREFS_SHARE_SLACK_ROWS = "provider-prefs-share-slack-rows"
    #: the pending connect URL carries the attemptId, not the one-time token (§5 "pending 必带 HTTPS connectUrl").
    CONNECT_URL_WITHOUT_TOKEN = "connect-url-without-token"
    #: /start <token> confirms with the user as scopeId, not the chat (§5 "confirmed 必带 bindingId、principalId、scopeId").
    START_SCOPE_IS_USER = "start-scope-is-user"
    #: an attempt awaiting confirmation counts as ended, its confirmation is refused
    #: (§5 "状态:none → pending → awaiting_confirmation? → confirmed").
    AWAITING_ENDS_ATTEMPT = "awaiting-ends-attempt"
    #: a denied / failed / expired attempt's token still binds (§5 "denied/expired/failed 必带机器可读 reason 并清空").
    ENDED_TOKEN_BINDS = "ended-token-binds"
    #: provider.bind.revoke ends every binding of the device (§5 "只解除指定 bindingId").
    REVOKE_REVOKES_ALL = "revoke-revokes-all"
    #: a new confirmation for a scope the device holds keeps the older binding (§5 终态 "superseded").
    NO_SUPERSEDE = "no-supersede"
    #: provider.bind.revoke of another device's binding revokes it (§5 "只解除指定 bindingId"; §3 丢帧不断连).
    REVOKE_IGNORES_OWNER = "revoke-ignores-owner"
    #: provider bindings and attempts are not written to the store (docs/control-api.md Durability).
    PROVIDER_BINDINGS_NOT_DURABLE = "provider-bindings-not-durable"
    #: provider.prefs.set clears the keys it does not name (§5 "set 再按 workspace alias 部分更新").
    PROVIDER_PREFS_SET_REPLACES = "provider-prefs-set-replaces"
    #: a provider.prefs selector no binding of the device matches counts as bound (§5 "bound=false 时 prefs 必为空").
    PROVIDER_PREFS_ANY_SELECTOR_BOUND = "provider-prefs-any-selector-bound"
    #: provider.prefs.set with an absolute-path workspace is accepted (§5 "校验器拒绝绝对路径").
    PROVIDER_PREFS_ACCEPTS_ABSOLUTE_PATH = "provider-prefs-accepts-absolute-path"
    #: a provider prefs change made in the channel is not pushed (§3 latest-wins "prefs.state 主动推送").
    PROVIDER_PREFS_NOT_PUSHED = "provider-prefs-not-pushed"
    #: provider preference rows are not written to the store (docs/control-api.md Durability).
    PROVIDER_PREFS_NOT_DURABLE = "provider-prefs-not-durable"
    #: provider.behavior.set clears the overrides it does not name (阶段 19 "缺省(undefined)= 不动").
    BEHAVIOR_SET_REPLACES = "behavior-set-replaces"
    #: an explicit null keeps the override (阶段 19 "显式 null = 清除 override、回落到 DEFAULT_TELEGRAM_BEHAVIOR").
    BEHAVIOR_NULL_KEEPS_OVERRIDE = "behavior-null-keeps-override"
    #: groupActivation {chatId, null} clears the whole map (阶段 19 "value=null 表示清除该群的白名单条目").
    GROUP_ACTIVATION_NULL_CLEARS_ALL = "group-activation-null-clears-all"
    #: any bindingId counts as a bound Telegram binding (阶段 19 "bound=false 时字段联动收敛为默认值 + 空 map").
    BEHAVIOR_ANY_BINDING_BOUND = "behavior-any-binding-bound"
    #: an empty provider.behavior.set is accepted (阶段 19 "至少要有一个实际改动 … 空 set 被拒收").
    BEHAVIOR_ACCEPTS_EMPTY_SET = "behavior-accepts-empty-set"
    #: behaviour overrides are not written to the store (docs/control-api.md Durability).
    BEHAVIOR_NOT_DURABLE = "behavior-not-durable"

    @classmethod
    def subject(cls) -> str:
        return "hook-server"
