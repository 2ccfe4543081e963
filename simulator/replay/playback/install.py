"""A ``simulator judge`` run: the harness runs a recording's scenarios against the recording itself.

``Playback`` is what the harness plugin installs when it runs with ``--playback RECORDING`` (which ``simulator
judge`` passes): it loads the recording, starts one ``PlaybackEngine``, and puts the engine's connectors in force
(``simulator.subjects.connectors``: the WebSocket connect and listener, the MCP transports and the control API's HTTP
exchange of every role the scenarios build), until ``uninstall``. The plugin then gives each scenario's wire log the engine as observer,
begins and ends the scenario's recorded timeline around it (``begin``/``end``), and resolves subjects with
``PlaybackSubjects``: nothing is started, dialled or killed; the addresses are placeholders the engine answers for.
``divergences`` keeps, per scenario key, where the harness played the scenario differently from the recording.
"""

from __future__ import annotations

import json
from contextvars import Token
from pathlib import Path
from typing import Any

from ..recording import Recording, load_recording
from ...subjects import connectors
from ...subjects.connectors import Connectors
from ...subjects.running import RunningReference
from ...harness.subjects import Subjects
from ...subjects.targets import Role
from .engine import PlaybackEngine
from .scope import PLAYBACK_FILE

__all__ = ["Playback", "PlaybackSubjects"]

_PLACEHOLDER = "playback.invalid"


class _PlayedCommand:
    """A ``cmd:`` subject in a playback: its addresses are placeholders; starting, killing and restarting it do
    nothing (what the subject did then, e.g. closing every connection, is in the recording)."""

    def __init__(self, role: Role) -> None:
        self.url = f"ws://{_PLACEHOLDER}/{role.value}"
        self.control_url = f"http://{_PLACEHOLDER}/{role.value}/control"
        self.pid = 0
        self.running = True

    def stderr_tail(self, limit: int = 0) -> str:
        return ""

    def start(self) -> None: ...

    def kill(self) -> None: ...

    def restart(self) -> None: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


class _PlayedServer:
    """An embedded MCP reference in a playback: only a name (the transports are the engine's)."""

    def __init__(self, role: Role) -> None:
        self.name = f"playback-{role.value}"


class PlaybackSubjects(Subjects):
    """``Subjects`` that start nothing: a reference or a command is a placeholder the engine answers for, and what
    the subjects said about themselves comes from the recording."""

    def __init__(self, config: Any, note: Any, identities: dict[str, dict[str, Any]]) -> None:
        super().__init__(config, note)
        self._identities = identities

    def _reference(self, role: Role) -> RunningReference:
        running = self._running.get(role)
        if running is None:
            running = RunningReference(role, url=f"ws://{_PLACEHOLDER}/{role.value}",
                                       control_url=f"http://{_PLACEHOLDER}/{role.value}/control",
                                       identity=dict(self._identities.get(role.value, {})), token="playback",
                                       server=_PlayedServer(role), server_factory=lambda env: _PlayedServer(role))
            self._running[role] = running
            self._note(role.value, "ref", running.identity)
        return running

    def desktop_listen_socket(self) -> None:
        """Nothing listens in a playback: the engine delivers the recorded desktop's dials."""
        return None

    def dial_reference_desktop(self, url: str, token: str | None = None) -> Any:
        """The embedded desktop dialling the harness: in a playback, the recording's desktop dials through the
        engine when its handshake falls due; the handle only names a control address."""
        return _PlayedCommand(Role.DESKTOP)

    def _command(self, role: Role) -> Any:
        command = self._commands.get(role)
        if command is None:
            # a stand-in for the CommandSubject the table holds: it has the members the harness uses
            command = self._commands[role] = _PlayedCommand(role)  # type: ignore[assignment]
            self._note(role.value, self.config.target(role).raw, dict(self._identities.get(role.value, {})))
        return command


class Playback:
    def __init__(self, path: Path) -> None:
        self.recording: Recording = load_recording(path)
        self.lines = {line["key"]: line for line in self.recording.scenarios}
        self.engine = PlaybackEngine()
        self.divergences: dict[str, list[str]] = {}
        self._in_force: Token[Connectors] | None = None

    def identities(self) -> dict[str, dict[str, Any]]:
        return {s["role"]: dict(s.get("identity", {})) for s in self.recording.header.get("subjects", [])}

    def install(self) -> None:
        """Put the engine's connectors in force for the roles built from now on (on this thread)."""
        if self._in_force is None:
            self._in_force = connectors.use(self.engine.connectors())

    def uninstall(self) -> None:
        if self._in_force is not None:
            connectors.restore(self._in_force)
            self._in_force = None
        self.engine.stop()

    def begin(self, key: str) -> bool:
        """Begin the scenario ``key``; False when the recording has no such scenario."""
        line = self.lines.get(key)
        if line is None:
            return False
        self.engine.begin(line["events"])
        return True

    def end(self, key: str) -> None:
        found = self.engine.end()
        if found:
            self.divergences.setdefault(key, []).extend(found)

    def write(self, directory: Path) -> Path:
        """``playback.json`` beside the judge run's report: per scenario key, where the replay diverged."""
        out = Path(directory) / PLAYBACK_FILE
        out.write_text(json.dumps({"recording": str(self.recording.path), "divergences": self.divergences},
                                  indent=1, ensure_ascii=False), encoding="utf-8")
        return out
