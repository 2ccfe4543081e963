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
    #: multi-team is on when the desktop declares it although the server's welcome lacks it (spec 阶段 13
    #: "任一侧缺席则整体回落单绑定行为"); caught by a run with no welcome features.
    MULTI_TEAM_WITHOUT_SERVER_FEATURE = "multi-team-without-server-feature"
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
    # part 2a, Slack binding, multi-team and Slack preferences (issue 14: a variant per requirement)
    #: bind.update pending names the team "" although none was pinned (阶段 5 "pending 期团队未知为 null").
    PENDING_TEAM_NOT_NULL = "pending-team-not-null"
    #: a confirmed sign-in leaves its pending authorization open (阶段 5 "绑定状态机推送:none / pending / confirmed …").
    CONFIRM_KEEPS_PENDING = "confirm-keeps-pending"
    #: a denied or expired sign-in is reported as failed (阶段 5 "绑定状态机推送:… denied / expired / failed …").
    DENY_EXPIRE_AS_FAILED = "deny-expire-as-failed"
    #: bind.update failed carries no message (阶段 5 "failed 时 message 非空").
    FAILED_WITHOUT_MESSAGE = "failed-without-message"
    #: bind.revoke without a team ends the pending sign-in only (阶段 5 "空/缺省 = 解绑本设备全部").
    REVOKE_ALL_KEEPS_BINDINGS = "revoke-all-keeps-bindings"
    #: bind.revoke {teamId} removes every binding of the device (阶段 5 "teamId 非空 = 只解绑该 team").
    REVOKE_TEAM_REMOVES_ALL = "revoke-team-removes-all"
    #: the Slack bindings and pending sign-ins are not restored after a restart (§1 "Slack 用户 ↔ 设备" 绑定).
    BINDINGS_NOT_DURABLE = "bindings-not-durable"
    #: a bind.revoke with an unknown key is applied without it instead of dropped (§2 "坏帧返回 ok:false").
    BAD_BIND_REVOKE_APPLIED = "bad-bind-revoke-applied"
    #: no bind.state after the welcome (阶段 5 bind.state "连接建立 … 后推送").
    BIND_STATE_NOT_AFTER_WELCOME = "bind-state-not-after-welcome"
    #: task.dispatch.source lacks the team's teamId and teamName (阶段 13 "task.dispatch.source(teamId + teamName)").
    SOURCE_WITHOUT_TEAM = "source-without-team"
    #: prefs.state answering prefs.get echoes the frame's id, not its requestId (阶段 11 "requestId 由 prefs.state.replyTo
    #: 回显配对").
    PREFS_GET_REPLY_TO_FRAME_ID = "prefs-get-reply-to-frame-id"
    #: the prefs.state pushed after a channel change carries a replyTo (阶段 11 "主动推送(渠道 /model 卡写入后)为 null").
    PREFS_PUSH_HAS_REPLY_TO = "prefs-push-has-reply-to"
    #: prefs.set ignores its teamId and patches the device's oldest binding (阶段 13 "prefs.set … 可选 teamId 扩展
    #: (多绑定下的归属消歧)").
    PREFS_SET_IGNORES_TEAM = "prefs-set-ignores-team"
    #: the Slack preferences are not restored after a restart (§1 "偏好 … server 侧目录偏好").
    PREFS_NOT_DURABLE = "prefs-not-durable"
    #: a prefs.set without workspace is applied to "chat" instead of dropped (§2 "坏帧返回 ok:false + 字段路径").
    PREFS_SET_WITHOUT_WORKSPACE_APPLIED = "prefs-set-without-workspace-applied"
    #: the lane's chosen workspace is dispatched although no hello registered it (§2 "server 只能派发 hello 注册过的别名").
    DISPATCHES_UNREGISTERED_WORKSPACE = "dispatches-unregistered-workspace"
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
    # part 2b, group relay and message operations: each a subclass of the machine (relay_variants.py)
    #: group.message drops the author's id and username (阶段 14 author{name,isBot?,id?,username?}; 阶段 19).
    RELAY_DROPS_AUTHOR_ID = "relay-drops-author-id"
    #: a desktop that declared group-relay-v1 alone is relayed to (阶段 14 "对已声明 group-relay-v1 与
    #: group-relay-recipient-v1 的成员桌面转发即弃").
    RELAY_WITHOUT_RECIPIENT_FEATURE = "relay-without-recipient-feature"
    #: the fan-out reuses the targets of the chat's first message (阶段 14 "recipient 必须来自发送当刻再次确认的 binding").
    RELAY_RECIPIENT_CACHED = "relay-recipient-cached"
    #: a message for an offline member desktop is kept and sent at its next hello (阶段 14 "桌面离线即丢").
    RELAY_QUEUES_OFFLINE = "relay-queues-offline"
    #: each relayed message is also kept as a channel message (阶段 14 "群聊内容不得驻留在 server(内存亦不允许)").
    RELAY_MIRRORS_GROUP_CHAT = "relay-mirrors-group-chat"
    #: the task of a message addressing the bot carries a fresh triggerMessageId (阶段 14 "与 group.message.messageId
    #: 同一 id 空间").
    MENTION_TRIGGER_FRESH_ID = "mention-trigger-fresh-id"
    #: a group text /start <token> is relayed like any other (阶段 14 "一次性凭证 … 由 server 过滤,不转发").
    RELAY_FORWARDS_START = "relay-forwards-start"
    #: msg.op send posts to the lane's chat outside its thread (UPSTREAM-FACTS "scoped by externalKey").
    MSG_OP_IGNORES_THREAD = "msg-op-ignores-thread"
    #: msg.op edit answers ok and keeps the old text (UPSTREAM-FACTS "send/edit/delete/react/typing/media").
    MSG_OP_EDIT_IGNORED = "msg-op-edit-ignored"
    #: a msg.op scope names any device's lane (UPSTREAM-FACTS "scoped by externalKey").
    MSG_OP_ANY_DEVICE_SCOPE = "msg-op-any-device-scope"
    #: msg.op is served although the desktop's hello lacks msg-op-v1 (§3 "新端在能力缺席时不会发送它们").
    MSG_OP_WITHOUT_DESKTOP_FEATURE = "msg-op-without-desktop-feature"
    #: a msg.op whose scope carries chatId is served instead of dropped (UPSTREAM-FACTS "msg.op scope (no
    #: chatId/threadId)"; §2 "坏帧返回 ok:false").
    LENIENT_MSG_OP = "lenient-msg-op"
    #: a group.message sent by a desktop is relayed to the chat's members (§3 "丢帧不断连"; 阶段 14 server → desktop).
    RELAYS_DESKTOP_GROUP_MESSAGE = "relays-desktop-group-message"
    # part 2b, queries, gateway tools, the rest of interactions, the default workspace (gateway_variants.py: each
    # wraps the machine; the correct machine's code paths know nothing of them)
    #: /bind asks for models (§1 "/bind /model /effort 指令实时拉取工作区 / 模型清单").
    BIND_ASKS_MODELS = "bind-asks-models"
    #: /effort is a task, not a query (§1 "/bind /model /effort 指令实时拉取工作区 / 模型清单").
    EFFORT_NOT_A_QUERY = "effort-not-a-query"
    #: an answer lands on the device's oldest pending query, whatever its queryId (阶段 6 "响应回传配对").
    QUERY_ANSWER_BY_ORDER = "query-answer-by-order"
    #: an unanswered query stays pending for ever (阶段 6 "server 自行超时").
    QUERY_NEVER_TIMES_OUT = "query-never-times-out"
    #: kind sessions is asked of a device that did not declare session-picker-v1 (§2 "hello 与 welcome 同时包含").
    SESSIONS_WITHOUT_FEATURE = "sessions-without-feature"
    #: an ok:false answer ends the query answered with an empty list (阶段 6 "ok=false 时 error 非空").
    FAILED_QUERY_ANSWERED = "failed-query-answered"
    #: a query.response the core refuses (21 sessions, a path, ok:false without error) is taken (阶段 6 "校验器拒绝").
    LENIENT_QUERY_RESPONSE = "lenient-query-response"
    #: every tool.request is answered twice (阶段 12 "replyTo 回显 requestId").
    TOOL_RESPONSE_TWICE = "tool-response-twice"
    #: an unknown tool is dropped unanswered (阶段 12 "未知值 server 回 UNKNOWN_TOOL 而非丢帧").
    UNKNOWN_TOOL_DROPPED = "unknown-tool-dropped"
    #: a failed Slack API call is answered with the provider's raw response ("provider 的原始响应正文不得上 wire").
    TOOL_ERROR_LEAKS_RAW = "tool-error-leaks-raw"
    #: a device without a Slack binding runs its tools as a guest identity (§1 "server 以绑定用户托管的 user token 执行").
    UNBOUND_TOOLS_RUN_AS_GUEST = "unbound-tools-run-as-guest"
    #: tool calls run as the device's oldest binding whatever teamId says (阶段 13 "tool.request … 可选 teamId").
    TOOLS_IGNORE_TEAM = "tools-ignore-team"
    #: a tool.request the core refuses (no requestId, empty tool, args not an object) is answered (§2 坏帧).
    LENIENT_TOOL_REQUEST = "lenient-tool-request"
    #: a card shows at most 20 buttons (阶段 10 "buttons(≤ MAX_INTERACTION_BUTTONS=24 …)").
    CARD_BUTTONS_CAPPED = "card-buttons-capped"
    #: an interaction.request the core refuses (25 buttons, duplicate ids, "|", none) is rendered (阶段 10).
    LENIENT_INTERACTION_REQUEST = "lenient-interaction-request"
    #: a hello whose defaultWorkspace is not one of its workspaces is taken (默认工作目录 "校验器据此拒收").
    HELLO_DEFAULT_UNCHECKED = "hello-default-unchecked"

    @classmethod
    def subject(cls) -> str:
        return "hook-server"
