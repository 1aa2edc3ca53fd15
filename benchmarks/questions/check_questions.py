#!/usr/bin/env python3
"""Validate a question set (JSONL) against the documents of ``../shared/corpus/real/``.

Standard library only. Every line must be a JSON object with
id, document, question, kind and references; every reference must satisfy
text[start_index:end_index] == content, where text is the document read as
open(path, encoding="utf-8", newline="").read() (no newline translation).

Prints counts per kind and per document; exits 1 on any error.

Usage: python3 check_questions.py [questions.jsonl ...] [--root DIR]

Several files are checked as one set (ids unique across them). Standard library only, so it runs
without the project installed. Adapted from the checker of the 163-question set
(``shared/corpus/retrieval/markdown/check_questions.py``).
"""

import itertools
import json
import os
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_QUESTIONS = [os.path.join(HERE, "markdown_more.jsonl")]
# The project's folder sits beside shared/ (the corpus is read in place, never copied).
DEFAULT_ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "corpus", "real"))
KINDS = {"prose", "table", "code", "list", "heading_context", "multi_span"}
KEYS = {"id", "document", "question", "kind", "references"}
REF_KEYS = {"content", "start_index", "end_index"}


def read_doc(root, rel, cache):
    if rel not in cache:
        path = os.path.normpath(os.path.join(root, rel))
        if os.path.isabs(rel) or not path.startswith(root + os.sep) or not os.path.isfile(path):
            cache[rel] = None
        else:
            with open(path, encoding="utf-8", newline="") as f:
                cache[rel] = f.read()
    return cache[rel]


def main(argv):
    args = list(argv)
    root = DEFAULT_ROOT
    if "--root" in args:
        i = args.index("--root")
        root = os.path.abspath(args[i + 1])
        del args[i : i + 2]
    qpaths = args or DEFAULT_QUESTIONS

    errors = []
    notes = []
    ids = set()
    kinds = Counter()
    docs = Counter()
    nrefs = 0
    cache = {}

    lines = []
    for qpath in qpaths:
        with open(qpath, encoding="utf-8") as f:
            part = f.read().split("\n")
        if part and part[-1] == "":
            part.pop()
        lines += part

    for ln, line in enumerate(lines, 1):
        where = f"line {ln}"
        try:
            q = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(f"{where}: invalid JSON ({e})")
            continue
        if not isinstance(q, dict):
            errors.append(f"{where}: not a JSON object")
            continue
        missing = KEYS - q.keys()
        extra = q.keys() - KEYS
        if missing:
            errors.append(f"{where}: missing keys {sorted(missing)}")
            continue
        if extra:
            errors.append(f"{where}: unexpected keys {sorted(extra)}")
        qid = q["id"]
        where = f"line {ln} ({qid})"
        if not isinstance(qid, str) or not qid:
            errors.append(f"{where}: id must be a non-empty string")
        elif qid in ids:
            errors.append(f"{where}: duplicate id")
        ids.add(qid)
        if not isinstance(q["question"], str) or not q["question"].strip():
            errors.append(f"{where}: empty question")
        kind = q["kind"]
        if kind not in KINDS:
            errors.append(f"{where}: invalid kind {kind!r}")
        kinds[kind] += 1
        rel = q["document"]
        docs[rel] += 1
        text = read_doc(root, rel, cache) if isinstance(rel, str) else None
        if text is None:
            errors.append(f"{where}: document not found under {root}: {rel!r}")
            continue
        refs = q["references"]
        if not isinstance(refs, list) or not refs:
            errors.append(f"{where}: references must be a non-empty list")
            continue
        if kind == "multi_span" and len(refs) < 2:
            errors.append(f"{where}: multi_span needs at least 2 references")
        spans = []
        for j, r in enumerate(refs):
            rw = f"{where} ref {j}"
            if not isinstance(r, dict) or set(r.keys()) != REF_KEYS:
                errors.append(f"{rw}: reference must have exactly {sorted(REF_KEYS)}")
                continue
            c, s, e = r["content"], r["start_index"], r["end_index"]
            if not isinstance(c, str) or not c:
                errors.append(f"{rw}: empty content")
                continue
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in (s, e)):
                errors.append(f"{rw}: start_index/end_index must be integers")
                continue
            if not 0 <= s < e <= len(text):
                errors.append(f"{rw}: offsets {s}:{e} outside 0:{len(text)}")
                continue
            if text[s:e] != c:
                errors.append(f"{rw}: text[{s}:{e}] != content (found {text[s:e][:60]!r}, expected {c[:60]!r})")
                continue
            if text.count(c) > 1:
                notes.append(f"{rw}: content occurs {text.count(c)} times; offsets pick one")
            spans.append((s, e))
            nrefs += 1
        spans.sort()
        for (s1, e1), (s2, e2) in itertools.pairwise(spans):
            if s2 < e1:
                errors.append(f"{where}: references overlap ({s1}:{e1} and {s2}:{e2})")

    print(f"{len(lines)} questions, {nrefs} references, {len(docs)} documents")
    print("per kind:")
    for k in sorted(KINDS | set(kinds), key=lambda k: (-kinds[k], str(k))):
        print(f"  {kinds[k]:4d}  {k}")
    print("per document:")
    for d, n in sorted(docs.items()):
        print(f"  {n:4d}  {d}")
    for n in notes:
        print("note:", n)
    for e in errors:
        print("ERROR:", e, file=sys.stderr)
    if errors:
        print(f"{len(errors)} error(s)", file=sys.stderr)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
