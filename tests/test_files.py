"""chunk_inspector.files.cut_name: one way to cut a file name to a byte length, for the file system and for a zip."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from chunk_inspector.app import view
from chunk_inspector.files import AtomicFile, cut_name

# Names as read from the file system: os.fsdecode of bytes, UTF-8 text and bytes that are not UTF-8 mixed
# (each such byte becomes a surrogate escape).
FILE_NAMES = st.lists(
    st.one_of(st.text(st.characters(blacklist_categories=("Cs",)), max_size=8).map(str.encode), st.binary(max_size=4)),
    max_size=12,
).map(lambda parts: os.fsdecode(b"".join(parts)))


def test_a_name_within_the_limit_is_kept_as_it_is() -> None:
    """Short names, and one of exactly the limit (100 é: 200 bytes), are not cut."""
    assert cut_name("guide.md", 200) == "guide.md"
    assert cut_name("é" * 100, 200) == "é" * 100
    assert cut_name("", 0) == ""


def test_a_name_is_cut_at_a_character_never_inside_one() -> None:
    """One byte over: the é that would cross the limit goes whole; 😀 takes four bytes and goes whole too."""
    assert cut_name("a" + "é" * 100, 200) == "a" + "é" * 99
    assert cut_name("😀" * 60, 200) == "😀" * 50
    assert cut_name("ab" + "😀" * 60, 200) == "ab" + "😀" * 49
    assert cut_name("😀", 3) == ""


def test_undecodable_bytes_count_one_each_and_are_kept_as_they_were() -> None:
    """A name read from the file system with bytes that are not UTF-8 (0xff as ``\\udcff``): its start is the
    same bytes, so the cut name still names them (they used to be dropped from the temporary file's name)."""
    name = os.fsdecode(b"\xff" * 10 + "é".encode() * 120 + b".json")  # 255 bytes
    cut = cut_name(name, 200)
    assert os.fsencode(cut) == b"\xff" * 10 + "é".encode() * 95
    assert cut_name("\udcff" * 300, 200) == "\udcff" * 200


@given(FILE_NAMES, st.integers(0, 120))
def test_a_cut_name_is_the_longest_start_that_fits_and_round_trips(name: str, limit: int) -> None:
    """Its bytes are a start of the name's bytes, at most ``limit`` of them, and one more character would not
    fit; decoded again they give the cut name back."""
    cut = cut_name(name, limit)
    data = os.fsencode(cut)
    assert name.startswith(cut) and os.fsencode(name).startswith(data) and len(data) <= limit
    assert cut == name or len(os.fsencode(name[: len(cut) + 1])) > limit
    assert os.fsdecode(data) == cut


def test_an_output_named_with_undecodable_bytes_and_emoji_is_written_whole(tmp_path: Path) -> None:
    """A 255-byte name with bytes that are not UTF-8 and emoji: the temporary file beside it fits, and the
    output appears under its own name with nothing left behind."""
    name = os.fsdecode(b"\xff\xfe" * 5 + "😀".encode() * 60 + b".json")  # 10 + 240 + 5 bytes
    target = tmp_path / name
    atomic = AtomicFile(target)
    with atomic as out:
        assert len(os.fsencode(atomic.temporary.name)) <= 255
        out.write("{}")
    assert os.listdir(os.fsencode(tmp_path)) == [os.fsencode(name)]
    assert target.read_text(encoding="utf-8") == "{}"


def test_a_zip_member_is_valid_utf8_of_at_most_the_name_bytes() -> None:
    """Names with undecodable bytes (or JSON's lone surrogates) become valid UTF-8 with ``_`` where those stood
    (they used to vanish without a trace); emoji and a name of exactly the limit are cut at a character."""
    names = [os.fsdecode(b"caf\xe9.md"), "\ud83d\ude00.md", "😀" * 60 + ".md", "\udcff" * 300]
    members = view.archive_names(names)
    assert members == ["caf_.md", "_.md", "😀" * (view.NAME_BYTES // 4), "_"]
    assert view.archive_names(["é" * (view.NAME_BYTES // 2)]) == ["é" * (view.NAME_BYTES // 2)]  # exactly: whole
    assert view.archive_names(["a" + "é" * (view.NAME_BYTES // 2)]) == ["a" + "é" * (view.NAME_BYTES // 2 - 1)]
    for member in members:
        assert len(member.encode("utf-8")) <= view.NAME_BYTES, member
