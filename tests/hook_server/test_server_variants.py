"""The hook-server conformance features judge real servers: the reference hook server, started as a separate
process, passes every requirement, and each deliberately broken variant of it is caught by the requirement it
breaks.

Each case starts ``python -m simulator serve hook-server --listen 127.0.0.1:0 --control 127.0.0.1:0 --token T
[--variant NAME]`` (readiness: one JSON line ``{"ready": true, "url", "control"}`` on stdout), then runs the features
(``features/hook/test_hook_server.py``, i.e. ``features/hook/server/*.feature``) in a subprocess against it, the way
an implementer runs the harness in CI: ``--target hook-server=ws://… --control hook-server=http://… --hook-token T``,
and reads the verdicts from the run's ``report.json``. A variant run selects only the requirements that concern it
(``--req``), so the module stays short. The runs are independent processes, started together when the first case
needs them.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from conformance_runs import (
    PYTHON, Run, RunPool, assert_all_pass, assert_caught, assert_judges_every_requirement, child_env, run_features,
    serving,
)
from wire_types_plugin import assert_every_type_travelled, assert_no_leaks


FEATURES = "features/hook/test_hook_server.py"
VARIANT_ENV = "HOOK_SERVER_REFERENCE_VARIANT"
#: The message-type counts of the external run (tests/wire_types_plugin.py), in its working directory.
WIRE_TYPES = "wire-types.json"

#: Broken variant → (the requirement ids that must catch it with a fail verdict, the ids that may fail with them
#: because the one broken switch shows there too). Only these ids are run; nothing else among them may fail.
VARIANTS: dict[str, tuple[set[str], set[str]]] = {
    # the disconnect clean-up writes without the ownership check.
    "cleanup-ignores-owner": ({"HOOK-SERVER-CLEANUP-02"}, set()),
    # a reopen with an already-bound requestId re-routes it.
    "reopen-overwrites-route": ({"HOOK-SERVER-REOPEN-REFUSE-01"}, set()),
    # a refused reopen's later frames land on the old route or task.
    "no-isolation": ({"HOOK-SERVER-REOPEN-REFUSE-01"}, set()),
    # turn.progress is appended instead of replacing.
    "progress-appends": ({"HOOK-SERVER-PROGRESS-01"}, {"HOOK-SERVER-REOPEN-ROUTE-01"}),
    # turn.delivery is sent to a desktop that did not declare turn-delivery-v1.
    "delivery-without-feature": ({"HOOK-SERVER-DELIVERY-05"}, set()),
    # an un-acked task is redelivered with a fresh requestId.
    "redelivery-new-id": ({"HOOK-SERVER-REDELIVER-01", "HOOK-SERVER-DURABLE-02"}, {"HOOK-SERVER-HELLO-FIRST-01"}),
    # the retrying error carries the provider's raw response.
    "leaks-provider-error": ({"HOOK-SERVER-DELIVERY-02", "HOOK-SERVER-NO-RAW-ERROR-01"}, {"HOOK-SERVER-DELIVERY-03"}),
    # Slack binding and preferences (hook-server-binding.toml):
    # prefs.set clears the keys it does not name.
    "prefs-set-replaces": ({"HOOK-SERVER-PREFS-PATCH-01"}, set()),
    # no bind.state after a change of the device's bindings (a multi-team sign-in waits for it, hence the others).
    "bind-state-missing": ({"HOOK-SERVER-MULTITEAM-STATE-02"},
                           {"HOOK-SERVER-MULTITEAM-STATE-01", "HOOK-SERVER-MULTITEAM-TEAMS-01",
                            "HOOK-SERVER-MULTITEAM-SOURCE-01", "HOOK-SERVER-PREFS-TEAM-01"}),
    # bind.revoke {pendingOnly: true} removes the confirmed bindings too.
    "revoke-pending-drops-bindings": ({"HOOK-SERVER-BIND-REVOKE-02"}, set()),
    # two bindings kept (and bind.state sent) although the desktop's hello lacks multi-team.
    "multi-team-without-desktop-feature": ({"HOOK-SERVER-MULTITEAM-FALLBACK-01"}, set()),
    # prefs.state with bound=false lists rows anyway.
    "prefs-unbound-leaks": ({"HOOK-SERVER-PREFS-UNBOUND-01"}, set()),
    # provider families: provider.bind.cancel ends every open attempt of the device.
    "cancel-cancels-all": ({"HOOK-SERVER-PROVIDER-BIND-06"}, set()),
    # the one-time token comes back in the confirmation (and every later state) as scopeName.
    "token-echoed": ({"HOOK-SERVER-TOKEN-01"}, set()),
    # /start <token> also becomes a task (its dispatch carries the token).
    "start-token-dispatched": ({"HOOK-SERVER-TOKEN-02"}, {"HOOK-SERVER-TOKEN-01"}),
    # an explicit behaviour value equal to the default is dropped instead of kept as an override.
    "behavior-drops-explicit-default": ({"HOOK-SERVER-BEHAVIOR-02"}, set()),
    # provider frames are handled and sent without the family in hello.
    "provider-frames-without-feature": ({"HOOK-SERVER-PROVIDER-BIND-09", "HOOK-SERVER-BEHAVIOR-08"}, set()),
    # the Telegram connect URL carries an extra parameter.
    "telegram-url-loose": ({"HOOK-SERVER-PROVIDER-BIND-02"}, set()),
    # provider.prefs.set also overwrites the device's Slack rows of that workspace.
    "provider-prefs-share-slack-rows": ({"HOOK-SERVER-PROVIDER-PREFS-03"}, set()),
    # a variant per Slack binding / multi-team / Slack prefs requirement:
    # bind.update pending names the team "" although none was pinned (every scenario checking the pending update).
    "pending-team-not-null": ({"HOOK-SERVER-BIND-PENDING-01"},
                              {"HOOK-SERVER-BIND-CONFIRM-01", "HOOK-SERVER-BIND-OUTCOME-01",
                               "HOOK-SERVER-BIND-FAILED-01", "HOOK-SERVER-BIND-REVOKE-02",
                               "HOOK-SERVER-BIND-DURABLE-01"}),
    # a confirmed sign-in leaves its pending authorization open.
    "confirm-keeps-pending": ({"HOOK-SERVER-BIND-CONFIRM-01"}, set()),
    # a denied or expired sign-in is reported as failed.
    "deny-expire-as-failed": ({"HOOK-SERVER-BIND-OUTCOME-01"}, set()),
    # bind.update failed carries no message.
    "failed-without-message": ({"HOOK-SERVER-BIND-FAILED-01"}, set()),
    # bind.revoke without a team ends the pending sign-in only (a revoked device then still has its preferences).
    "revoke-all-keeps-bindings": ({"HOOK-SERVER-BIND-REVOKE-01"}, {"HOOK-SERVER-PREFS-UNBOUND-01"}),
    # bind.revoke {teamId} removes every binding of the device (the bind.state after it too).
    "revoke-team-removes-all": ({"HOOK-SERVER-MULTITEAM-TEAMS-01"}, {"HOOK-SERVER-MULTITEAM-STATE-02"}),
    # the Slack bindings and pending sign-ins are not restored after a restart (the preferences of a binding neither).
    "bindings-not-durable": ({"HOOK-SERVER-BIND-DURABLE-01"}, {"HOOK-SERVER-PREFS-DURABLE-01"}),
    # a bind.revoke with an unknown key is applied without it instead of dropped.
    "bad-bind-revoke-applied": ({"HOOK-SERVER-BIND-BADFRAME-01"}, set()),
    # no bind.state after the welcome.
    "bind-state-not-after-welcome": ({"HOOK-SERVER-MULTITEAM-STATE-01"}, set()),
    # task.dispatch.source lacks the team's teamId and teamName.
    "source-without-team": ({"HOOK-SERVER-MULTITEAM-SOURCE-01"}, set()),
    # prefs.state answering prefs.get echoes the frame's id instead of its requestId (every scenario asking).
    "prefs-get-reply-to-frame-id": ({"HOOK-SERVER-PREFS-GET-01"},
                                    {"HOOK-SERVER-PREFS-UNBOUND-01", "HOOK-SERVER-PREFS-DURABLE-01",
                                     "HOOK-SERVER-PREFS-BADFRAME-01"}),
    # the prefs.state pushed after a channel change carries a replyTo.
    "prefs-push-has-reply-to": ({"HOOK-SERVER-PREFS-PUSH-01"}, set()),
    # prefs.set ignores its teamId and patches the device's oldest binding.
    "prefs-set-ignores-team": ({"HOOK-SERVER-PREFS-TEAM-01"}, set()),
    # the Slack preferences are not restored after a restart.
    "prefs-not-durable": ({"HOOK-SERVER-PREFS-DURABLE-01"}, set()),
    # a prefs.set without workspace is applied to "chat" instead of dropped.
    "prefs-set-without-workspace-applied": ({"HOOK-SERVER-PREFS-BADFRAME-01"}, set()),
    # the lane's chosen workspace is dispatched although no hello registered it (the alias rules show it too).
    "dispatches-unregistered-workspace": ({"HOOK-SERVER-NO-LOCAL-PATH-01"},
                                          {"HOOK-SERVER-ALIAS-01", "HOOK-SERVER-HELLO-RESEND-01"}),
    # a variant per provider binding / provider prefs / behaviour requirement:
    # the pending connect URL carries the attemptId instead of the one-time token.
    "connect-url-without-token": ({"HOOK-SERVER-PROVIDER-BIND-01"},
                                  {"HOOK-SERVER-PROVIDER-BIND-02", "HOOK-SERVER-TOKEN-01"}),
    # /start <token> confirms with the user as scopeId, not the chat (every scenario confirming in a chat shows it).
    "start-scope-is-user": ({"HOOK-SERVER-PROVIDER-BIND-03"},
                            {"HOOK-SERVER-PROVIDER-BIND-06", "HOOK-SERVER-PROVIDER-BIND-07",
                             "HOOK-SERVER-PROVIDER-BIND-08", "HOOK-SERVER-PROVIDER-BIND-09",
                             "HOOK-SERVER-PROVIDER-BIND-11", "HOOK-SERVER-PROVIDER-BIND-12", "HOOK-SERVER-TOKEN-01"}),
    # an attempt awaiting confirmation counts as ended: the provider's confirmation after it is refused.
    "awaiting-ends-attempt": ({"HOOK-SERVER-PROVIDER-BIND-04"}, set()),
    # a denied / failed / expired attempt's token still binds.
    "ended-token-binds": ({"HOOK-SERVER-PROVIDER-BIND-05"}, set()),
    # provider.bind.revoke ends every binding of the device.
    "revoke-revokes-all": ({"HOOK-SERVER-PROVIDER-BIND-07"}, set()),
    # a new confirmation for a scope the device holds keeps the older binding (a @should: run strict).
    "no-supersede": ({"HOOK-SERVER-PROVIDER-BIND-08"}, set()),
    # provider.bind.revoke of another device's binding revokes it.
    "revoke-ignores-owner": ({"HOOK-SERVER-PROVIDER-BIND-11"}, set()),
    # provider bindings and attempts are not written to the store (the rows restored after a restart need them).
    "provider-bindings-not-durable": ({"HOOK-SERVER-PROVIDER-BIND-12"},
                                      {"HOOK-SERVER-PROVIDER-PREFS-06", "HOOK-SERVER-BEHAVIOR-07"}),
    # provider.prefs.set clears the keys it does not name.
    "provider-prefs-set-replaces": ({"HOOK-SERVER-PROVIDER-PREFS-01"}, set()),
    # a provider.prefs selector no binding of the device matches counts as bound.
    "provider-prefs-any-selector-bound": ({"HOOK-SERVER-PROVIDER-PREFS-02"}, set()),
    # provider.prefs.set with an absolute-path workspace is accepted and stored.
    "provider-prefs-accepts-absolute-path": ({"HOOK-SERVER-PROVIDER-PREFS-04"}, set()),
    # a provider prefs change made in the channel is not pushed to the bound device (a @should: run strict).
    "provider-prefs-not-pushed": ({"HOOK-SERVER-PROVIDER-PREFS-05"}, set()),
    # provider preference rows are not written to the store.
    "provider-prefs-not-durable": ({"HOOK-SERVER-PROVIDER-PREFS-06"}, set()),
    # provider.behavior.set clears the overrides it does not name (a null set then also loses the other keys).
    "behavior-set-replaces": ({"HOOK-SERVER-BEHAVIOR-01"}, {"HOOK-SERVER-BEHAVIOR-03"}),
    # an explicit null keeps the override.
    "behavior-null-keeps-override": ({"HOOK-SERVER-BEHAVIOR-03"}, set()),
    # groupActivation {chatId, null} clears the whole map.
    "group-activation-null-clears-all": ({"HOOK-SERVER-BEHAVIOR-04"}, set()),
    # any bindingId counts as a bound Telegram binding of the device.
    "behavior-any-binding-bound": ({"HOOK-SERVER-BEHAVIOR-05"}, set()),
    # an empty provider.behavior.set is accepted and answered.
    "behavior-accepts-empty-set": ({"HOOK-SERVER-BEHAVIOR-06"}, set()),
    # behaviour overrides are not written to the store.
    "behavior-not-durable": ({"HOOK-SERVER-BEHAVIOR-07"}, set()),
    # group relay and message operations (hook-server-relay.toml; relay_variants.py), each caught by its
    # requirement and by no other of that registry:
    # group.message.author loses its id and username.
    "relay-drops-author-id": ({"HOOK-SERVER-GROUP-01"}, set()),
    # a desktop that declared group-relay-v1 alone is relayed to.
    "relay-without-recipient-feature": ({"HOOK-SERVER-GROUP-02"}, set()),
    # the targets (and recipients) of a chat's first relayed message are reused after the bindings changed.
    "relay-recipient-cached": ({"HOOK-SERVER-GROUP-03"}, set()),
    # a message for an offline member desktop is kept and sent at its next hello.
    "relay-queues-offline": ({"HOOK-SERVER-GROUP-04"}, set()),
    # the chat's relayed texts kept in memory and put before the prompt of a task triggered there.
    "group-context-in-prompt": ({"HOOK-SERVER-GROUP-08"}, set()),
    # every relayed message is also kept as a channel message (list-messages shows its content).
    "relay-mirrors-group-chat": ({"HOOK-SERVER-GROUP-05"}, set()),
    # the task of a message addressing the bot carries a fresh triggerMessageId.
    "mention-trigger-fresh-id": ({"HOOK-SERVER-GROUP-06"}, set()),
    # a group text /start <token> is relayed.
    "relay-forwards-start": ({"HOOK-SERVER-GROUP-07"}, set()),
    # msg.op send posts to the lane's chat outside its thread.
    "msg-op-ignores-thread": ({"HOOK-SERVER-MSGOP-01"}, set()),
    # msg.op edit is answered ok and keeps the text.
    "msg-op-edit-ignored": ({"HOOK-SERVER-MSGOP-02"}, set()),
    # a msg.op scope names the lane of another device's task.
    "msg-op-any-device-scope": ({"HOOK-SERVER-MSGOP-03"}, set()),
    # msg.op served although the desktop's hello lacks msg-op-v1.
    "msg-op-without-desktop-feature": ({"HOOK-SERVER-MSGOP-04"}, set()),
    # a msg.op whose scope carries chatId is served.
    "lenient-msg-op": ({"HOOK-SERVER-MSGOP-05"}, set()),
    # a group.message sent by a desktop is relayed to the chat's members.
    "relays-desktop-group-message": ({"HOOK-SERVER-RELAY-UNHANDLED-01"}, set()),
    # queries, gateway tools, the rest of interactions, the default workspace (hook-server-gateway.toml):
    # /bind asks for models.
    "bind-asks-models": ({"HOOK-SERVER-QUERY-01"}, set()),
    # /effort is taken as a task.
    "effort-not-a-query": ({"HOOK-SERVER-QUERY-02"}, set()),
    # an answer ends the device's oldest pending query, whatever its queryId.
    "query-answer-by-order": ({"HOOK-SERVER-QUERY-03"}, set()),
    # no timeout ends a query.
    "query-never-times-out": ({"HOOK-SERVER-QUERY-04"}, set()),
    # /session asks a device that did not declare session-picker-v1.
    "sessions-without-feature": ({"HOOK-SERVER-QUERY-05"}, set()),
    # an ok:false answer ends the query answered.
    "failed-query-answered": ({"HOOK-SERVER-QUERY-06"}, set()),
    # a query.response the core refuses is taken.
    "lenient-query-response": ({"HOOK-SERVER-QUERY-07"}, set()),
    # every tool.request is answered twice.
    "tool-response-twice": ({"HOOK-SERVER-TOOL-01"}, set()),
    # an unknown tool is dropped unanswered.
    "unknown-tool-dropped": ({"HOOK-SERVER-TOOL-02"}, set()),
    # a failed Slack API call is answered with the provider's raw response.
    "tool-error-leaks-raw": ({"HOOK-SERVER-TOOL-03", "HOOK-SERVER-NO-RAW-ERROR-01"}, set()),
    # a device without a Slack binding runs its tools as a guest identity.
    "unbound-tools-run-as-guest": ({"HOOK-SERVER-TOOL-04"}, set()),
    # a tool.request the core refuses is answered.
    "lenient-tool-request": ({"HOOK-SERVER-TOOL-05"}, set()),
    # tool calls run as the device's oldest binding whatever the teamId.
    "tools-ignore-team": ({"HOOK-SERVER-TOOL-06"}, set()),
    # a card keeps at most 20 buttons.
    "card-buttons-capped": ({"HOOK-SERVER-INTERACTION-03"}, set()),
    # an interaction.request the core refuses is rendered.
    "lenient-interaction-request": ({"HOOK-SERVER-INTERACTION-04"}, set()),
    # a hello whose defaultWorkspace is not one of its workspaces is taken.
    "hello-default-unchecked": ({"HOOK-SERVER-DEFAULT-MEMBER-01"}, set()),
    # the protocol core (hook-server.toml; core_variants.py and server_variants.py), each caught by its
    # requirement:
    # a ping before hello is dropped like every other frame before it.
    "ping-before-hello-dropped": ({"HOOK-SERVER-HELLO-FIRST-01"}, set()),
    # welcome lists the configured features but the last one.
    "welcome-omits-feature": ({"HOOK-SERVER-WELCOME-01"}, set()),
    # a re-sent hello changes nothing.
    "resent-hello-ignored": ({"HOOK-SERVER-HELLO-RESEND-01"}, set()),
    # the lane's chosen alias is dispatched, registered or not (a dropped alias too, hence HELLO-RESEND-01).
    "lane-alias-unchecked": ({"HOOK-SERVER-ALIAS-01"}, {"HOOK-SERVER-HELLO-RESEND-01"}),
    # hello.defaultWorkspace wins over the lane's own choice.
    "default-over-lane-choice": ({"HOOK-SERVER-WORKSPACE-01"}, set()),
    # without a lane choice nor a default, the hello's last alias instead of chat (a @should: run strict).
    "no-chat-fallback": ({"HOOK-SERVER-WORKSPACE-02"}, set()),
    # a takeover's sessionId is not carried.
    "takeover-session-dropped": ({"HOOK-SERVER-SESSION-01"}, set()),
    # one pong per 30 s on a connection.
    "pong-throttled": ({"HOOK-SERVER-PING-01"}, set()),
    # the server's own ping is sent but the desktop's pong not taken note of (a @may: run strict).
    "pong-not-recorded": ({"HOOK-SERVER-PING-02"}, set()),
    # the bearer token is required but never compared.
    "accepts-any-token": ({"HOOK-SERVER-AUTH-01"}, set()),
    # a refused upgrade is a bare 401 (a @should: run strict).
    "auth-refusal-silent": ({"HOOK-SERVER-AUTH-02"}, set()),
    # an unknown type, an invalid frame, an oversized frame closes the connection.
    "closes-on-unknown-type": ({"HOOK-SERVER-BADFRAME-01"}, set()),
    "closes-on-invalid-frame": ({"HOOK-SERVER-BADFRAME-02"}, set()),
    "closes-on-oversized-frame": ({"HOOK-SERVER-FRAMESIZE-01"}, set()),
    # task.dispatch.externalKey without its "<providerId>:" prefix.
    "external-key-unprefixed": ({"HOOK-SERVER-DISPATCH-01"}, set()),
    # task.dispatch.source without the user's text (a @should: run strict).
    "source-without-user-text": ({"HOOK-SERVER-DISPATCH-02"}, set()),
    # a queued ack is not recorded.
    "queued-ack-ignored": ({"HOOK-SERVER-ACK-01"}, set()),
    # the message of a queued task does not show its position (a @should: run strict).
    "queued-ack-without-position": ({"HOOK-SERVER-ACK-02"}, set()),
    # a second ack replaces the first (a @should: run strict).
    "second-ack-wins": ({"HOOK-SERVER-ACK-03"}, set()),
    # an acked task without turn.end is dispatched again at a reconnect.
    "acked-task-redelivered": ({"HOOK-SERVER-REDELIVER-02"}, set()),
    # a failed turn.end is published without its errorMessage.
    "error-message-dropped": ({"HOOK-SERVER-END-01"}, set()),
    # a turn.progress or a different turn.end after the end rewrites the message.
    "late-frames-applied": ({"HOOK-SERVER-END-02"}, set()),
    # no turn.delivery after accepted.
    "delivered-not-reported": ({"HOOK-SERVER-DELIVERY-01"}, set()),
    # a failed publish is retried without end.
    "retries-forever": ({"HOOK-SERVER-DELIVERY-03"}, set()),
    # a replayed turn.end is dropped unanswered.
    "replay-unanswered": ({"HOOK-SERVER-DELIVERY-04"}, set()),
    # a delivery receipt is never released (a @should: run strict).
    "receipt-kept-forever": ({"HOOK-SERVER-RECEIPT-01"}, set()),
    # the accepted results are not read back at a restart.
    "deliveries-not-restored": ({"HOOK-SERVER-DURABLE-01"}, set()),
    # a reopen round's turn.end is dropped.
    "reopen-end-ignored": ({"HOOK-SERVER-REOPEN-ROUTE-01"}, set()),
    # a reopen of an unknown reopenOf posts a new message.
    "unknown-reopen-posts-message": ({"HOOK-SERVER-REOPEN-UNKNOWN-01"}, set()),
    # frames of a requestId never registered post a new message.
    "unregistered-posts-message": ({"HOOK-SERVER-REOPEN-UNREG-01"}, set()),
    # the same reopen again registers the round anew.
    "reopen-again-reregisters": ({"HOOK-SERVER-REOPEN-IDEMPOTENT-01"}, set()),
    # /stop never reaches a reopened round.
    "stop-ignores-reopen": ({"HOOK-SERVER-REOPEN-STOP-01"}, set()),
    # an interaction.request of a reopen round is rendered.
    "reopen-interaction-rendered": ({"HOOK-SERVER-REOPEN-INTERACTION-01"}, set()),
    # a reopen round's turn.end gets turn.delivery.
    "reopen-end-delivered": ({"HOOK-SERVER-REOPEN-NODELIVERY-01"}, set()),
    # a dropped connection's reopened messages stay in progress.
    "no-disconnect-cleanup": ({"HOOK-SERVER-CLEANUP-01"}, set()),
    # /stop does not cancel an accepted (running) task.
    "stop-skips-accepted": ({"HOOK-SERVER-STOP-01"}, set()),
    # /stop cancels the lane's first task, ended or not.
    "stop-first-task": ({"HOOK-SERVER-STOP-02"}, set()),
    # /new keeps the lane's externalKey.
    "new-keeps-key": ({"HOOK-SERVER-NEW-01"}, set()),
    # a hello without lifecycleAnnouncement counts as false.
    "lifecycle-default-off": ({"HOOK-SERVER-LIFECYCLE-01"}, set()),
    # hello.lifecycleAnnouncement false is ignored.
    "lifecycle-hello-ignored": ({"HOOK-SERVER-LIFECYCLE-02"}, set()),
    # lifecycle.preference is dropped.
    "lifecycle-preference-ignored": ({"HOOK-SERVER-LIFECYCLE-03"}, set()),
    # a press sends the button's label as its buttonId.
    "decision-sends-label": ({"HOOK-SERVER-INTERACTION-01"}, set()),
    # interaction.cancel leaves the buttons.
    "cancel-keeps-buttons": ({"HOOK-SERVER-INTERACTION-02"}, set()),
}

#: Variants caught by a @should (or @may) requirement: their runs use ``--strict-conformance`` (a @should or @may not
#: met is then a fail verdict, not a warning). A bare variant (``BARE_VARIANTS``) listed here runs strict too.
STRICT_VARIANTS = {"bindings-not-durable", "source-without-team", "prefs-set-ignores-team", "prefs-not-durable",
                   "no-supersede", "provider-prefs-not-pushed", "no-chat-fallback", "pong-not-recorded",
                   "auth-refusal-silent", "source-without-user-text", "queued-ack-without-position", "second-ack-wins",
                   "receipt-kept-forever", "reopen-without-feature"}

#: Requirements about a server configured without a welcome feature: not applicable to the reference's default
#: features (turn-delivery-v1, turn-reopen-v1, lifecycle-announcement-v1, multi-team), judged by a run of a reference
#: with no welcome features (``--features ''``) instead.
WITHOUT_FEATURES = {"HOOK-SERVER-LIFECYCLE-04", "HOOK-SERVER-DELIVERY-06", "HOOK-SERVER-REOPEN-GATE-01",
                    "HOOK-SERVER-MULTITEAM-FALLBACK-02",
                    "HOOK-SERVER-PROVIDER-BIND-10"}
BARE_FEATURES = ""
#: Variants caught by a requirement of WITHOUT_FEATURES: run like the reference without features (``--features ''``).
BARE_VARIANTS = {
    # multi-team on because the desktop declares it, though the welcome does not.
    "multi-team-without-server-feature": ({"HOOK-SERVER-MULTITEAM-FALLBACK-02"}, set()),
    # the provider families on whatever welcome declares: a telegram start without provider:telegram is served.
    "provider-frames-without-feature": ({"HOOK-SERVER-PROVIDER-BIND-10"}, set()),
    # turn.delivery on whenever the desktop declares it.
    "delivery-without-server-feature": ({"HOOK-SERVER-DELIVERY-06"}, set()),
    # lifecycle.preference honoured without the feature in welcome.
    "lifecycle-preference-without-feature": ({"HOOK-SERVER-LIFECYCLE-04"}, set()),
    # a turn.reopen honoured without turn-reopen-v1 in welcome (a @should: run strict).
    "reopen-without-feature": ({"HOOK-SERVER-REOPEN-GATE-01"}, set()),
}


def _run(name: str, workdir: Path, variant: str | None, reqs: set[str], features: str | None = None,
         strict: bool = False, wire_types: bool = False) -> Run:
    token = f"conformance-{uuid.uuid4().hex}"
    env = child_env(lambda k: k == VARIANT_ENV)
    if wire_types:  # tests/wire_types_plugin.py counts the message types that travelled
        env = {**env, "WIRE_TYPES_OUT": str(workdir / WIRE_TYPES), "WIRE_TYPES_HARNESS": "desktop"}
    cmd = [PYTHON, "-m", "simulator", "serve", "hook-server", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0",
           f"--token={token}", "--db", str(workdir / "hook-server.sqlite3")]
    if variant:
        cmd += ["--variant", variant]
    if features is not None:
        cmd += ["--features", features]
    with serving(cmd, env=env) as ready:
        args = [f"--target=hook-server={ready['url']}", f"--control=hook-server={ready['control']}",
                f"--hook-token={token}", *(f"--req={rid}" for rid in sorted(reqs))]
        if strict:
            args.append("--strict-conformance")
        if wire_types:
            args += ["-p", "wire_types_plugin"]
        return run_features(name, workdir, FEATURES, args, env)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    jobs = {"external": lambda d: _run("external", d, None, set(), wire_types=True),
            "without-features": lambda d: _run("without-features", d, None, WITHOUT_FEATURES, BARE_FEATURES)}
    # in the order the cases below wait for them (sorted), so that no case waits for runs queued behind its own
    for variant, (must, may) in sorted(VARIANTS.items()):
        jobs[variant] = lambda d, v=variant, r=must | may: _run(v, d, v, r, strict=v in STRICT_VARIANTS)
    for variant, (must, may) in sorted(BARE_VARIANTS.items()):
        jobs[f"bare:{variant}"] = lambda d, v=variant, r=must | may: _run(f"bare:{v}", d, v, r, BARE_FEATURES,
                                                                          strict=v in STRICT_VARIANTS)
    pool = RunPool(tmp_path_factory.mktemp("hook-server-runs"), jobs, workers=3)
    yield pool
    pool.close()


def test_the_reference_as_a_separate_process_passes_every_requirement(runs: RunPool) -> None:
    run = runs["external"]
    assert_judges_every_requirement(run, "HOOK-SERVER-")
    assert_all_pass(run, not_applicable_ok=WITHOUT_FEATURES)


def test_every_message_type_travels_between_the_harness_and_the_reference(runs: RunPool) -> None:
    """Each of the 41 types went, in some scenario of the whole run, from the peer the spec makes send it
    (the harness desktop's frames to the server, the server's to it), parsing clean."""
    run = runs["external"]
    assert run.workdir is not None
    assert_every_type_travelled(run.workdir / WIRE_TYPES, "hook-server", run.explain())


def test_no_frame_of_the_reference_carries_a_local_path_or_a_one_time_token(runs: RunPool) -> None:
    """The whole-run privacy check: over every scenario of the external run, no frame the reference hook-server sent
    (valid or not) holds a local absolute path in any field or free text (§2 "本地绝对路径只存在于 desktop,永不过网线") or a one-time
    connect token anywhere but in the link that hands it out (阶段 14 "一次性凭证 … 不转发"); see tests/wire_types_plugin.py. At
    least one frame must have been scanned."""
    run = runs["external"]
    assert run.workdir is not None
    assert_no_leaks(run.workdir / WIRE_TYPES, "hook-server", run.explain())


def test_the_reference_without_the_optional_features_passes_their_requirements(runs: RunPool) -> None:
    run = runs["without-features"]
    assert set(run.verdicts()) == WITHOUT_FEATURES, run.explain()
    assert_all_pass(run)


def test_the_strict_runs_are_those_of_the_variants_caught_by_a_should_requirement() -> None:
    """Without ``--strict-conformance`` a @should (or @may) requirement not met is a warning, which ``assert_caught``
    does not count as caught; the other variant runs keep the default mode. The bare variants count too."""
    from simulator.requirements import load_registry

    registry, _ = load_registry(Path(__file__).resolve().parents[2] / "scenarios" / "requirements")
    should = {v for table in (VARIANTS, BARE_VARIANTS) for v, (must, _may) in table.items()
              if any(registry[r].level.value in ("should", "may") for r in must)}
    assert STRICT_VARIANTS == should


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_broken_variant_is_caught_by_its_requirement(runs: RunPool, variant: str) -> None:
    assert_caught(runs[variant], *VARIANTS[variant])


@pytest.mark.parametrize("variant", sorted(BARE_VARIANTS))
def test_each_variant_of_a_server_without_features_is_caught_by_its_requirement(runs: RunPool, variant: str) -> None:
    """The requirements about a server configured without a welcome feature are judged only by a run without
    features (``WITHOUT_FEATURES``): a variant that breaks one of them is run the same way."""
    assert_caught(runs[f"bare:{variant}"], *BARE_VARIANTS[variant])
