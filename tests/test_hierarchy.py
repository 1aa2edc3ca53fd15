"""chunker.hierarchy: document → sections → chunks navigation (docs/method.md §6), the three layers (§7), their
JSON."""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import json
from pathlib import Path

import pytest

import chunker
from chunker import Node, UnknownNodeError
from tests.conftest import CORPUS, SAMPLES, corpus_files, requires_corpus


def words(n: int) -> str:
    """A paragraph of exactly n cl100k tokens."""
    return " ".join(["word"] * n)


def run(text: str, target: int = 64, cap: int = 128, **options: object) -> chunker.ChunkSet:
    doc = chunker.parse(text, name="doc.md")
    options.setdefault("strategy", "balanced")  # the greedy packing of docs/method.md §5 steps 2–6
    chunks = chunker.chunk(doc, target=target, hard_cap=cap, **options)  # type: ignore[arg-type]
    check_hierarchy(chunks, doc.text)
    return chunks


def ids(nodes: list[Node]) -> list[str]:
    return [node.id for node in nodes]


# A preamble, a section cut into pieces (A1), a section whose child rides along inside its chunk (A2),
# and a section (B) with a skipped level below it.
NESTED = (
    f"{words(20)}\n\n# A\n\n{words(30)}\n\n## A1\n\n{words(280)}\n\n## A2\n\n{words(20)}\n\n"
    f"### A2a\n\n{words(20)}\n\n# B\n\n{words(100)}\n\n#### B1\n\n{words(10)}\n"
)


def check_hierarchy(chunks: chunker.ChunkSet, text: str | None = None) -> None:
    """Assert the hierarchy invariants of docs/method.md §6 and the layer links of §7 on one chunk set."""
    tree = chunks.hierarchy()
    nodes = tree.nodes()
    by_id = {node.id: node for node in nodes}
    name = chunks.document.get("name")
    assert len(by_id) == len(nodes), f"{name}: a node id appears twice"
    roots = [node for node in nodes if node.parent_id is None]
    assert ids(roots) == ["d"] and roots[0].kind == "document" and roots[0].level == 0, f"{name}: not one root"
    for node in nodes:
        for child_id in node.children_ids:
            assert by_id[child_id].parent_id == node.id, f"{name}: {child_id} does not point back to {node.id}"
        if node.parent_id is not None:
            parent = by_id[node.parent_id]
            assert parent.children_ids.count(node.id) == 1, f"{name}: {node.parent_id} does not list {node.id}"
            start, end = node.char_span
            assert parent.char_span[0] <= start and end <= parent.char_span[1], f"{name}: {node.id} outside parent"
            if node.kind == "chunk":
                assert node.level == parent.level + 1, f"{name}: level of {node.id}"
            else:
                assert node.kind == "section" and node.level > parent.level, f"{name}: level of {node.id}"
        starts = [by_id[child].char_span[0] for child in node.children_ids]
        assert starts == sorted(starts), f"{name}: children of {node.id} out of order"
        assert node.is_leaf == (not node.children_ids)
    # Every node, and so every chunk, is reachable from the root exactly once.
    seen: list[str] = []
    stack = ["d"]
    while stack:
        seen.append(stack.pop())
        stack.extend(by_id[seen[-1]].children_ids)
    assert sorted(seen) == sorted(by_id), f"{name}: a node is unreachable from the root"
    chunk_nodes = [node for node in nodes if node.kind == "chunk"]
    assert ids(chunk_nodes) == [chunk.id for chunk in chunks], f"{name}: chunks missing or out of order"
    # prev/next: one chain per kind, in reading order, each link mutual.
    for kind in ("section", "chunk"):
        chain = [node for node in nodes if node.kind == kind]
        for before, after in itertools.pairwise(chain):
            assert before.next_id == after.id and after.prev_id == before.id, f"{name}: prev/next at {before.id}"
        if chain:
            assert chain[0].prev_id is None and chain[-1].next_id is None
    assert ids(chunks.leaves()) == ids([node for node in nodes if not node.children_ids])
    assert ids(chunks.leaves()) == ([chunk.id for chunk in chunks] or ["d"])
    levels = sorted({node.level for node in nodes})
    assert sorted(node_id for level in levels for node_id in ids(chunks.by_level(level))) == sorted(by_id)
    # The tree dict nests every node once, survives JSON, and matches the flat nodes.
    tree_dict = json.loads(json.dumps(chunks.to_tree_dict()))
    flat: list[dict[str, object]] = []
    pending = [tree_dict]
    while pending:
        item = pending.pop()
        flat.append(item)
        pending.extend(item["children"])  # type: ignore[arg-type]
    assert sorted(str(item["id"]) for item in flat) == sorted(by_id)
    # Layers: the same nodes, every parent id resolving to a record of a layer.
    layers = chunks.layers()
    records = [record for layer in ("documents", "sections", "chunks") for record in layers[layer]]
    assert [r["id"] for r in records] == ids(
        [n for kind in ("document", "section", "chunk") for n in nodes if n.kind == kind]
    )
    known = {r["id"] for r in records}
    for record in records:
        assert record["parent_id"] is None or record["parent_id"] in known, f"{name}: {record['id']} parent"
        assert record["parent_id"] == by_id[record["id"]].parent_id
        assert record["document"] == name
        if text is not None and record["kind"] != "chunk":
            assert record["text"] == text[record["char_span"][0] : record["char_span"][1]]


# -- nodes and parents ---------------------------------------------------------------


def test_nodes_are_the_document_its_sections_and_its_chunks() -> None:
    """Ids are 'd', then sections numbered over the whole outline in document order, then the chunk ids."""
    chunks = run(NESTED)
    assert [entry.id for entry in chunks.outline or ()] == ["d", "s1", "s2", "s3", "s4", "s5", "s6"]
    assert ids(chunks.hierarchy().nodes()) == [
        "d", "c1", "s1", "c2", "s2", "c3", "c4", "c5", "c6", "c7", "s3", "c8", "s5", "c9",
    ]  # fmt: skip
    assert chunks.get_chunk("d").kind == "document" and chunks.get_chunk("d").title == "doc.md"
    assert chunks.get_chunk("s2").kind == "section" and chunks.get_chunk("s2").title == "A1"
    assert chunks.get_chunk("c3").kind == "chunk"


def test_preamble_chunks_hang_under_the_document() -> None:
    """The preamble's chunk is a child of the document, at level 1."""
    chunks = run(NESTED)
    assert chunks[0].breadcrumb == ["doc.md"]
    assert chunks.get_parent("c1") == chunks.get_chunk("d")
    assert chunks.get_chunk("c1").level == 1


def test_chunk_hangs_under_the_deepest_section_holding_its_span() -> None:
    """Pieces of a cut section hang under it; a chunk holding a section and its child hangs under the section."""
    chunks = run(NESTED)
    assert ids(chunks.get_children("s2")) == ["c3", "c4", "c5", "c6", "c7"]
    assert chunks.get_chunk("c8").parent_id == "s3"  # A2 with its child A2a, whole
    assert chunks.get_chunk("c2").parent_id == "s1"  # A's heading and direct content


def test_chunk_holding_several_whole_sections_hangs_under_their_common_parent() -> None:
    """Two sibling sections packed into one chunk hang under their parent and are not nodes themselves."""
    chunks = run(f"# A\n\n{words(110)}\n\n## A1\n\n{words(20)}\n\n## A2\n\n{words(20)}\n")
    assert chunks[1].headings == ["A1", "A2"]
    assert chunks.get_parent("c2") == chunks.get_chunk("s1")
    assert ids(chunks.get_children("s1")) == ["c1", "c2"]
    for section in ("s2", "s3"):
        with pytest.raises(UnknownNodeError):
            chunks.get_chunk(section)


def test_section_without_a_chunk_of_its_own_is_a_node_when_a_descendant_has_one() -> None:
    """S's heading travels in its parent's chunk, yet S stays in the tree because its child S2 has a chunk."""
    chunks = run(f"# P\n\n## S\n\n### S1\n\n{words(100)}\n\n### S2\n\n{words(100)}\n")
    assert chunks[0].headings == ["P", "S", "S1"]
    assert ids(chunks.get_children("s1")) == ["c1", "s2"]  # ordered by position: c1 starts at P's heading
    assert ids(chunks.get_children("s2")) == ["s4"]
    assert ids(chunks.get_children("s4")) == ["c2"]
    assert "s3" not in ids(chunks.hierarchy().nodes())  # S1 rides inside c1


def test_levels_are_heading_levels_and_a_chunk_sits_one_below_its_parent() -> None:
    """Document 0, a section its heading level (a skipped level stays skipped), a chunk its parent's + 1."""
    chunks = run(NESTED)
    assert [chunks.get_chunk(i).level for i in ("d", "s1", "s2", "s3", "s5")] == [0, 1, 2, 2, 1]
    assert [chunks.get_chunk(i).level for i in ("c1", "c2", "c3", "c8", "c9")] == [1, 2, 3, 3, 2]
    assert ids(chunks.by_level(2)) == ["c2", "s2", "s3", "c9"]
    assert chunks.by_level(7) == []


def test_own_and_subtree_tokens_come_from_the_outline_and_the_chunks() -> None:
    """A section's own_tokens count its heading and direct content, tokens its subtree; a chunk's both its count."""
    doc = chunker.parse(NESTED, name="doc.md")
    chunks = chunker.chunk(doc, target=64, hard_cap=128)
    a = doc.sections[0]
    node = chunks.get_chunk("s1")
    assert (node.own_tokens, node.tokens) == (a.own_tokens, a.tokens)
    assert node.char_span == a.char_span and node.byte_span == a.byte_span and node.line_span == a.line_span
    root = chunks.get_chunk("d")
    assert root.char_span == (0, len(NESTED)) and root.tokens == doc.token_count
    assert root.own_tokens == doc.root.own_tokens
    c3 = chunks.get_chunk("c3")
    assert c3.own_tokens == c3.tokens == chunks[2].token_count
    assert c3.char_span == chunks[2].char_span and c3.line_span == chunks[2].line_span


# -- navigation ------------------------------------------------------------------------


def test_ancestors_run_from_the_parent_up_to_the_document() -> None:
    """get_ancestors is nearest first and ends at the document; the document has none."""
    chunks = run(NESTED)
    assert ids(chunks.get_ancestors("c4")) == ["s2", "s1", "d"]
    assert chunks.get_ancestors("d") == []
    assert chunks.get_parent("d") is None


def test_siblings_are_the_parents_other_children_in_order() -> None:
    """get_siblings leaves the node itself out; the document has no siblings."""
    chunks = run(NESTED)
    assert ids(chunks.get_siblings("s2")) == ["c2", "s3"]
    assert ids(chunks.get_siblings("c1")) == ["s1", "s5"]
    assert chunks.get_siblings("d") == []


def test_prev_and_next_link_nodes_of_the_same_kind_in_reading_order() -> None:
    """Chunks chain c1 → c2 → …, across sections; sections chain in document order; the document has neither."""
    chunks = run(NESTED)
    assert (chunks.get_chunk("c7").prev_id, chunks.get_chunk("c7").next_id) == ("c6", "c8")
    assert (chunks.get_chunk("c1").prev_id, chunks.get_chunk("c9").next_id) == (None, None)
    assert (chunks.get_chunk("s3").prev_id, chunks.get_chunk("s3").next_id) == ("s2", "s5")
    assert (chunks.get_chunk("d").prev_id, chunks.get_chunk("d").next_id) == (None, None)


def test_leaves_are_the_chunks_in_order() -> None:
    """Every section node has a chunk below it, so the leaves are exactly the chunks."""
    chunks = run(NESTED)
    assert ids(chunks.leaves()) == [chunk.id for chunk in chunks]
    assert all(node.is_leaf for node in chunks.leaves())
    assert not chunks.get_chunk("s1").is_leaf


def test_empty_document_is_a_lone_leaf() -> None:
    """No chunks: the document is the only node, and a leaf."""
    chunks = run("")
    assert ids(chunks.hierarchy().nodes()) == ["d"] and ids(chunks.leaves()) == ["d"]
    assert chunks.to_tree_dict()["children"] == []


def test_unknown_id_raises_an_error_that_names_it() -> None:
    """A wrong id is a caller mistake: UnknownNodeError, a ChunkerError and a KeyError."""
    chunks = run(NESTED)
    for bad in ("c99", "s4", "x", ""):
        with pytest.raises(UnknownNodeError, match=repr(bad)):
            chunks.get_parent(bad)
    assert issubclass(UnknownNodeError, chunker.ChunkerError) and issubclass(UnknownNodeError, KeyError)


def test_front_matter_chunk_hangs_under_the_document() -> None:
    """With include_front_matter, the preamble chunk starts at 0, before every section, under the document."""
    text = f"---\ntitle: x\n---\n\n{words(10)}\n\n# P\n\n{words(200)}\n"
    chunks = run(text, include_front_matter=True)
    assert chunks[0].char_span[0] == 0 and chunks.get_chunk("c1").parent_id == "d"


def test_tree_dict_is_json_safe_and_nests_children() -> None:
    """to_tree_dict: plain dicts and lists, children nested, no children_ids, spans as lists."""
    chunks = run(NESTED)
    tree = chunks.to_tree_dict()
    assert json.loads(json.dumps(tree)) == tree
    assert tree["id"] == "d" and tree["kind"] == "document" and tree["parent_id"] is None
    assert [child["id"] for child in tree["children"]] == ["c1", "s1", "s5"]
    a1 = tree["children"][1]["children"][1]
    assert a1["id"] == "s2" and a1["char_span"] == list(chunks.get_chunk("s2").char_span)
    assert "children_ids" not in a1 and a1["is_leaf"] is False
    assert a1["children"][0]["children"] == [] and a1["children"][0]["is_leaf"] is True


# -- layers -----------------------------------------------------------------------------


def test_layers_are_documents_sections_and_chunks_with_parent_ids() -> None:
    """Three lists of records; parent ids point one layer up (or to the document)."""
    chunks = run(NESTED)
    layers = chunks.layers()
    assert list(layers) == ["documents", "sections", "chunks"]
    assert [r["id"] for r in layers["documents"]] == ["d"] and layers["documents"][0]["parent_id"] is None
    assert [r["id"] for r in layers["sections"]] == ["s1", "s2", "s3", "s5"]
    assert [r["parent_id"] for r in layers["sections"]] == ["d", "s1", "s1", "d"]
    assert [r["parent_id"] for r in layers["chunks"]] == ["d", "s1", "s2", "s2", "s2", "s2", "s2", "s3", "s5"]


def test_layer_text_is_the_source_of_the_document_and_sections_and_the_markdown_of_chunks() -> None:
    """Document and section records hold their exact source slice; chunk records their markdown and fields."""
    chunks = run(NESTED)
    layers = chunks.layers()
    assert layers["documents"][0]["text"] == NESTED
    assert layers["sections"][1]["text"].startswith("## A1\n\n") and layers["sections"][1]["text"].endswith("word")
    first = layers["chunks"][0]
    assert first["text"] == chunks[0].markdown and "markdown" not in first
    assert first["breadcrumb"] == ["doc.md"] and first["token_count"] == chunks[0].token_count
    assert first["document"] == "doc.md" and first["level"] == 1


def test_layers_jsonl_is_one_record_per_line() -> None:
    """layers_jsonl gives, per layer, one JSON record per line, equal to layers()."""
    chunks = run(NESTED)
    layers, jsonl = chunks.layers(), chunks.layers_jsonl()
    assert list(jsonl) == ["documents", "sections", "chunks"]
    for key, text in jsonl.items():
        assert text.endswith("\n") and text.count("\n") == len(layers[key])
        assert [json.loads(line) for line in text.splitlines()] == layers[key]


# -- JSON ---------------------------------------------------------------------------------


def test_outline_round_trips_through_json() -> None:
    """from_json(to_json()) keeps the outline: same hierarchy, same layers, same bytes."""
    chunks = run(NESTED)
    data = json.loads(chunks.to_json())
    assert list(data) == ["schema", "version", "document", "config", "outline", "chunks"]
    assert data["version"] == 1 and data["outline"][0]["id"] == "d"
    again = chunker.ChunkSet.from_json(chunks.to_json())
    assert again == chunks and again.to_json() == chunks.to_json()
    assert again.to_tree_dict() == chunks.to_tree_dict()
    assert [r["parent_id"] for r in again.layers()["chunks"]] == [r["parent_id"] for r in chunks.layers()["chunks"]]


def test_json_with_outline_is_byte_identical_for_the_same_input() -> None:
    """Two runs over the same text write the same bytes, outline included."""
    assert run(NESTED).to_json() == run(NESTED).to_json()


def test_version_1_json_without_an_outline_loads_as_a_flat_tree() -> None:
    """A chunk-set JSON written before the outline existed loads; its chunks hang under the document."""
    chunks = run(NESTED)
    data = json.loads(chunks.to_json())
    del data["outline"]
    old = chunker.ChunkSet.from_json(json.dumps(data))
    assert old.outline is None and old.to_json() == json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    check_hierarchy(old)
    assert ids(old.get_children("d")) == [chunk.id for chunk in chunks]
    root = old.get_chunk("d")
    assert root.byte_span == (0, len(NESTED.encode())) and root.tokens == chunks.document["token_count"]


def test_malformed_outline_is_refused() -> None:
    """An outline that is not a list of entries, or does not start with the document, raises ChunkerError."""
    data = json.loads(run(NESTED).to_json())
    for bad in ({"d": 1}, [{"id": "d"}]):
        with pytest.raises(chunker.ChunkerError, match="outline"):
            chunker.ChunkSet.from_json({**data, "outline": bad})
    moved = chunker.ChunkSet.from_json({**data, "outline": data["outline"][1:]})
    with pytest.raises(chunker.ChunkerError, match="outline starts with the document"):
        moved.hierarchy()


def test_layers_of_a_loaded_chunk_set_rebuild_the_text_from_its_chunks() -> None:
    """Without the source, section text is every chunk's source in place, whitespace between them."""
    chunks = run(NESTED)
    loaded = chunker.ChunkSet.from_json(chunks.to_json())
    exact, rebuilt = chunks.layers(), loaded.layers()
    for fresh, again in zip(exact["sections"], rebuilt["sections"], strict=True):
        assert len(again["text"]) == len(fresh["text"])
        assert again["text"].split() == fresh["text"].split()
    assert rebuilt["chunks"] == exact["chunks"]


def test_chunks_sharing_overlap_text_stay_under_their_section() -> None:
    """A chunk whose span reaches back into the previous one (overlap) keeps its parent; text is rebuilt once."""
    doc = chunker.parse(NESTED, name="doc.md")
    made = chunker.chunk(doc, target=64, hard_cap=128)
    c4 = made[3]
    span = (c4.char_span[0] - 20, c4.char_span[1])  # 20 chars of c3's tail shared
    shared = dataclasses.replace(
        c4,
        markdown=NESTED[span[0] : span[1]],
        char_span=span,
        byte_span=doc.source.byte_span(span),
        line_span=doc.source.line_span(span),
    )
    chunks = chunker.ChunkSet([*made[:3], shared, *made[4:]], made.document, made.config, made.outline, NESTED)
    check_hierarchy(chunks, NESTED)
    assert chunks.get_parent("c4") == chunks.get_chunk("s2")
    loaded = chunker.ChunkSet.from_json(chunks.to_json())
    a1 = loaded.layers()["sections"][1]
    assert a1["id"] == "s2" and a1["text"] == NESTED[a1["char_span"][0] : a1["char_span"][1]]


OPTIONS_READY = {"overlap", "min_tokens"} <= set(inspect.signature(chunker.chunk).parameters)


@pytest.mark.skipif(not OPTIONS_READY, reason="chunk() has no overlap/min_tokens options yet (issue 4, another helper)")
@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.md")), ids=lambda p: p.name)
def test_hierarchy_holds_with_overlapping_and_merged_chunks(path: Path) -> None:
    """Chunks that share overlap text or were merged up to min_tokens still form a proper tree."""
    text = path.read_text(encoding="utf-8")
    doc = chunker.parse(text, name=path.name)
    for target, cap in ((64, 128), (256, 512)):
        chunks = chunker.chunk(doc, target=target, hard_cap=cap, overlap=target // 4, min_tokens=target // 2)
        check_hierarchy(chunks, doc.text)
        loaded = chunker.ChunkSet.from_json(chunks.to_json())
        for fresh, again in zip(chunks.layers()["sections"], loaded.layers()["sections"], strict=True):
            assert len(again["text"]) == len(fresh["text"]) and again["text"].split() == fresh["text"].split()


# -- real documents ------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.md")), ids=lambda p: p.name)
def test_sample_document_hierarchy_holds_the_invariants(path: Path) -> None:
    """Every bundled sample, at two settings, meets the hierarchy invariants."""
    text = path.read_text(encoding="utf-8")
    doc = chunker.parse(text, name=path.name)
    for target, cap in ((64, 128), (256, 512)):
        check_hierarchy(chunker.chunk(doc, target=target, hard_cap=cap), doc.text)


@pytest.mark.corpus
@requires_corpus
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_real_document_hierarchy_holds_the_invariants(path: Path) -> None:
    """One root, mutual links, every chunk reachable, ordered siblings, prev/next, leaves, layers, JSON round trip."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    doc = chunker.parse(text, name=path.name)
    for target, cap in ((128, 256), (512, 1024)):
        chunks = chunker.chunk(doc, target=target, hard_cap=cap)
        check_hierarchy(chunks, doc.text)
        again = chunker.ChunkSet.from_json(chunks.to_json())
        assert again.to_tree_dict() == chunks.to_tree_dict()


def test_outline_is_taken_once_per_document() -> None:
    """Re-chunking a parsed document with new limits reuses its outline (it does not depend on them)."""
    doc = chunker.parse(NESTED, name="doc.md")
    first = chunker.chunk(doc, target=64, hard_cap=128)
    second = chunker.chunk(doc, target=256, hard_cap=512)
    assert first.outline is not None and first.outline is second.outline


def test_outline_is_made_on_first_use_and_survives_a_pickle() -> None:
    """chunk() leaves the outline to the first reader (to_json, the hierarchy); a pickled chunk set carries it."""
    import pickle

    doc = chunker.parse(NESTED, name="doc.md")
    chunks = chunker.chunk(doc, target=64, hard_cap=128)
    assert "outline" not in doc.caches.by_name()
    again = pickle.loads(pickle.dumps(chunks))
    assert "outline" in doc.caches.by_name()
    assert again == chunks and again.outline == chunks.outline == chunker.hierarchy.outline(doc)
    assert again.to_json() == chunks.to_json() == chunker.chunk(doc, target=64, hard_cap=128).to_json()
