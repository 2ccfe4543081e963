"""``simulator.drivers.hook_frames.samples``: looking samples up in a library folder given from outside, the errors
naming what exists, and padding to an exact size in UTF-16 code units."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulator.drivers.hook_frames import PADDING_KEY, SampleLibrary
from simulator.hook import utf16_len


@pytest.fixture
def library(tmp_path: Path) -> SampleLibrary:
    ping = {"empty": {"v": 1, "type": "ping", "id": "frm-ping", "ts": 1767225600000, "payload": {}}}
    (tmp_path / "ping.json").write_text(json.dumps(ping), encoding="utf-8")
    (tmp_path / "pong.json").write_text(json.dumps({"empty": {"type": "pong"}, "other": {}}), encoding="utf-8")
    return SampleLibrary(tmp_path)


def test_a_sample_is_found_by_type_and_variant(library: SampleLibrary):
    assert library.load("ping/empty")["id"] == "frm-ping"
    assert library.types() == ["ping", "pong"]


def test_an_unknown_type_names_the_types_that_exist(library: SampleLibrary):
    with pytest.raises(LookupError, match=r"no sample file .*hello\.json for sample 'hello/min' "
                                          r"\(samples exist for \['ping', 'pong'\]\)"):
        library.load("hello/min")


def test_an_unknown_variant_names_the_variants_that_exist(library: SampleLibrary):
    with pytest.raises(LookupError, match=r"sample 'pong/full': pong\.json has no variant 'full' "
                                          r"\(has \['empty', 'other'\]\)"):
        library.load("pong/full")


@pytest.mark.parametrize("char", ["a", "é", "😀"])
def test_padding_reaches_the_exact_size_in_utf16_code_units(library: SampleLibrary, char: str):
    text = library.padded("ping/empty", 201, char).text
    assert utf16_len(text) == 201
    padding = json.loads(text)[PADDING_KEY]
    assert set(padding) <= {char, "a"} and padding.startswith(char)


def test_a_sample_longer_than_the_size_asked_for_is_refused(library: SampleLibrary):
    with pytest.raises(ValueError, match=r"sample 'ping/empty' is already \d+ UTF-16 units long, more than 10"):
        library.padded("ping/empty", 10, "a")


def test_the_project_library_is_read_from_the_folder_given():
    root = Path(__file__).resolve().parents[2]
    assert SampleLibrary(root / "scenarios" / "hook" / "samples").load("ping/empty")["type"] == "ping"


def test_each_load_is_a_fresh_copy_a_scenario_may_change(library: SampleLibrary):
    """The library reads a file once and keeps its variants: what one scenario does to its sample never reaches the
    next one's."""
    first = library.load("ping/empty")
    first["payload"]["changed"] = True
    first["id"] = "changed"
    assert library.load("ping/empty") == {"v": 1, "type": "ping", "id": "frm-ping", "ts": 1767225600000, "payload": {}}


@pytest.mark.parametrize("char", ["a", "é", "😀", "ab"])
def test_a_padded_text_is_the_compact_json_of_the_padded_frame(library: SampleLibrary, char: str):
    """The padding spliced into the text gives exactly the text the JSON encoder writes for the padded frame."""
    text = library.padded("ping/empty", 301, char).text
    frame = json.loads(text)
    assert text == json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
    assert list(frame)[-1] == PADDING_KEY and utf16_len(text) == 301


@pytest.mark.parametrize("char", ["a", "é", "😀", "\ud83d"])
def test_a_padded_text_says_whether_it_has_a_utf8_form(library: SampleLibrary, char: str):
    """Known from the parts (the sample, the padding character), and what encoding the whole text says."""
    padded = library.padded("ping/empty", 301, char)
    try:
        padded.text.encode("utf-8")
    except UnicodeEncodeError:
        assert padded.utf8 is False
    else:
        assert padded.utf8 is True


def test_the_last_padded_texts_are_kept_and_the_oldest_let_go(library: SampleLibrary):
    first = library.padded("ping/empty", 301, "é")
    second = library.padded("ping/empty", 302, "é")
    assert library.padded("ping/empty", 301, "é") is first  # kept, and now the most recent
    library.padded("ping/empty", 303, "é")  # lets the oldest, 302, go
    assert library.padded("ping/empty", 301, "é") is first
    again = library.padded("ping/empty", 302, "é")
    assert again is not second and again == second
