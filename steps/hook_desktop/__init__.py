"""Step vocabulary for ``features/hook/desktop``: the harness plays the hook server, a desktop under test dials in,
and the steps judge the desktop's obligations of slack-hook-protocol.md (§1, §2, §4, §5, 阶段 18 desktop side).

Theory of operation: ``simulator.drivers.hook_desktop`` (its module docstring). Each scenario's ``Given a desktop
connected …`` builds a ``DesktopDriver`` (fixture ``desk``) from the harness fixtures; every other step is one call of
a named driver operation. Requests are named in the feature files ("first", "second", …) and external keys too
("thread"); the driver gives each a fresh id. The turns of the desktop's agent are scripted through its control API.

Vocabulary (one module per area):

* ``connect``: ``Given a desktop connected to the harness's hook server [, which requires a bearer token,] with
  features "<a, b>|none"`` (a fresh token for the embedded reference; ``--hook-token`` for an external desktop)
* ``harness``: ``the desktop's next turn is scripted as <JSON>``; ``the harness dispatches "<name>" [to workspace
  "<alias>"] [with external key "<key>"]`` / ``… to an unknown session`` / ``… into the session of "<other>" with
  external key "<key>"`` / ``… asking for the agent kind "<kind>"`` / ``… asking for the first agent kind of the
  hello``; ``redelivers`` / ``cancels "<name>"``; ``archives the session of external key "<key>"`` / ``an unknown
  external key``; ``drops the connection and the desktop reconnects``; ``accepts the delivery of "<name>"``;
  ``pings the desktop <n> times while "<name>" runs``; ``queries the desktop for its "<kind>"``
* ``user``: ``the desktop user retries "<name>"`` / ``retries the reopened round`` / ``asks "<text>" in the session of
  "<name>"`` / ``turns the lifecycle announcement <on|off>``; ``the desktop's workspaces are set to "<alias>" as
  default``; ``the folder of workspace "<alias>" is removed``; ``the desktop is disabled`` / ``enabled again``; ``the
  desktop goes offline`` / ``comes back online``; ``the desktop's clock advances by <n> days``
* ``interactions``: the interaction.request of a turn, answering it (first button, again, too late), the timeout's
  interaction.cancel
* Then: ``hello`` (first alias, lifecycleAnnouncement, defaultWorkspace, the re-sent and the next hello), ``acks``,
  ``turns`` (turn.end, turn.progress snapshots, replacement and throttling over frames, attachments, re-sending),
  ``reopen`` (turn.reopen order and ids), ``connection`` (pongs, the bearer token, lifecycle.preference, frame types
  never sent, no local absolute path), ``state`` (the control ``state``: run count and session, finished, outbox,
  reopenable; the ``retry-turn`` answer).
* ``bindings`` (Slack binding, multi-team, Slack preferences): ``Given the desktop declares "multi-team" in its hello``
  (else not applicable); the user ``signs in with Slack`` / ``re-authorises the Slack team "<T>"`` / ``signs out of
  Slack`` / ``… of the Slack team "<T>"`` / ``cancels the Slack sign-in in flight`` / ``asks for the Slack
  preferences`` / ``sets the Slack preferences of workspace "<ws>" [for the Slack team "<T>"] to <JSON>``; the harness
  ``answers bind.update pending with an authorize URL``, ``sends bind.update confirmed|revoked for the Slack team
  "<T>"`` / ``revoked for every team`` / ``failed not-installed with|without an install URL``, ``sends bind.state
  with the Slack teams "<T, U>|none"``, ``answers the prefs.get with the preferences <JSON>``, ``pushes prefs.state
  with the preferences <JSON>`` / ``unbound``, ``sends a malformed "<type>" frame with the payload <JSON>``; Then the
  desktop ``sends bind.start with an empty payload`` / ``for the Slack team "<T>"``, ``bind.start without a teamId``,
  ``bind.revoke without a teamId``
  / ``for the Slack team "<T>"`` / ``with pendingOnly true``, ``prefs.get with the requestId its control API
  answered``, ``prefs.set for workspace "<ws>" with exactly the fields <JSON> and no teamId|for the Slack team
  "<T>"``; the desktop ``shows the Slack sign-in link it was sent`` / ``the install link it was sent`` / ``an https
  install link`` / ``[still] shows the Slack bindings of exactly the teams "<T, U>|none"`` / ``exactly the Slack
  preferences <JSON> [answering its prefs.get]`` / ``no Slack preferences`` / ``the same Slack state as before the
  malformed frames``. Team names become fresh team ids per scenario.

* ``providers`` (provider binding and preferences) / ``behavior`` (Telegram behaviour): the user ``tries to start a
  "<provider>" binding`` / ``starts … with scope``, ``cancels`` / ``revokes``, ``tries to read`` / ``reads`` / ``sets``
  the provider preferences or the Telegram behaviour / group activation; the harness ``sends a "<provider>"
  provider.bind.update|state`` (an attempt pending at a link, with actions; confirming / ending a binding), a
  provider.prefs.state, a behaviour state, ``the malformed … frames``; Then ``the desktop refuses it as "<code>"``, the
  frames sent (start, cancel / no cancel, revoke, prefs get / set, behaviour get / set, exactly the keys changed) and
  what the state shows (channel hidden, attempt state / link / rejected link / actions, binding state, preferences,
  behaviour).

* ``group_relay`` (group relay, 阶段 14 / 19): ``Given the desktop declares the features "<a, b>" in its hello`` (else
  not applicable), ``the desktop does not declare the feature "<f>" in its hello`` (else not applicable); the harness ``relays group message "<m>" in chat "<c>" to binding "<b>"`` [``as another
  principal``] / ``without a recipient`` / ``to binding "<b>" with the author id|username <JSON>``, ``relays group
  message "<m>" again``, ``relays the malformed group messages "<m>" in chat "<c>" to binding "<b>"``, ``dispatches
  "<name>" triggered by group message "<m>"``; Then the desktop's group window ``shows "<m>"`` [``as it was
  relayed``] / ``does not show "<m>"`` / ``holds "<m>" once``; ``the desktop's state gives "<name>" the group context
  of "<m1, m3>" without "<m2>"``. A binding "<b>" is one the provider steps confirmed (its bindingId and principalId).
* ``message_ops`` (msg-op-v1): ``the agent of "<name>" asks for the message operation "<op>" <action JSON>``; the
  harness ``answers msg.op "<op>" with ok and message id "<id>"`` / ``with the error "<E>"``, ``answers a msg.op the
  desktop never sent``, ``sends the malformed msg.op.result frames of "<op>"``; Then ``the desktop sends msg.op "<op>"``
  [``for "<name>" with its action``], ``the desktop answers message operation "<op>" as unavailable``, the state ``shows
  message operation "<op>" ok with message id "<id>"`` / ``failed with the error "<E>"`` / ``pending``.
* ``queries`` (§5 阶段 6): ``Given the desktop declares "session-picker-v1" in its hello`` (else not
  applicable); the harness ``sends query "<name>" asking for "<kind>"``, ``runs <n> task(s), each in a new session,
  one after the other``; Then ``the answer to query "<name>" lists only workspace aliases of the desktop's latest
  hello`` / ``lists models of only the agent kinds of the hello`` / ``lists at most 20 sessions, each in an alias
  of the hello``, ``the sessions the answer to query "<name>" lists are the most recently active ones``, ``no session
  title in the answer to query "<name>" shows the user's text``, ``the desktop discloses no session list in answer to
  query "<name>"``, ``the desktop answers each of the queries "<a, b, c>" once, with its own queryId and kind``.
* ``tools`` (§5 阶段 12, 13): ``the desktop's agent calls the gateway tool "<tool>" as "<name>" [for the Slack
  team "<T>"] [with the args <JSON>] [waiting at most <n> ms]``; the harness ``answers the tool call "<name>" with the
  result <JSON>`` / ``with the error "<CODE>": "<message>"`` / ``with the malformed payload <JSON>``, ``answers a tool
  call the desktop never made``; Then ``the desktop sends tool.request for "<name>" with the requestId its control API
  answered``, ``the calls "<a>" and "<b>" carry different requestIds``, ``the tool.request of "<name>" carries the Slack
  team "<T>"`` / ``carries no teamId``, ``the desktop sends no tool.request``, ``the desktop's state shows the tool call
  "<name>" ok with the result <JSON>`` / ``failed with the error "<CODE>": "<message>"`` / ``unavailable`` / ``still
  pending`` / ``timed out``, ``the desktop's state still shows the tool call "<name>" timed out``.
* ``interactions`` (the rest of 阶段 10): the harness ``answers that interaction with an unknown interactionId``
  / ``a button the card never had``, ``presses the button "<id>" on that interaction``, ``sends
  a malformed decision for that interaction with <JSON>`` (merged over the card's requestId, interactionId and first
  button); Then ``the interaction card of "<name>" stays open``.
* ``default_workspace`` (默认工作目录): the harness ``dispatches an X mention "<name>" to the default workspace
  of the hello``; Then ``the desktop runs "<name>" in a session of workspace "<alias>"``.

"Nothing was sent" checks watch the desktop for the drivers' quiet window; ``retries`` / ``asks`` / ``answers that
interaction again|too late`` first drain the inbox, so the checks after them see only what the desktop sent afterwards.
"""

pytest_plugins = [
    "steps.hook_desktop.connect",
    "steps.hook_desktop.harness",
    "steps.hook_desktop.user",
    "steps.hook_desktop.interactions",
    "steps.hook_desktop.hello",
    "steps.hook_desktop.acks",
    "steps.hook_desktop.turns",
    "steps.hook_desktop.reopen",
    "steps.hook_desktop.connection",
    "steps.hook_desktop.state",
    "steps.hook_desktop.bindings",
    "steps.hook_desktop.providers",
    "steps.hook_desktop.behavior",
    "steps.hook_desktop.group_relay",
    "steps.hook_desktop.message_ops",
    "steps.hook_desktop.queries",
    "steps.hook_desktop.tools",
    "steps.hook_desktop.default_workspace",
]
