"""Unit tests of the reference desktop's sans-I/O machine: events in, effects out, no I/O, a fake clock."""

from __future__ import annotations

from itertools import pairwise

import json
import uuid
from random import Random

import pytest

from simulator.hook import (
    make_interaction_decision,
    make_ping,
    make_session_archive,
    make_task_cancel,
    make_task_dispatch,
    make_turn_delivery,
    make_welcome,
    parse_hook_message,
    serialize_hook_message,
)
from simulator.reference.desktop.agent import InteractionScript, Script, ScriptButton, filter_attachments
from simulator.hook import Attachment, DispatchOptions
from simulator.reference.desktop.machine import (
    DesktopMachine,
    Forget,
    MachineError,
    Persist,
    Schedule,
    Send,
    Unschedule,
)
from simulator.reference.broken.desktop.select import make_machine

ALL = ["turn-delivery-v1", "turn-reopen-v1", "lifecycle-announcement-v1"]


class Harness:
    """A machine with a fake clock and timers; ``sent`` collects (type, payload dict, text)."""

    def __init__(self, variant: str | None = None, **kw):
        rng = Random(7)
        kw.setdefault("workspaces", {"repo": "/abs/repo"})
        kw.setdefault("ids", lambda: str(uuid.UUID(int=rng.getrandbits(128), version=4)))
        self.m = make_machine(variant, **kw)
        self.now = 1_000_000.0
        self.timers: dict[tuple, float] = {}
        self.sent: list[tuple[str, dict, str]] = []
        self.store: dict[str, str] = {}
        self.online = True

    def apply(self, effects):
        for e in effects:
            if isinstance(e, Send):
                if self.online:
                    self.sent.append((e.type, json.loads(e.text)["payload"], e.text))
                    self.apply(self.m.on_written(e, self.now))
                else:
                    self.apply(self.m.on_send_failed(e, self.now))
            elif isinstance(e, Persist):
                self.store[e.request_id] = e.text
            elif isinstance(e, Forget):
                self.store.pop(e.request_id, None)
            elif isinstance(e, Schedule):
                self.timers[e.key] = e.at
            elif isinstance(e, Unschedule):
                self.timers.pop(e.key, None)

    def connect(self, features=ALL):
        self.online = True
        self.apply(self.m.on_connected(self.now))
        self.apply(self.m.on_frame(serialize_hook_message(make_welcome("srv", tuple(features))), self.now))

    def disconnect(self):
        self.online = False
        self.apply(self.m.on_disconnected(self.now))

    def frame(self, msg):
        self.apply(self.m.on_frame(serialize_hook_message(msg), self.now))

    def dispatch(self, rid, key="slack:1", workspace="chat", session_id=None, prompt="hi"):
        self.frame(make_task_dispatch(rid, key, workspace, session_id, prompt))

    def run(self, ms=60_000):
        """Advance the clock, firing due timers in order."""
        end = self.now + ms
        while self.timers:
            key, at = min(self.timers.items(), key=lambda kv: kv[1])
            if at > end:
                break
            del self.timers[key]
            self.now = max(self.now, at)
            self.apply(self.m.on_timer(key, self.now))
        self.now = end

    def types(self, rid=None):
        return [t for t, p, _ in self.sent if rid is None or p.get("requestId") == rid]

    def of(self, type_):
        return [p for t, p, _ in self.sent if t == type_]


# -- hello ---------------------------------------------------------------------------------------------------------


def test_hello_has_chat_first_aliases_only_features_and_explicit_lifecycle():
    h = Harness(workspaces={"repo": "/abs/repo", "docs": "/abs/docs"}, default_workspace="repo")
    h.connect()
    hello = h.of("hello")[0]
    assert hello["workspaces"] == ["chat", "repo", "docs"]
    assert "/abs/repo" not in json.dumps(hello)
    assert set(ALL) <= set(hello["features"])
    assert hello["lifecycleAnnouncement"] is True
    assert hello["defaultWorkspace"] == "repo"
    assert parse_hook_message(h.sent[0][2]).ok


@pytest.mark.parametrize(("default", "exists", "expected"), [
    ("repo", True, "repo"),
    ("repo", False, None),       # folder gone: cleared before the hello
    ("nope", True, None),        # not an alias
    (None, True, None),
])
def test_default_workspace_only_when_alias_with_folder(default, exists, expected):
    h = Harness(default_workspace=default, folder_exists=lambda p: exists)
    h.connect()
    assert h.of("hello")[0].get("defaultWorkspace") == expected


def test_hello_resent_when_aliases_change_and_when_folder_removed():
    h = Harness(default_workspace="repo")
    h.connect()
    h.apply(h.m.set_workspaces({"repo": "/abs/repo", "b": "/abs/b"}, "b", h.now))
    assert h.of("hello")[-1]["workspaces"] == ["chat", "repo", "b"]
    assert h.of("hello")[-1]["defaultWorkspace"] == "b"
    h.apply(h.m.remove_workspace_folder("b", h.now))
    last = h.of("hello")[-1]
    assert last["workspaces"] == ["chat", "repo"] and last.get("defaultWorkspace") is None


def test_ping_gets_pong():
    h = Harness()
    h.connect()
    h.frame(make_ping())
    assert h.types()[-1] == "pong"


# -- dispatch / ack ------------------------------------------------------------------------------------------------

ACK_TABLE = [
    # (setup, dispatch kwargs, expected result, reason)
    ("none", dict(workspace="chat"), "accepted", None),
    ("none", dict(workspace="repo"), "accepted", None),
    ("none", dict(workspace="elsewhere"), "rejected", "unknown_workspace"),
    ("none", dict(workspace=None, session_id="no-such-session"), "rejected", "session_not_found"),
    ("disabled", dict(workspace="chat"), "rejected", "disabled"),
    ("none", dict(workspace="chat", prompt="   "), "rejected", "invalid"),
    ("busy", dict(workspace="chat"), "queued", None),
]


@pytest.mark.parametrize(("setup", "kw", "result", "reason"), ACK_TABLE)
def test_ack_table(setup, kw, result, reason):
    h = Harness()
    h.connect()
    if setup == "disabled":
        h.m.enabled = False
    if setup == "busy":
        h.m.script_next_turn(Script(wait_for_cancel=True))
        h.dispatch("r0")
    h.dispatch("r1", **kw)
    ack = [p for p in h.of("task.ack") if p["requestId"] == "r1"][0]
    assert ack["result"] == result and ack["reason"] == reason
    assert (ack["sessionId"] is None) == (result == "rejected")
    assert (ack["queuePosition"] is not None) == (result == "queued")


def test_same_external_key_same_session_and_takeover():
    h = Harness()
    h.connect()
    h.dispatch("r1", key="k1")
    h.run()
    h.dispatch("r2", key="k1")
    acks = h.of("task.ack")
    assert acks[0]["sessionId"] == acks[1]["sessionId"]
    h.run()
    h.dispatch("r3", key="k2", workspace=None, session_id=acks[0]["sessionId"])
    assert h.of("task.ack")[-1] == {**h.of("task.ack")[-1], "result": "accepted", "sessionId": acks[0]["sessionId"]}


def test_redelivery_replays_the_ack_byte_identical_and_does_not_run_again():
    h = Harness()
    h.connect()
    h.dispatch("r1")
    h.dispatch("r1")
    acks = [text for t, p, text in h.sent if t == "task.ack"]
    assert len(acks) == 2 and acks[0] == acks[1]
    h.run()
    assert h.m.runs["r1"] == 1
    assert h.types("r1").count("turn.end") == 1


def test_variant_redelivery_runs_twice():
    h = Harness(variant="redelivery-runs-twice")
    h.connect()
    h.dispatch("r1")
    h.run()
    h.dispatch("r1")
    h.run()
    assert h.m.runs["r1"] == 2


def test_queued_turn_runs_after_the_first_and_cancel_ends_it():
    h = Harness()
    h.connect()
    h.m.script_next_turn(Script(wait_for_cancel=True))
    h.dispatch("r1")
    h.dispatch("r2")
    h.dispatch("r3")
    assert [p["queuePosition"] for p in h.of("task.ack")] == [None, 1, 2]
    h.frame(make_task_cancel("r3"))
    h.frame(make_task_cancel("r1"))
    h.frame(make_task_cancel("unknown"))  # ignored
    h.run()
    ends = {p["requestId"]: p["status"] for p in h.of("turn.end")}
    assert ends == {"r1": "cancelled", "r3": "cancelled", "r2": "ok"}


def test_archive_is_idempotent_and_a_new_session_follows():
    h = Harness()
    h.connect()
    h.dispatch("r1", key="k")
    h.run()
    h.frame(make_session_archive("k"))
    h.frame(make_session_archive("k"))
    h.frame(make_session_archive("never"))
    h.dispatch("r2", key="k")
    a1, a2 = h.of("task.ack")
    assert a1["sessionId"] != a2["sessionId"]


# -- the scripted agent ------------------------------------------------------------------------------------------


def test_default_script_progress_then_done_with_duration():
    h = Harness()
    h.connect()
    h.dispatch("r1")
    h.run()
    assert h.types("r1") == ["task.ack", "turn.progress", "turn.end"]
    end = h.of("turn.end")[0]
    assert h.of("turn.progress")[0]["text"] == "working…"
    assert end["status"] == "ok" and end["finalText"] == "done" and end["errorMessage"] is None
    assert end["usage"]["durationMs"] == 20  # one progress, then the end: two steps of the default 10 ms


def test_progress_throttled_latest_wins_never_concatenated():
    h = Harness(progress_interval_ms=1500)
    h.connect()
    h.m.script_next_turn(Script(progress=("a", "ab", "abc", "abcd"), step_ms=500))
    h.dispatch("r1")
    times = []
    while h.timers:
        before = len(h.of("turn.progress"))
        h.run(100)
        if len(h.of("turn.progress")) > before:
            times.append(h.now)
    texts = [p["text"] for p in h.of("turn.progress")]
    assert texts[0] == "a" and all(t in ("a", "ab", "abc", "abcd") for t in texts)
    assert all(b - a >= 1500 for a, b in pairwise(times))


@pytest.mark.parametrize(("status", "err", "expected_err"), [
    ("ok", "ignored", None), ("error", None, "the agent failed"), ("error", "boom", "boom"),
])
def test_end_status_error_linkage(status, err, expected_err):
    h = Harness()
    h.connect()
    h.m.script_next_turn(Script(status=status, error_message=err, measure_duration=False))
    h.dispatch("r1")
    h.run()
    end = h.of("turn.end")[0]
    assert end["status"] == status and end["errorMessage"] == expected_err and end["usage"]["durationMs"] is None


def test_attachments_allowlist():
    atts = (Attachment("a.jpg", "image/jpg", "AA=="), Attachment("b.txt", "text/plain", "AA=="),
            Attachment("c.png", "image/png", "AA=="))
    assert [a.mime_type for a in filter_attachments(atts)] == ["image/jpeg", "image/png"]


# -- outbox / delivery -----------------------------------------------------------------------------------------


def test_outbox_kept_until_delivery_accepted_and_resent_byte_identical():
    h = Harness()
    h.connect()
    h.dispatch("r1")
    h.run()
    end_text = [text for t, p, text in h.sent if t == "turn.end"][0]
    assert h.store == {"r1": end_text}
    h.disconnect()
    h.connect()
    assert [text for t, p, text in h.sent if t == "turn.end"] == [end_text, end_text]
    h.frame(make_turn_delivery("r1", "accepted", 0))
    assert h.store == {} and h.m.outbox == {}


def test_outbox_without_delivery_feature_forgotten_once_written_and_kept_when_offline():
    h = Harness()
    h.connect(features=[])
    h.dispatch("r1")
    h.run()
    assert h.store == {}
    h.dispatch("r2")
    h.disconnect()
    h.run()
    assert list(h.store) == ["r2"]
    h.connect(features=[])
    assert h.types("r2")[-1] == "turn.end" and h.store == {}


# -- reopen ----------------------------------------------------------------------------------------------------


def _finished(h, rid="r1", **script):
    if script:
        h.m.script_next_turn(Script(**script))
    h.dispatch(rid)
    h.run()


@pytest.mark.parametrize("progress", [("p",), ()])
def test_retry_turn_sends_reopen_first_with_uuid4(progress):
    h = Harness()
    h.connect()
    _finished(h, status="error")
    h.m.script_next_turn(Script(progress=progress))
    new_id, effects = h.m.retry_turn("r1", h.now)
    h.apply(effects)
    assert not h.types(new_id)  # not before the first event is observed
    h.run()
    types = h.types(new_id)
    assert types[0] == "turn.reopen" and types[-1] == "turn.end"
    reopen = h.of("turn.reopen")[0]
    assert reopen["reopenOf"] == "r1" and reopen["requestId"] != "r1" and uuid.UUID(new_id).version == 4
    assert new_id not in h.store  # never cached
    assert "interaction.request" not in types


def test_reopen_round_not_replayed_and_thread_dropped_when_end_lost():
    h = Harness()
    h.connect()
    _finished(h, status="error")
    h.m.script_next_turn(Script(step_ms=1000))
    new_id, effects = h.m.retry_turn("r1", h.now)
    h.apply(effects)
    h.run(1500)  # reopen + progress sent
    h.disconnect()
    h.run()
    h.connect()
    assert "turn.end" not in h.types(new_id)
    assert "r1" not in h.m.reopenable and new_id not in h.m.reopenable


def test_no_reopen_without_feature_or_for_ask_in_session():
    h = Harness()
    h.connect(features=["turn-delivery-v1"])
    _finished(h)
    new_id, effects = h.m.retry_turn("r1", h.now)
    h.apply(effects)
    h.run()
    assert new_id is None and not h.of("turn.reopen")
    h2 = Harness()
    h2.connect()
    _finished(h2)
    n = len(h2.sent)
    h2.apply(h2.m.ask_in_session("r1", "more?", h2.now))
    h2.run()
    assert len(h2.sent) == n


def test_retry_of_unknown_or_running_turn_is_refused():
    h = Harness()
    h.connect()
    with pytest.raises(MachineError):
        h.m.retry_turn("nope", h.now)
    h.m.script_next_turn(Script(wait_for_cancel=True))
    h.dispatch("r1")
    with pytest.raises(MachineError):
        h.m.retry_turn("r1", h.now)


def test_reopen_ttl():
    h = Harness(reopen_ttl_ms=1000)
    h.connect()
    _finished(h)
    h.run(2000)
    new_id, _ = h.m.retry_turn("r1", h.now)
    assert new_id is None


@pytest.mark.parametrize(("variant", "check"), [
    ("reopen-after-progress", lambda types, rid: types[:2] == ["turn.progress", "turn.reopen"]),
    ("counter-reopen-id", lambda types, rid: rid == "reopen-1"),
])
def test_reopen_variants(variant, check):
    h = Harness(variant=variant)
    h.connect()
    _finished(h)
    new_id, effects = h.m.retry_turn("r1", h.now)
    h.apply(effects)
    h.run()
    assert check(h.types(new_id), new_id)


# -- interactions / lifecycle ------------------------------------------------------------------------------------


def test_interaction_decision_mapped_and_late_ignored():
    h = Harness()
    h.connect()
    card = InteractionScript(buttons=(ScriptButton("b1", "Yes", "approve"), ScriptButton("b2", "No", "reject")))
    h.m.script_next_turn(Script(interaction=card, final_text="decided {decision}"))
    h.dispatch("r1")
    h.run(500)  # the run stops at the card
    req = h.of("interaction.request")[0]
    assert [b["id"] for b in req["buttons"]] == ["b1", "b2"]
    h.frame(make_interaction_decision("r1", req["interactionId"], "b2"))
    h.frame(make_interaction_decision("r1", req["interactionId"], "b1"))  # late: ignored
    h.run()
    assert h.of("turn.end")[0]["finalText"] == "decided reject"
    assert not h.of("interaction.cancel")


def test_interaction_timeout_safe_default_then_cancel():
    h = Harness()
    h.connect()
    _finished(h, interaction=InteractionScript(timeout_ms=1000), final_text="{decision}")
    assert h.types("r1")[-2:] == ["interaction.cancel", "turn.end"]
    assert h.of("turn.end")[0]["finalText"] == "deny"


def test_interaction_script_validation():
    with pytest.raises(ValueError):
        InteractionScript.from_json({"buttons": [{"id": "a|b"}]})
    with pytest.raises(ValueError):
        InteractionScript.from_json({"buttons": [{"id": "a"}, {"id": "a"}]})
    with pytest.raises(ValueError):
        InteractionScript.from_json({"buttons": [{"id": f"b{i}"} for i in range(25)]})


@pytest.mark.parametrize(("features", "variant", "sent"), [
    (ALL, None, True), ([], None, False), ([], "lifecycle-without-feature", True),
])
def test_lifecycle_preference_only_after_feature(features, variant, sent):
    h = Harness(variant=variant)
    h.connect(features=features)
    h.apply(h.m.set_lifecycle_preference(False, h.now))
    assert bool(h.of("lifecycle.preference")) is sent
    assert h.m.lifecycle_enabled is False


def test_variant_lookup():
    assert make_machine(None).__class__ is DesktopMachine
    assert make_machine("counter-reopen-id").__class__.__name__ == "CounterReopenId"
    with pytest.raises(ValueError, match="unknown desktop variant 'bogus'"):
        make_machine("bogus")


def test_cancel_during_interaction_cancels_the_card_then_ends():
    h = Harness()
    h.connect()
    h.m.script_next_turn(Script(interaction=InteractionScript()))
    h.dispatch("r1")
    h.run(500)
    h.frame(make_task_cancel("r1"))
    assert h.types("r1")[-3:] == ["interaction.request", "interaction.cancel", "turn.end"]
    assert h.of("turn.end")[0]["status"] == "cancelled"
    assert h.of("interaction.cancel")[0]["interactionId"] == h.of("interaction.request")[0]["interactionId"]


def test_no_reopen_while_offline_and_features_renegotiated():
    h = Harness()
    h.connect()
    _finished(h)
    h.disconnect()
    assert h.m.server_features == frozenset()
    new_id, _ = h.m.retry_turn("r1", h.now)
    assert new_id is None


# -- additions: agent kinds, takeover state, sending only once welcomed, persistence effects -------------------------


def test_dispatch_for_an_agent_kind_hello_never_listed_is_rejected_invalid():
    h = Harness()
    h.connect()
    h.frame(make_task_dispatch("r1", "k1", "chat", None, "hi", options=DispatchOptions(agent_kind="gpt-unknown")))
    h.frame(make_task_dispatch("r2", "k2", "chat", None, "hi", options=DispatchOptions(agent_kind="claude")))
    acks = {p["requestId"]: p for p in h.of("task.ack")}
    assert acks["r1"]["result"] == "rejected" and acks["r1"]["reason"] == "invalid"
    assert acks["r1"]["sessionId"] is None
    assert acks["r2"]["result"] == "accepted"


def test_takeover_runs_in_that_session_and_state_names_it():
    h = Harness()
    h.connect()
    h.dispatch("r1", key="k1")
    h.run()
    sid = h.of("task.ack")[0]["sessionId"]
    h.dispatch("r2", key="k2", workspace=None, session_id=sid)
    h.run()
    assert h.of("task.ack")[1]["sessionId"] == sid
    assert [p["sessionId"] for p in h.of("turn.end")] == [sid, sid]
    runs = {r["requestId"]: r for r in h.m.state(h.now)["runs"]}
    assert runs["r2"]["sessionId"] == sid


def test_turn_end_waits_for_welcome_and_progress_is_dropped_offline():
    h = Harness()
    h.connect(features=[])
    h.m.script_next_turn(Script(progress=("a", "b"), step_ms=100))
    h.dispatch("r1")
    h.disconnect()
    h.online = True
    h.apply(h.m.on_connected(h.now))  # connected again, but no welcome yet
    h.run()
    assert h.types("r1") == ["task.ack"]  # nothing of the turn before welcome
    assert list(h.store) == ["r1"]
    h.frame(make_welcome("srv", ()))
    assert h.types("r1") == ["task.ack", "turn.end"] and h.store == {}


def test_saves_come_before_the_ack_and_a_new_machine_loads_them():
    h = Harness()
    h.connect()
    effects = h.m.on_frame(serialize_hook_message(make_task_dispatch("r1", "k1", "chat", None, "hi")), h.now)
    kinds = [type(e).__name__ for e in effects]
    assert kinds[:3] == ["SaveSession", "SaveAck", "Send"]
    session, ack = effects[0], effects[1]
    h.apply(effects)
    h.frame(make_session_archive("k1"))
    h.frame(make_session_archive("k1"))  # already archived: nothing more saved
    again = DesktopMachine(saved_sessions=[(session.session_id, "k1", "chat", False)],
                           saved_acks={"r1": ack.text})
    again.on_connected(h.now)
    again.on_frame(serialize_hook_message(make_welcome("srv", ())), h.now)
    replay = again.on_frame(serialize_hook_message(make_task_dispatch("r1", "k1", "chat", None, "hi")), h.now)
    assert [e.text for e in replay if isinstance(e, Send)] == [ack.text] and again.runs == {}
    second = again.on_frame(serialize_hook_message(make_task_dispatch("r2", "k1", "chat", None, "hi")), h.now)
    acked = [json.loads(e.text)["payload"] for e in second if isinstance(e, Send)][0]
    assert acked["sessionId"] == session.session_id
