"""Step vocabulary for ``features/ccweb``: drive a ccweb MCP server as its MCP client, observe its conversations
through the control API, and judge what the PRD "统一 ccweb 消息回传接口" asks (ccweb-reply-mode-prd.md).

Theory of operation. Every scenario opens one MCP session with the subject (``McpClientRole`` over whatever the
``ccweb`` target is: the embedded reference, ``stdio:…`` or ``http(s)://…/mcp``) and, when it needs to see behind
the tools, the subject's control API (docs/ccweb-contract-plan.md, docs/control-api.md "ccweb"). The scenario logic
is the driver's (``simulator.drivers.ccweb``: ``CcwebDriver``, built by the session step as the ``ccweb`` fixture):
it creates the scenario's own two conversations, makes the calls, reads runs, messages and pending replies, and
judges. These steps only translate Gherkin into driver calls; expectations (tool names, field names, wording a
reader must find) are written in the feature files.

Where only a reader can judge a wording, ``a reader must judge that the <thing> says "<what>"`` records the text as
evidence and raises ``NeedsReview`` (the verdict is *review* until ``--reviews`` settles it), with the ids this run
created shown as placeholders in the material; the checks a machine can make run first and fail on their own.
Verdicts follow docs/targets.md "Verdicts" and docs/control-api.md ("How the harness reads these answers").

Vocabulary (see docs/writing-features.md), by step module:

* ``session``: ``Given a ccweb MCP session initialized by the harness`` (closed at the end of the scenario);
  ``Given a source conversation "<title>" and a target conversation "<title>"``; ``When the subject restarts``;
  ``Given|When a waiting pending reply from the source to the target is stored in the old shape, without the
  original request``.
* ``tool_list``: ``When the harness lists the tools``; ``exactly one listed tool is named "<n>"``, ``no listed tool
  is named "<n>"``, ``the input schema of "<n>" has the property "<p>" of type "<t>"`` / ``lists "<p>" as
  required``, ``the property "<p>" of the input schema of "<n>" allows exactly the values "<a>" and "<b>"``,
  ``nothing in the input schema of "<n>" gives "<p>" a default``, ``the description of "<n>" mentions "<text>"``,
  ``a reader must judge that the description of "<n>" says "<what>"``.
* ``fallback``: ``When the harness reads the Codex App fallback tool list``; ``no fallback tool is named "<n>"``,
  ``the fallback list has exactly one tool named "<n>"``, ``every fallback tool has a namespace``, ``every fallback
  tool has the description and input schema of the listed tool of the same name``, ``no fallback tool's name
  matches "<glob>"``.
* ``calls``: ``Given|When the source calls "<tool>" through tools/call|the legacy dynamic call with the content
  "<text>" [and replyMode <JSON>]``; ``the call succeeds``, ``the call succeeds, unless the subject refuses it for
  the missing replyMode`` (that refusal: not applicable), ``the call result is an error with a text``, ``the call is
  refused with a text``, ``the harness sent no "<method>" request`` (a guard on the scenario itself), ``the result
  carries the fields "<a>", "<b>" and "<c>"``, ``the result field "<f>" is "<v>"``.
* ``conversations``: ``When the target run finishes as "completed|blocked" with the output "<text>"``; ``the target
  conversation has exactly one target run, still running``, ``nothing was sent to the target conversation``, ``no
  pending reply targets the target conversation``, ``a pending reply for the request id keeps the original
  request`` / ``is still pending``, ``the output stays in the target conversation``, ``the source conversation
  receives the output``, ``a source continuation run starts for the request id``, ``the source conversation gets no
  write-back message and no continuation run``.
* ``prompts``: ``the prompt of the target run|source continuation run contains the <item>``, ``a reader must judge
  that the prompt of the target run|source continuation run says "<what>"``.
"""

pytest_plugins = [
    "steps.ccweb.session", "steps.ccweb.tool_list", "steps.ccweb.fallback", "steps.ccweb.calls",
    "steps.ccweb.conversations", "steps.ccweb.prompts",
]
