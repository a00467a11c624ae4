"""A sample's conversation is read from a head of its zstd member: its ``messages`` come
before its ``events`` (most of its bytes), which are never decompressed.

The archives here are written as inspect_ai writes them (streamed zstd frames, the sample's
JSON with its text as UTF-8), the samples' messages ending before, across and past the first
head (4 KiB) and the next ones, a character of two bytes and the ``"messages":`` key cut by a
head's end among them: each conversation is the one read from the whole member.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from passk_tui.imports.conversation import messages_of, transcript_text
from passk_tui.imports.model import BadLog
from passk_tui.imports.transcripts_aside import HEAD, _messages
from passk_tui.imports.zip_members import Archive
from tests.imports.test_transcripts import _asked_all
from tests.support.zips import spoil_member, zstd_archive

#: A sample's events: a few hundred KiB, several zstd blocks (of 128 KiB at most).
EVENTS = [{"event": "model", "n": n, "text": f"step {n} " * 40} for n in range(1200)]


def _sample(input_text: str, said: str, target: str = "t") -> bytes:
    """An inspect sample's JSON, laid out as inspect writes it (messages before events)."""
    messages = [
        {"id": "m1", "content": input_text, "source": "input", "role": "user"},
        {"id": "m2", "content": said, "role": "assistant", "model": "fake"},
    ]
    sample = {"id": "s", "epoch": 1, "input": input_text, "target": target, "messages": messages}
    sample.update(output={"completion": said}, scores={}, events=EVENTS)
    return json.dumps(sample, ensure_ascii=False).encode()


def _samples() -> dict[str, bytes]:
    """Samples whose messages end anywhere around the first heads' ends."""
    made: dict[str, bytes] = {}
    for length in [10, 400, 3_900, 4_000, 4_090, 15_000, 16_380, 70_000, 300_000]:
        # A byte more before the key moves where a head ends in the text, one more in the
        # messages where their first KiB does: each on either byte of a two-byte character.
        for before, within in [(0, 0), (0, 1), (1, 0), (1, 1)]:
            sample = _sample("q" * within, "é" * length, "t" * (1 + before - within))
            made[f"samples/said{length}_{before}{within}.json"] = sample
    before = _sample("", "a").index(b'"messages":')  # where the key is after an empty input
    for shift in range(16):  # the key's eleven bytes cut by the first head's end, and not
        sample = _sample("k" * (HEAD - before - 12 + shift), "a")
        assert sample.index(b'"messages":') == HEAD - 12 + shift
        made[f"samples/key{shift}.json"] = sample
    return made


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return zstd_archive(tmp_path_factory.mktemp("heads") / "heads.eval", _samples())


def test_a_head_is_the_start_of_the_member_and_the_whole_one_is_checked(log: Path) -> None:
    with Archive(log) as archive:
        name = "samples/said10_00.json"
        whole = archive.read(name)
        assert archive.head(name, HEAD) == (whole[:HEAD], False)
        assert archive.head(name, len(whole)) == (whole, True)


def test_messages_are_the_whole_members_wherever_a_head_ends(log: Path) -> None:
    with Archive(log) as archive:
        for name in archive.names():
            whole = archive.read(name)
            expected = json.loads(whole)["messages"]
            assert _messages(archive, name) == messages_of(whole) == expected, name
            texts = [transcript_text(m, "q", "a") for m in (_messages(archive, name), expected)]
            assert texts[0] == texts[1] is not None


def test_a_damaged_frame_in_the_head_is_bad_log_naming_the_member(
    log: Path, tmp_path: Path
) -> None:
    damaged = tmp_path / "damaged.eval"
    damaged.write_bytes(log.read_bytes())
    spoil_member(damaged, "samples/said4000_10.json", 4, b"\xff\xff\xff\xff")
    with pytest.raises(
        BadLog, match=r"damaged\.eval: samples/said4000_10\.json: cannot decompress"
    ):
        _asked_all(damaged, sorted(_samples()))


def test_a_damaged_tail_past_the_messages_is_not_read(log: Path, tmp_path: Path) -> None:
    """What a head gives up: the member's checksum is not checked when its tail (here its
    last events) is never decompressed; its conversation is the one it holds."""
    name = "samples/said10_00.json"
    damaged = tmp_path / "tail.eval"
    damaged.write_bytes(log.read_bytes())
    with zipfile.ZipFile(damaged) as archive:
        size = archive.getinfo(name).compress_size
    spoil_member(damaged, name, size - 64, b"\xff" * 8)
    with Archive(damaged) as archive:
        with pytest.raises(zipfile.BadZipFile):
            archive.read(name)
        read: Any = _messages(archive, name)
    assert read == json.loads(_samples()[name])["messages"]
    assert _asked_all(damaged, [name]) == _asked_all(log, [name])
