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
    # Slack binding, multi-team and Slack preferences (a variant per requirement)
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
    # group relay and message operations: each a subclass of the machine (relay_variants.py)
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
    #: a chat's relayed texts are kept in memory and put before the prompt of a task triggered in that chat (阶段 14
    #: 设计边界 "群聊内容不得驻留在 server(内存亦不允许) … 上下文拼装全部在 desktop 本地完成").
    GROUP_CONTEXT_IN_PROMPT = "group-context-in-prompt"
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
    # queries, gateway tools, the rest of interactions, the default workspace (gateway_variants.py: each
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

    # the protocol core (core_variants.py: each wraps the machine; the correct machine's code paths know
    # nothing of them)
    #: every frame before hello is dropped, ping too. Breaks 阶段 1 "hello 建连后第一帧 … 收到 ping 必须回 pong" (before hello
    #: the server answers ping with pong).
    PING_BEFORE_HELLO_DROPPED = "ping-before-hello-dropped"
    #: at most one pong per heartbeat interval on a connection; a ping sooner is dropped. Breaks 阶段 1 "心跳,收到 ping
    #: 必须回 pong".
    PONG_THROTTLED = "pong-throttled"
    #: welcome lists the configured features but the last one (it is still negotiated). Breaks 阶段 1 welcome
    #: "features(server 侧能力标识 …)" (what the server is configured with).
    WELCOME_OMITS_FEATURE = "welcome-omits-feature"
    #: a hello after the first on a connection changes nothing. Breaks 阶段 1 "别名映射变更后 重发 hello 即时生效(server
    #: 以最新一帧为准)".
    RESENT_HELLO_IGNORED = "resent-hello-ignored"
    #: the lane's chosen alias is dispatched as it is, registered or not (a local path is still refused). Breaks §2
    #: "server 只能派发 hello 注册过的别名".
    LANE_ALIAS_UNCHECKED = "lane-alias-unchecked"
    #: hello.defaultWorkspace wins over the lane's own choice. Breaks 默认工作目录 "按 「本 lane 已定的目录 >
    #: hello.defaultWorkspace > chat」取值".
    DEFAULT_OVER_LANE_CHOICE = "default-over-lane-choice"
    #: without a lane choice nor a default the task goes to the hello's last alias. Breaks 阶段 1 hello
    #: defaultWorkspace "缺省 / null = 无默认 … 通常落 chat" (a @should).
    NO_CHAT_FALLBACK = "no-chat-fallback"
    #: a takeover's sessionId is not carried: every dispatch has sessionId null. Breaks §2 "sessionId … 非 null
    #: 表示接管已有桌面会话".
    TAKEOVER_SESSION_DROPPED = "takeover-session-dropped"
    #: a frame of an unknown type closes the connection (1003). Breaks §3 "老端收到未知 type 丢帧不断连".
    CLOSES_ON_UNKNOWN_TYPE = "closes-on-unknown-type"
    #: an invalid frame (parse ok:false) closes the connection (1007). Breaks §2 "坏帧返回 ok:false + 字段路径,绝不抛异常" (the
    #: frame is dropped, the connection kept).
    CLOSES_ON_INVALID_FRAME = "closes-on-invalid-frame"
    #: a frame over the limit closes the connection (1009). Breaks §3 "帧上限 HOOK_MAX_FRAME_CHARS … 纯防 OOM 的粗防御" (the
    #: frame is dropped, the connection kept).
    CLOSES_ON_OVERSIZED_FRAME = "closes-on-oversized-frame"
    #: task.dispatch.externalKey loses its "<providerId>:" prefix. Breaks §2 "externalKey … 由 hook server 的
    #: provider 生成(格式约定 <providerId>:...)".
    EXTERNAL_KEY_UNPREFIXED = "external-key-unprefixed"
    #: task.dispatch.source does not carry the user's original text. Breaks §5 task.dispatch "source(IM
    #: 来源元数据:平台、频道名、thread 上下文、用户原文)" (a @should).
    SOURCE_WITHOUT_USER_TEXT = "source-without-user-text"
    #: a queued ack is not recorded (the task stays un-acked). Breaks §5 task.ack "三态 accepted / queued /
    #: rejected".
    QUEUED_ACK_IGNORED = "queued-ack-ignored"
    #: the message of a queued task says "Queued" without its position. Breaks §5 task.ack "queuePosition 仅 queued
    #: 非 null" shown to the user (a @should).
    QUEUED_ACK_WITHOUT_POSITION = "queued-ack-without-position"
    #: a second task.ack for a requestId replaces the first. Breaks §4 "requestId 幂等:… desktop 只回放上次 ack" (a
    #: replayed ack changes nothing; a @should).
    SECOND_ACK_WINS = "second-ack-wins"
    #: at a reconnect every task of the device without a turn.end is dispatched again, acked or not. Breaks §4
    #: "断线重连:server 重投未 ack 的任务".
    ACKED_TASK_REDELIVERED = "acked-task-redelivered"
    #: a failed turn.end is published without its errorMessage (the final text alone). Breaks §5 turn.end
    #: "status:ok / error / cancelled(… error 时必须非空)" (the failed message shows the error).
    ERROR_MESSAGE_DROPPED = "error-message-dropped"
    #: the message shows the text of the latest turn.progress / turn.end of its task, also after the task ended.
    #: Breaks 阶段 18 "原 requestId 的 turn.end 仍是一次性的".
    LATE_FRAMES_APPLIED = "late-frames-applied"
    #: after accepted no further turn.delivery is sent (the result is published all the same). Breaks §5
    #: turn.delivery "delivered=渠道终态动作已完成".
    DELIVERED_NOT_REPORTED = "delivered-not-reported"
    #: a failed publish is retried without end: the delivery never ends failed. Breaks "failed 带安全 结构化 error 且
    #: retryAt=null … delivered / failed 是渠道侧终态".
    RETRIES_FOREVER = "retries-forever"
    #: a turn.end replayed for an ended task is dropped without an answer. Breaks "desktop 在 accepted 前可按同一
    #: requestId 重放完全相同的普通 turn.end,server 必须幂等并回放最新状态".
    REPLAY_UNANSWERED = "replay-unanswered"
    #: turn.delivery is on when the desktop declares it, whatever the welcome said. Breaks "双方必须在 hello.features /
    #: welcome.features 同时声明 … 后才启用"; caught by a run without welcome features.
    DELIVERY_WITHOUT_SERVER_FEATURE = "delivery-without-server-feature"
    #: a delivery receipt is never released. Breaks "需保留有界 TTL 的 delivery receipt" (a @should).
    RECEIPT_KEPT_FOREVER = "receipt-kept-forever"
    #: the accepted results are written but not read back at a restart (they live in memory only). Breaks "accepted
    #: … 是最终结果已进入 server 的持久交接/恢复边界;从这一刻起重试归 server".
    DELIVERIES_NOT_RESTORED = "deliveries-not-restored"
    #: a reopen round's turn.end is dropped (only tasks are finalized): the message stays in progress. Breaks 阶段 18
    #: "后续 progress 原地刷新、turn.end 定稿".
    REOPEN_END_IGNORED = "reopen-end-ignored"
    #: a reopen whose reopenOf is unknown posts a new message in the device's latest lane and routes the round
    #: there. Breaks 阶段 18 "认不出 reopenOf … 时静默忽略整条帧".
    UNKNOWN_REOPEN_POSTS_MESSAGE = "unknown-reopen-posts-message"
    #: turn.progress / turn.end of a requestId never registered post a new message in the device's latest lane.
    #: Breaks 阶段 18 "对从未登记过的 requestId 的 turn.progress / turn.end 一律静默忽略,不报错也不 新建消息".
    UNREGISTERED_POSTS_MESSAGE = "unregistered-posts-message"
    #: the same turn.reopen again registers the round anew (a new owner generation, the message rewritten). Breaks
    #: 阶段 18 "本帧必须幂等:同一 (requestId, reopenOf) 重复登记同一个位置,无副作用".
    REOPEN_AGAIN_REREGISTERS = "reopen-again-reregisters"
    #: /stop looks at the lane's tasks only, never at a reopened round. Breaks 阶段 18 "task.cancel 能精确命中续跑轮(它带的是新
    #: requestId)".
    STOP_IGNORES_REOPEN = "stop-ignores-reopen"
    #: an interaction.request of a reopen round is rendered on the reopened message. Breaks 阶段 18 "续跑 requestId 只承载
    #: turn.progress / turn.end / task.cancel,刻意不含 interaction.*".
    REOPEN_INTERACTION_RENDERED = "reopen-interaction-rendered"
    #: a reopen round's turn.end is answered with turn.delivery accepted and delivered, like a task's. Breaks §5
    #: turn.delivery "续跑轮不使用本帧".
    REOPEN_END_DELIVERED = "reopen-end-delivered"
    #: a dropped connection's reopened messages are left as they are. Breaks 阶段 18 "连接 断开时必须收口该连接上所有'已 reopen 但还没收到
    #: turn.end'的消息".
    NO_DISCONNECT_CLEANUP = "no-disconnect-cleanup"
    #: /stop cancels a task only while it waits for its ack; a running (accepted) task is not cancelled. Breaks §1
    #: "task.cancel —— /stop 中断在跑任务".
    STOP_SKIPS_ACCEPTED = "stop-skips-accepted"
    #: /stop cancels the lane's first task, ended or not. Breaks §1 "/stop 中断在跑任务" once an earlier task of the lane
    #: has ended.
    STOP_FIRST_TASK = "stop-first-task"
    #: /new archives the session but the lane keeps its externalKey. Breaks 阶段 8 "私聊 /new 换代后 归档旧代会话" (the next
    #: message starts a new generation).
    NEW_KEEPS_KEY = "new-keeps-key"
    #: a hello without lifecycleAnnouncement counts as false. Breaks §3 "缺省 hello.lifecycleAnnouncement 按 true 处理".
    LIFECYCLE_DEFAULT_OFF = "lifecycle-default-off"
    #: hello.lifecycleAnnouncement is ignored: notices are always on. Breaks §3 "server 先采用 hello 中的握手值".
    LIFECYCLE_HELLO_IGNORED = "lifecycle-hello-ignored"
    #: lifecycle.preference is dropped although both sides declared the feature. Breaks "声明 lifecycle-
    #: announcement-v1 后,desktop 才可用 lifecycle.preference 即时覆盖当前设备偏好".
    LIFECYCLE_PREFERENCE_IGNORED = "lifecycle-preference-ignored"
    #: lifecycle.preference is honoured whatever the welcome declared. Breaks "能力缺席时不发送,以握手兼容语义降级"; caught by a run
    #: without welcome features.
    LIFECYCLE_PREFERENCE_WITHOUT_FEATURE = "lifecycle-preference-without-feature"
    #: a turn.reopen is honoured whatever the welcome declared. Breaks §1 "能力协商靠 welcome.features 的
    #: HOOK_FEATURE_TURN_REOPEN" (a @should); caught by a run without welcome features.
    REOPEN_WITHOUT_FEATURE = "reopen-without-feature"
    #: the desktop's pong to the server's ping is not taken note of. Breaks 阶段 1 "ping / pong 双向" (a @may: the
    #: server that pings takes note of the pong).
    PONG_NOT_RECORDED = "pong-not-recorded"
    #: a press sends the button's label, not its id, as the buttonId. Breaks §2 "server 是'哑渲染 器'——渲染卡片、回传
    #: buttonId".
    DECISION_SENDS_LABEL = "decision-sends-label"
    #: interaction.cancel writes the reason but leaves the buttons pressable. Breaks 阶段 10 interaction.cancel "通知
    #: server 改写卡片(摘按钮 + reason 文案),防止用户按死卡片".
    CANCEL_KEEPS_BUTTONS = "cancel-keeps-buttons"
    # the robustness profile (robustness_variants.py)
    #: a frame the parser rejects resets the connection's tasks: a later turn.end of them is dropped. Breaks §2 "坏帧返回
    #: ok:false … 绝不抛异常" (a dropped frame changes nothing).
    GARBAGE_FORGETS_TASKS = "garbage-forgets-tasks"
    # the fault profile against a hook server (fault_variants.py)
    #: a turn.end resent on a new connection after a reconnect is published once more. Breaks §5 "desktop 在 accepted
    #: 前可按同一 requestId 重放完全相同的普通 turn.end,server 必须幂等并回放最新状态".
    RESENT_END_REPUBLISHED = "resent-end-republished"
    # the fault profile's SIGKILL/restart (fault_variants.py; server_variants.py for the shell)
    #: turn.delivery accepted goes out at once while the result's rows are committed a while later (in memory until
    #: then). Breaks "accepted … 是最终结果已进入 server 的持久交接/恢复边界" (a SIGKILL loses an accepted result).
    ACCEPTED_BEFORE_COMMIT = "accepted-before-commit"
    #: a restart forgets which results were published and posts every delivered one again. Breaks "server 必须幂等并
    #: 回放最新状态" (a result published twice).
    REPUBLISHES_AFTER_RESTART = "republishes-after-restart"
    # the WebSocket shell (server_variants.py: each subclasses the server)
    #: any bearer token is accepted, only its presence is checked (§7 "复用已鉴权的 WS 通道").
    ACCEPTS_ANY_TOKEN = "accepts-any-token"
    #: a refused connection gets a bare 401 without a body naming the token problem (§7; a @should).
    AUTH_REFUSAL_SILENT = "auth-refusal-silent"
    # the load profile (load_variants.py; load-only: LOAD_ONLY gives the reason)
    #: the 5th, 10th, … task is never dispatched although inject-message answered ok. Breaks §4 "server 重投未 ack 的任务"
    #: (a task is never lost).
    DROPS_EVERY_NTH_TASK = "drops-every-nth-task"
    #: the 5th, 10th, … accepted task is dispatched again after its ack. Breaks §4 "requestId 幂等:任务重投不重跑".
    REDISPATCHES_EVERY_NTH_TASK = "redispatches-every-nth-task"

    @classmethod
    def subject(cls) -> str:
        return "hook-server"
