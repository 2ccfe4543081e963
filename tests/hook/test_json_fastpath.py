"""The orjson fast path never accepts what ``JSON.parse`` (our ``jsontext``) rejects, and reads the same values.

``parse_hook_message`` decodes small frames with orjson and hands whatever orjson refuses to ``jsontext``, the
exact ``JSON.parse`` reading. That is only sound if orjson is never more lenient than ``jsontext`` and agrees
with it on every value it accepts (numbers compared as the doubles JavaScript would hold).
"""

from __future__ import annotations

import json
import math

import orjson
from hypothesis import given
from hypothesis import strategies as st

from simulator.hook import jsontext


def js_equal(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        fa = a if isinstance(a, float) else float(a) if abs(a) < 2**1024 else math.inf * (1 if a > 0 else -1)
        fb = b if isinstance(b, float) else float(b) if abs(b) < 2**1024 else math.inf * (1 if b > 0 else -1)
        return fa == fb
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(js_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(js_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def check(text: str) -> None:
    try:
        fast = orjson.loads(text)
    except orjson.JSONDecodeError:
        return  # refused: jsontext decides, nothing to compare
    exact = jsontext.loads(text)  # must not raise: orjson accepted it
    assert js_equal(fast, exact), (text, fast, exact)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(exclude_categories=("Cs",))),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
    max_leaves=20,
)
JSONISH = '{}[]",:0123456789.eE-+tfnul\\ \t\n\r\u00e9\U0001F600/ubdN'


@given(json_values, st.booleans())
def test_agree_on_dumped_values(value, ascii_only):
    check(json.dumps(value, ensure_ascii=ascii_only))


@given(json_values, st.data())
def test_agree_on_mutated_text(value, data):
    text = json.dumps(value)
    i = data.draw(st.integers(0, len(text)))
    j = data.draw(st.integers(i, min(len(text), i + 3)))
    insert = data.draw(st.text(alphabet=JSONISH, max_size=3))
    check(text[:i] + insert + text[j:])


@given(st.text(alphabet=JSONISH, max_size=30))
def test_agree_on_jsonish_noise(text):
    check(text)


def test_known_edges():
    for text in ["1e400", "-1e400", "123456789012345678901234567890", "-0", "[1.0]", '"\\u0000"', '{"a":1,"a":2}',
                 " [ ] ", "1E+2", "0.1e-1", '"\\ud83d\\ude00"']:
        check(text)
