"""Make, or check, the revision pairs of the churn benchmark (``benchmarks/churn.py``).

A pair is two consecutive revisions (old, new) of one Markdown file in its repository's first-parent
history, where the new one changes at least one and at most 5% of the old one's lines. ``--select``
walks each file of :data:`FILES` from its newest commit back and takes its qualifying steps until the
file's quota is filled; consecutive steps share their middle revision, which is stored once. It needs a
local clone (a bare one will do) of each repository of :data:`PROJECTS`, and writes the revisions (the
blobs, byte for byte) and ``MANIFEST.tsv`` next to this script. ``--check`` (the default) needs nothing
but this folder: every file the manifest names is there, its Git blob id is the recorded one, and each
pair's lines changed are as recorded and within the rule.

Lines changed: difflib's opcodes on the two versions' lines (``splitlines(keepends=True)``, no
autojunk); each replaced, deleted or inserted run counts the larger of its old and new line counts.

Usage: python benchmarks/revisions/make_pairs.py [--check]
       python benchmarks/revisions/make_pairs.py --select --mirrors /work/.mirror
       (clones found as DIR/<owner>+<name>/repo, DIR/<owner>+<name>, DIR/<name>.git or DIR/<name>)
"""

from __future__ import annotations

import argparse
import csv
import difflib
import hashlib
import itertools
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "MANIFEST.tsv"
COLUMNS = (
    "project",
    "repo",
    "path",
    "old_commit",
    "new_commit",
    "old_file",
    "new_file",
    "lines_changed",
    "old_lines",
    "old_blob",
    "new_blob",
)
MAX_SHARE = 0.05
MIN_BYTES = 2000

# project -> (GitHub repository, prefix dropped from paths to name the folder of a file's revisions)
PROJECTS: dict[str, tuple[str, str]] = {
    "fastapi": ("tiangolo/fastapi", "docs/en/docs/"),
    "rust-book": ("rust-lang/book", "src/"),
    "axios": ("axios/axios", ""),
    "pyenv": ("pyenv/pyenv", ""),
    "youtube-dl": ("ytdl-org/youtube-dl", ""),
    "mkdocs-material": ("squidfunk/mkdocs-material", "docs/"),
}

# (project, path, pairs wanted, largest revision accepted in bytes)
FILES: tuple[tuple[str, str, int, int], ...] = (
    ("fastapi", "README.md", 4, 60_000),
    ("fastapi", "docs/en/docs/tutorial/sql-databases.md", 3, 60_000),
    ("fastapi", "docs/en/docs/async.md", 3, 60_000),
    ("fastapi", "docs/en/docs/tutorial/query-params-str-validations.md", 3, 60_000),
    ("fastapi", "docs/en/docs/python-types.md", 3, 60_000),
    ("fastapi", "docs/en/docs/tutorial/bigger-applications.md", 2, 60_000),
    ("fastapi", "docs/en/docs/alternatives.md", 2, 60_000),
    ("rust-book", "src/ch02-00-guessing-game-tutorial.md", 4, 60_000),
    ("rust-book", "src/ch03-02-data-types.md", 4, 60_000),
    ("rust-book", "src/ch09-02-recoverable-errors-with-result.md", 3, 60_000),
    ("rust-book", "src/ch10-03-lifetime-syntax.md", 3, 60_000),
    ("rust-book", "src/ch04-01-what-is-ownership.md", 3, 60_000),
    ("rust-book", "src/ch08-02-strings.md", 3, 60_000),
    ("axios", "README.md", 17, 70_000),
    ("axios", "ECOSYSTEM.md", 3, 60_000),
    ("pyenv", "README.md", 10, 60_000),
    ("pyenv", "plugins/python-build/README.md", 5, 60_000),
    ("pyenv", "COMMANDS.md", 5, 60_000),
    ("youtube-dl", "README.md", 10, 105_000),
    ("youtube-dl", "CONTRIBUTING.md", 5, 60_000),
    ("youtube-dl", "docs/supportedsites.md", 5, 60_000),
    ("mkdocs-material", "docs/reference/code-blocks.md", 4, 60_000),
    ("mkdocs-material", "docs/reference/admonitions.md", 4, 60_000),
    ("mkdocs-material", "docs/reference/icons-emojis.md", 3, 60_000),
    ("mkdocs-material", "docs/reference/diagrams.md", 3, 60_000),
    ("mkdocs-material", "docs/reference/content-tabs.md", 3, 60_000),
    ("mkdocs-material", "docs/reference/data-tables.md", 3, 60_000),
)


def lines_changed(old: str, new: str) -> int:
    """The lines a change touches: for each non-equal opcode, the larger of its old and new line counts."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")


def qualifies(old: bytes, new: bytes, largest: int) -> tuple[int, int] | None:
    """``(lines changed, old lines)`` when the step is a pair of the benchmark, else None."""
    if not MIN_BYTES <= len(old) <= largest or not MIN_BYTES <= len(new) <= largest:
        return None
    try:
        old_text, new_text = old.decode("utf-8"), new.decode("utf-8")
    except UnicodeDecodeError:
        return None
    old_lines = len(old_text.splitlines())
    changed = lines_changed(old_text, new_text)
    return (changed, old_lines) if 1 <= changed <= MAX_SHARE * old_lines else None


def blob_id(data: bytes) -> str:
    """Git's blob id of these bytes (``git hash-object``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def stem(project: str, path: str) -> str:
    prefix = PROJECTS[project][1]
    rest = path[len(prefix) :] if prefix and path.startswith(prefix) else path
    return rest.removesuffix(".md").replace("/", "_")


@dataclass(frozen=True)
class Step:
    old_commit: str
    new_commit: str
    old_blob: str
    new_blob: str
    changed: int
    old_lines: int


class Git:
    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir

    def run(self, *args: str) -> bytes:
        return subprocess.run(["git", f"--git-dir={self.git_dir}", *args], capture_output=True, check=True).stdout

    def blob(self, sha: str) -> bytes:
        return self.run("cat-file", "blob", sha)

    def history(self, path: str) -> list[tuple[str, str, str]]:
        """``(commit, blob before, blob after)`` for each first-parent commit that changed the file, newest first."""
        out = self.run("log", "--first-parent", "--format=%x01%H", "--raw", "--no-abbrev", "--", path).decode()
        history = []
        for block in out.split("\x01")[1:]:
            commit, *raw = block.strip().splitlines()
            for line in raw:
                meta, _, name = line.partition("\t")
                if name == path:
                    history.append((commit, meta.split()[2], meta.split()[3]))
        return history


def find_git_dir(mirrors: Path, repo: str) -> Path:
    owner, name = repo.split("/")
    for candidate in (f"{owner}+{name}/repo", f"{owner}+{name}", f"{name}.git", name):
        if (mirrors / candidate).exists():
            return mirrors / candidate
    raise SystemExit(f"no clone of {repo} under {mirrors}")


def select(mirrors: Path) -> int:
    rows: list[dict[str, str]] = []
    for project, path, wanted, largest in FILES:
        git = Git(find_git_dir(mirrors, PROJECTS[project][0]))
        history = git.history(path)
        steps: list[Step] = []
        for (new_commit, before, new_blob), (old_commit, _, old_blob) in itertools.pairwise(history):
            if len(steps) == wanted:
                break
            if before != old_blob or new_blob == old_blob or "0" * 40 in (old_blob, new_blob):
                continue  # not one commit's change of the previous revision, or a deletion or creation
            found = qualifies(git.blob(old_blob), git.blob(new_blob), largest)
            if found is not None:
                steps.append(Step(old_commit, new_commit, old_blob, new_blob, *found))
        if len(steps) < wanted:
            print(f"{project} {path}: only {len(steps)} of {wanted} pairs", file=sys.stderr)
        steps.reverse()  # oldest first: revisions are numbered in time order
        folder = HERE / project / stem(project, path)
        folder.mkdir(parents=True, exist_ok=True)
        names: dict[str, str] = {}  # commit -> file name; a revision shared by two pairs is stored once
        for step in steps:
            for commit, blob in ((step.old_commit, step.old_blob), (step.new_commit, step.new_blob)):
                if commit not in names:
                    names[commit] = f"{len(names) + 1:02d}-{commit[:10]}.md"
                    (folder / names[commit]).write_bytes(git.blob(blob))
            rows.append(
                {
                    "project": project,
                    "repo": PROJECTS[project][0],
                    "path": path,
                    "old_commit": step.old_commit,
                    "new_commit": step.new_commit,
                    "old_file": str((folder / names[step.old_commit]).relative_to(HERE)),
                    "new_file": str((folder / names[step.new_commit]).relative_to(HERE)),
                    "lines_changed": str(step.changed),
                    "old_lines": str(step.old_lines),
                    "old_blob": step.old_blob,
                    "new_blob": step.new_blob,
                }
            )
    with MANIFEST.open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, COLUMNS, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"{len(rows)} pairs written to {MANIFEST}")
    return check()


def read_manifest(path: Path = MANIFEST) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def check() -> int:
    rows = read_manifest()
    problems = []
    for row in rows:
        old, new = (HERE / row["old_file"]).read_bytes(), (HERE / row["new_file"]).read_bytes()
        for data, key in ((old, "old_blob"), (new, "new_blob")):
            if blob_id(data) != row[key]:
                problems.append(f"{row[key.replace('blob', 'file')]}: blob id is not {row[key]}")
        found = qualifies(old, new, max(len(old), len(new)))
        if found is None or found != (int(row["lines_changed"]), int(row["old_lines"])):
            problems.append(f"{row['new_file']}: lines changed {found} against {row['lines_changed']}")
    files = {p.relative_to(HERE).as_posix() for p in HERE.glob("*/*/*.md")}
    named = {row[k] for row in rows for k in ("old_file", "new_file")}
    problems += [f"{f}: in no pair" for f in sorted(files - named)]
    print("\n".join(problems) or f"{len(rows)} pairs, {len(files)} revisions: all check out")
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--select", action="store_true", help="choose the pairs anew from local clones")
    parser.add_argument("--check", action="store_true", help="check the files against the manifest (default)")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"), help="where the clones are")
    args = parser.parse_args()
    return select(args.mirrors) if args.select else check()


if __name__ == "__main__":
    raise SystemExit(main())
