"""An archive's summaries: decoded fast where they can be, read as ``json`` reads them where
they cannot, with the same attempts either way, and a bad summary named."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from passk_tui.imports import inspect_samples
from passk_tui.imports.inspect_log import read_inspect
from passk_tui.imports.inspect_samples import sample_of, summaries_in
from passk_tui.imports.model import BadLog, ImportedAttempt
from passk_tui.imports.zip_members import Archive

FIXTURES = Path(__file__).parent.parent / "fixtures" / "imports"
RUN1 = FIXTURES / "inspect-run1.eval"


def _summaries(archive: Archive) -> tuple[str, bytes]:
    name = "summaries.json" if "summaries.json" in archive.names() else "_journal/summaries/1.json"
    return name, archive.read(name)


def _with_summaries(path: Path, edit: Any) -> Path:
    """The fixture again, deflated, its summaries text replaced by ``edit(summaries)``."""
    made = path / "edited.eval"
    with Archive(RUN1) as archive, zipfile.ZipFile(made, "w", zipfile.ZIP_DEFLATED) as out:
        name, data = _summaries(archive)
        for member in archive.names():
            out.writestr(member, edit(json.loads(data)) if member == name else archive.read(member))
    return made


def _attempts(path: Path) -> list[ImportedAttempt]:
    return read_inspect([path], transcripts=False).attempts


@pytest.mark.parametrize("log", sorted(FIXTURES.glob("inspect-*.eval")), ids=lambda p: p.stem)
def test_the_fast_decoder_reads_what_json_reads(log: Path) -> None:
    with Archive(log) as archive:
        name, data = _summaries(archive)
    fast = list(summaries_in(data, log, name))
    assert fast == [sample_of(value) for value in json.loads(data)]


def test_what_the_fast_decoder_refuses_is_read_as_json_reads_it(tmp_path: Path) -> None:
    """A NaN time and a lone surrogate's escape: json reads both, the fast decoder neither."""

    def spoil(summaries: list[dict[str, Any]]) -> str:
        summaries[0]["total_time"] = float("nan")
        summaries[1]["input"] = "a broken emoji \ud83d"
        return json.dumps(summaries)

    spoilt = _with_summaries(tmp_path, spoil)
    before, after = _attempts(RUN1), _attempts(spoilt)
    assert [(a.case, a.attempt, a.outcome, a.output) for a in after] == [
        (a.case, a.attempt, a.outcome, a.output) for a in before
    ]
    assert after[0].duration != after[0].duration  # NaN, as json read it
    assert after[1].input == "a broken emoji \ud83d"


def test_a_chunk_the_fast_decoder_refuses_is_read_again_by_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A number past a double in the third summary: the chunks before are decoded fast, that
    one is read again as json reads it (inf), and every attempt is the same as before."""
    monkeypatch.setattr(inspect_samples, "CHUNK", 2)
    spoilt = _with_summaries(
        tmp_path,
        lambda s: json.dumps([*s[:2], {**s[2], "total_time": 9}, *s[3:]]).replace(
            '"total_time": 9,', '"total_time": 1e400,', 1
        ),
    )
    before, after = _attempts(RUN1), _attempts(spoilt)
    assert [(a.case, a.attempt, a.outcome) for a in after] == [
        (a.case, a.attempt, a.outcome) for a in before
    ]
    assert after[2].duration == float("inf")


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda s: json.dumps([None, *s[1:]]), "summaries: a sample must be an object"),
        (lambda s: json.dumps([*s[:-1], 7]), "summaries: a sample must be an object"),
        (lambda s: json.dumps([{**s[0], "epoch": "1"}, *s[1:]]), "sample 1: a sample needs an id"),
        (lambda s: json.dumps(s)[:-2], "summaries.json: Expecting"),
    ],
    ids=["null", "a number last", "text epoch", "cut short"],
)
def test_a_bad_summary_is_named(tmp_path: Path, edit: Any, words: str) -> None:
    spoilt = _with_summaries(tmp_path, edit)
    with pytest.raises(BadLog, match=words):
        _attempts(spoilt)
