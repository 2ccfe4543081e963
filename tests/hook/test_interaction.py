"""Interactions during a turn: interaction.request / decision / cancel (spec §5 阶段 10).

Rules under test: request needs requestId, interactionId, kind (open set), title (non-empty), body (a string, may
be empty) and "buttons(≤ MAX_INTERACTION_BUTTONS=24;按钮 id 卡内唯一且不含 |)", at least one button, every button
with a non-empty label and a required style primary/danger/default (UPSTREAM-FACTS); decision.buttonId is not
checked for ``|`` (UPSTREAM-FACTS); cancel.reason is a string (may be empty).
"""

from __future__ import annotations

import pytest
from hookcase import DELETE, accept, bad, built, edit, expect_issue, good, sample_cases, sample_of

from simulator.hook import (
    MAX_INTERACTION_BUTTONS,
    HookBuildError,
    InteractionButton,
    IssueCode,
    make_interaction_cancel,
    make_interaction_decision,
    make_interaction_request,
)

TYPES = ("interaction.request", "interaction.decision", "interaction.cancel")
REQ = "interaction.request:question"

MISSING = IssueCode.MISSING
WRONG_TYPE = IssueCode.WRONG_TYPE
EMPTY = IssueCode.EMPTY


def _button(i: int, **kw) -> dict:
    return {"id": f"b{i}", "label": f"Option {i}", "style": "default", **kw}


def test_max_buttons_constant():
    assert MAX_INTERACTION_BUTTONS == 24


BUILDS = [
    pytest.param(
        make_interaction_request,
        dict(request_id="req-1", interaction_id="ix-1", kind="ask_user_question", title="Which branch?", body="",
             buttons=(InteractionButton(id="main", label="main", style="primary"),
                      InteractionButton(id="dev", label="dev"),
                      InteractionButton(id="no", label="Cancel", style="danger"))),
        {"requestId": "req-1", "interactionId": "ix-1", "kind": "ask_user_question", "title": "Which branch?",
         "body": "", "buttons": [{"id": "main", "label": "main", "style": "primary"},
                                 {"id": "dev", "label": "dev", "style": "default"},
                                 {"id": "no", "label": "Cancel", "style": "danger"}]},
        id="request",
    ),
    pytest.param(
        make_interaction_request,
        dict(request_id="req-1", interaction_id="ix-2", kind="permission", title="Run it?", body="**rm**",
             buttons=tuple(InteractionButton(id=f"b{i}", label=str(i)) for i in range(24))),
        {"requestId": "req-1", "interactionId": "ix-2", "kind": "permission", "title": "Run it?", "body": "**rm**",
         "buttons": [{"id": f"b{i}", "label": str(i), "style": "default"} for i in range(24)]},
        id="request-24-buttons",
    ),
    pytest.param(make_interaction_decision, dict(request_id="req-1", interaction_id="ix-1", button_id="main"),
                 {"requestId": "req-1", "interactionId": "ix-1", "buttonId": "main"}, id="decision"),
    pytest.param(make_interaction_decision, dict(request_id="req-1", interaction_id="ix-1", button_id="a|b"),
                 {"requestId": "req-1", "interactionId": "ix-1", "buttonId": "a|b"}, id="decision-pipe"),
    pytest.param(make_interaction_cancel, dict(request_id="req-1", interaction_id="ix-1", reason="Timed out"),
                 {"requestId": "req-1", "interactionId": "ix-1", "reason": "Timed out"}, id="cancel"),
    pytest.param(make_interaction_cancel, dict(request_id="req-1", interaction_id="ix-1", reason=""),
                 {"requestId": "req-1", "interactionId": "ix-1", "reason": ""}, id="cancel-empty-reason"),
]


@pytest.mark.parametrize(("builder", "fields", "payload"), BUILDS)
def test_builder_round_trip(builder, fields, payload):
    message = built(builder, **fields)
    assert message.to_wire()["payload"] == payload


@pytest.mark.parametrize(
    ("buttons", "path", "code"),
    [
        pytest.param((), "/payload/buttons", EMPTY, id="no-buttons"),
        pytest.param(tuple(InteractionButton(id=f"b{i}", label="x") for i in range(25)), "/payload/buttons",
                     IssueCode.TOO_MANY, id="25-buttons"),
        pytest.param((InteractionButton(id="a|b", label="x"),), "/payload/buttons/0/id", IssueCode.BAD_FORMAT,
                     id="pipe-in-id"),
    ],
)
def test_request_builder_refuses_bad_buttons(buttons, path, code):
    with pytest.raises(HookBuildError) as info:
        make_interaction_request(request_id="r", interaction_id="i", kind="k", title="t", body="", buttons=buttons)
    assert (info.value.issue.path, info.value.issue.code) == (path, code)


@pytest.mark.parametrize("fr", sample_cases(*TYPES))
def test_sample_is_valid(fr):
    accept(fr)


ACCEPTED = [
    good("one button", REQ, {"buttons": [_button(0)]}),
    good("24 buttons", REQ, {"buttons": [_button(i) for i in range(24)]}),
    *[good(f"style {s}", REQ, {"buttons": [_button(0, style=s)]}) for s in ("primary", "danger", "default")],
    good("kind is an open set", REQ, {"kind": "some_future_kind"}),
    good("body empty", REQ, {"body": ""}),
    good("button ids differ by case", REQ, {"buttons": [_button(0, id="ok"), _button(1, id="OK")]}),
    good("button id with other separators", REQ, {"buttons": [_button(0, id="a:b/c,d")]}),
    good("button unknown field kept", REQ, {"buttons/0/url": "https://x"}),
    good("decision buttonId with | is not checked", "interaction.decision:basic", {"buttonId": "opt|0"}),
    good("decision unknown button id (late decisions ignored by behaviour)", "interaction.decision:basic",
         {"buttonId": "never-rendered"}),
    good("cancel empty reason", "interaction.cancel:timeout", {"reason": ""}),
    good("cancel unknown field kept", "interaction.cancel:timeout", {"final": True}),
]


@pytest.mark.parametrize(("base", "changes"), ACCEPTED)
def test_allowed_edge_is_accepted(base, changes):
    accept(edit(sample_of(base), changes))


REJECTED = [
    bad("request requestId empty", REQ, {"requestId": ""}, "/payload/requestId", EMPTY),
    bad("request interactionId absent", REQ, {"interactionId": DELETE}, "/payload/interactionId", MISSING),
    bad("request kind empty", REQ, {"kind": ""}, "/payload/kind", EMPTY),
    bad("request title empty", REQ, {"title": ""}, "/payload/title", EMPTY),
    bad("request body null", REQ, {"body": None}, "/payload/body", WRONG_TYPE),
    bad("request body absent", REQ, {"body": DELETE}, "/payload/body", MISSING),
    bad("request buttons absent", REQ, {"buttons": DELETE}, "/payload/buttons", MISSING),
    bad("request buttons object", REQ, {"buttons": {"id": "b0"}}, "/payload/buttons", WRONG_TYPE),
    bad("request no buttons", REQ, {"buttons": []}, "/payload/buttons", EMPTY),
    bad("request 25 buttons", REQ, {"buttons": [_button(i) for i in range(25)]}, "/payload/buttons",
        IssueCode.TOO_MANY),
    bad("button not an object", REQ, {"buttons/1": "dev"}, "/payload/buttons/1", WRONG_TYPE),
    bad("button id empty", REQ, {"buttons/0/id": ""}, "/payload/buttons/0/id", EMPTY),
    bad("button id absent", REQ, {"buttons/2/id": DELETE}, "/payload/buttons/2/id", MISSING),
    bad("button id number", REQ, {"buttons/0/id": 0}, "/payload/buttons/0/id", WRONG_TYPE),
    bad("button id with |", REQ, {"buttons/1/id": "opt|1"}, "/payload/buttons/1/id", IssueCode.BAD_FORMAT),
    bad("button id only |", REQ, {"buttons/0/id": "|"}, "/payload/buttons/0/id", IssueCode.BAD_FORMAT),
    bad("duplicate button id", REQ, {"buttons/2/id": "opt-0"}, "/payload/buttons/2/id", IssueCode.DUPLICATE),
    bad("button label empty", REQ, {"buttons/1/label": ""}, "/payload/buttons/1/label", EMPTY),
    bad("button style absent (required)", REQ, {"buttons/0/style": DELETE}, "/payload/buttons/0/style", MISSING),
    bad("button style unknown", REQ, {"buttons/0/style": "link"}, "/payload/buttons/0/style",
        IssueCode.NOT_ALLOWED_VALUE),
    bad("button style null", REQ, {"buttons/0/style": None}, "/payload/buttons/0/style", IssueCode.NOT_ALLOWED_VALUE),
    bad("button style case matters", REQ, {"buttons/0/style": "Primary"}, "/payload/buttons/0/style",
        IssueCode.NOT_ALLOWED_VALUE),
    bad("decision buttonId empty", "interaction.decision:basic", {"buttonId": ""}, "/payload/buttonId", EMPTY),
    bad("decision interactionId null", "interaction.decision:basic", {"interactionId": None},
        "/payload/interactionId", WRONG_TYPE),
    bad("decision requestId absent", "interaction.decision:basic", {"requestId": DELETE}, "/payload/requestId",
        MISSING),
    bad("cancel reason null", "interaction.cancel:timeout", {"reason": None}, "/payload/reason", WRONG_TYPE),
    bad("cancel reason absent", "interaction.cancel:timeout", {"reason": DELETE}, "/payload/reason", MISSING),
    bad("cancel interactionId empty", "interaction.cancel:timeout", {"interactionId": ""}, "/payload/interactionId",
        EMPTY),
]


@pytest.mark.parametrize(("base", "changes", "path", "code"), REJECTED)
def test_broken_rule_is_rejected_at_its_path(base, changes, path, code):
    expect_issue(edit(sample_of(base), changes), path, code)


def test_request_typed_buttons():
    payload = accept(sample_of(REQ)).payload
    assert payload.buttons[2] == InteractionButton(id="cancel", label="Cancel", style="danger")
