"""``simulator.jsonpointer``: RFC 6901 reading and the errors callers rely on (a miss is ``KeyError``, a string that
is not a pointer ``ValueError``; ``steps/ccweb/ over simulator/drivers/ccweb/`` resolves a schema's local ``$ref`` by exactly that contract)."""

from __future__ import annotations

import pytest

from simulator.jsonpointer import join, pointer_get, split

DOC = {"$defs": {"a/b": {"~x": [10, {"k": "v"}]}}, "list": [1, 2]}


@pytest.mark.parametrize(("pointer", "expected"), [
    ("", DOC),
    ("/$defs/a~1b/~0x/0", 10),
    ("/$defs/a~1b/~0x/1/k", "v"),
    ("/list/1", 2),
])
def test_pointer_get_reads_escaped_tokens(pointer, expected):
    assert pointer_get(DOC, pointer) == expected


@pytest.mark.parametrize("pointer", ["/missing", "/list/2", "/list/x", "/list/0/deeper", "/$defs/a~1b/~0x/-"])
def test_pointer_get_misses_are_key_errors(pointer):
    with pytest.raises(KeyError):
        pointer_get(DOC, pointer)


def test_a_string_that_is_not_a_pointer_is_a_value_error():
    with pytest.raises(ValueError):
        pointer_get(DOC, "anchor")


def test_join_escapes_and_split_inverts_it():
    pointer = join("/properties", "a/b", "~c", 3)
    assert pointer == "/properties/a~1b/~0c/3"
    assert split(pointer) == ["properties", "a/b", "~c", "3"]
