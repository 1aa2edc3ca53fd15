"""Quality measures used to compare chunkers (chunk_inspector.peers.metrics), on hand-made chunks."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunk_inspector.peers import metrics
from chunk_inspector.peers.chunkers import PeerChunk
from chunk_inspector.peers.metrics import (
    ChunkMetrics,
    Table,
    coverage,
    heading_only,
    headless_table_piece,
    measure,
    source_tables,
    unbalanced_fence,
)

FENCE = "```"


class TestUnbalancedFence:
    def test_closed_fence_is_balanced(self) -> None:
        assert not unbalanced_fence(f"Text.\n\n{FENCE}python\nx = 1\n{FENCE}\n\nMore.")

    def test_fence_left_open_is_unbalanced(self) -> None:
        assert unbalanced_fence(f"Text.\n\n{FENCE}python\nx = 1\n")

    def test_chunk_starting_inside_code_is_unbalanced(self) -> None:
        assert unbalanced_fence(f"y = 2\nprint(y)\n{FENCE}\n\nAfter the code.")

    def test_shorter_fence_does_not_close_a_longer_one(self) -> None:
        assert unbalanced_fence(f"````md\n{FENCE}\ninner\n{FENCE}\n")
        assert not unbalanced_fence(f"````md\n{FENCE}\ninner\n{FENCE}\n````")

    def test_tilde_fence_is_not_closed_by_backticks(self) -> None:
        assert unbalanced_fence(f"~~~\ncode\n{FENCE}\n")
        assert not unbalanced_fence(f"~~~\ncode\n{FENCE}\n~~~~\n")

    def test_inline_code_on_its_own_line_is_no_fence(self) -> None:
        assert not unbalanced_fence("```let x = 1```\n\nText.")

    def test_fences_in_list_items_and_quotes_are_seen(self) -> None:
        assert not unbalanced_fence(f"1. Run:\n   {FENCE}sh\n   make\n   {FENCE}\n2. Done.")
        assert unbalanced_fence(f"- Run:\n  {FENCE}sh\n  make\n")
        assert not unbalanced_fence(f"> {FENCE}\n> quoted code\n> {FENCE}\n")

    def test_text_without_fences_is_balanced(self) -> None:
        assert not unbalanced_fence("Plain text with `inline` code.")


class TestHeadingOnly:
    def test_headings_alone_are_heading_only(self) -> None:
        assert heading_only("# Title\n\n## Part\n")

    def test_setext_heading_alone_is_heading_only(self) -> None:
        assert heading_only("Title\n=====\n\nPart\n----\n")

    def test_heading_with_content_is_not(self) -> None:
        assert not heading_only("## Install\n\nRun the installer.")

    def test_thematic_break_and_empty_text_are_not_headings(self) -> None:
        assert not heading_only("---\n")
        assert not heading_only("\n\n")
        assert not heading_only("#hashtag is not a heading")


SOURCE_WITH_TABLES = """# Limits

| name | value |
|------|------:|
| cap  | 512   |
| min  | 16    |

Text between.

```
| not | a table |
|-----|---------|
| in  | code    |
```

a | b
--|--
1 | 2
| cap  | 512   |
"""


class TestTables:
    def test_source_tables_finds_pipe_tables_outside_code(self) -> None:
        tables = source_tables(SOURCE_WITH_TABLES)
        assert tables == (
            Table("| name | value |", "|------|------:|", ("| cap  | 512   |", "| min  | 16    |")),
            Table("a | b", "--|--", ("1 | 2", "| cap  | 512   |")),
        )

    def test_whole_table_has_its_header(self) -> None:
        chunk = "| name | value |\n|------|------:|\n| cap  | 512   |\n| min  | 16    |"
        assert not headless_table_piece(chunk, source_tables(SOURCE_WITH_TABLES))

    def test_rows_without_header_are_a_headless_piece(self) -> None:
        assert headless_table_piece("| min  | 16    |\n\nText between.", source_tables(SOURCE_WITH_TABLES))

    def test_piece_with_repeated_header_is_not_headless(self) -> None:
        chunk = "| name | value |\n|------|------:|\n| min  | 16    |"
        assert not headless_table_piece(chunk, source_tables(SOURCE_WITH_TABLES))

    def test_header_line_without_delimiter_is_not_enough(self) -> None:
        assert headless_table_piece("| name | value |\n| min  | 16    |", source_tables(SOURCE_WITH_TABLES))

    def test_row_shared_with_a_headed_table_is_not_counted(self) -> None:
        chunk = "a | b\n--|--\n1 | 2\n| cap  | 512   |"
        assert not headless_table_piece(chunk, source_tables(SOURCE_WITH_TABLES))

    def test_chunk_without_rows_is_not_a_table_piece(self) -> None:
        assert not headless_table_piece("# Limits\n\nText between.", source_tables(SOURCE_WITH_TABLES))

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.sampled_from([" ", "\t", "|", ":", "-", "--", "x"]), max_size=12))
    def test_the_delimiter_row_pattern_matches_what_it_matched_before(self, parts: list[str]) -> None:
        written_before = re.compile(r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
        line = "".join(parts)
        assert bool(metrics._DELIMITER_ROW.match(line)) == bool(written_before.match(line))

    def test_hostile_tables_are_read_in_time_that_grows_with_them(self) -> None:
        """The Compare page measures every document: a line of 20,000 blanks under `a|b` took 11 s (the blanks split
        between two `[ \\t]*` every way), and each chunk of a table looked through all its rows: measuring the
        engine's chunks of a 2.6 MB table took 51 s (17 s now, the rest coverage), these 2,000 chunks 15 s (3 s now)."""
        started = time.process_time()
        assert source_tables("a|b\n" + " " * 200_000 + "|x\n") == ()
        rows = [f"| r{i} | v{i} |" for i in range(200_000)]
        source = "| a | b |\n|---|---|\n" + "\n".join(rows) + "\n"
        pieces = ["\n".join(rows[i : i + 100]) for i in range(0, 200_000, 100)]
        headed = [PeerChunk(f"| a | b |\n|---|---|\n{piece}", (0, 0), ()) for piece in pieces[:200]]
        headless = [PeerChunk(piece, (0, 0), ()) for piece in pieces[200:]]
        assert measure(source, headed + headless, len, hard_cap=10**6).headless_table == 1800
        assert time.process_time() - started < 10


class TestCoverage:
    SOURCE = "# A\n\nFirst paragraph here.\n\n## B\n\nSecond paragraph here.\n"

    def test_chunks_holding_everything_cover_all(self) -> None:
        assert coverage(self.SOURCE, ["# A\n\nFirst paragraph here.", "## B\n\nSecond paragraph here."]) == 1.0

    def test_missing_text_lowers_coverage_by_its_share(self) -> None:
        kept = "# A\n\nFirst paragraph here."
        share = len("".join(kept.split())) / len("".join(self.SOURCE.split()))
        assert coverage(self.SOURCE, [kept]) == pytest.approx(share)

    def test_reflowed_whitespace_still_counts(self) -> None:
        assert coverage(self.SOURCE, ["# A  \nFirst paragraph here.  \n## B  \nSecond paragraph\nhere."]) == 1.0

    def test_added_fence_and_table_header_do_not_hide_the_content(self) -> None:
        source = "| h | v |\n|---|---|\n| a | 1 |\n| b | 2 |\n\n```py\nx = 1\ny = 2\n```\n"
        chunks = [
            "| h | v |\n|---|---|\n| a | 1 |",
            "| h | v |\n|---|---|\n| b | 2 |\n\n```py\nx = 1\n```",
            "```py\ny = 2\n```",
        ]
        assert coverage(source, chunks) == 1.0

    def test_small_core_does_not_jump_to_a_later_duplicate(self) -> None:
        row = "| a long row that carries most of the characters of its chunk |"
        later = "| another long row that only the second table holds, far below |"
        source = f"| h | v |\n|---|---|\n| x |\n{row}\n\nText.\n\n| h | v |\n|---|---|\n{later}\n"
        chunks = [
            "| h | v |\n|---|---|\n| x |",
            f"| h | v |\n|---|---|\n{row}\n\nText.",
            f"| h | v |\n|---|---|\n{later}",
        ]
        assert coverage(source, chunks) == 1.0

    def test_skipped_span_is_left_out_of_the_share(self) -> None:
        source = "---\ntitle: x\n---\n\nBody text.\n"
        assert coverage(source, ["Body text."], skip=(0, source.index("Body"))) == 1.0
        assert coverage(source, ["Body text."]) < 1.0

    def test_empty_source_is_fully_covered(self) -> None:
        assert coverage("  \n", []) == 1.0


def words(text: str) -> int:
    return len(text.split())


class TestMeasure:
    def test_counts_each_defect_once_per_chunk(self) -> None:
        source = "# A\n\none two three four five six\n\n```\ncode here\n```\n\n| h | v |\n|---|---|\n| a | 1 |\n"
        chunks = [
            PeerChunk("# A", headings=("A",)),
            PeerChunk("one two three four five six\n\n```\ncode here", headings=("A",)),
            PeerChunk("```\n\n| h | v |\n|---|---|"),
            PeerChunk("| a | 1 |"),
        ]
        m = measure(source, chunks, words, hard_cap=5, small=3)
        assert m == ChunkMetrics(
            chunks=4,
            over_cap=2,
            unbalanced_fence=2,
            headless_table=1,
            heading_only=1,
            small=1,
            with_headings=2,
            coverage=1.0,
            tokens=2 + 9 + 7 + 5,
        )

    def test_tokens_are_counted_on_what_would_be_embedded(self) -> None:
        chunk = PeerChunk("body text", embed_text="header_path: /A/\n\nbody text")
        m = measure("body text", [chunk], words, hard_cap=3)
        assert (m.tokens, m.over_cap) == (4, 1)

    def test_only_chunk_of_a_document_is_never_small(self) -> None:
        assert measure("Short.", [PeerChunk("Short.")], words, hard_cap=10).small == 0

    def test_fence_the_source_leaves_open_excuses_one_chunk(self) -> None:
        source = "Intro.\n\n```\nnever closed\n"
        m = measure(source, [PeerChunk("Intro."), PeerChunk("```\nnever closed")], words, hard_cap=10)
        assert m.unbalanced_fence == 0
