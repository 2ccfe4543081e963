"""Tests for simulator/hook/jsontext.py (JSON text parsed as JSON.parse does).

The module is loaded straight from its file, so these tests do not depend on
``simulator.hook`` (or its ``__init__``) importing.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest
from conformance_runs import load_module
from hypothesis import given, settings
from hypothesis import strategies as st

_PATH = Path(__file__).resolve().parents[2] / "simulator" / "hook" / "jsontext.py"
_NAME = "_jsontext_under_test"


jsontext = load_module(_PATH, _NAME)  # in sys.modules: pickle finds JsonTextError
JsonTextError = jsontext.JsonTextError
loads = jsontext.loads
iterative = jsontext._loads_iterative


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def same(a, b) -> bool:
    """Strict, non-recursive equality: same types (bool is not int), floats
    equal by repr (so -0.0 != 0.0), dict keys in the same order."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, float):
            if repr(x) != repr(y):
                return False
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif isinstance(x, dict):
            if list(x) != list(y):
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif x != y:
            return False
    return True


def depth(value) -> int:
    """Nesting depth of containers, without recursion."""
    best, stack = 0, [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, list):
            best = max(best, d + 1)
            stack.extend((item, d + 1) for item in v)
        elif isinstance(v, dict):
            best = max(best, d + 1)
            stack.extend((item, d + 1) for item in v.values())
    return best


class _Constant(Exception):
    pass


def _raise_constant(name):
    raise _Constant(name)


def reference(text: str):
    """json.loads with NaN disabled: ("ok", value) or ("err", reason, pos).

    A rejected constant has no reported position: ("err", None, None)."""
    try:
        return ("ok", json.loads(text, parse_constant=_raise_constant))
    except json.JSONDecodeError as exc:
        return ("err", exc.msg, exc.pos)
    except _Constant:
        return ("err", None, None)


def outcome(parse, text: str):
    try:
        return ("ok", parse(text))
    except JsonTextError as exc:
        assert isinstance(exc.pos, int) and 0 <= exc.pos <= len(text)
        return ("err", exc.reason, exc.pos)


def assert_agrees(text: str) -> None:
    """The iterative parser and loads() both agree with json.loads."""
    ref = reference(text)
    for parse in (iterative, loads):
        got = outcome(parse, text)
        assert got[0] == ref[0], (parse.__name__, text, ref, got)
        if ref[0] == "ok":
            assert same(got[1], ref[1]), (parse.__name__, text, ref, got)
        elif ref[1] is None:
            assert got[1] == jsontext._NOT_JSON, (parse.__name__, text, got)
        else:
            assert got[1:] == ref[1:], (parse.__name__, text, ref, got)


def err(parse, text: str) -> JsonTextError:
    with pytest.raises(JsonTextError) as info:
        parse(text)
    return info.value


both = pytest.mark.parametrize("parse", [loads, iterative], ids=["loads", "iterative"])


# --------------------------------------------------------------------------
# unit tests
# --------------------------------------------------------------------------


@both
@pytest.mark.parametrize(
    "text, pos",
    [
        ("NaN", 0),
        ("Infinity", 0),
        ("-Infinity", 0),
        ("[1, NaN]", 4),
        ('{"a": Infinity}', 6),
        ('{"a": [true, -Infinity]}', 13),
    ],
)
def test_nan_and_infinity_are_rejected(parse, text, pos):
    e = err(parse, text)
    assert e.pos == pos
    assert e.reason == jsontext._NOT_JSON


@both
@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "Infinit", "-Infinit", "Nan", "+1"])
def test_near_constants_are_plain_syntax_errors(parse, text):
    assert err(parse, text).reason == "Expecting value"


def _deep(kind: str, n: int, inner: str = "0") -> str:
    if kind == "array":
        return "[" * n + inner + "]" * n
    return '{"k":' * n + inner + "}" * n


@pytest.mark.parametrize("kind", ["array", "object"])
@pytest.mark.parametrize("n", [5_000, 100_000])
def test_deep_nesting_in_an_ignored_field_parses(kind, n):
    text = '{"type":"message","ignored":' + _deep(kind, n) + ',"id":7}'
    value = loads(text)
    assert value["type"] == "message"
    assert value["id"] == 7
    assert depth(value["ignored"]) == n
    assert depth(iterative(text)) == n + 1


def test_deep_nesting_values_are_exact():
    value = loads("[" * 6_000 + '1.5, "x\\n", {"a": null}' + "]" * 6_000)
    for _ in range(5_999):
        (value,) = value
    assert same(value, [1.5, "x\n", {"a": None}])


@both
def test_deep_nesting_errors_have_exact_positions(parse):
    text = "[" * 5_000 + "NaN" + "]" * 5_000
    assert err(parse, text).pos == 5_000
    text = "[" * 5_000 + "1,]" + "]" * 4_999
    assert err(parse, text).pos == 5_002
    text = "[" * 5_000
    e = err(parse, text)
    assert (e.reason, e.pos) == ("Expecting value", 5_000)


def test_json_loads_itself_fails_on_deep_nesting():
    # The reason the fallback exists (CPython 3.11: RecursionError).
    with pytest.raises(RecursionError):
        json.loads(_deep("array", 100_000))


@both
def test_integer_digit_limit(parse):
    assert parse("1" * 4300) == int("1" * 4300)
    assert type(parse("1" * 4300)) is int
    assert type(parse("-" + "1" * 4300)) is int
    over = parse("1" * 4301)
    assert type(over) is float and over == float("1" * 4301)
    assert parse("9" * 10_000) == float("inf")
    assert parse("-" + "9" * 10_000) == float("-inf")
    assert parse("[" + "1" * 10_000 + "]") == [float("inf")]
    # Within the limit an integer stays exact (JSON.parse would round it,
    # and give Infinity above ~1.8e308): the project's documented policy.
    assert parse("1" + "0" * 400) == 10**400


@both
@pytest.mark.parametrize(
    "text, expected",
    [
        ("1e400", float("inf")),
        ("-1e400", float("-inf")),
        ("1E+400", float("inf")),
        ("1e-400", 0.0),
        ("-0.0", -0.0),
        ("-0", 0),
        ("0", 0),
        ("1.5e3", 1500.0),
        ("1" * 5_000 + ".5", float("1" * 5_000 + ".5")),
        ("0.1", 0.1),
        ("[-1,2.0]", [-1, 2.0]),
    ],
)
def test_numbers(parse, text, expected):
    assert same(parse(text), expected)


@both
@pytest.mark.parametrize(
    "text",
    ["01", "-01", "00", "1.", ".5", "1.e5", "1e", "1e+", "0x10", "--1", "-", "1_000", "\u0661", "１"],
)
def test_bad_numbers_are_rejected(parse, text):
    err(parse, text)
    assert_agrees(text)


@both
def test_bom_is_rejected(parse):
    assert err(parse, "\ufeff{}").pos == 0
    assert err(parse, " \ufeff{}").pos == 1
    assert parse('"\ufeff"') == "\ufeff"  # inside a string it is just a character


@both
@pytest.mark.parametrize("text, pos", [("[1,]", 3), ('{"a":1,}', 7), ("[1,,2]", 3), ("[,]", 1), ("{,}", 1)])
def test_trailing_and_extra_commas_are_rejected(parse, text, pos):
    assert err(parse, text).pos == pos


@both
@pytest.mark.parametrize("code", range(0x20))
def test_raw_control_characters_in_strings_are_rejected(parse, code):
    e = err(parse, '["ab' + chr(code) + 'c"]')
    assert (e.reason, e.pos) == ("Invalid control character at", 4)


@both
def test_other_raw_characters_in_strings_are_accepted(parse):
    text = '"\x7f\x80\u2028\u2029\ufffe\uffff\U0010ffff/"'
    assert parse(text) == text[1:-1]


@both
@pytest.mark.parametrize("ws", ["\x0b", "\x0c", "\xa0", "\u2028", "\u3000", "\x85"])
def test_only_json_whitespace_is_allowed(parse, ws):
    err(parse, ws + "1")
    err(parse, "[1" + ws + "]")
    assert parse(" \t\n\r[ \t\n\r1 \t\n\r] \t\n\r") == [1]


@both
def test_escapes(parse):
    text = r'"\"\\\/\b\f\n\r\t\u0041\u00e9\u4E2d\u005c\u002F"'
    assert parse(text) == '"\\/\b\f\n\r\tA\u00e9\u4e2d\\/'
    assert parse(r'"\\/"') == "\\/"  # an escaped backslash, then a raw slash
    assert parse(r'"\\\/"') == "\\/"


@both
@pytest.mark.parametrize(
    "text, reason, pos",
    [
        (r'"\x41"', "Invalid \\escape", 1),
        (r'"\U00000041"', "Invalid \\escape", 1),
        (r'"\'"', "Invalid \\escape", 1),
        (r'"\u12G4"', "Invalid \\uXXXX escape", 2),
        (r'"\u12"', "Invalid \\uXXXX escape", 2),
        ('"\\u0041', "Invalid \\uXXXX escape", 2),
        ('"\\\\u0041', "Unterminated string starting at", 0),
        ('"abc', "Unterminated string starting at", 0),
        ('"abc\\', "Unterminated string starting at", 0),
        ('"\\ud800\\udc00', "Invalid \\uXXXX escape", 8),
    ],
)
def test_bad_escapes_and_unterminated_strings(parse, text, reason, pos):
    e = err(parse, text)
    assert (e.reason, e.pos) == (reason, pos)
    assert_agrees(text)


@both
def test_surrogate_escapes(parse):
    assert parse(r'"\ud800"') == "\ud800"  # lone high surrogate kept
    assert parse(r'"\udc00"') == "\udc00"  # lone low surrogate kept
    assert parse(r'"\udc00\ud800"') == "\udc00\ud800"  # wrong order: two lone halves
    assert parse(r'"\ud83d\ude00"') == "\U0001f600"  # a pair: one astral code point
    assert parse(r'"\uD83D\uDE00"') == "\U0001f600"
    assert parse(r'"\ud800\ud83d\ude00x"') == "\ud800\U0001f600x"
    assert parse(r'"\ud83dx\ude00"') == "\ud83dx\ude00"
    # An escaped half is never joined with a raw one (as json.loads does).
    assert parse('"\\ud83d\ude00"') == "\ud83d\ude00"
    assert parse('"\ud83d\\ude00"') == "\ud83d\ude00"
    assert parse('"\ud83d\ude00"') == "\ud83d\ude00"
    assert parse('"\ud83d\\ud83d\\ude00\udc00\\n"') == "\ud83d\U0001f600\udc00\n"


@both
def test_duplicate_keys_last_wins_at_first_position(parse):
    value = parse('{"b": 1, "a": 2, "b": 3}')
    assert list(value.items()) == [("b", 3), ("a", 2)]


@both
@pytest.mark.parametrize(
    "text",
    ["", " ", "[", "]", "{", '{"a"', '{"a":', '{"a" 1}', '{"a":1 "b":2}', "[1 2]", "1 2", "{1:2}", "{'a':1}",
     "nul", "True", "[nul]", "[1]]", "[]x", '"a""b"', "[1,\n]", '{"a":1}}'],
)
def test_syntax_errors_match_json_loads(parse, text):
    err(parse, text)
    assert_agrees(text)


@both
@pytest.mark.parametrize(
    "text, expected",
    [("null", None), ("true", True), ("false", False), ('"s"', "s"), ("[]", []), ("{}", {}), (" [ ] ", []),
     ('{"":""}', {"": ""}), ('[{}, [], ""]', [{}, [], ""])],
)
def test_valid_scalars_and_empty_containers(parse, text, expected):
    assert same(parse(text), expected)


def test_huge_strings_are_parsed_by_both_paths():
    # Inside deep nesting, so loads() must take the iterative fallback.
    plain = "x" * (8 << 20)
    text = "[" * 3_000 + '"' + plain + '"' + "]" * 3_000
    value = loads(text)
    for _ in range(3_000):
        (value,) = value
    assert value == plain
    escaped = "ab\\n\\u00e9\\ud83d\\ude00\\/\\\\" * (1 << 17)
    assert iterative('"' + escaped + '"') == json.loads('"' + escaped + '"')


def test_non_str_input_is_a_type_error():
    with pytest.raises(TypeError):
        loads(b"{}")
    with pytest.raises(TypeError):
        iterative(b"{}")


def test_error_object():
    e = err(loads, '{"a": 1,}')
    assert isinstance(e, ValueError)
    assert (e.reason, e.pos) == ("Expecting property name enclosed in double quotes", 8)
    assert "char 8" in str(e)
    assert e.__cause__ is None and e.__context__ is None  # does not pin the document
    copy = pickle.loads(pickle.dumps(e))
    assert type(copy) is JsonTextError and (copy.reason, copy.pos) == (e.reason, e.pos)


# --------------------------------------------------------------------------
# differential (property) tests against json.loads
# --------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(), children, max_size=5),
    max_leaves=20,
)

dump_options = st.sampled_from(
    [
        {},
        {"ensure_ascii": False},
        {"indent": 2},
        {"indent": 0, "ensure_ascii": False},
        {"indent": "\t"},
        {"indent": " \r\n"},
        {"separators": (",", ":")},
        {"separators": (" , ", " : "), "ensure_ascii": False},
        {"sort_keys": True, "indent": 1},
    ]
)

json_texts = st.builds(lambda v, kw: json.dumps(v, **kw), json_values, dump_options)

# Fragments that steer random text towards the parser's edge cases.
TOKENS = [
    "{", "}", "[", "]", ",", ":", '"', '"', '"', "\\", "\\u", "\\ud83d", "\\ude00", "\\ud800", "\\udc00",
    "\\uD834", "\\uDD1E", "\\u0041", "\\u00", "\\n", "\\/", "\\\\", "\\x", "\\'", "null", "true", "false",
    "nul", "NaN", "Infinity", "-Infinity", "-", "0", "1", "12", ".5", ".", "e", "E+", "e-", "+", " ",
    "\t", "\n", "\r", "\x0b", "\x00", "\x1f", "\x7f", "\ufeff", "\xe9", "\u4e2d", "\U0001f600",
    "\ud800", "\udc00", "a", "u", "0041", "G", "/", '"a"', '"k":', "\\u005c",
]
INTERESTING = sorted({c for token in TOKENS for c in token})

token_soup = st.lists(st.sampled_from(TOKENS), max_size=40).map("".join)


@st.composite
def mutated_json_texts(draw):
    text = draw(json_texts | token_soup)
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        i = draw(st.integers(0, max(len(text) - 1, 0)))
        ch = draw(st.sampled_from(INTERESTING) | st.characters())
        if op == "insert":
            text = text[:i] + ch + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + 1 :]
        else:
            text = text[:i] + ch + text[i + 1 :]
    return text


@settings(deadline=None)
@given(json_values, dump_options)
def test_dumps_round_trips_through_the_iterative_parser(value, options):
    text = json.dumps(value, **options)
    expected = json.loads(text)
    assert same(iterative(text), expected)
    assert same(loads(text), expected)


@settings(deadline=None)
@given(st.text())
def test_arbitrary_text_agrees_with_json_loads(text):
    assert_agrees(text)


@settings(deadline=None)
@given(token_soup)
def test_token_soup_agrees_with_json_loads(text):
    assert_agrees(text)


@settings(deadline=None)
@given(mutated_json_texts())
def test_mutated_json_text_agrees_with_json_loads(text):
    assert_agrees(text)


@settings(deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=30).map("".join))
def test_arbitrary_string_bodies_agree_with_json_loads(body):
    # Focus on the string scanner: everything lands inside one string.
    assert_agrees('"' + body + '"')
    assert_agrees('["' + body + '"]')


@settings(deadline=None)
@given(st.text() | mutated_json_texts(), st.integers(1_000, 3_000))
def test_loads_raises_only_json_text_error(text, nesting):
    # Deep enough for the fallback; never anything but JsonTextError.
    for candidate in (text, "[" * nesting + text + "]" * nesting):
        try:
            loads(candidate)
        except JsonTextError:
            pass
