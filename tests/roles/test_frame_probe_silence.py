"""A frame case whose barrier ping the subject answers too late leaves nothing to the next case
(simulator/roles/frame_probe.py): the probe gives the next case a connection of its own, so the late pong and the
late dropped-frames entry stay with the case they belong to. Over a real WebSocket, with a small hook server that
is slow on one frame and lists its dropped frames per connection, as a control API's ``dropped-frames`` does."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from simulator.hook import make_pong, make_welcome, serialize_hook_message
from simulator.roles.frame_probe import FrameProbe, HookServerOpener
from simulator.wirelog import WireLog

SLOW = "slow frame"


class SlowServer:
    """Answers hello with welcome and ping with pong; a frame holding ``SLOW`` takes 1.5 s and is then dropped
    (logged for its connection); any other text that is not JSON is dropped at once."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.connections: list[str] = []
        self.devices: dict[str, str] = {}
        self.dropped: dict[str, list[dict[str, Any]]] = {}
        self.url = ""
        ready = threading.Event()
        self.thread = threading.Thread(target=self._main, args=(ready,), daemon=True)
        self.thread.start()
        ready.wait(5)

    def _main(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)

        async def start() -> None:
            self.server = await serve(self._handler, "127.0.0.1", 0, ping_interval=None)
            self.url = f"ws://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/hook"
            ready.set()

        self.loop.run_until_complete(start())
        self.loop.run_forever()

    async def _handler(self, ws: ServerConnection) -> None:
        cid = f"conn-{len(self.connections) + 1}"
        self.connections.append(cid)
        self.dropped[cid] = []
        try:
            await self._serve(ws, cid)
        except ConnectionClosed:  # the probe closed the connection it retired
            pass

    async def _serve(self, ws: ServerConnection, cid: str) -> None:
        async for text in ws:
            try:
                message = json.loads(text)
            except ValueError:
                if SLOW in str(text):
                    await asyncio.sleep(1.5)  # busy with the frame
                self.dropped[cid].append({"connectionId": cid, "reason": "invalid", "code": "NOT_JSON",
                                          "slow": SLOW in str(text)})
                continue
            if message.get("type") == "hello":
                self.devices[cid] = message["payload"]["deviceId"]
                await ws.send(serialize_hook_message(make_welcome("slow-server", ())))
            elif message.get("type") == "ping":
                await ws.send(serialize_hook_message(make_pong()))

    def stop(self) -> None:
        async def shut() -> None:
            self.server.close()
            await self.server.wait_closed()

        asyncio.run_coroutine_threadsafe(shut(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


class Control:
    """The control calls the probe makes: ``connections`` and ``dropped-frames`` (docs/control-api.md)."""

    def __init__(self, server: SlowServer) -> None:
        self.server = server
        self.wire: WireLog | None = None

    def capabilities(self) -> frozenset[str]:
        return frozenset({"connections", "dropped-frames"})

    def call(self, capability: str, body: dict[str, Any]) -> dict[str, Any]:
        if capability == "connections":
            return {"connections": [{"connectionId": cid, "deviceId": device, "open": True}
                                    for cid, device in self.server.devices.items()]}
        return {"dropped": list(self.server.dropped[body["connectionId"]])}


@pytest.fixture
def server() -> Iterator[SlowServer]:
    running = SlowServer()
    yield running
    running.stop()


def test_the_case_after_an_unanswered_barrier_gets_a_connection_and_evidence_of_its_own(server: SlowServer) -> None:
    probe = FrameProbe("hook-server", HookServerOpener(server.url, None, 0.5, Control(server)))
    try:
        slow = probe.deliver(f"{SLOW} {'x' * 64}", WireLog())
        assert not slow.answered_barrier and slow.pongs == 0
        time.sleep(1.6)  # the server has now finished the slow frame: its pong and its drop entry are out
        next_case = probe.deliver("", WireLog())
        assert next_case.answered_barrier and next_case.pongs == 1
        assert [entry["slow"] for entry in next_case.dropped or []] == [False]  # its own drop, not the late one
        assert server.connections == ["conn-1", "conn-2"]
    finally:
        probe.close()
