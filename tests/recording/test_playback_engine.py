"""The playback engine (simulator/replay/playback/engine.py) delivers what a recorded subject did after the scenario's
teardown began only once the replay's teardown begins (``PlaybackEngine.tearing_down``).

The regression it holds: a reference desktop stopped at the teardown closes its connection a few milliseconds after
the scenario's last WebSocket pong. Played as soon as that pong, the close reached the harness's role while its last
"nothing arrives" check still asked whether the connection was alive, and ``simulator judge`` turned a recorded pass
into "the subject did not answer a ping at the end of the window" (CI, twice)."""

from __future__ import annotations

import pytest

from simulator.replay.playback.engine import PlaybackEngine
from simulator.replay.playback.fakes import PlayedWebSocket
from simulator.wirelog import Direction, WireEvent

ROLE = "desktop-sim"


def note(t: float, summary: str, text: str = "", role: str = ROLE, channel: str = "connection",
         conn: int | None = 1) -> dict:
    return WireEvent(t, role, Direction.NOTE, channel, text or summary, None, summary, conn).to_json()


RECORDED = [
    note(0.000, "connect", "connecting to ws://127.0.0.1:9/hook", conn=None),
    note(0.010, "open", "opened ws://127.0.0.1:9/hook"),
    note(0.500, "ws ping", "WebSocket ping (is the subject alive?)"),
    note(0.501, "ws pong", "WebSocket pong"),
    note(0.502, "teardown", "the scenario's teardown begins", role="harness", channel="harness", conn=None),
    note(0.505, "close 1011", "closed by the peer with 1011"),
]


@pytest.fixture
def engine():
    engine = PlaybackEngine()
    yield engine
    engine.stop()


def replay(engine: PlaybackEngine, index: int) -> None:
    e = RECORDED[index]
    engine.observe(WireEvent(0.0, e["role"], Direction(e["direction"]), e["channel"], e["text"], None,
                             e["summary"], e.get("conn")))


def test_the_close_a_teardown_caused_waits_for_the_replays_teardown(engine: PlaybackEngine):
    engine.begin(RECORDED)
    replay(engine, 0)
    sock = engine._take(lambda: (engine._connects.get(ROLE) or [None])[0])
    assert isinstance(sock, PlayedWebSocket)
    replay(engine, 2)  # the harness's WebSocket ping: the recorded pong falls due at once
    assert engine._take(lambda: sock._early_pongs or None) == 1
    # everything the harness did before the close is matched; only the teardown is missing
    assert not sock._ended_event.wait(0.3), "the close was played before the replay's teardown began"
    engine.tearing_down()
    assert sock._ended_event.wait(10), "the close was never played after the replay's teardown began"
    assert engine.end() == []
