"""No group content stays on the reference hook server after a relay (spec 阶段 14 设计边界 "群聊内容不得驻留在
server(内存亦不允许) … server 侧仅可存 chatId ↔ principal 成员元数据(id 级,无内容)用于路由"). The conformance
feature (HOOK-SERVER-GROUP-05) sees the server from outside, through its control API; these tests also inspect the
reference's own state:

* a separate process (``python -m simulator serve hook-server --db FILE``) is driven through the group relay scenarios
  (the features selected to the relay requirements, as an implementer's CI runs them); then the SQLite file and its
  ``-wal`` / ``-shm`` files are read as raw bytes, and every text cell of every table through ``sqlite3``: none holds
  the markers the scenarios wrote in their group messages (texts, file names, author names and handles, chat names,
  the /start link). The scenario of a message addressing the bot (HOOK-SERVER-GROUP-06) is left out: its task keeps
  its prompt like every task (docs/control-api.md "Group relay").
* the embedded reference, driven over real WebSockets and its control API: after the relay, the machine's whole object
  graph (attributes, dicts, lists, tuples, sets, deques, dataclasses, slots) holds no marker, while it does hold the
  membership (the id-level metadata the spec allows).
"""

from __future__ import annotations

import re
import sqlite3
import time
import uuid
import types
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conformance_runs import PYTHON, assert_all_pass, child_env, run_features, serving
from websockets.sync.client import connect

from simulator.subjects.control import ControlClient
from simulator.hook import make_hello, make_provider_bind_start, parse_hook_message, serialize_hook_message
from simulator.reference.broken.hook_server import select
from simulator.reference.hookserver import start_server

pytestmark = pytest.mark.timeout(600)

#: The relay requirements whose scenarios write group messages the server must not keep (GROUP-06 left out: a task
#: keeps its prompt).
RELAY_REQS = ("HOOK-SERVER-GROUP-01", "HOOK-SERVER-GROUP-02", "HOOK-SERVER-GROUP-03", "HOOK-SERVER-GROUP-04",
              "HOOK-SERVER-GROUP-05", "HOOK-SERVER-GROUP-07", "HOOK-SERVER-RELAY-UNHANDLED-01")
#: The markers the driver writes in group messages (simulator/drivers/hook_server/group_relay.py ``write_in_group``,
#: ``write_start_link``; the desktop's own group.message of RELAY-UNHANDLED-01): fresh per message, so any trace of
#: one is a kept group message.
MARKERS = re.compile(rb"sim-group-text-[0-9a-f]{32}|sim-author-[0-9a-f]{32}|sim-chat-name-[0-9a-f]{32}"
                     rb"|sim-file-[0-9a-f]{32}|sim_[0-9a-f]{24}|/start [0-9a-f]{32}|sim-echo-[0-9a-f]{32}")


#: What the object walk does not enter.
_SKIP = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
         types.MethodWrapperType, types.WrapperDescriptorType)


def _files(db: Path) -> list[Path]:
    return [p for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists()]


def _raw_hits(db: Path) -> dict[str, list[bytes]]:
    """Marker matches in the raw bytes of the database and its WAL / shared-memory files (UTF-8 and UTF-16)."""
    hits: dict[str, list[bytes]] = {}
    for path in _files(db):
        data = path.read_bytes()
        found = MARKERS.findall(data) + MARKERS.findall(data.replace(b"\x00", b""))
        if found:
            hits[path.name] = sorted(set(found))[:5]
    return hits


def _cells(db: Path) -> Iterator[tuple[str, str]]:
    """(table, text) of every text cell of every table, read through SQLite (WAL included)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            for row in con.execute(f'SELECT * FROM "{table}"'):
                for cell in row:
                    if isinstance(cell, (str, bytes)):
                        yield table, cell if isinstance(cell, str) else cell.decode("utf-8", "replace")
    finally:
        con.close()


def test_the_scan_finds_a_marker_in_a_table_and_in_the_raw_files(tmp_path: Path) -> None:
    """The scanner itself: a marker written to a WAL-mode database is found in a cell and in the raw bytes."""
    db = tmp_path / "probe.sqlite3"
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE t (k TEXT PRIMARY KEY, row TEXT)")
    marker = f"sim-group-text-{uuid.uuid4().hex}"
    con.execute("INSERT INTO t VALUES (?, ?)", ("k", f'{{"text": "{marker}"}}'))
    con.commit()
    assert [t for t, c in _cells(db) if marker in c] == ["t"]
    assert any(marker.encode() in hit for hits in _raw_hits(db).values() for hit in hits)
    con.close()


def test_no_group_content_in_the_database_of_a_reference_process_after_the_relay_scenarios(tmp_path: Path) -> None:
    db = tmp_path / "hook-server.sqlite3"
    token = f"retention-{uuid.uuid4().hex}"
    env = child_env(lambda k: k == "HOOK_SERVER_REFERENCE_VARIANT")
    cmd = [PYTHON, "-m", "simulator", "serve", "hook-server", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0",
           f"--token={token}", "--db", str(db)]
    with serving(cmd, env=env) as ready:
        run = run_features("retention", tmp_path, "features/hook/test_hook_server.py",
                           [f"--target=hook-server={ready['url']}", f"--control=hook-server={ready['control']}",
                            f"--hook-token={token}", *(f"--req={r}" for r in RELAY_REQS)], env)
        assert set(run.verdicts()) == set(RELAY_REQS), run.explain()
        assert_all_pass(run)  # the group messages were relayed: there was content to keep
        live_raw = _raw_hits(db)
        live_cells = [(t, MARKERS.findall(c.encode())) for t, c in _cells(db) if MARKERS.search(c.encode())]
        members = [c for t, c in _cells(db) if t == "group_members"]
    assert members, "the run stored no membership: the database read is not the one the relay used"
    assert not live_raw, f"group content in the running server's database files: {live_raw}"
    assert not live_cells, f"group content in the running server's tables: {live_cells[:5]}"
    stopped_raw = _raw_hits(db)
    assert not stopped_raw, f"group content in the database files after the server stopped: {stopped_raw}"


# -- the embedded machine's object graph ----------------------------------------------------------------------------


def _strings(root: Any) -> Iterator[tuple[str, str]]:
    """Every string reachable from ``root`` (path, value): attributes and slots, dict keys and values, lists, tuples,
    sets, deques, dataclass fields; not into modules, classes, functions and methods."""
    seen: set[int] = set()
    stack: list[tuple[str, Any]] = [("machine", root)]
    while stack:
        path, obj = stack.pop()
        if isinstance(obj, str):
            yield path, obj
        elif isinstance(obj, (bytes, bytearray)):
            yield path, bytes(obj).decode("utf-8", "replace")
        elif obj is None or isinstance(obj, (int, float, complex, _SKIP)) or id(obj) in seen:
            continue
        else:
            seen.add(id(obj))
            if isinstance(obj, dict):
                for k, v in obj.items():
                    stack += [(f"{path}[key]", k), (f"{path}[{k!r}]", v)]
            elif isinstance(obj, (list, tuple, set, frozenset, deque)):
                stack += [(f"{path}[{i}]", v) for i, v in enumerate(obj)]
            else:
                names = list(getattr(obj, "__dict__", {}))
                for klass in type(obj).__mro__:
                    slots = getattr(klass, "__slots__", ())
                    names += [slots] if isinstance(slots, str) else list(slots)
                for name in dict.fromkeys(names):
                    if hasattr(obj, name):
                        stack.append((f"{path}.{name}", getattr(obj, name)))


def _recv(ws, type_: str, timeout: float = 5.0):
    deadline = time.monotonic() + timeout
    while True:
        raw = ws.recv(timeout=max(0.01, deadline - time.monotonic()))
        m = parse_hook_message(raw)
        assert m.ok, m.error
        if m.message.type.value == type_:
            return m.message.payload


@pytest.mark.parametrize("variant", [None, "relay-mirrors-group-chat"])
def test_no_group_content_reachable_from_the_embedded_machine_after_a_relay(variant: str | None) -> None:
    """The correct server keeps nothing; the broken ``relay-mirrors-group-chat`` (it keeps each message as a channel
    message) shows that the walk finds content where there is some."""
    handle = start_server(token="t", **select.build(variant or "").start_options())
    try:
        control = ControlClient(handle.control_url, role="hook-server")
        tag = uuid.uuid4().hex
        markers = [f"text-{tag}", f"file-{tag}.txt", f"author-{tag}", f"handle_{tag[:20]}", f"chat-{tag}",
                   f"/start {tag}"]
        with connect(handle.url, additional_headers={"Authorization": "Bearer t"}, open_timeout=5) as ws:
            ws.send(serialize_hook_message(make_hello(
                protocol_version=1, device_id="rd", device_name="rd", workspaces=("chat",), agents=("a",),
                features=("provider-bind-v1", "group-relay-v1", "group-relay-recipient-v1", "msg-op-v1"))))
            _recv(ws, "welcome")
            ws.send(serialize_hook_message(make_provider_bind_start(request_id="rb", provider="telegram")))
            pending = _recv(ws, "provider.bind.update")
            (token,) = [a["token"] for a in control.call("list-bindings", {"deviceId": "rd"})["attempts"]
                        if a["attemptId"] == pending.attempt_id]
            control.call("inject-message", {"provider": "telegram", "chatId": "555", "userId": "555",
                                            "text": f"/start {token}"})
            assert _recv(ws, "provider.bind.update").state == "confirmed"
            control.call("group-member", {"provider": "telegram", "chatId": "-1002", "principalId": "555"})
            answer = control.call("inject-group-message", {
                "provider": "telegram", "chatId": "-1002", "threadId": "4", "chatName": markers[4],
                "author": {"id": "77", "name": markers[2], "username": markers[3]}, "text": markers[0],
                "fileNames": [markers[1]]})
            assert answer["relayed"] == 1
            relayed = _recv(ws, "group.message")
            assert relayed.text == markers[0] and relayed.recipient.principal_id == "555"
            control.call("inject-group-message", {"provider": "telegram", "chatId": "-1002", "text": markers[5],
                                                  "author": {"id": "77", "name": markers[2]}})
            control.call("connections")  # a barrier through the machine's lock
        strings = list(_strings(handle.machine))
        assert any(v == "-1002" for _, v in strings), "the walk did not reach the membership (it proves nothing)"
        found = [(path, value[:80]) for path, value in strings if any(m in value for m in markers)]
        if variant is None:
            assert not found, f"group content reachable from the machine after the relay: {found[:5]}"
        else:
            assert any(path.startswith("machine.messages") for path, _ in found), found[:5]
    finally:
        handle.stop()
