"""Group commit in the reference hook server's shell (server.py): a frame that follows a ``Persist`` leaves only once
the batch holding that ``Persist`` is committed, frames keep their order per connection, a frame of an input that
persists nothing goes at once when nothing waits before it on its connection, and the machine goes on (a second
batch gathers) while a commit runs.

The store is a fake whose commits the test releases one by one (``GatedStore``); the server runs for real on
127.0.0.1 with raw ``websockets`` clients, and every frame received is parsed by the protocol core."""

from __future__ import annotations

import queue
import threading
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from simulator.hook import (
    make_hello,
    make_ping,
    make_task_ack,
    make_turn_end,
    parse_hook_message,
    serialize_hook_message,
)
from simulator.reference.hookserver.machine import Persist, ServerSettings
from simulator.reference.hookserver.server import HookServer

pytestmark = pytest.mark.timeout(60)

QUIET_S = 0.4  # how long "nothing arrives" is watched
WAIT_S = 10.0


class GatedStore:
    """A store whose ``apply`` (the committer thread's transaction) blocks until the test releases it."""

    def load(self) -> dict[str, list[dict[str, Any]]]:
        return {}

    def __init__(self) -> None:
        self.started: queue.Queue[tuple[list[Persist], threading.Event]] = queue.Queue()
        self.committed: list[list[Persist]] = []
        self.gated = True  # False: commits go through at once

    def apply(self, persists: Any) -> None:
        items = list(persists)
        if not self.gated:
            self.committed.append(items)
            return
        gate = threading.Event()
        self.started.put((items, gate))
        assert gate.wait(WAIT_S), "the test never released this commit"
        self.committed.append(items)

    def next_commit(self) -> tuple[list[Persist], threading.Event]:
        return self.started.get(timeout=WAIT_S)

    def close(self) -> None:
        pass


@pytest.fixture
def rig():
    store = GatedStore()
    server = HookServer(ServerSettings(), store).start()  # type: ignore[arg-type]
    clients: list[ClientConnection] = []

    def client() -> ClientConnection:
        ws = connect(server.url, open_timeout=5).__enter__()
        clients.append(ws)
        return ws

    yield store, server, client
    for ws in clients:
        ws.close()
    # release whatever the shutdown still commits
    stopper = threading.Thread(target=server.stop)
    stopper.start()
    while stopper.is_alive():
        try:
            _items, gate = store.started.get(timeout=0.1)
            gate.set()
        except queue.Empty:
            pass
    stopper.join()


def hello(device: str) -> str:
    return serialize_hook_message(make_hello(protocol_version=1, device_id=device, device_name=device,
                                             workspaces=("main",), agents=("claude",),
                                             features=("turn-delivery-v1",)))


def receive(ws: ClientConnection) -> str:
    return receive_message(ws).type.value


def receive_message(ws: ClientConnection) -> Any:
    result = parse_hook_message(ws.recv(timeout=WAIT_S))
    assert result.ok, f"the server sent an invalid frame: {result.error}"
    assert result.message is not None
    return result.message


def nothing_arrives(ws: ClientConnection) -> None:
    with pytest.raises(TimeoutError):
        got = ws.recv(timeout=QUIET_S)
        pytest.fail(f"a frame arrived before its commit: {got}")


def test_a_held_frame_waits_for_its_commit_and_keeps_its_place(rig):
    store, _server, client = rig
    a = client()
    a.send(hello("dev-a"))
    rows, gate = store.next_commit()  # hello: the device row (and the online notice), then welcome
    assert {(p.table, p.key) for p in rows} >= {("devices", "dev-a")}
    nothing_arrives(a)  # the welcome is held while the commit runs
    a.send(serialize_hook_message(make_ping()))  # persists nothing, but the welcome waits before it
    nothing_arrives(a)
    gate.set()
    assert [receive(a), receive(a)] == ["welcome", "pong"]  # released in order: per-connection order holds


def test_a_frame_of_an_input_without_persist_goes_at_once(rig):
    store, _server, client = rig
    a, b = client(), client()
    a.send(hello("dev-a"))
    _rows, gate = store.next_commit()
    b.send(serialize_hook_message(make_ping()))  # nothing waits on b: its pong goes while a's commit runs
    assert receive(b) == "pong"
    nothing_arrives(a)
    gate.set()
    assert receive(a) == "welcome"


def test_the_machine_goes_on_during_a_commit_and_the_next_batch_waits_for_its_own(rig):
    store, _server, client = rig
    a, b = client(), client()
    a.send(hello("dev-a"))
    first, gate1 = store.next_commit()
    b.send(hello("dev-b"))  # handled at once (no lock held across the commit): its rows gather in batch 2
    nothing_arrives(b)
    gate1.set()
    assert receive(a) == "welcome"
    second, gate2 = store.next_commit()
    assert ("devices", "dev-b") in {(p.table, p.key) for p in second}
    assert ("devices", "dev-b") not in {(p.table, p.key) for p in first}
    nothing_arrives(b)  # batch 1 is committed, but b's welcome follows a row of batch 2
    gate2.set()
    assert receive(b) == "welcome"
    assert len(store.committed) == 2


def test_a_replayed_delivery_state_waits_for_the_commit_of_that_state(rig):
    """A frame of an input that persists nothing may still show state that is not committed yet: a replayed
    turn.end is answered with the latest delivery state, so the answer waits for the pending batch, even on a
    connection where nothing else waits (``accepted`` only ever leaves after the result's commit)."""
    store, server, client = rig
    store.gated = False
    a, b = client(), client()
    a.send(hello("dev-a"))
    b.send(hello("dev-b"))
    assert receive(a) == "welcome" and receive(b) == "welcome"
    answer = server.call(lambda now: server.machine.inject_message(
        {"provider": "slack", "chatId": "C1", "userId": "U1", "text": "hi", "deviceId": "dev-a"}, now))
    dispatch = receive_message(a)
    assert dispatch.type.value == "task.dispatch"
    rid = answer["requestId"]
    a.send(serialize_hook_message(make_task_ack(request_id=rid, result="accepted", session_id="s1")))
    end = serialize_hook_message(make_turn_end(request_id=rid, external_key=dispatch.payload.external_key,
                                               session_id="s1", status="ok", final_text="done", error_message=None))
    store.gated = True
    a.send(end)
    rows, gate = store.next_commit()  # the ack (maybe) and the end: the result and its publish
    while ("deliveries", rid) not in {(p.table, p.key) for p in rows}:
        gate.set()
        rows, gate = store.next_commit()
    b.send(end)  # a replay on another connection: nothing waits on b, but the state it would show is not durable
    nothing_arrives(b)
    nothing_arrives(a)
    store.gated = False
    gate.set()
    states = [receive_message(a).payload.state, receive_message(a).payload.state]
    assert states == ["accepted", "delivered"]
    assert receive_message(b).payload.state == "delivered"


def test_the_store_folds_a_batch_last_write_wins_and_a_reinsert_is_fresh(tmp_path):
    """A batch spans many inputs: the last row of a key wins, a row keeps its first seq (rows load in creation
    order), a row deleted then written again within the batch is inserted afresh (after the rows before it)."""
    from simulator.reference.hookserver.store import HookServerStore

    store = HookServerStore(tmp_path / "s.db")
    try:
        store.apply([Persist("lanes", "x", {"n": 1}), Persist("lanes", "y", {"n": 1})])
        store.apply([Persist("lanes", "x", {"n": 2}), Persist("lanes", "z", {"n": 1}), Persist("lanes", "x", {"n": 3}),
                      Persist("lanes", "y", None), Persist("lanes", "y", {"n": 2}), Persist("lanes", "w", {"n": 1}),
                      Persist("lanes", "w", None)])
        assert store.load()["lanes"] == [{"n": 3}, {"n": 1}, {"n": 2}]  # x (first seq), z, y (re-inserted last)
    finally:
        store.close()


@pytest.mark.parametrize("text", ["plain", "中文 한국어 😀👍🏽", "ctl \x00\x1f \" \\ / \u2028", "lone \ud800 surrogate"])
def test_the_machines_fast_frame_text_is_the_cores_frame(text):
    """The machine writes its frames with orjson where it can: the same JSON value as the core's serializer."""
    import json

    from simulator.hook import make_turn_delivery
    from simulator.reference.hookserver.wire import frame_text as _frame_text

    wire = make_turn_delivery(request_id=text, state="accepted", attempt=0, retry_at=None, error=None,
                              validate=False).to_wire()
    fast, core = _frame_text(wire), serialize_hook_message(wire)
    assert json.loads(fast) == json.loads(core)
    assert parse_hook_message(fast).ok == parse_hook_message(core).ok
