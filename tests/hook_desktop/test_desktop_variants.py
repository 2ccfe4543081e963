"""The desktop conformance features judge real desktops: the reference desktop passes every requirement as a
separate process that dials the harness, and each deliberately broken variant of it is caught by the requirement it
breaks. (That the embedded reference passes every requirement is the verdict of ``features/`` in the same test run:
the default target of each role is its embedded reference.)

Each case runs the features (``features/hook/test_hook_desktop.py``, i.e. ``features/hook/desktop/*.feature``)
in a subprocess, the way an implementer runs the harness in CI, and reads the verdicts from its ``report.json``:

* embedded (every broken variant): ``--target desktop=ref``; a variant is chosen with
  the environment variable ``DESKTOP_REFERENCE_VARIANT`` (each scenario dials a fresh embedded instance);
* external: ``--target desktop=listen:127.0.0.1:P --control desktop=http://127.0.0.1:Q`` and ONE
  ``python -m simulator serve desktop --connect ws://127.0.0.1:P/hook --control 127.0.0.1:Q --token T`` started
  here (the run gets ``--hook-token T``). The
  harness keeps one listening socket on that port for the run and accepts on it scenario after scenario; the desktop
  dials again after each scenario's connection ends, so one desktop process, keeping its state, serves every
  scenario.

The runs are independent processes: they are started together when the first case needs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conformance_runs import (
    PYTHON, RUN_TIMEOUT_S, Run, RunPool, assert_all_pass, assert_caught, assert_judges_every_requirement, child_env,
    free_port, run_features, serving,
)
from wire_types_plugin import assert_every_type_travelled, assert_no_leaks


FEATURES = "features/hook/test_hook_desktop.py"
VARIANT_ENV = "DESKTOP_REFERENCE_VARIANT"
#: The message-type counts of the external run (tests/wire_types_plugin.py), in its working directory.
WIRE_TYPES = "wire-types.json"
#: The external desktop dials with this bearer token; the run is told it with --hook-token (HOOK-DESKTOP-TOKEN-01).
EXTERNAL_TOKEN = "external-desktop-token"

pytestmark = pytest.mark.timeout(RUN_TIMEOUT_S * 2)

#: Broken variant → (the requirement ids that must catch it with a fail verdict, the ids that may fail with them
#: because the one broken switch shows there too). Only these ids are run; nothing else among them may fail.
VARIANTS: dict[str, tuple[set[str], set[str]]] = {
    # turn.reopen goes out after the round's first turn.progress.
    "reopen-after-progress": ({"HOOK-DESKTOP-REOPEN-ORDER-01", "HOOK-DESKTOP-REOPEN-ORDER-02"}, set()),
    # the reopen round's frames are cached and replayed after a reconnect (also after the round's turn.end was lost,
    # which REOPEN-LOST-01 forbids too: nothing of that round is sent later).
    "reopen-replayed": ({"HOOK-DESKTOP-REOPEN-NOREPLAY-01", "HOOK-DESKTOP-REOPEN-LOST-01"}, set()),
    # the reopen requestId is an incrementing counter.
    "counter-reopen-id": ({"HOOK-DESKTOP-REOPEN-ID-01"}, set()),
    # a redelivered requestId runs the agent again.
    "redelivery-runs-twice": ({"HOOK-DESKTOP-IDEMPOTENT-01"}, set()),
    # lifecycle.preference sent although welcome lacks lifecycle-announcement-v1.
    "lifecycle-without-feature": ({"HOOK-DESKTOP-LIFECYCLE-GATE-01", "HOOK-DESKTOP-GATING-01"}, set()),
    # Slack binding and preferences (simulator/reference/desktop/slack_variants.py):
    # bind.start carries the deprecated email (every scenario that signs in sees it).
    "bind-start-email": ({"HOOK-DESKTOP-BIND-START-01"},
                         {"HOOK-DESKTOP-BIND-START-02", "HOOK-DESKTOP-BIND-AUTHORIZE-01",
                          "HOOK-DESKTOP-BIND-PENDING-ONLY-01"}),
    # bind.revoke names the team although multi-team is off.
    "revoke-team-without-feature": ({"HOOK-DESKTOP-BIND-REVOKE-01"}, set()),
    # bind.start names the team although multi-team is off.
    "start-team-without-feature": ({"HOOK-DESKTOP-MULTITEAM-START-01"}, set()),
    # bind.state merged into the bindings instead of replacing them.
    "bind-state-merged": ({"HOOK-DESKTOP-MULTITEAM-STATE-01"}, set()),
    # bind.state applied although multi-team is off.
    "bind-state-without-feature": ({"HOOK-DESKTOP-MULTITEAM-STATE-02"}, set()),
    # no install link when a not-installed failure has no installUrl.
    "install-url-missing": ({"HOOK-DESKTOP-BIND-INSTALL-02"}, set()),
    # prefs.set carries every key of the row (null for those not changed).
    "prefs-set-full-row": ({"HOOK-DESKTOP-PREFS-SET-01"}, {"HOOK-DESKTOP-MULTITEAM-PREFS-01"}),
    # prefs.state merged by workspace into the shown preferences.
    "prefs-state-merged": ({"HOOK-DESKTOP-PREFS-PUSH-01"}, set()),
    # a revoked bind.update removes every binding, whatever its teamId.
    "revoked-clears-all": ({"HOOK-DESKTOP-BIND-CONFIRMED-01"}, set()),
    # a bind.state the parser refuses is still read, leniently.
    "bad-bind-state-applied": ({"HOOK-DESKTOP-BIND-BAD-FRAME-01"}, set()),
    # a pending bind.update shows no link.
    "authorize-url-hidden": ({"HOOK-DESKTOP-BIND-AUTHORIZE-01"}, {"HOOK-DESKTOP-BIND-PENDING-ONLY-01"}),
    # a not-installed failure shows the generic link even with installUrl.
    "install-url-ignored": ({"HOOK-DESKTOP-BIND-INSTALL-01"}, set()),
    # cancelling the sign-in in flight sends a plain bind.revoke.
    "pending-only-dropped": ({"HOOK-DESKTOP-BIND-PENDING-ONLY-01"}, set()),
    # with multi-team on, signing out of one team sends a plain bind.revoke.
    "multi-team-revoke-all": ({"HOOK-DESKTOP-MULTITEAM-REVOKE-01"}, set()),
    # prefs.set names the team although multi-team is off.
    "prefs-team-without-feature": ({"HOOK-DESKTOP-MULTITEAM-PREFS-01"}, set()),
    # a prefs.state answering a prefs.get is not taken (only pushes are).
    "prefs-answer-ignored": ({"HOOK-DESKTOP-PREFS-GET-01"}, set()),
    # a prefs.state with bound false is ignored.
    "unbound-keeps-prefs": ({"HOOK-DESKTOP-PREFS-UNBOUND-01"}, set()),
    # provider families (simulator/reference/desktop/provider_variants.py):
    # every provider channel offered whatever welcome declares.
    "provider-without-feature": ({"HOOK-DESKTOP-PROVIDER-HIDDEN-01", "HOOK-DESKTOP-PROVIDER-OFF-01"}, set()),
    # any https Telegram connectUrl shown.
    "telegram-url-unchecked": ({"HOOK-DESKTOP-PROVIDER-LINK-02"}, set()),
    # a provider.bind frame with an unknown action dropped whole.
    "unknown-action-drops-frame": ({"HOOK-DESKTOP-PROVIDER-ACTIONS-01"}, set()),
    # cancelling one attempt cancels every open attempt of the provider.
    "cancel-all-attempts": ({"HOOK-DESKTOP-PROVIDER-CANCEL-01"}, set()),
    # provider.prefs.set carries the folder path instead of the alias.
    "prefs-path-instead-of-alias": ({"HOOK-DESKTOP-PROVIDER-PREFS-ALIAS-01"}, set()),
    # a behaviour value equal to the default left out of provider.behavior.set.
    "behavior-omits-default": ({"HOOK-DESKTOP-BEHAVIOR-SET-01"}, set()),
    # the behaviour channel used without provider-behavior-v1 (get/set sent, state rendered).
    "behavior-without-feature": ({"HOOK-DESKTOP-BEHAVIOR-GATE-01", "HOOK-DESKTOP-BEHAVIOR-STATE-01"}, set()),
    # provider.prefs.state merged into what is shown instead of replacing it.
    "provider-prefs-state-merged": ({"HOOK-DESKTOP-PROVIDER-PREFS-STATE-01"}, set()),
    # a provider.bind frame that fails the core's checks taken anyway.
    "lenient-provider-frames": ({"HOOK-DESKTOP-PROVIDER-GARBAGE-01"}, set()),
    # one variant for each binding and preference requirement no other variant fails.
    # re-authorising one team sends an empty bind.start (the team not pinned).
    "reauthorize-unpinned": ({"HOOK-DESKTOP-BIND-START-02"}, set()),
    # provider.bind.start leaves out the scope the user chose.
    "provider-start-scope-dropped": ({"HOOK-DESKTOP-PROVIDER-START-01"}, set()),
    # revoking one binding revokes every confirmed binding of the provider.
    "revoke-all-bindings": ({"HOOK-DESKTOP-PROVIDER-REVOKE-01"}, set()),
    # every Telegram link rejected, also a strict one.
    "telegram-link-hidden": ({"HOOK-DESKTOP-PROVIDER-LINK-01"}, set()),
    # a Telegram link's scheme and user info not checked (http:// and user@ links shown).
    "telegram-link-scheme-unchecked": ({"HOOK-DESKTOP-PROVIDER-LINK-03"}, set()),
    # a confirmed binding stays shown confirmed; its revoked / superseded snapshot dropped.
    "binding-end-ignored": ({"HOOK-DESKTOP-PROVIDER-SHOWN-01"}, set()),
    # provider.prefs.* used whatever welcome declares.
    "provider-prefs-without-feature": ({"HOOK-DESKTOP-PROVIDER-PREFS-HIDDEN-01"}, set()),
    # provider.prefs.get names the selector as both bindingId and scopeId.
    "prefs-selector-both": ({"HOOK-DESKTOP-PROVIDER-PREFS-SELECTOR-01"}, set()),
    # a provider.prefs.state that fails the core's checks shown anyway.
    "lenient-provider-prefs": ({"HOOK-DESKTOP-PROVIDER-PREFS-GARBAGE-01"}, set()),
    # provider.behavior.get without its bindingId.
    "behavior-get-without-binding": ({"HOOK-DESKTOP-BEHAVIOR-GET-01"}, set()),
    # a group activation change sent as a {chatId: value} map instead of one patch.
    "group-activation-as-map": ({"HOOK-DESKTOP-BEHAVIOR-SET-02"}, set()),
    # the first behaviour state of a binding stays shown.
    "behavior-state-first-kept": ({"HOOK-DESKTOP-BEHAVIOR-STATE-02"}, set()),
    # a behaviour state that fails the core's checks shown anyway.
    "lenient-behavior-states": ({"HOOK-DESKTOP-BEHAVIOR-GARBAGE-01"}, set()),
    # only the first connection carries the bearer token (a @should requirement: caught under --strict-conformance).
    "token-first-dial-only": ({"HOOK-DESKTOP-TOKEN-01"}, set()),
    # group relay and message operations (simulator/reference/desktop/relay_variants.py):
    # a window entry keeps the author's name only and no file names.
    "window-fields-dropped": ({"HOOK-DESKTOP-GROUP-01"}, set()),
    # the recipient matched by its bindingId alone (another principal enters).
    "recipient-principal-unchecked": ({"HOOK-DESKTOP-GROUP-02"}, set()),
    # a revoked or superseded binding keeps receiving group messages.
    "ended-binding-receives": ({"HOOK-DESKTOP-GROUP-02"}, set()),
    # group messages taken without group-relay-v1 in welcome.
    "relay-without-feature": ({"HOOK-DESKTOP-GROUP-03"}, set()),
    # the context of a dispatch keeps its trigger message.
    "trigger-in-context": ({"HOOK-DESKTOP-GROUP-04"}, set()),
    # the same messageId relayed again is a second entry (a @should requirement: caught under --strict-conformance).
    "window-duplicates": ({"HOOK-DESKTOP-GROUP-05"}, set()),
    # a group.message refused for its author id / username taken without them.
    "lenient-author-fields": ({"HOOK-DESKTOP-GROUP-06"}, set()),
    # a group.message that fails the core's checks elsewhere entered anyway.
    "lenient-group-frames": ({"HOOK-DESKTOP-GROUP-07"}, set()),
    # msg.op scoped by the turn's sessionId instead of its externalKey.
    "op-scope-session-key": ({"HOOK-DESKTOP-MSGOP-01"}, set()),
    # msg.op sent without msg-op-v1 in welcome.
    "op-without-feature": ({"HOOK-DESKTOP-MSGOP-02"}, set()),
    # a msg.op.result ends the oldest pending op whatever its opId.
    "op-result-to-oldest": ({"HOOK-DESKTOP-MSGOP-03"}, set()),
    # a msg.op.result that fails the core's checks still ends its op.
    "lenient-op-results": ({"HOOK-DESKTOP-MSGOP-04"}, set()),
    # queries, gateway tools, the rest of interactions, the default workspace
    # (simulator/reference/desktop/gateway_variants.py):
    # the workspaces query answered with the aliases the desktop started with.
    "query-workspaces-stale": ({"HOOK-DESKTOP-QUERY-01"}, set()),
    # the models query lists an agent kind hello never offered.
    "query-models-other-agent": ({"HOOK-DESKTOP-QUERY-02"}, set()),
    # the sessions query lists every session, beyond 20 (an invalid frame: the recency check sees it too).
    "sessions-all-listed": ({"HOOK-DESKTOP-QUERY-03"}, {"HOOK-DESKTOP-QUERY-04"}),
    # the sessions query lists the least recently active sessions (@should).
    "sessions-oldest-first": ({"HOOK-DESKTOP-QUERY-04"}, set()),
    # the session list disclosed although welcome lacks session-picker-v1.
    "sessions-without-feature": ({"HOOK-DESKTOP-QUERY-05"}, set()),
    # queries kept by kind and answered once, with the latest queryId of that kind.
    "queries-coalesced": ({"HOOK-DESKTOP-QUERY-06"}, set()),
    # a session's title is the prompt of its first task (@should).
    "session-titles-from-prompt": ({"HOOK-DESKTOP-QUERY-07"}, set()),
    # an ok:false tool.response reaches the agent with a generic code, the server's lost.
    "tool-error-code-lost": ({"HOOK-DESKTOP-TOOL-01"}, set()),
    # tool.request sent although welcome lacks slack-tools.
    "tools-without-feature": ({"HOOK-DESKTOP-TOOL-02"}, set()),
    # a tool.response ends the oldest pending call, whatever its replyTo.
    "tool-response-to-oldest": ({"HOOK-DESKTOP-TOOL-03"}, set()),
    # a call waits for its answer forever (@should).
    "tool-calls-never-time-out": ({"HOOK-DESKTOP-TOOL-04"}, set()),
    # tool.request never carries the teamId, also with multi-team on.
    "tool-team-dropped": ({"HOOK-DESKTOP-TOOL-05"}, set()),
    # tool.request carries the teamId although multi-team is off.
    "tool-team-without-feature": ({"HOOK-DESKTOP-TOOL-06"}, set()),
    # a malformed tool.response still ends the call its replyTo names.
    "lenient-tool-responses": ({"HOOK-DESKTOP-TOOL-GARBAGE-01"}, set()),
    # a decision matched to the open card of its requestId, whatever interactionId it names.
    "decision-any-interaction": ({"HOOK-DESKTOP-INTERACTION-UNKNOWN-01"}, set()),
    # a turn ended with its card open sends no interaction.cancel.
    "card-left-open": ({"HOOK-DESKTOP-INTERACTION-CANCEL-01"}, set()),
    # a malformed decision still resumes the open card of its requestId.
    "lenient-decisions": ({"HOOK-DESKTOP-INTERACTION-GARBAGE-01"}, set()),
    # an X-lane task runs in the chat pseudo-folder whatever workspace it names.
    "x-dispatch-in-chat": ({"HOOK-DESKTOP-DEFAULT-WS-01"}, set()),
    # one variant per core requirement no other variant fails (simulator/reference/desktop/core_variants.py):
    # hello lists the registered aliases first and appends chat.
    "chat-alias-last": ({"HOOK-DESKTOP-HELLO-CHAT-01"}, set()),
    # hello leaves lifecycleAnnouncement out while the preference is on (@should).
    "lifecycle-default-left-out": ({"HOOK-DESKTOP-HELLO-LIFECYCLE-01"}, set()),
    # the default alias is sent as defaultWorkspace only, left out of hello.workspaces.
    "default-not-in-workspaces": ({"HOOK-DESKTOP-HELLO-DEFAULT-01"}, set()),
    # once the default's folder is gone, hello still names it as defaultWorkspace.
    "default-kept-after-removal": ({"HOOK-DESKTOP-HELLO-DEFAULT-02"}, set()),
    # a change of the alias mapping waits for the next handshake (@should).
    "hello-not-resent": ({"HOOK-DESKTOP-HELLO-RESEND-01"}, set()),
    # a dispatch to the chat pseudo-folder is rejected unknown_workspace.
    "chat-dispatch-rejected": ({"HOOK-DESKTOP-ACK-ACCEPTED-01"}, set()),
    # a dispatch to a busy session waits in its queue but is acked accepted (@should).
    "queued-acked-accepted": ({"HOOK-DESKTOP-ACK-QUEUED-01"}, set()),
    # an alias never registered is rejected workspace_not_allowed.
    "unknown-alias-not-allowed": ({"HOOK-DESKTOP-ACK-REJECT-01"}, set()),
    # a takeover of an unknown session opens a new session instead (@should).
    "unknown-session-opened": ({"HOOK-DESKTOP-ACK-REJECT-02"}, set()),
    # a desktop switched off still runs dispatches (@should).
    "disabled-ignored": ({"HOOK-DESKTOP-ACK-REJECT-03"}, set()),
    # an agentKind hello never offered is run (@should).
    # an alias whose folder was removed is still accepted and run.
    "removed-folder-accepted": ({"HOOK-DESKTOP-ACK-REJECT-05"}, set()),
    # the externalKey mapping is not kept: every dispatch opens a new session.
    "session-per-dispatch": ({"HOOK-DESKTOP-SESSION-KEY-01"}, set()),
    # a takeover runs in a new session of its externalKey, not the named one.
    "takeover-ignored": ({"HOOK-DESKTOP-TAKEOVER-01"}, set()),
    # turn.progress streams increments instead of whole snapshots.
    "progress-deltas": ({"HOOK-DESKTOP-PROGRESS-SNAPSHOT-01"}, set()),
    # turn.end leaves its sessionId null.
    "end-session-left-out": ({"HOOK-DESKTOP-END-LINKAGE-01"}, set()),
    # turn.end reports usage.durationMs in seconds, a fraction.
    "duration-in-seconds": ({"HOOK-DESKTOP-END-DURATION-01"}, set()),
    # an image/jpg attachment keeps that type in turn.end.
    "jpg-not-normalized": ({"HOOK-DESKTOP-ATTACH-MIME-01"}, set()),
    # a turn stopped by task.cancel ends with status error.
    "cancel-as-error": ({"HOOK-DESKTOP-CANCEL-01"}, set()),
    # task.cancel of an unknown requestId is confirmed with a turn.end cancelled.
    "unknown-cancel-answered": ({"HOOK-DESKTOP-CANCEL-02"}, set()),
    # session.archive of an unknown key raises: the desktop's connection ends.
    "archive-unknown-key-crashes": ({"HOOK-DESKTOP-ARCHIVE-01"}, set()),
    # an undelivered turn.end is re-sent with a fresh envelope, not byte for byte.
    "resend-rebuilt": ({"HOOK-DESKTOP-RELIABLE-RESEND-01"}, set()),
    # turn.delivery accepted does not clear the outbox.
    "accepted-kept": ({"HOOK-DESKTOP-RELIABLE-ACCEPTED-01"}, set()),
    # without turn-delivery-v1 a written turn.end is sent again after every reconnect.
    "written-end-resent": ({"HOOK-DESKTOP-RELIABLE-RESEND-02"}, set()),
    # button ids are '<interactionId>|<id>'.
    "button-ids-packed": ({"HOOK-DESKTOP-INTERACTION-BUTTONS-01"}, set()),
    # a decision for a closed card re-sends the turn's turn.end.
    "late-decision-resends-end": ({"HOOK-DESKTOP-INTERACTION-LATE-01"}, set()),
    # a card that times out is not withdrawn (no interaction.cancel).
    "timeout-without-cancel": ({"HOOK-DESKTOP-INTERACTION-TIMEOUT-01"}, set()),
    # pings go unanswered while a turn runs.
    "no-pong-while-busy": ({"HOOK-DESKTOP-PING-01"}, set()),
    # a retry sends turn.reopen whatever welcome declares.
    "reopen-without-feature": ({"HOOK-DESKTOP-REOPEN-GATE-01"}, set()),
    # another question in a finished turn's session is sent as its reopen.
    "ask-reopens": ({"HOOK-DESKTOP-REOPEN-TRIGGER-01"}, set()),
    # the reopen bookkeeping has no TTL.
    "reopen-never-expires": ({"HOOK-DESKTOP-REOPEN-TTL-01"}, set()),
    # a reopened round's card is decided at the desktop and also posted as interaction.request.
    "reopen-card-mirrored": ({"HOOK-DESKTOP-REOPEN-NOINTERACTION-01"}, set()),
    # a preference change waits for the next hello (@may).
    "lifecycle-change-not-sent": ({"HOOK-DESKTOP-LIFECYCLE-SEND-01"}, set()),
}

#: The requirements of queries, gateway tools, the rest of interactions and the default workspace
#: (scenarios/requirements/hook-desktop-gateway.toml): each is falsified by a variant of GATEWAY_VARIANTS (run, like
#: every variant, over the requirements it must fail; that each breaks its own rule at the machine is pinned by
#: tests/reference/desktop/test_ref_desktop_gateway.py).
GATEWAY = frozenset({
    "HOOK-DESKTOP-QUERY-01", "HOOK-DESKTOP-QUERY-02", "HOOK-DESKTOP-QUERY-03", "HOOK-DESKTOP-QUERY-04",
    "HOOK-DESKTOP-QUERY-05", "HOOK-DESKTOP-QUERY-06", "HOOK-DESKTOP-QUERY-07", "HOOK-DESKTOP-TOOL-01",
    "HOOK-DESKTOP-TOOL-02", "HOOK-DESKTOP-TOOL-03", "HOOK-DESKTOP-TOOL-04", "HOOK-DESKTOP-TOOL-05",
    "HOOK-DESKTOP-TOOL-06", "HOOK-DESKTOP-TOOL-GARBAGE-01", "HOOK-DESKTOP-INTERACTION-UNKNOWN-01",
    "HOOK-DESKTOP-INTERACTION-CANCEL-01", "HOOK-DESKTOP-INTERACTION-GARBAGE-01", "HOOK-DESKTOP-DEFAULT-WS-01",
})
GATEWAY_VARIANTS = frozenset({v for v, (must, _) in VARIANTS.items() if must <= GATEWAY})


#: Requirements about a desktop whose hello leaves a feature out: not applicable to the reference's default hello
#: (every feature it consumes), judged by a run of a reference started with ``--features BARE_FEATURES`` instead.
WITHOUT_FEATURES = {"HOOK-DESKTOP-DELIVERY-GATE-01"}
BARE_FEATURES = "turn-reopen-v1,lifecycle-announcement-v1"
#: Variants caught by a requirement of WITHOUT_FEATURES: run like the reference with ``--features BARE_FEATURES``.
BARE_VARIANTS: dict[str, tuple[set[str], set[str]]] = {
    # turn.delivery acks on whenever welcome declares turn-delivery-v1, though the hello did not.
    "delivery-by-welcome": ({"HOOK-DESKTOP-DELIVERY-GATE-01"}, set()),
}


def _env(variant: str | None = None) -> dict[str, str]:
    """The child's environment: the parent's, without a stray variant, with ``variant`` when given."""
    return child_env(lambda k: k == VARIANT_ENV, **({VARIANT_ENV: variant} if variant else {}))


def _run_embedded(name: str, workdir: Path, variant: str, reqs: set[str]) -> Run:
    """The features against one broken variant of the embedded reference, limited to the requirement ids ``reqs``
    (a variant run judges only the requirements that concern it). A variant run is strict
    (``--strict-conformance``): a @should requirement it breaks ends *fail*, not *warn*."""
    args = ["--target=desktop=ref", "--strict-conformance",
            *(f"--req={rid}" for rid in sorted(reqs))]
    return run_features(name, workdir, FEATURES, args, _env(variant))


def _run_external(name: str, workdir: Path, *, features: str | None = None, variant: str | None = None,
                  reqs: set[str] | frozenset[str] = frozenset()) -> Run:
    """The features against ``python -m simulator serve desktop`` as a separate process (``features``: its hello's
    ``--features``; ``variant``: a broken variant, run strict), over ``reqs`` (default: every requirement)."""
    hook_port = free_port()
    env = _env()
    # the control API binds a port of its own choosing (no race with another run for a port picked here) and says
    # which in its readiness line
    cmd = [PYTHON, "-m", "simulator", "serve", "desktop", "--connect", f"ws://127.0.0.1:{hook_port}/hook",
           "--control", "127.0.0.1:0", "--db", str(workdir / "outbox.sqlite3"), "--token", EXTERNAL_TOKEN]
    if features is not None:
        cmd += ["--features", features]
    if variant is not None:
        cmd += ["--variant", variant]
    with serving(cmd, env=env) as ready:
        control = ready["control"]
        # tests/wire_types_plugin.py counts the message types that travelled (the harness plays the server)
        run_env = {**env, "WIRE_TYPES_OUT": str(workdir / WIRE_TYPES), "WIRE_TYPES_HARNESS": "server"}
        args = [f"--target=desktop=listen:127.0.0.1:{hook_port}", f"--control=desktop={control}",
                f"--hook-token={EXTERNAL_TOKEN}", *(f"--req={rid}" for rid in sorted(reqs))]
        if variant is not None:
            args.append("--strict-conformance")
        if not reqs:
            args += ["-p", "wire_types_plugin"]
        return run_features(name, workdir, FEATURES, args, run_env)


# -- the runs, started together ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    jobs: dict[str, Any] = {
        "external": lambda d: _run_external("external", d),
        "without-features": lambda d: _run_external("without-features", d, features=BARE_FEATURES,
                                                    reqs=WITHOUT_FEATURES)}
    for variant, (must, may) in VARIANTS.items():
        jobs[variant] = lambda d, v=variant, r=must | may: _run_embedded(v, d, v, r)
    for variant, (must, may) in BARE_VARIANTS.items():
        jobs[f"bare:{variant}"] = lambda d, v=variant, r=must | may: _run_external(
            f"bare:{v}", d, features=BARE_FEATURES, variant=v, reqs=r)
    pool = RunPool(tmp_path_factory.mktemp("desktop-runs"), jobs, workers=4)
    yield pool
    pool.close()


def test_the_reference_as_a_separate_process_passes_every_requirement(runs: RunPool) -> None:
    """Every desktop requirement of the registry is judged in the external run, and passes."""
    run = runs["external"]
    assert_judges_every_requirement(run, "HOOK-DESKTOP-")
    assert_all_pass(run, not_applicable_ok=WITHOUT_FEATURES)


def test_every_message_type_travels_between_the_harness_and_the_reference(runs: RunPool) -> None:
    """Each of the 41 types went, in some scenario of the whole run, from the peer the spec makes send it
    (the harness server's frames to the desktop, the desktop's to it), parsing clean."""
    run = runs["external"]
    assert run.workdir is not None
    assert_every_type_travelled(run.workdir / WIRE_TYPES, "desktop", run.explain())


def test_no_frame_of_the_reference_carries_a_local_path_or_a_one_time_token(runs: RunPool) -> None:
    """The whole-run privacy check: over every scenario of the external run, no frame the reference desktop sent (valid
    or not) holds a local absolute path in any field or free text (§2 "本地绝对路径只存在于 desktop,永不过网线") or a
    one-time connect token anywhere but in the link that hands it out (阶段 14 "一次性凭证 … 不转发"); see
    tests/wire_types_plugin.py. At least one frame must have been scanned."""
    run = runs["external"]
    assert run.workdir is not None
    assert_no_leaks(run.workdir / WIRE_TYPES, "desktop", run.explain())


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_broken_variant_is_caught_by_its_requirement(runs: RunPool, variant: str) -> None:
    assert_caught(runs[variant], *VARIANTS[variant])


def test_the_reference_without_the_optional_features_passes_their_requirements(runs: RunPool) -> None:
    """The requirements about a desktop whose hello leaves a feature out pass against the reference started with
    ``--features`` without it (and are judged there, not merely not applicable)."""
    run = runs["without-features"]
    assert set(run.verdicts()) == WITHOUT_FEATURES, run.explain()
    assert_all_pass(run)


@pytest.mark.parametrize("variant", sorted(BARE_VARIANTS))
def test_each_variant_of_a_desktop_without_features_is_caught_by_its_requirement(runs: RunPool, variant: str) -> None:
    assert_caught(runs[f"bare:{variant}"], *BARE_VARIANTS[variant])


def test_every_gateway_requirement_has_a_variant_and_each_is_registered():
    """Every requirement of hook-desktop-gateway.toml is falsified by a variant of GATEWAY_VARIANTS, and
    GATEWAY is exactly that registry file."""
    import tomllib

    registry = Path(__file__).resolve().parents[2] / "scenarios" / "requirements" / "hook-desktop-gateway.toml"
    ids = {r["id"] for r in tomllib.loads(registry.read_text(encoding="utf-8"))["requirement"]}
    assert ids == GATEWAY
    caught = {rid for v in GATEWAY_VARIANTS for rid in VARIANTS[v][0]}
    assert caught == GATEWAY, sorted(GATEWAY - caught)
