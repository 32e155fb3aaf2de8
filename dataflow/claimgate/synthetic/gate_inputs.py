"""Deterministic inputs for the gate at scale: pinned Markdown sources, a manifest, a case table.

Used by ``benchmarks/gate_scale.py`` (2,000 sources, 50,000 cases) and, at a small
size, by the tests (``tests/test_batch_equivalence.py``, ``tests/test_executors.py``).
Everything comes from one ``random.Random(seed)``: the same arguments give the same
bytes on every machine.

Two shapes (``shape=``): ``"long"`` (the default; pages of about ``mean_bytes``
characters, 2–4 candidates per case, seven versions) and ``"short"`` (pages of 15–40
short lines, about 3.9 KB each; versions ``1.0``, ``2.0`` and ``3.1``; about 85% of
pages declare ``existing_path`` and half ``close_required``; cases of 1–4 candidates
over five requested versions, two of which no page has). The short shape weighs the
gate's fixed costs more, since there are fewer bytes per decision.

The sources are prose paragraphs with the directives of Quill's schema
(``fixtures/quill_schema.toml``) mixed in; most agree with a per-version value, some
disagree (conflicts), some lack a key (missing), and a few are refused
(malformed lines, a prose mention of the prefix, unknown values, unsupported keys or
operations, duplicates). Some files have CRLF endings, a byte-order mark or
non-ASCII text, so character offsets are exercised. The case table has 2–4
candidates per case, mixed versions, and bad rows of every request check.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
from pathlib import Path

WORDS = (
    "the a copy document path handle writer reader returns raises when if and or not with without "
    "destination source existing new file folder stream buffer option default value call method "
    "function argument parameter version release guide reference example note warning behaviour "
    "quill library client session request response error exception retry timeout close open flush "
    "is are be was were this that these those it its by for from into onto of on in at to as "
    "user caller application service backend configuration setting flag mode contract rule"
).split()
ACCENTED = ("café", "naïve", "Zürich", "résumé", "façade", "—", "…", "日本語", "Ελληνικά", "🙂")
VERSIONS = ("1.0", "1.1", "2.0", "2.1", "3.0")
ODD_VERSIONS = ("1.00", "1.0.1")  # 1.00 is valid but never equals 1.0; 1.0.1 is an invalid_source_version
EXISTING_PATH = ("refuse", "overwrite")
CLOSE_REQUIRED = ("yes", "no")


def _sentence(rng: random.Random) -> str:
    words = rng.choices(WORDS, k=rng.randint(8, 18))
    if rng.random() < 0.05:
        words.insert(rng.randrange(len(words)), rng.choice(ACCENTED))
    if rng.random() < 0.1:
        words.insert(rng.randrange(len(words)), f"`{rng.choice(WORDS)}()`")
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def _paragraph(rng: random.Random) -> list[str]:
    """A paragraph wrapped at about 80 characters."""
    text = " ".join(_sentence(rng) for _ in range(rng.randint(3, 7)))
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > 80:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return lines


def _directive_lines(rng: random.Random, truth: dict[str, str]) -> tuple[list[str], str]:
    """The directive lines of one source and the kind of source they make."""
    roll = rng.random()
    if roll < 0.02:
        return ["@quill create_copy existing_path = refuse"], "malformed"
    if roll < 0.03:
        return ["Write `@quill` directives on their own line."], "prose_mention"
    if roll < 0.045:
        return ["@quill create_copy existing_path=rename"], "unknown_value"
    if roll < 0.055:
        return ["@quill create_copy overwrite_mode=yes"], "unsupported_key"
    if roll < 0.06:
        return ["@quill delete_copy existing_path=refuse"], "unsupported_operation"
    if roll < 0.065:
        return ["@quill create_copy existing_path=refuse", "@quill create_copy existing_path=refuse"], "duplicate"
    if roll < 0.11:
        return [], "silent"
    lines = []
    for key, values in (("existing_path", EXISTING_PATH), ("close_required", CLOSE_REQUIRED)):
        if key == "close_required" and rng.random() < 0.35:
            continue  # missing key
        value = truth[key] if rng.random() < 0.93 else next(v for v in values if v != truth[key])
        lines.append(f"@quill create_copy {key}={value}")
    rng.shuffle(lines)
    return lines, "declares"


def source_text(rng: random.Random, source_id: str, version: str, truth: dict[str, str], size: int) -> str:
    """One Markdown page of about ``size`` characters with its directive lines placed among paragraphs."""
    lines = [f"# Quill {version}: {source_id.replace('-', ' ')}", ""]
    directives, _kind = _directive_lines(rng, truth)
    body: list[list[str]] = []
    total = 0
    while total < size:
        paragraph = _paragraph(rng)
        total += sum(len(line) + 1 for line in paragraph) + 1
        body.append(paragraph)
    for directive in directives:
        body.insert(rng.randint(1, len(body)), [directive])
    for block in body:
        lines.extend(block)
        lines.append("")
    if rng.random() < 0.1:
        lines.extend(["```python", "quill.create_copy(src, dst)  # see the directive above", "```", ""])
    return "\n".join(lines)


SHORT_VERSIONS = ("1.0", "2.0", "3.1")
SHORT_REQUESTED = ("1.0", "2.0", "3.1", "1.1", "4.0")  # 1.1 and 4.0: held by no page


def _short_page(rng: random.Random, source_id: str, version: str, truth: dict[str, str]) -> str:
    """One page of the short shape: a title and 15–40 lines of one or two sentences, directives among them."""
    lines = [f"# Quill {version}: {source_id.replace('-', ' ')}"]
    lines.extend(" ".join(_sentence(rng) for _ in range(rng.choice((1, 2, 2)))) for _ in range(rng.randint(15, 40)))
    directives = []
    if rng.random() < 0.85:
        value = (
            truth["existing_path"]
            if rng.random() < 0.95
            else next(v for v in EXISTING_PATH if v != truth["existing_path"])
        )
        directives.append(f"@quill create_copy existing_path={value}")
    if rng.random() < 0.5:
        value = (
            truth["close_required"]
            if rng.random() < 0.95
            else next(v for v in CLOSE_REQUIRED if v != truth["close_required"])
        )
        directives.append(f"@quill create_copy close_required={value}")
    if rng.random() < 0.01:
        directives.append("@quill create_copy existing_path = refuse")  # malformed: refused
    for directive in directives:
        lines.insert(rng.randint(1, len(lines)), directive)
    return "\n".join(lines) + "\n"


def _write_short_sources(root: Path, n_sources: int, seed: int) -> list[dict]:
    """The short shape's pages under ``root/sources``; returns their manifest entries."""
    rng = random.Random(seed)
    truths = {
        v: {"existing_path": rng.choice(EXISTING_PATH), "close_required": rng.choice(CLOSE_REQUIRED)}
        for v in SHORT_VERSIONS
    }
    entries = []
    for number in range(n_sources):
        version = rng.choice(SHORT_VERSIONS)
        source_id = f"quill-{number:05d}"
        raw = _short_page(rng, source_id, version, truths[version]).encode("utf-8")
        relative = f"sources/{source_id}.md"
        (root / relative).write_bytes(raw)
        entries.append(
            {
                "source_id": source_id,
                "version": version,
                "path": relative,
                "url": f"https://quill.invalid/docs/{version}/{source_id}",
                "sha256": hashlib.sha256(raw).hexdigest(),
            }
        )
    return entries


def write_sources(
    folder: str | Path, n_sources: int = 2000, seed: int = 4, mean_bytes: int = 7500, shape: str = "long"
) -> Path:
    """Write ``n_sources`` pinned Markdown files and ``manifest.json`` under ``folder``; return the manifest path.

    ``mean_bytes`` sets the page size of the ``"long"`` shape (about 15 MB for 2,000
    pages at the default); the ``"short"`` shape ignores it (about 7.9 MB for 2,000
    pages). Raises ``ValueError`` for another ``shape``.
    """
    root = Path(folder)
    (root / "sources").mkdir(parents=True, exist_ok=True)
    if shape == "short":
        manifest = root / "manifest.json"
        entries = _write_short_sources(root, n_sources, seed)
        manifest.write_text(json.dumps({"sources": entries}, indent=1) + "\n", encoding="utf-8")
        return manifest
    if shape != "long":
        raise ValueError(f"shape must be long or short, not {shape!r}")
    rng = random.Random(seed)
    truths = {
        v: {"existing_path": rng.choice(EXISTING_PATH), "close_required": rng.choice(CLOSE_REQUIRED)}
        for v in (*VERSIONS, *ODD_VERSIONS)
    }
    entries = []
    for number in range(n_sources):
        version = rng.choice(ODD_VERSIONS) if rng.random() < 0.01 else rng.choice(VERSIONS)
        source_id = f"quill-{number:05d}"
        text = source_text(rng, source_id, version, truths[version], rng.randint(mean_bytes // 2, mean_bytes * 3 // 2))
        if rng.random() < 0.05:
            text = text.replace("\n", "\r\n")
        raw = text.encode("utf-8")
        if rng.random() < 0.02:
            raw = b"\xef\xbb\xbf" + raw
        relative = f"sources/{source_id}.md"
        (root / relative).write_bytes(raw)
        entries.append(
            {
                "source_id": source_id,
                "version": version,
                "path": relative,
                "url": f"https://quill.invalid/docs/{version}/{source_id}",
                "sha256": hashlib.sha256(raw).hexdigest(),
            }
        )
    manifest = root / "manifest.json"
    manifest.write_text(json.dumps({"sources": entries}, indent=1) + "\n", encoding="utf-8")
    return manifest


def _bad_row(rng: random.Random, row: dict, ids: list[str], portable: bool) -> object:
    """Spoil one valid row in one of the ways the request checks refuse."""
    kinds = [
        "no_case_id",
        "empty_candidates",
        "empty_candidate",
        "duplicate_candidate",
        "bad_version",
        "bad_key",
        "bad_operation",
        "unknown_candidate",
    ]
    if not portable:  # shapes CSV and Parquet cannot carry
        kinds += ["not_object", "candidates_string", "version_number", "key_missing", "operation_number"]
    kind = rng.choice(kinds)
    row = dict(row)
    if kind == "no_case_id":
        if portable:
            row["case_id"] = ""
        else:
            del row["case_id"]
    elif kind == "empty_candidates":
        row["candidate_ids"] = []
    elif kind == "empty_candidate":
        row["candidate_ids"] = [*row["candidate_ids"], ""]
    elif kind == "duplicate_candidate":
        row["candidate_ids"] = [*row["candidate_ids"], row["candidate_ids"][0]]
    elif kind == "bad_version":
        row["requested_version"] = rng.choice(["1", "", "v1.0", "1.0 "])
    elif kind == "bad_key":
        row["claim_key"] = rng.choice(["overwrite_mode", "", "existing-path"])
    elif kind == "bad_operation":
        row["operation"] = rng.choice(["delete_copy", ""] if not portable else ["delete_copy", "Create_copy"])
    elif kind == "unknown_candidate":
        row["candidate_ids"] = [*row["candidate_ids"][:-1], "quill-unknown"]
    elif kind == "not_object":
        return rng.choice([["case", "row"], "case-row", 7, None])
    elif kind == "candidates_string":
        row["candidate_ids"] = ";".join(row["candidate_ids"])
    elif kind == "version_number":
        row["requested_version"] = 1.0
    elif kind == "key_missing":
        del row["claim_key"]
    elif kind == "operation_number":
        row["operation"] = 3
    return row


def _short_case_rows(entries: list[dict], n_cases: int, seed: int) -> list[dict]:
    """The short shape's cases: 1–4 candidates, mostly of the requested version, over five requested versions."""
    rng = random.Random(seed * 7919 + n_cases + 1)
    by_version: dict[str, list[str]] = {}
    for entry in entries:
        by_version.setdefault(entry["version"], []).append(entry["source_id"])
    ids = [e["source_id"] for e in entries]
    rows = []
    for number in range(n_cases):
        requested = rng.choices(SHORT_REQUESTED, weights=[3, 3, 3, 1, 1])[0]
        k = rng.randint(1, 4)
        pool = by_version.get(requested, ids)
        chosen = rng.sample(pool, min(k, len(pool)))
        if rng.random() < 0.2:  # one candidate of another version
            other = rng.choice(ids)
            if other not in chosen:
                chosen[rng.randrange(len(chosen))] = other
        row = {
            "case_id": f"case-{number:06d}",
            "candidate_ids": chosen,
            "requested_version": requested,
            "claim_key": rng.choice(["existing_path", "close_required"]),
        }
        if rng.random() < 0.15:
            row["operation"] = "create_copy"
        rows.append(row)
    return rows


def case_rows(
    manifest_path: str | Path,
    n_cases: int,
    seed: int = 4,
    bad_rate: float = 0.04,
    portable: bool = False,
    shape: str = "long",
) -> list:
    """``n_cases`` case rows over the sources of a manifest written by ``write_sources``.

    Each valid row has 2–4 distinct candidates, mostly of one version with some of
    others, a requested version that is usually held by a candidate (sometimes by none),
    ``claim_key`` ``existing_path`` or ``close_required`` and sometimes an explicit
    ``operation``. About ``bad_rate`` of the rows are spoiled (``_bad_row``), and about
    0.5% repeat an earlier ``case_id``. With ``portable`` every row can be written
    as JSON, JSONL, CSV and Parquet alike (string fields, lists of strings).

    ``shape="short"`` makes the short shape's cases (module docstring) over a manifest
    written with ``write_sources(..., shape="short")``; they are all well-formed and
    portable (``bad_rate`` and ``portable`` do not apply). Raises ``ValueError`` for
    another ``shape``.
    """
    entries = json.loads(Path(manifest_path).read_text(encoding="utf-8"))["sources"]
    if shape == "short":
        return _short_case_rows(entries, n_cases, seed)
    if shape != "long":
        raise ValueError(f"shape must be long or short, not {shape!r}")
    rng = random.Random(seed * 7919 + n_cases)
    ids = [e["source_id"] for e in entries]
    by_version: dict[str, list[str]] = {}
    for entry in entries:
        by_version.setdefault(entry["version"], []).append(entry["source_id"])
    common = [v for v in VERSIONS if len(by_version.get(v, [])) >= 4]
    rows: list = []
    for number in range(n_cases):
        version = rng.choice(common)
        k = rng.randint(2, 4)
        same = rng.choices([k, k - 1, k - 2, 0], weights=[5, 3, 1, 1])[0]
        chosen = rng.sample(by_version[version], max(same, 0))
        while len(chosen) < k:
            candidate = rng.choice(ids)
            if candidate not in chosen:
                chosen.append(candidate)
        rng.shuffle(chosen)
        requested = version if rng.random() < 0.9 else rng.choice(["9.9", "1.00", version])
        row = {
            "case_id": f"case-{number:06d}",
            "candidate_ids": chosen,
            "requested_version": requested,
            "claim_key": rng.choices(["existing_path", "close_required"], weights=[7, 3])[0],
        }
        if rng.random() < 0.15:
            row["operation"] = "create_copy"
        if rng.random() < bad_rate:
            row = _bad_row(rng, row, ids, portable)
        elif number > 0 and rng.random() < 0.005:
            row["case_id"] = f"case-{rng.randrange(number):06d}"
        rows.append(row)
    return rows


def write_case_table(path: str | Path, rows: list) -> Path:
    """Write case rows by extension: ``.json`` list, ``.jsonl``, ``.csv`` (ids joined by ``;``) or ``.parquet``.

    CSV and Parquet need ``portable`` rows (``case_rows(..., portable=True)``).
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    suffix = target.suffix.lower()
    if suffix == ".json":
        target.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    elif suffix == ".jsonl":
        with target.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    elif suffix == ".csv":
        fields = ["case_id", "candidate_ids", "requested_version", "claim_key", "operation"]
        with target.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields)
            writer.writeheader()
            for row in rows:
                writer.writerow(
                    {**row, "candidate_ids": ";".join(row["candidate_ids"]), "operation": row.get("operation", "")}
                )
    elif suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = pa.schema(
            [
                ("case_id", pa.string()),
                ("candidate_ids", pa.list_(pa.string())),
                ("requested_version", pa.string()),
                ("claim_key", pa.string()),
                ("operation", pa.string()),
            ]
        )
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), target)
    else:
        raise ValueError(f"unknown case table format: {target.name}")
    return target
