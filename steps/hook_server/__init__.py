"""Step vocabulary for ``features/hook/server``: the harness plays desktops dialling the hook server under test and
judges the server's obligations of slack-hook-protocol.md (§1–§4, §5 阶段 1 / 2/4/7/9 / 6 / 10 / 12 / 13 / 14,
turn.delivery 可靠性与兼容, 上下线通知偏好, 默认工作目录, 阶段 18 server 侧约定) and of UPSTREAM-FACTS.md (msg.op).

Theory of operation: ``simulator.drivers.hook_server``. One hook server serves the whole run (the embedded
reference, or ``--target hook-server=ws://…`` with ``--control hook-server=URL`` and ``--hook-token``); each scenario
gets a ``HookServerDriver`` (fixture ``hook_srv``, ``fixture.py``) that keeps the names the feature gives (devices,
chats, tasks, rounds), drives the channel through the server's control API (every answer checked against
docs/control-api.schema.json) and judges. A step here is one Gherkin phrase → one driver operation; the verdict rules
(no pass without evidence, *not applicable* only on the server's own declaration, *not testable* for what the run
does not give) are the driver's.

Vocabulary (every phrase starts with ``device "<D>"``, ``a user``, ``chat``, ``task``, ``the message``,
``the channel``, ``the server``, ``the card``, ``the connection``, ``the welcome``, ``the hook server``, ``a desktop``,
``that desktop``, ``the delivery``, ``the turn.delivery``, ``the delayed``, ``no frame the server``, ``no channel message``,
``group``, ``user``, ``devices``, ``the message op``, ``the post(s) of``, ``no control answer``, ``the queries`` or
``the Slack API``, so none clashes with ``steps/hook_desktop/``):

* ``connections``: ``device "<D>" is online [with hello <JSON>]`` (hello defaults: workspaces ["chat"], features
  ["turn-delivery-v1"]; the JSON overrides them); ``… is connected without saying hello``; ``… says hello``;
  ``… says hello again with <JSON>``; ``the server declares "<feature>"`` (not applicable otherwise); ``device "<D>"
  drops|closes its connection [and reconnects [without hello]]``; ``… sends a ping``; ``… turns its lifecycle
  announcement on|off``; ``the server pings every connected desktop``; ``the hook server restarts``; the hook token
  (``the hook server under test requires a token``, ``a desktop connects without a token|with a wrong token and says
  hello``); Then: pong, ping, welcome, the connection stays open, refusals.
* ``tasks``: ``a user writes "<text>" in chat "<chat>" [taking over the desktop session "<S>"] as task "<name>"``;
  ``a user writes "/stop"|"/new" in chat "<chat>"``; ``chat "<chat>" chooses the workspace "<alias>|-"``; Then:
  dispatches (workspace, sessionId, externalKey, source, redelivery), task.cancel, session.archive.
* ``turns``: ``device "<D>" acks "<name>" as accepted | queued at position <n> | rejected with reason "<r>"``;
  ``… reports progress "<text>" for "<name>"`` (``\\n`` for a newline); ``… ends "<name>" ok with "<text>" | with the
  error "<text>" | cancelled``; ``… reopens "<orig>" as "<round>" [again]``; replays, unregistered requests, bad input;
  Then: the dropped-frame log.
* ``channel``: the message of a task (state, text, shows / does not show, unchanged, closed out, publish count),
  messages per chat, acks recorded, online / offline notices, the delayed disconnect clean-up.
* ``deliveries``: turn.delivery states and their error, failing / held publishes, the server's clock, receipts.
* ``privacy``: Then no frame the server sent in this scenario carries a local absolute path in an alias field.
* ``provider_bindings``: ``device "<D>" is online declaring "<f1, f2>"``; ``… starts a telegram|x binding
  "<attempt>" [for scope "<s>"]``; ``… cancels the binding attempt "<a>"``; ``… revokes the binding "<a>"``; ``a user
  "<u>" sends the /start link of "<a>" in telegram chat "<chat>"``; ``the server hears from the provider that "<a>" is
  confirmed for principal "<p>"`` / ``… "await|deny|expire|fail" for "<a>"``; ``the server's clock passes the expiry of
  "<a>"``; provider prefs ``device "<D>" sets|asks for the telegram|x prefs of binding|scope "<ref>" …``, ``the channel
  sets …``; Then: the connect URL, confirmed / failed / revoked / superseded updates, the state after welcome, no
  provider frame, the dropped reason, the token's containment, the /start message no task, the binding listed or
  none listed, the prefs told or pushed.
* ``behavior``: ``device "<D>" sets|asks for the telegram behaviour of "<binding>"``, an empty set; Then:
  the state told, the overrides the server keeps (``behavior-overrides``).
* ``group_relay`` (spec §1 群消息中继, 阶段 14 and its 设计边界, 阶段 19): ``device "<D>" holds a telegram binding
  "<b>" of "<principal>" [in chat "<dm>"]`` (start → /start → confirmed; principals get fresh Telegram ids); ``group
  "<g>" has the member(s) "<p1, p2>"``; ``user(s) "<p>" leave(s) group "<g>"``; ``user "<p>" writes "<m>" in group "<g>"
  [in thread "<t>"] [addressing the bot]`` (fresh markers as text, file name, author name and handle, chat name);
  ``user "<p>" writes a /start link as "<m>" in group "<g>"``; ``device "<D>" goes offline`` / ``comes back online``;
  ``device "<D>" sends a group.message of group "<g>" | a msg.op.result of its own``; Then: ``device "<D>" receives "<m>"
  for its binding "<b>" [with every field as written]``, ``device(s) "<D, E>" receive(s) no group message`` / ``never
  receive(s) "<m>"``, ``device "<D>" receives the task of "<m>" triggered by that group message``, ``no control answer
  of the server holds the content of "<m>"``, ``the task of "<m>" carries nothing of "<earlier>"``.
* ``message_ops`` (UPSTREAM-FACTS msg.op / msg.op.result; §3; §2): ``device "<D>" gets the task "<t>" of a
  user in thread "<th>" of telegram chat "<c>"``; ``device "<D>" runs the message op "<op>" in the lane of "<t>" | in an
  unknown lane: <JSON action>`` (``"@<op>"`` stands for that op's messageId); ``… runs the malformed message op "<op>"
  in the lane of "<t>" with <case>`` (a scope carrying chatId, an unknown action kind, an edit without messageId, a
  media action without items); Then: ``the message op "<op>" is answered ok|not ok [with a messageId | with <n>
  messageIds]`` / ``is answered by nothing`` / ``posted nothing``, ``the post of "<op>" is in the lane of "<t>" with the
  text "<x>"`` / ``shows "<x>" after <n> edit(s)`` / ``has the reactions <JSON>`` / ``is deleted``, ``the posts of
  "<op>" hold the media "<a, b>"``.
* ``cards``: ``device "<D>" asks about "<name>" with the buttons "<a, b>"``; ``a user presses|tries to press "<b>"
  on that card``; ``device "<D>" withdraws that card with the reason "<r>"``; Then: the card, the decision.
* ``bindings`` (spec 阶段 5, 11, 13): ``device "<D>" starts a Slack sign-in``; ``… is signed in to Slack as user
  "<u>" of team "<t>"``; ``the Slack sign-in of device "<D>" is confirmed as user "<u>" of team "<t>" | is denied |
  expires | fails with the message "<m>" | fails because the app is not installed`` (the identity provider,
  ``slack-authorize``); ``device "<D>" revokes all its Slack bindings | revokes its Slack binding of team "<t>" |
  cancels its pending Slack sign-in``; ``… asks for its Slack preferences as "<q>"``; ``… sets its Slack preferences
  for workspace "<w>" [of team "<t>"] to <JSON> as "<q>"``; ``the channel sets the Slack preferences of user "<u>" of
  team "<t>" for workspace "<w>" to <JSON>``; ``a user of team "<t>" writes "<text>" in chat "<c>" as task "<n>"``;
  Then: bind.update by state, ``a bind.state with the bindings "u@t, …" | no binding``, no bind.state / bind.update,
  ``the server lists the Slack bindings of device "<D>" as "u@t, …" | none``, ``… a|no pending Slack sign-in``,
  ``the server dropped a "<type>" frame of device "<D>" as "<reason>"``, ``task "<n>" comes from team "<t>"``, the
  Slack preferences answering "<q>" (bound / not bound and empty), pushed, ``show workspace "<w>" [of team "<t>"]
  with <JSON>``. Users and teams get fresh ids per scenario.
* ``queries`` (spec 阶段 6): ``a user writes "/bind|/model|/effort|/session" in [the slack|telegram|x] chat
  "<chat>" [to device "<D>"] [as query "<q>"]`` (with a name the server must have sent a query); ``device "<D>"
  answers the query "<q>"`` (a list distinctive for the name) ``| with the error "<e>" | malformed: <case>``
  (``ok false without an error``, ``ok true without its list``, ``21 sessions``, ``a session workspace that is an
  absolute path``); ``… answers a query the server never asked``; ``the server's clock passes the timeout of the
  query "<q>"``; Then: ``device "<D>" receives the query "<q>" for "workspaces|models|sessions"``, ``the queries "<a>"
  and "<b>" have distinct queryIds``, ``device "<D>" receives no query for "<kind>"``, ``the server shows the query
  "<q>" answered with what device "<D>" sent | failed with the error "<e>" | timed out | still pending``.
* ``tools`` (spec 阶段 12, 阶段 13): ``device "<D>" calls the gateway tool "<tool>" [with <JSON args>] [for
  team "<t>"] as "<n>"``; ``… calls the first tool listed by "<list>" [for team "<t>"] as "<n>"``; ``… sends a
  malformed tool.request: <case>``; ``the Slack API fails the next <n> call(s) of device "<D>" with a raw provider
  error``; Then: ``device "<D>" receives exactly one|an answer to "<n>", ok|failed``, ``… an answer to "<n>" failed with
  the code "<C>" | with a safe structured error``, ``… receives no tool answer``, ``the server ran "<n>" as user "<u>"
  of team "<t>" | as nobody``, ``the server ran no tool call for device "<D>"``.
* ``provider_errors``: ``the channel fails the next <n> publish(es) of "<name>" with a raw provider error``;
  Then: ``no frame the server sent in this scenario carries a raw provider error``.
* ``card_limits`` (spec 阶段 10): ``device "<D>" asks about "<name>" with <n> buttons and the kind "<k>"``;
  ``… with a malformed card: <case>``; ``a user presses the last button on that card``; Then: ``the message of
  "<name>" shows that card as it was sent | shows no card from it``, ``device "<D>" receives the decision for the last
  button of that card``.
* ``workspaces`` (默认工作目录): ``device "<D>" says hello again with a defaultWorkspace outside its
  workspaces``.
"""

pytest_plugins = [
    "steps.hook_server.fixture", "steps.hook_server.connections", "steps.hook_server.tasks",
    "steps.hook_server.turns", "steps.hook_server.channel", "steps.hook_server.deliveries",
    "steps.hook_server.cards", "steps.hook_server.privacy", "steps.hook_server.bindings",
    "steps.hook_server.provider_bindings", "steps.hook_server.behavior",
    "steps.hook_server.group_relay", "steps.hook_server.message_ops",
    # queries, gateway tools, provider errors, cards at their limits, the default workspace
    "steps.hook_server.queries", "steps.hook_server.tools", "steps.hook_server.provider_errors",
    "steps.hook_server.card_limits", "steps.hook_server.workspaces",
]
