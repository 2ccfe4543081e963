"""``simulator.drivers.hook_frames.case`` and ``literals``: building and mutating a frame case, splicing literals no
JSON value holds, and what the parser and the wire get for each input form (no subject, no network)."""

from __future__ import annotations

import json
import math

import pytest

from simulator.drivers.hook_frames import (
    FrameCase,
    InputForm,
    Nesting,
    integer_literal,
    json_value,
    list_like,
    nested_literal,
)

PING = {"v": 1, "type": "ping", "id": "frm-1", "ts": 1767225600000, "payload": {}}


def test_mutations_edit_a_copy_by_json_pointer():
    case = FrameCase(frame=PING)
    case.set("/payload/note", "hi")
    case.remove("/id")
    assert case.frame == {"v": 1, "type": "ping", "ts": 1767225600000, "payload": {"note": "hi"}}
    assert "id" in PING and "note" not in PING["payload"]  # the sample itself is never touched


def test_a_raw_text_cannot_be_mutated_field_by_field():
    case = FrameCase(raw_text='{"type":"ping"}')
    with pytest.raises(ValueError, match="a raw text frame cannot be mutated field by field"):
        case.set("/type", "pong")


def test_text_is_compact_json_and_a_raw_text_is_sent_as_written():
    assert FrameCase(frame={"a": "é"}).text() == '{"a":"é"}'
    assert FrameCase(frame={"a": "é"}).text(ascii_only=True) == '{"a":"\\u00e9"}'
    assert FrameCase(raw_text='{ "a" : 1 }').text() == '{ "a" : 1 }'


def test_long_integers_and_deep_nesting_are_spliced_as_literals():
    case = FrameCase(frame=dict(PING))
    case.splice("/payload/n", integer_literal(40, negative=True))
    case.splice("/payload/deep", nested_literal(Nesting.ARRAYS, 3))
    case.splice("/payload/obj", nested_literal(Nesting.OBJECTS, 3))
    text = case.text()
    assert '"n":-' + "9" * 40 + "," in text
    assert '"deep":[[[]]]' in text and '"obj":{"a":{"a":{}}}' in text
    assert "@@literal" not in text
    assert json.loads(text)["payload"]["n"] == -int("9" * 40)


def test_a_nan_is_a_literal_in_text_and_a_float_in_an_object():
    case = FrameCase(frame=dict(PING))
    case.set("/ts", float("nan"))
    assert '"ts":NaN' in case.parser_input()
    case.give_as(InputForm.OBJECT)
    assert math.isnan(case.parser_input()["ts"])


def test_an_object_with_spliced_literals_is_decoded_from_its_text():
    case = FrameCase(frame=dict(PING))
    case.splice("/payload/n", integer_literal(20))
    case.give_as(InputForm.OBJECT)
    decoded = case.parser_input()
    assert decoded["payload"]["n"] == int("9" * 20) and decoded is not case.frame


def test_a_raw_text_given_as_an_object_is_decoded_first():
    case = FrameCase(raw_text='{"type":"ping","payload":{}}')
    case.give_as(InputForm.named("an object"))
    assert (case.raw_text, case.frame, case.parser_input()) == (None, {"type": "ping", "payload": {}},
                                                                 {"type": "ping", "payload": {}})


def test_input_forms_are_named_by_the_features_words():
    assert [InputForm.named(w) for w in ("text", "bytes", "an object")] == list(InputForm)
    with pytest.raises(ValueError):
        InputForm.named("a string")


def test_the_wire_form_of_text_is_a_text_frame():
    assert FrameCase(frame=PING).wire_frame() == (FrameCase(frame=PING).text(), False)


def test_utf8_bytes_go_as_the_text_frame_they_encode():
    case = FrameCase(frame={"type": "ping", "x": "é"}, form=InputForm.BYTES)
    assert case.parser_input() == '{"type":"ping","x":"é"}'.encode()
    assert case.wire_frame() == ('{"type":"ping","x":"é"}', False)



@pytest.mark.parametrize("raw", ['{"x":"ascii"}', '{"x":"é 漢 😀"}', '{"x":"\ud800"}', '{"x":"\ud83d\ude00"}'],
                         ids=["ascii", "utf8", "lone-surrogate", "surrogate-pair"])
def test_bytes_go_on_the_wire_as_their_decoded_text_or_else_as_binary(raw: str):
    """The shortcut (the text itself) agrees with decoding the bytes ``parseHookMessage`` gets: text when they are
    UTF-8, else those bytes as a binary frame (a surrogate, even a pair of them as two code points, is no UTF-8)."""
    case = FrameCase(raw_text=raw, form=InputForm.BYTES)
    data = case.parser_input()
    try:
        expected: tuple[str | bytes, bool] = (data.decode("utf-8"), False)
    except UnicodeDecodeError:
        expected = (data, True)
    assert case.wire_frame() == expected

def test_an_invalid_utf8_byte_makes_the_bytes_a_binary_frame():
    case = FrameCase(frame=dict(PING))
    case.put_invalid_utf8("/payload/text")
    assert case.form is InputForm.BYTES
    data = case.parser_input()
    assert b'"text":"\xff"' in data
    assert case.wire_frame() == (data, True)


def test_a_lone_surrogate_goes_ascii_escaped_in_a_text_frame():
    case = FrameCase(frame={"type": "ping", "x": "\ud800"})
    assert case.wire_frame() == ('{"type":"ping","x":"\\ud800"}', False)


def test_a_lone_surrogate_in_a_raw_text_can_only_go_as_a_binary_frame():
    case = FrameCase(raw_text='{"x":"\ud800"}')
    assert case.wire_frame() == ('{"x":"\ud800"}'.encode("utf-8", "surrogatepass"), True)


def test_the_claimed_type_reads_the_frame_or_its_text():
    assert FrameCase(frame=PING).claimed_type == "ping" and FrameCase(frame=PING).is_ping
    assert FrameCase(raw_text='{"type":"pong"}').claimed_type == "pong"
    assert FrameCase(raw_text='{"type":7}').claimed_type is None
    assert FrameCase(raw_text="not json").claimed_type is None
    assert FrameCase(frame=[1]).claimed_type is None


def test_parse_asks_the_harness_parser():
    assert FrameCase(frame=PING).parse().ok
    bad = FrameCase(frame=dict(PING))
    bad.remove("/type")
    assert not bad.parse().ok


def test_step_values_are_json_and_a_bad_one_is_named():
    assert json_value('{"a": [1, null]}') == {"a": [1, None]}
    with pytest.raises(ValueError, match=r"step value 'nope' is not a JSON literal"):
        json_value("nope")


def test_a_list_template_numbers_its_items():
    assert list_like('{"id": "b{i}"}', 3) == [{"id": "b0"}, {"id": "b1"}, {"id": "b2"}]
    assert list_like("1", 0) == []


def test_deep_nesting_has_the_depth_asked_for():
    assert nested_literal(Nesting.ARRAYS, 1) == "[]"
    assert nested_literal(Nesting.OBJECTS, 1) == "{}"
    deep = nested_literal(Nesting.OBJECTS, 500)
    assert deep.count("{") == deep.count("}") == 500
    assert integer_literal(3) == "999"


def test_a_raw_text_whose_writer_said_it_has_no_utf8_form_is_not_scanned():
    """``text_claiming(utf8=...)``: the writer's word decides the wire form of a bytes case, as the scan would."""
    text = '{"type":"ping","x":"é"}'
    told = FrameCase.text_claiming(text, "ping", utf8=True)
    told.form = InputForm.BYTES
    scanned = FrameCase(raw_text=text, form=InputForm.BYTES)
    assert told.wire_frame() == scanned.wire_frame() == (text, False)
    surrogate = '{"x":"\ud800"}'
    told = FrameCase.text_claiming(surrogate, None, utf8=False)
    as_bytes = (surrogate.encode("utf-8", "surrogatepass"), True)
    assert told.wire_frame() == FrameCase(raw_text=surrogate).wire_frame() == as_bytes
