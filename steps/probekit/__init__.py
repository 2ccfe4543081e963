"""Step vocabulary for ``features/probekit``: drive an MCP Probe Kit v2 server as its MCP client and judge what the
design "vNext 架构升级 - 设计文档" (mcp-probe-kit-v2-design.md) asks: toolsets, the output contract, gencommit,
WorkflowReport, Tasks and Elicitation.

Theory of operation: ``simulator.drivers.probekit`` (its module docstring). Each step here translates one Gherkin
phrase into one ``ProbeKitDriver`` operation or one check of that package, given the driver's state; the fixture
``probekit`` builds the driver from the harness fixtures. Expectations are written in the feature files.

Vocabulary (module: phrases):

* ``sessions``: ``Given a probe-kit MCP session with MCP_TOOLSET "<t>"`` [``and MCP_SHOW_ALL "<v>"``] [``whose
  client declares elicitation "none|form|url|both"``]; ``Given a probe-kit MCP session with no MCP_TOOLSET`` (not
  testable when ``--subject-env`` declares one); ``Given the client answers every form elicitation by filling its
  fields with "<text>"`` (url elicitations are accepted); ``Given the design's schema for "<tool glob>":`` + doc
  string; ``Given the call of "<tool>" with <JSON> | with arguments valid against its input schema, strings set to
  "<text>", succeeds on a probe-kit subject with MCP_TOOLSET "<t>"`` (the contrast for a toolset scenario).
* ``lists``: ``When the harness lists the probe-kit tools``; ``the listed tools are exactly these <n>:`` + doc
  string; ``the listed tools are <n> distinct tools, among them every one of these:`` + doc string; ``the probe-kit
  tool list has no tool named "<n>"``.
* ``calls``: ``When the harness calls "<tool>" with <JSON>`` / ``with the arguments:`` + doc string / ``with
  arguments valid against its input schema, strings set to "<text>"`` / ``with arguments that break its input
  schema``; ``When the harness makes that call``; ``When the harness calls every listed tool and each of these tools
  with {}:`` / ``… with arguments valid against its input schema, strings set to "<text>":`` + doc string of names;
  ``the call succeeds with a text``; ``the call answers isError: true with a text``; ``the call answered a tool
  result``; ``the error result carries its details in _meta.error``; ``every call answered a result whose content[0]
  is a non-empty text, never a protocol error nor an unknown-tool error``; ``the result text contains "<text>"``.
* ``structured``: ``at least one call answered a structured result, and every structured result is valid against
  its _meta.schema, the tool's outputSchema and the design's schema for that tool``; ``the structured content is
  valid against its _meta.schema, the tool's outputSchema and the design's schema for that tool``; ``… valid
  against the schema in its _meta.schema``; ``… valid against the design's schema:`` + doc string; ``the schema in
  _meta.schema requires "<a>", "<b>" and "<c>"``; ``the structured content field "<f>" is a non-empty string``;
  ``the final message starts with a Conventional Commits header of type "<t>"``; ``the result text contains the
  final message``; ``the structured content field "workflowName" names the called tool``.
* ``tasks``: ``When the harness calls "<tool>" with arguments valid against its input schema, strings set to
  "<text>", as a task with ttl <ms>``; ``… gets the task``; ``… waits until the task is completed``; ``… cancels the
  task`` [``while it is not terminal``: not testable if it already ended]; ``… lists the tasks``; ``… asks for the
  task result``; ``… waits until the task's ttl has passed``; ``the created task has a task id and a known status``
  / ``carries a ttl and a pollInterval``; ``tasks/get answers the same task id with a known status and
  timestamps``; ``the task status is "<s>"``; ``the cancel succeeded`` / ``is refused with a JSON-RPC error``; ``the
  task list holds the task`` / ``does not hold the task``; ``tasks/get no longer finds the task within <s>
  second(s)``; ``the task result is a tool result with a non-empty text``; ``the task result carries the
  related-task _meta naming the task``.
* ``elicitation``: ``the server sent no elicitation request`` / ``a form elicitation with a requested schema`` /
  ``no form elicitation`` / ``a url elicitation with a url and an elicitation id``; ``every elicitation sent is in url
  mode with a url and an elicitation id``; ``the result text asks the question with numbered options``; ``no form
  elicitation asks for a token, a password or a key``.
"""

pytest_plugins = [
    "steps.probekit.sessions", "steps.probekit.lists", "steps.probekit.calls", "steps.probekit.structured",
    "steps.probekit.tasks", "steps.probekit.elicitation",
]
