"""One MCP session with the probe-kit subject, and how the driver reaches the subject through the harness.

Every session is an ``McpClientRole`` opened through ``subjects.connect_mcp("probekit", client, env=…)``
(docs/probekit-plan.md): the environment a scenario needs (``MCP_TOOLSET``, ``MCP_SHOW_ALL``) is applied when the
harness starts the subject (stdio, ref); an HTTP subject was started by someone else, so a scenario needing another
environment than the one declared with ``--subject-env`` is not testable in that run. Tool calls go out as raw
JSON-RPC, so a protocol error is seen as such (never retried, never re-listed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

from simulator.roles.mcp_values import tool_list_problems
from simulator.subjects.targets import Role

from .calls import Call
from .expect import expect

if TYPE_CHECKING:
    from simulator.roles.mcp_client import McpClientRole
    from simulator.harness.subjects import Subjects
    from simulator.wirelog import WireLog

__all__ = ["ROLE", "HarnessSubject", "ProbeKitSubject", "ProbeSession"]

ROLE = Role.PROBEKIT.value


class ProbeKitSubject(Protocol):
    """What the driver needs of the harness: MCP sessions with the subject, the environment the run declared for
    it (``--subject-env``), and a place to note what the subject says about itself."""

    def open_client(self, env: Mapping[str, str], elicitation: str | None, *, stdio: bool = False) -> McpClientRole:
        """An initialized client session with the subject running with ``env``, declaring ``elicitation``
        ("form" | "url" | "both", None: no elicitation capability); ``stdio``: over the stdio transport."""
        ...

    def declared_env(self) -> Mapping[str, str]: ...

    def note_identity(self, identity: Mapping[str, Any]) -> None: ...

    def note_evidence(self, text: str) -> None:
        """Keep ``text`` with the scenario's result, whatever its verdict (what the harness saw on the way)."""
        ...

    def option(self, name: str) -> str | None:
        """The run's subject option ``probekit.<name>`` (``--subject-option``), None when not given."""
        ...


@dataclass(frozen=True, slots=True)
class HarnessSubject:
    """``ProbeKitSubject`` over the harness's fixtures: ``subjects`` connects, every client records into
    ``wire_log`` and is closed at teardown (``add_finalizer``), ``note_subject(role, target, identity)`` is the
    harness's record of the subject (reported as ``target``), ``evidence`` keeps a line with the scenario's result
    and ``options`` are the run's subject options for the role."""

    subjects: Subjects
    wire_log: WireLog
    step_timeout: float
    target: str
    note_subject: Callable[[str, str, dict[str, Any]], None]
    add_finalizer: Callable[[Callable[[], None]], None]
    #: ``evidence(text)``: the harness's evidence fixture (kept with the scenario's result).
    evidence: Callable[[str], None] = lambda text: None
    #: The run's subject options for this role (``--subject-option probekit.NAME=VALUE``).
    options: Mapping[str, str] = field(default_factory=dict)

    def open_client(self, env: Mapping[str, str], elicitation: str | None, *, stdio: bool = False) -> McpClientRole:
        from simulator.roles.mcp_client import McpClientRole  # loads the mcp SDK: only when a session opens

        client = McpClientRole(wirelog=self.wire_log, step_timeout=self.step_timeout)
        self.add_finalizer(client.close)
        self.subjects.connect_mcp(ROLE, client, env=dict(env) or None, stdio=stdio)
        client.initialize(elicitation=elicitation)
        return client

    def declared_env(self) -> Mapping[str, str]:
        return self.subjects.subject_env(ROLE)

    def note_identity(self, identity: Mapping[str, Any]) -> None:
        self.note_subject(ROLE, self.target, dict(identity))

    def note_evidence(self, text: str) -> None:
        self.evidence(text)

    def option(self, name: str) -> str | None:
        return self.options.get(name)


@dataclass
class ProbeSession:
    """A client session and what it listed: ``tools`` is read once (``listed``) unless listed again (``relist``)."""

    client: McpClientRole
    toolset: str | None
    tools: list[dict[str, Any]] | None = field(default=None)

    def relist(self) -> list[dict[str, Any]]:
        """``tools/list`` now (every page), kept for the checks that follow. An entry that is not a tool object
        with a string name fails (``tool_list_problems``): the checks tell tools by name."""
        tools = self.client.list_tools()
        problems = tool_list_problems(tools)
        expect(not problems, "tools/list answered entries that are not tools: " + "; ".join(problems)[:1500])
        self.tools = tools
        return self.tools

    def listed(self) -> list[dict[str, Any]]:
        return self.tools if self.tools is not None else self.relist()

    def listed_by_name(self) -> dict[str, dict[str, Any]]:
        return {str(t.get("name")): t for t in self.listed() if isinstance(t, dict)}

    def listed_names(self) -> list[str]:
        """Every name ``tools/list`` holds, in its order, repeats kept."""
        return [str(t.get("name")) for t in self.listed()]

    def tool(self, name: str) -> dict[str, Any]:
        """The listed tool ``name``; a tool the subject does not list fails."""
        found = self.listed_by_name().get(name)
        expect(found is not None, f"tools/list has no tool {name!r} (it lists {sorted(self.listed_by_name())})")
        return cast("dict[str, Any]", found)  # not None: expect() above

    def send(self, tool: str, arguments: dict[str, Any], task: Mapping[str, Any] | None = None) -> Call:
        """``tools/call`` exactly as given (``task``: task-augmented), its whole response kept."""
        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        if task is not None:
            params["task"] = dict(task)
        return Call(tool, arguments, self.client.raw_request("tools/call", params))
