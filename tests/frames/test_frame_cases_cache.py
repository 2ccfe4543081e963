"""The cache of the expanded frame cases (simulator/harness/frame_cases.py): a hit gives exactly what parsing gives, an
edited feature file is parsed again, and a cache file that is garbage is never believed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from simulator.harness.frame_cases import _cache_file, load_frame_cases

FEATURES = Path(__file__).resolve().parents[2] / "features"


@pytest.fixture
def features(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOOK_CONFORMANCE_CACHE", str(tmp_path / "cache"))
    copy = tmp_path / "features"
    shutil.copytree(FEATURES / "hook" / "frames", copy / "hook" / "frames")
    return copy


def _paths(features: Path) -> list[Path]:
    return sorted((features / "hook" / "frames").glob("*.feature"))


def test_a_cached_load_gives_the_parsed_cases(features: Path):
    first = load_frame_cases(features)
    cache = _cache_file(features, _paths(features))
    assert cache is not None and cache.is_file()
    assert load_frame_cases(features) == first and len(first) > 1000


def test_an_edited_feature_is_parsed_again(features: Path, tmp_path: Path):
    """The key is the files' contents, not where they are (pytest-bdd caches a parse per path within a process, so
    the edited copy lives elsewhere)."""
    before = load_frame_cases(features)
    edited = tmp_path / "edited"
    shutil.copytree(features, edited)
    assert _cache_file(edited, _paths(edited)) == _cache_file(features, _paths(features))
    path = next(p for p in _paths(edited) if 'the frame is rejected at "/payload/attachments"' in p.read_text())
    path.write_text(path.read_text().replace('rejected at "/payload/attachments"', 'rejected at "/payload/renamed"'))
    assert _cache_file(edited, _paths(edited)) != _cache_file(features, _paths(features))
    after = load_frame_cases(edited)
    assert any(c.pointer == "/payload/renamed" for c in after)
    assert not any(c.pointer == "/payload/renamed" for c in before)
    assert load_frame_cases(features) == before


def test_a_garbage_cache_file_is_not_believed(features: Path):
    parsed = load_frame_cases(features)
    cache = _cache_file(features, _paths(features))
    assert cache is not None
    for garbage in ("not json", '[{"requirement": 1}]', "[1, 2]"):
        cache.write_text(garbage)
        assert load_frame_cases(features) == parsed
