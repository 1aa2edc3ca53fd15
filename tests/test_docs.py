"""The documentation says what the code does: its links resolve, and the tables and lists it keeps of names,
fields, options, defaults and exit statuses are the code's (README.md, docs/*.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import chunker
from chunk_inspector.cli.commands import main
from tests.readme_snippets import doc_blocks

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted(DOCS.glob("*.md"))]
FENCE = re.compile(r"^ *```.*?^ *```", re.S | re.M)


def prose(path: Path) -> str:
    """A page's text less its fenced code blocks and inline code spans (neither holds a link)."""
    return re.sub(r"`[^`\n]*`", "", FENCE.sub("", path.read_text(encoding="utf-8")))


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation but ``-`` and ``_`` dropped, spaces to
    ``-``, a repeated one numbered ``-1``, ``-2``."""
    seen: dict[str, int] = {}
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"#{1,6} +(.*?) *$", line)
        if heading is None:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.group(1)).replace("`", "").replace("*", "")
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        seen[slug] = seen.get(slug, -1) + 1
        if seen[slug]:
            seen[f"{slug}-{seen[slug]}"] = 0
    return set(seen)


def relative_links(path: Path) -> list[str]:
    return [link for link in re.findall(r"\]\(([^)\s]+)\)", prose(path)) if not re.match(r"[a-z]+:", link)]


def test_the_link_checker_finds_the_links_and_anchors_it_must() -> None:
    assert "docs/method.md#1-public-api" in relative_links(ROOT / "README.md")
    assert {"1-public-api", "6-options-and-hierarchy", "hierarchy"} <= anchors(DOCS / "method.md")
    assert "corpus-cli---jobs-1-against---jobs-2" in anchors(DOCS / "BENCHMARKS.md")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_names_a_file_and_a_heading_that_exist(page: Path) -> None:
    broken = []
    for link in relative_links(page):
        name, _, anchor = link.partition("#")
        target = (page.parent / name).resolve() if name else page
        if not target.exists():
            broken.append(f"{link}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in anchors(target):
            broken.append(f"{link}: no such heading")
    assert broken == []


def help_of(command: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--help"])
    assert exit_.value.code == 0
    return " ".join(capsys.readouterr().out.split())


COMMANDS = [[], ["tree"], ["eval"], ["diff"]]


def test_chunker_help_names_every_command_of_cli_md(capsys: pytest.CaptureFixture[str]) -> None:
    commands = re.findall(r"^## `chunker (\w+)`", (DOCS / "cli.md").read_text(encoding="utf-8"), re.M)
    assert commands == ["tree", "eval", "diff"]
    text = help_of([], capsys)
    assert [c for c in commands if f"chunker {c} " not in text] == []


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(["chunker", *c]))
def test_every_help_gives_the_exit_statuses_cli_md_gives_every_command(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    section = (DOCS / "cli.md").read_text(encoding="utf-8").split("## Exit status", 1)[1]
    shared = {"2", "3", "130", "143"}
    assert shared <= set(re.findall(r"\*\*(\d+)\*\*", section))
    epilog = help_of(command, capsys).split("Exit status:", 1)[1]
    assert {s for s in shared if not re.search(rf"(^|; ){s} ", epilog.strip())} == set()


def test_every_option_cli_md_names_is_an_option_of_a_command(capsys: pytest.CaptureFixture[str]) -> None:
    helps = " ".join(help_of(command, capsys) for command in COMMANDS)
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", (DOCS / "cli.md").read_text(encoding="utf-8")))
    assert len(named) > 20
    assert {option for option in named if not re.search(rf"{option}\b(?!-)", helps)} == set()


def test_max_size_says_skipped_only_where_the_command_walks_a_folder(capsys: pytest.CaptureFixture[str]) -> None:
    for command, walks in [([], True), (["diff"], True), (["tree"], False), (["eval"], False)]:
        line = help_of(command, capsys).split("--max-size MB", 2)[-1].split(" --", 1)[0]
        assert ("skipped in a directory run" in line) == walks, (command, line)


def method_section(number: str) -> str:
    text = (DOCS / "method.md").read_text(encoding="utf-8")
    return text.split(f"\n## §{number} ", 1)[1].split("\n## ", 1)[0]


def test_method_md_gives_each_option_its_default() -> None:
    documented = dict(re.findall(r"^- `(\w+)=([^`]+)`:", method_section("6"), re.M))
    defaults = chunker.ChunkOptions().keywords()
    assert set(documented) == set(defaults) - {"target", "hard_cap", "tokenizer"}
    assert {name: repr(defaults[name]) for name in documented} == {
        name: value.replace('"', "'") for name, value in documented.items()
    }
    assert f"`chunker.DEFAULT_TARGET` ({chunker.DEFAULT_TARGET})" in method_section("1")
    assert f"`chunker.DEFAULT_HARD_CAP` ({chunker.DEFAULT_HARD_CAP:,})" in method_section("1")


def json_md_table(after: str) -> list[str]:
    """The field names (first column, each backticked name) of the table that follows ``after`` in json.md."""
    text = (DOCS / "json.md").read_text(encoding="utf-8").split(after, 1)[1]
    table = re.search(r"\n\|---\|---\|\n((?:\|.*\n)+)", text)
    assert table is not None
    return [name for row in table.group(1).splitlines() for name in re.findall(r"`(\w+)`", row.split("|")[1])]


def test_json_md_names_every_field_of_the_schema_in_its_order() -> None:
    defs = json.loads((DOCS / "chunk-set.schema.json").read_text(encoding="utf-8"))["$defs"]
    assert json_md_table("**`document`**") == defs["document"]["required"]
    assert json_md_table("**`chunks`**") == defs["chunkFields"]["required"]
    config = (DOCS / "json.md").read_text(encoding="utf-8").split("**`config`**", 1)[1].split("\n\n", 1)[0]
    config_names = re.findall(r"`(\w+)`", config.split("):", 1)[1])
    assert [n for n in config_names if n not in ("optimal", "balanced", "reference")] == defs["config"]["required"]


def test_json_md_names_every_field_of_a_layer_record() -> None:
    chunks = chunker.chunk_markdown("# A\n\nText.\n\n## B\n\nMore.\n", name="a.md", target=16, hard_cap=16)
    layers = chunks.layers()
    common = json_md_table("Every\nrecord carries:")
    assert list(layers["sections"][0]) == common
    assert list(layers["documents"][0]) == common
    rest = (DOCS / "json.md").read_text(encoding="utf-8").split("A chunk record then has the other fields of a chunk")
    others = re.findall(r"`(\w+)`", rest[1].split(")", 1)[0])
    assert list(layers["chunks"][0]) == common + others


def test_evaluation_md_python_snippet_runs_as_written(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/evaluation.md §4's Python example (a list item's indented fence): it runs from the repository root and
    prints the recall within the budget, then the misses it names."""
    from chunk_inspector.evaluate.metrics import Contender, evaluate
    from chunk_inspector.evaluate.questions import load_question_set
    from chunk_inspector.evaluate.retrievers import get_retriever

    (snippet,) = doc_blocks("docs/evaluation.md", "## §4 Where it shows")
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {}
    exec(compile(snippet, "docs/evaluation.md", "exec"), namespace)
    questions = load_question_set(ROOT / "sample_docs" / "questions.jsonl", ROOT / "sample_docs")
    result = evaluate(questions, Contender.engine(chunker.ChunkOptions(256, 512)), get_retriever("bm25"))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{result.mean()['recall@budget']} {{")
    assert [line.split()[0] for line in lines[1:]] == [miss.question.id for miss in result.misses()[:3]]


def test_evaluation_md_shows_a_line_of_the_bundled_question_set() -> None:
    (example,) = doc_blocks("docs/evaluation.md", "## §1 Question sets", "json")
    first = (ROOT / "sample_docs" / "questions.jsonl").read_text(encoding="utf-8").splitlines()[0]
    assert example == first + "\n"
