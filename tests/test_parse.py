"""chunker.parse: the heading tree, exact spans and counts, front matter, JSON round trip."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
from chunker.decode import InputError
from chunker.errors import ChunkerError
from chunker.model import Document


def titles(section: chunker.Section) -> list[tuple[int, str]]:
    return [(s.level, s.title) for s in section.walk()[1:]]


def test_sections_nest_by_level_and_skipped_levels_nest_under_the_nearest() -> None:
    """H3 right after H1 nests under the H1; a later H2 closes it and opens a sibling."""
    doc = chunker.parse("# A\n\ntext\n\n### A.x\n\nmore\n\n## B\n\n# C\n")
    (a, c) = doc.sections
    assert [s.title for s in a.children] == ["A.x", "B"]
    assert c.title == "C" and not c.children
    assert titles(doc.root) == [(1, "A"), (3, "A.x"), (2, "B"), (1, "C")]


def test_blocks_before_the_first_heading_are_the_preamble() -> None:
    """The preamble is the root's direct content; headings own the blocks after them."""
    doc = chunker.parse("intro\n\n- item\n\n# Title\n\nbody\n")
    assert [b.kind for b in doc.preamble] == ["paragraph", "list"]
    assert [b.kind for b in doc.sections[0].blocks] == ["paragraph"]


def test_headings_inside_lists_and_quotes_are_content() -> None:
    """Only top-level headings open sections."""
    doc = chunker.parse("- # not a section\n\n> ## nor this\n")
    assert doc.sections == ()
    assert [b.kind for b in doc.preamble] == ["list", "blockquote"]


def test_setext_headings_are_headings_and_keep_their_underline() -> None:
    """A setext heading opens a section and its span includes the underline."""
    text = "Title\n=====\n\nbody\n\nSub\n---\n"
    doc = chunker.parse(text)
    (title,) = doc.sections
    assert title.title == "Title" and title.level == 1
    assert title.heading is not None
    assert text[slice(*title.heading.char_span)] == "Title\n====="
    assert title.children[0].level == 2


def test_heading_titles_are_plain_text() -> None:
    """Inline markup is stripped from titles: emphasis, code, links, image alt text."""
    doc = chunker.parse("# Use **bold** and `code` with [a link](x) ![alt text](i.png)\n")
    assert doc.sections[0].title == "Use bold and code with a link alt text"


def test_block_spans_are_exact_and_exclude_trailing_blank_lines() -> None:
    """text[char_span] is the block; byte and line spans agree; blank lines after are excluded."""
    text = "# Tïtle\r\n\r\npara one\r\nline two\r\n\r\n\r\n```py\r\ncode\r\n```\r\n"
    doc = chunker.parse(text)
    blocks = doc.blocks
    assert [text[slice(*b.char_span)] for b in blocks] == ["# Tïtle", "para one\r\nline two", "```py\r\ncode\r\n```"]
    for block in blocks:
        start, end = block.char_span
        assert block.byte_span == (len(text[:start].encode()), len(text[:end].encode()))
    assert [b.line_span for b in blocks] == [(1, 1), (3, 4), (7, 9)]
    assert blocks[2].info == "py"


def test_lines_without_a_token_become_text_blocks() -> None:
    """Link reference definitions produce no markdown-it token but are kept as text blocks."""
    text = "# T\n\nSee [x].\n\n[x]: https://example.com\n"
    doc = chunker.parse(text)
    assert [b.kind for b in doc.blocks] == ["heading", "paragraph", "text"]
    assert text[slice(*doc.blocks[-1].char_span)] == "[x]: https://example.com"


def test_token_counts_are_exact_for_blocks_sections_and_document() -> None:
    """Own and subtree counts equal a fresh count of the section's text."""
    text = "Intro.\n\n# A\n\nAlpha text.\n\n## A1\n\n- one\n- two\n\n# B\n\n| x | y |\n|---|---|\n| 1 | 2 |\n"
    doc = chunker.parse(text)
    count = doc.tokenizer.count
    assert doc.token_count == count(text)
    for section in doc.sections_in_order():
        assert section.tokens == count(text[slice(*section.char_span)])
    a = doc.sections[0]
    own_end = a.blocks[-1].end
    assert a.own_tokens == count(text[a.char_span[0] : own_end])


def test_yaml_front_matter_is_parsed_and_not_a_block_of_the_tree() -> None:
    """YAML front matter becomes Document.front_matter; dates turn into strings."""
    text = "---\ntitle: Hello\ndate: 2024-01-02\ntags: [a, b]\n---\n# Hello\n"
    doc = chunker.parse(text)
    assert doc.front_matter == {"title": "Hello", "date": "2024-01-02", "tags": ["a", "b"]}
    assert doc.front_matter_block is not None
    assert [b.kind for b in doc.blocks] == ["heading"]


def test_toml_front_matter_is_parsed() -> None:
    """+++-delimited TOML front matter is parsed too."""
    doc = chunker.parse('+++\ntitle = "T"\nweight = 3\n+++\n\nBody.\n')
    assert doc.front_matter == {"title": "T", "weight": 3}


def test_dashes_that_are_not_a_mapping_stay_markdown() -> None:
    """A leading --- pair around non-YAML-mapping text is a thematic break, not front matter."""
    doc = chunker.parse("---\nJust a sentence.\n---\n")
    assert doc.front_matter is None
    assert "".join(doc.text[slice(*b.char_span)] for b in doc.blocks).count("Just a sentence.") == 1


def test_every_str_parses() -> None:
    """Empty, whitespace-only and control-character texts parse without raising."""
    for text in ["", "   \n\n", "\x00\x01", "#", "```", "|a|\n|-|"]:
        doc = chunker.parse(text)
        assert doc.text == text


@pytest.mark.parametrize(
    ("text", "name", "message"),
    [
        (
            "a\ud800b",
            "doc.md",
            r"the text of 'doc.md' is not Unicode text: a lone surrogate U\+D800 at offset 1 \(line 1\)",
        ),
        ("# T\n\nx\udcff\n", "doc.md", r"U\+DCFF at offset 6 \(line 3\)"),
        (
            "# T\n",
            os.fsdecode(b"caf\xe9.md"),
            r"the document name 'caf\\udce9.md' is not Unicode text: .* U\+DCE9 at offset 3",
        ),
    ],
)
def test_a_lone_surrogate_is_refused_naming_where_it_is(text: str, name: str, message: str) -> None:
    """A str with a lone surrogate (a byte kept by ``errors="surrogateescape"``, JSON's ``"\\ud800"``) used to
    chunk into a set whose ``to_json()`` raised UnicodeEncodeError when written: it is one InputError now, at
    the parse, saying where the surrogate is; a pair of surrogates left as two code points is refused too."""
    with pytest.raises(InputError, match=message):
        chunker.chunk_markdown(text, name=name)
    with pytest.raises(InputError, match="not Unicode text"):
        chunker.parse("ab" + b"\xed\xa0\xbd\xed\xb8\x80".decode("utf-8", "surrogatepass"))


def test_json_read_back_refuses_a_lone_surrogate() -> None:
    """JSON's ``"\\ud800"`` in a document's text or a chunk's markdown would make an object that cannot be
    written again: from_json refuses it, naming where it is."""
    doc = chunker.parse("# T\n\nbody\n", name="x.md").to_dict()
    doc["text"] = "# T\n\nbod\ud800\n"
    with pytest.raises(ChunkerError, match=r"malformed document JSON: .*lone surrogate U\+D800 at offset 8 \(line 3\)"):
        chunker.Document.from_json(json.dumps(doc))
    chunks = json.loads(chunker.chunk_markdown("# T\n\nbody\n").to_json())
    chunks["chunks"][0]["markdown"] = "# T\n\nbod\udc80\n"
    with pytest.raises(ChunkerError, match=r"malformed chunk 'c1': .*lone surrogate U\+DC80"):
        chunker.ChunkSet.from_json(json.dumps(chunks))


def test_document_json_round_trips_losslessly() -> None:
    """from_json(to_json()) rebuilds an equal tree; serialising it again gives the same JSON."""
    text = "---\na: 1\n---\nPre.\n\n# A\n\nx\n\n## B\n\n```\ny\n```\n\n# C\n"
    doc = chunker.parse(text, name="t.md")
    data = doc.to_json()
    again = Document.from_json(data)
    assert again.to_json() == data
    assert again.blocks == doc.blocks
    assert again.root == doc.root
    assert json.loads(data)["tokenizer"] == "cl100k_base"
    assert chunker.chunk(again, 16, 32).to_json() == chunker.chunk(doc, 16, 32).to_json()


def test_document_from_a_callable_needs_the_callable_back() -> None:
    """A document counted with a callable records its name and asks for it on load."""
    import pytest

    doc = chunker.parse("# A\n\nwords here\n", tokenizer=len)
    data = doc.to_json()
    with pytest.raises(chunker.ChunkerError, match="callable:len"):
        Document.from_json(data)
    assert Document.from_json(data, tokenizer=len).root == doc.root


def test_unclosed_fence_tells_a_stray_fence_line_from_a_closed_fence() -> None:
    """A lone fence line opens a fence that runs to the end; a closed fence or a fence-free text does not."""
    from chunker.parse import unclosed_fence

    assert unclosed_fence("```\nsome text\n") == "```"
    assert unclosed_fence("> ~~~~\n> quoted") == "> ~~~~"
    assert unclosed_fence("```py\nx = 1\n```\n") == ""
    assert unclosed_fence("<div>\n```\n</div>\n") == ""  # HTML absorbs the line
    assert unclosed_fence("plain text, no fence at all\n") == ""


_title_chars = st.sampled_from([*"ab Z9#$%^()-+=:;'\",.?/|{}@\t\u00a0éß日>", "&amp;", "\\", "*", "_", "`", "[", "]"])


@settings(max_examples=500, deadline=None)
@given(st.lists(_title_chars, max_size=12).map("".join))
def test_plain_titles_skip_the_inline_parse_with_the_same_result(title: str) -> None:
    """A title without inline markup gets the inline parse's answer without running it."""
    from chunker.parse import _parsed_plain_text, plain_text

    assert plain_text(title) == (_parsed_plain_text(title) if title.strip() else "")


def test_fast_constructors_build_what_the_constructors_build() -> None:
    """new_blocks and new_section (the parser's, without checks) equal Block(...) and Section(...), field by field."""
    import dataclasses
    from array import array

    from chunker.model import Block, BlockSpans, Section, new_blocks, new_section

    block_values = ("heading", (1, 2), (3, 4), (5, 6), 7, 8, 9, "title", "info")
    other_values = ("text", (2, 3), (4, 5), (6, 7), 8, 9, 0, "", "")
    spans = BlockSpans(*(array("q", column) for column in ([1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7])))
    kinds, _, _, _, *rest = zip(block_values, other_values, strict=True)
    block, other = new_blocks(kinds, spans, *rest)
    assert (block, other) == (Block(*block_values), Block(*other_values))
    assert hash(block) == hash(Block(*block_values))
    assert new_blocks((), spans, (), (), (), (), ()) == []
    assert [getattr(block, name) for name in Block.FIELDS] == list(block_values)
    assert block.values() == block_values
    assert (block.start, block.end, other.start, other.end) == (1, 2, 2, 3)
    assert repr(block) == repr(Block(*block_values))
    assert repr(block).startswith("Block(kind='heading', char_span=(1, 2)")
    section_values = (2, "T", block, (block,), (), 10, 11, 12, 19, 20)
    section = new_section(*section_values)  # type: ignore[arg-type]
    assert section == Section(*section_values)  # type: ignore[arg-type]
    assert [getattr(section, f.name) for f in dataclasses.fields(Section)] == list(section_values)
    for made in (block, Block(*block_values)):
        for name in ("tokens", "char_span", "_at"):
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(made, name, 0)


def test_a_parsed_documents_blocks_share_their_spans_in_columns() -> None:
    """The parser's blocks keep no span tuples of their own: they read one BlockSpans, and pickle
    to blocks equal to them."""
    import pickle

    from chunker.model import BlockSpans

    doc = chunker.parse("# Caf\u00e9\n\npara one\n\n```py\nx = 1\n```\n")
    assert len({id(block._spans) for block in doc.blocks}) == 1
    assert isinstance(doc.blocks[0]._spans, BlockSpans)
    assert [block.byte_span for block in doc.blocks] == [doc.source.byte_span(b.char_span) for b in doc.blocks]
    assert [block.line_span for block in doc.blocks] == [(1, 1), (3, 3), (5, 7)]
    assert pickle.loads(pickle.dumps(doc.blocks)) == doc.blocks


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("# \t#x*_\\`\u00a0\u2003é#\x0b\x0c")), max_size=14))
def test_atx_heading_reads_a_line_as_markdown_it_py_does(line: str) -> None:
    """Level and content of an ATX heading line read off the text equal markdown-it-py's heading tokens."""
    from chunker.parse import _atx_heading, _block_tokens

    tokens = _block_tokens(line)
    if not tokens or tokens[0].type != "heading_open" or tokens[0].map != [0, 1]:
        return  # not a heading on its own: the tree is read instead
    assert _atx_heading(line) == (int(tokens[0].tag[1:]), tokens[1].content)


def test_the_garbage_collector_is_as_it_was_after_a_parse() -> None:
    """parse and chunk pause the cyclic collector and leave it as they found it: on, off, after an error, across
    threads."""
    import gc
    from concurrent.futures import ThreadPoolExecutor

    import pytest

    text = "# T\n\n" + "para.\n\n" * 500

    def failing(piece: str) -> int:
        raise RuntimeError("no count")

    assert gc.isenabled()
    chunker.parse(text)
    assert gc.isenabled()
    with pytest.raises(chunker.TokenizerError):
        chunker.parse(text, tokenizer=failing)
    assert gc.isenabled()
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(chunker.parse, [text] * 16))
    assert gc.isenabled()
    doc = chunker.parse(text)
    with pytest.raises(chunker.ConfigError):
        chunker.chunk(doc, target=64, hard_cap=32)
    assert gc.isenabled()
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda cap: chunker.chunk(doc, target=cap // 2, hard_cap=cap), [64, 128, 256, 512] * 4))
        list(pool.map(chunker.chunk_markdown, [text] * 8))
    assert gc.isenabled()
    gc.disable()
    try:
        chunker.parse(text)
        chunker.chunk(doc, target=64, hard_cap=128)
        assert not gc.isenabled()
    finally:
        gc.enable()
