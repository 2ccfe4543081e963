"""``simulator replay``'s comparison of what the harness played (simulator/replay/replaying.py ``harness_side``): the
upkeep a wait asks for as often as the subject's timing makes it (barrier pings, ``settle``, the capabilities read)
is not part of the play; every other send is."""

from simulator.replay.replaying import compare_sides, harness_side


def _sent(summary: str, channel: str = "control") -> dict:
    return {"direction": "sent", "role": "control", "channel": channel, "summary": summary}


def test_the_calls_that_ask_for_the_subjects_word_are_upkeep():
    broken = {"events": [_sent("POST /v1/inject-message"), _sent("GET /v1"), _sent("ping", "hook"),
                         _sent("POST /v1/settle"), _sent("ping", "hook"), _sent("POST /v1/list-messages")]}
    correct = {"events": [_sent("POST /v1/inject-message"), _sent("POST /v1/list-messages")]}
    assert harness_side(broken) == harness_side(correct) == [
        "control control POST /v1/inject-message", "control control POST /v1/list-messages"]
    assert compare_sides(harness_side(broken), harness_side(correct), recorded_stopped=False) == "same harness side"


def test_a_different_action_is_still_a_different_play():
    one = {"events": [_sent("POST /v1/inject-message"), _sent("POST /v1/advance-clock")]}
    other = {"events": [_sent("POST /v1/inject-message"), _sent("POST /v1/list-messages")]}
    assert compare_sides(harness_side(one), harness_side(other), recorded_stopped=False).startswith(
        "the harness played it differently: send #2")
