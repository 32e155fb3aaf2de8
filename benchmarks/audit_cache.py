"""The index cache after an edit: cold, warm-unchanged and warm-after-one-edit audits, and cached HTML extraction.

Generates two corpora of ``--docs`` documents with ``--citations`` citations each: real prose
(``benchmarks/real_prose.py``: sentences of the docstrings and documentation files shipped with
Python and the installed packages, plus the shared arXiv abstracts) and the synthetic corpus of
``benchmarks/audit_speed.py``. For each, ``--repeat`` rounds, interleaved so that machine load
hits every kind alike (medians reported), each run its own process
(``run_pipeline.py audit --corpus ... --citations ... --quiet``):

- **cold**: on a copy of the corpus with one document edited (another one each round), no cache;
- **warm, unchanged**: the unedited corpus with ``--cache`` filled by a run over it;
- **warm, one edit**: the edited corpus with a fresh copy of that cache (the index of the
  unedited corpus): 19,999 documents reuse their part, one is normalized;

once with all the citations (the issue's shape: matching 4,000 citations costs the same warm or
cold) and once with the first ``--few`` (the index dominates: a documentation assistant that
refreshes, then checks one answer). Each warm output is compared byte for byte with the cold
output over the same documents (exit 1 if any differs). Then the index step alone, in this
process (medians): a cold build, a warm load (hash + load), the warm step after one edit (hash,
read the previous index as a base, normalize one document, gather the parts, splice the
postings, store the new file) and ``Audit.refreshed`` in memory (no file). And the API's whole audit in
this process (its imports done first): ``Audit.from_corpus(edited corpus file)`` then ``check`` of all the
citations and of the first ``--few``, cold (no cache) against warm after one edit (``cache=`` a fresh copy
of the unedited corpus's cache), the two result frames compared (exit 1 if they differ).

HTML extraction (target 5): up to ``--html-pages`` real HTML pages found on this machine
(``/usr/share/doc``, this Python's ``site-packages``, rustup's documentation), copied into a folder
and read by ``io.documents.read_document_folder`` without a cache, with an empty cache (extract and
store), and warm (read back): seconds, pages per second, how many pages the warm read extracted
(0 expected; extractor calls are counted) and whether the texts and maps are equal.

The processes run with Python's bytecode cache, as ``audit_speed.py``'s do (``audit_speed.timed``).
Prints the load (``uptime``) beside the figures. Process start-up (about 0.6-1 s: Python,
pandas, Hamilton) is in every whole-process figure and sets a floor a cache cannot lower.

Usage: ``python benchmarks/audit_cache.py [--docs 20000] [--citations 4000] [--few 10] [--repeat 3]
[--html-pages 2000] [--shapes real,synthetic] [--workdir DIR]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "dataflow"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import audit_speed  # noqa: E402
import real_prose  # noqa: E402
from claimgate.audit.index import cache as index_cache  # noqa: E402
from claimgate.audit.index.build import build_corpus_index  # noqa: E402
from claimgate.io import documents as io_documents  # noqa: E402

SHAPES = {"real": real_prose.write_inputs, "synthetic": audit_speed.write_inputs}


def audit_argv(corpus: Path, citations: Path, output: Path, cache: Path | None) -> list[str]:
    argv = [sys.executable, str(ROOT / "run_pipeline.py"), "audit", "--corpus", str(corpus)]
    argv += ["--citations", str(citations), "--output", str(output), "--quiet"]
    return argv + (["--cache", str(cache)] if cache is not None else [])


def timed(argv: list[str], cpu: list[float] | None = None) -> float:
    """Wall seconds of one child process; its CPU seconds (user + system) appended to ``cpu``."""
    wall, _, used = audit_speed.timed(argv)
    if cpu is not None:
        cpu.append(used)
    return wall


def edited(docs: dict[str, str], round_: int) -> dict[str, str]:
    """``docs`` with one document (another one each round) given one more sentence."""
    ids = sorted(docs)
    doc_id = ids[(round_ * 7919 + 13) % len(ids)]
    return {**docs, doc_id: docs[doc_id] + f"\nThis sentence was added in edit number {round_}."}


def fresh_copy(cache: Path, to: Path) -> Path:
    shutil.rmtree(to, ignore_errors=True)
    shutil.copytree(cache, to)  # modes kept (0o700 folder, 0o600 files): the copy is trusted as the original
    return to


def whole_process(folder: Path, docs: dict[str, str], citations: Path, repeat: int) -> dict:
    """Medians of cold / warm-unchanged / warm-after-one-edit runs over ``citations``, and byte checks."""
    base_cache = folder / "cache-base"
    if not base_cache.exists():
        subprocess.run(audit_argv(folder / "corpus.json", citations, folder / "prime.jsonl", base_cache), check=True)
    runs: dict[str, list[float]] = {"cold": [], "warm_unchanged": [], "warm_one_edit": []}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    identical = True
    out = folder / "out"
    out.mkdir(exist_ok=True)
    for r in range(repeat):
        corpus = folder / f"corpus-edit-{r}.json"
        if not corpus.exists():
            corpus.write_text(json.dumps(edited(docs, r), ensure_ascii=False), encoding="utf-8")
        cache = fresh_copy(base_cache, folder / "cache-edit")
        runs["cold"].append(timed(audit_argv(corpus, citations, out / "cold.jsonl", None), cpu["cold"]))
        edit_argv = audit_argv(corpus, citations, out / "edit.jsonl", cache)
        runs["warm_one_edit"].append(timed(edit_argv, cpu["warm_one_edit"]))
        identical &= (out / "cold.jsonl").read_bytes() == (out / "edit.jsonl").read_bytes()
        warm_argv = audit_argv(folder / "corpus.json", citations, out / "warm.jsonl", base_cache)
        runs["warm_unchanged"].append(timed(warm_argv, cpu["warm_unchanged"]))
    timed(audit_argv(folder / "corpus.json", citations, out / "cold-base.jsonl", None))
    identical &= (out / "cold-base.jsonl").read_bytes() == (out / "warm.jsonl").read_bytes()
    medians = {k: statistics.median(v) for k, v in runs.items()}
    return {**medians, **{f"{k}_cpu": statistics.median(v) for k, v in cpu.items()}, "identical": identical}


def index_step(folder: Path, docs: dict[str, str], repeat: int) -> dict[str, float]:
    """Medians, in this process, of the index step: cold, warm-unchanged, warm after one edit, refreshed in memory."""
    base_cache = folder / "cache-base"
    base_index = build_corpus_index(docs)
    names = ("cold", "warm_unchanged", "warm_one_edit", "warm_delta_load", "refreshed_in_memory")
    times: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}

    def clocked(name: str, step, *args, **kwargs) -> None:
        t0, c0 = time.perf_counter(), time.process_time()
        step(*args, **kwargs)
        times[name].append(time.perf_counter() - t0)
        cpu[name].append(time.process_time() - c0)

    cached = index_cache.cached_corpus_index
    for r in range(repeat):
        documents = edited(docs, r)
        clocked("cold", build_corpus_index, documents)
        cache = fresh_copy(base_cache, folder / "cache-step")
        clocked("warm_unchanged", cached, docs, cache, build_corpus_index)
        clocked("warm_one_edit", cached, documents, cache, build_corpus_index)  # writes the delta
        clocked("warm_delta_load", cached, documents, cache, build_corpus_index)  # reads it back
        clocked("refreshed_in_memory", cached, documents, None, build_corpus_index, base=base_index)
    return {**{k: statistics.median(v) for k, v in times.items()},
            **{f"{k}_cpu": statistics.median(v) for k, v in cpu.items()}}  # fmt: skip


def api_audit(folder: Path, citations: Path, repeat: int) -> dict:
    """Medians, in this process, of ``Audit.from_corpus(file[, cache=...]).check(citations)``, cold, after an edit."""
    from claimgate import Audit

    rows = [json.loads(line) for line in citations.read_text(encoding="utf-8").splitlines() if line.strip()]
    Audit.from_corpus({"d": "imports done first"}).check([{"citation_id": "c", "doc_id": "d", "quote": "imports done"}])
    runs: dict[str, list[float]] = {"cold": [], "warm_one_edit": []}
    identical = True
    for r in range(repeat):
        corpus = folder / f"corpus-edit-{r}.json"  # written by whole_process
        t0 = time.perf_counter()
        cold = Audit.from_corpus(corpus).check(rows)
        runs["cold"].append(time.perf_counter() - t0)
        cache = fresh_copy(folder / "cache-base", folder / "cache-api")
        t0 = time.perf_counter()
        warm = Audit.from_corpus(corpus, cache=cache).check(rows)
        runs["warm_one_edit"].append(time.perf_counter() - t0)
        identical &= cold.to_json(orient="records") == warm.to_json(orient="records")
    return {**{k: statistics.median(v) for k, v in runs.items()}, "identical": identical}


def per_document_store_floor(folder: Path, docs: dict[str, str], repeat: int) -> dict[str, float]:
    """The design not taken, its floor: one file per document part, read back with its SHA-256 checked.

    Writes each document's token ids and offsets (int32, as the index holds them) to a file
    named by its text's SHA-256, then times reading every file back and checking its digest,
    beside reading the one index file (payload digest checked) that the cache reads. The
    per-document store would also have to rebuild the vocabulary and the postings from
    those parts, so its real cost is above this floor.
    """
    index = build_corpus_index(docs)
    store = folder / "per-document"
    shutil.rmtree(store, ignore_errors=True)
    store.mkdir()
    names = []
    for document in index.docs:
        data = document.token_bytes + document.starts.tobytes() + document.ends.tobytes()
        name = hashlib.sha256(document.original.encode()).hexdigest()
        (store / name).write_bytes(hashlib.sha256(data).digest() + data)
        names.append(name)
    one_file = next((folder / "cache-base").glob("corpus-index-*.bin"))
    many, one = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for name in names:
            raw = (store / name).read_bytes()
            if hashlib.sha256(raw[32:]).digest() != raw[:32]:
                raise RuntimeError("damaged part")
        many.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        with open(one_file, "rb") as handle:
            hashlib.file_digest(handle, "sha256")
        one.append(time.perf_counter() - t0)
    shutil.rmtree(store)
    return {"many": statistics.median(many), "one": statistics.median(one), "mb": one_file.stat().st_size / 1e6}


def html_files(limit: int) -> list[Path]:
    """Real HTML pages installed on this machine, in a fixed order, at most ``limit``."""
    roots = [Path("/usr/share/doc"), Path(sys.prefix), *sorted(Path.home().glob(".rustup/toolchains/*/share/doc"))]
    found: list[Path] = []
    for root in roots:
        if root.is_dir():
            found += sorted(p for p in root.rglob("*.html") if p.is_file() and 2_000 < p.stat().st_size < 2_000_000)
        if len(found) >= 2 * limit:
            break
    return [p for p in found if _utf8(p)][:limit]


def _utf8(path: Path) -> bool:
    """Whether the page is UTF-8 (the folder reader refuses any other bytes: ``unreadable_document``)."""
    try:
        path.read_bytes().decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def html_extraction(folder: Path, limit: int) -> dict:
    """Cold (no cache), fill (empty cache) and warm reads of a folder of real HTML pages; warm extractor calls."""
    pages = folder / "html"
    shutil.rmtree(pages, ignore_errors=True)
    pages.mkdir(parents=True)
    size = 0
    for i, path in enumerate(html_files(limit)):
        target = pages / f"{i:05d}-{path.name}"
        shutil.copyfile(path, target)
        size += target.stat().st_size
    calls = [0]
    real = io_documents.html_visible_text

    def counting(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    io_documents.html_visible_text = counting
    cache = folder / "html-cache"
    shutil.rmtree(cache, ignore_errors=True)
    try:
        t0 = time.perf_counter()
        fresh = io_documents.read_document_folder(pages, max_document_bytes=1 << 26)
        t_fresh = time.perf_counter() - t0
        t0 = time.perf_counter()
        io_documents.read_document_folder(pages, max_document_bytes=1 << 26, cache_dir=cache)
        t_fill = time.perf_counter() - t0
        calls[0] = 0
        t0 = time.perf_counter()
        warm = io_documents.read_document_folder(pages, max_document_bytes=1 << 26, cache_dir=cache)
        t_warm = time.perf_counter() - t0
    finally:
        io_documents.html_visible_text = real

    def values(frame):
        maps = [None if m is None else (m.text, list(m.starts), list(m.ends), m.hidden) for m in frame["source_map"]]
        return frame[["doc_id", "text"]].values.tolist(), maps

    n = len(fresh)
    return {"pages": n, "mb": size / 1e6, "fresh": t_fresh, "fill": t_fill, "warm": t_warm,
            "warm_calls": calls[0], "equal": values(fresh) == values(warm)}  # fmt: skip


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=20_000)
    ap.add_argument("--citations", type=int, default=4_000)
    ap.add_argument("--few", type=int, default=10, help="citations of the index-dominated runs")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--html-pages", type=int, default=2_000)
    ap.add_argument("--shapes", default="real,synthetic")
    ap.add_argument("--workdir", type=Path, default=None)
    args = ap.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        root = args.workdir or Path(tmp)
        audit_speed.CACHED_BYTECODE_ENV["PYTHONPYCACHEPREFIX"] = str(root / "bytecode")  # as audit_speed.py runs
        print(f"load before: {load()}\n")
        print("| corpus | citations | cold s (CPU) | warm unchanged s (CPU) | warm one edit s (CPU) | "
              "cold / warm one edit, wall (CPU) | cold / warm unchanged, wall (CPU) | outputs identical |")  # fmt: skip
        print("|---|---:|---:|---:|---:|---:|---:|---|")
        steps, floors, api = {}, {}, {}
        for shape in args.shapes.split(","):
            folder = root / f"{shape}-{args.docs}"
            folder.mkdir(parents=True, exist_ok=True)
            docs = SHAPES[shape](folder, args.docs, args.citations)
            few = folder / "citations-few.jsonl"
            lines = (folder / "citations.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
            few.write_text("".join(lines[: args.few]), encoding="utf-8")
            chars = sum(map(len, docs.values()))
            for citations, n in ((folder / "citations.jsonl", args.citations), (few, min(args.few, len(lines)))):
                runs = whole_process(folder, docs, citations, args.repeat)
                api[shape, n] = api_audit(folder, citations, args.repeat)
                ok &= api[shape, n]["identical"]
                ok &= runs["identical"]
                r = runs
                print(f"| {shape}: {len(docs):,} docs, {chars / 1e6:.1f} M chars | {n:,} | "
                      f"{r['cold']:.2f} ({r['cold_cpu']:.2f}) | "
                      f"{r['warm_unchanged']:.2f} ({r['warm_unchanged_cpu']:.2f}) | "
                      f"{r['warm_one_edit']:.2f} ({r['warm_one_edit_cpu']:.2f}) | "
                      f"**{r['cold'] / r['warm_one_edit']:.1f}x** ({r['cold_cpu'] / r['warm_one_edit_cpu']:.1f}x) | "
                      f"{r['cold'] / r['warm_unchanged']:.1f}x ({r['cold_cpu'] / r['warm_unchanged_cpu']:.1f}x) "
                      f"| {r['identical']} |")  # fmt: skip
            steps[shape] = index_step(folder, docs, args.repeat)
            floors[shape] = per_document_store_floor(folder, docs, args.repeat)
        print("\nIndex step alone, in process (medians; target: warm after one edit >= 5x faster than cold):\n")
        print("| corpus | cold build s (CPU) | warm unchanged s | warm one edit s (CPU) | its delta loaded again s | "
              "refreshed in memory s | cold / warm one edit, wall (CPU) | cold / refreshed |")  # fmt: skip
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for shape, t in steps.items():
            print(f"| {shape} | {t['cold']:.2f} ({t['cold_cpu']:.2f}) | {t['warm_unchanged']:.3f} | "
                  f"{t['warm_one_edit']:.3f} ({t['warm_one_edit_cpu']:.3f}) | {t['warm_delta_load']:.3f} | "
                  f"{t['refreshed_in_memory']:.3f} | **{t['cold'] / t['warm_one_edit']:.1f}x** "
                  f"({t['cold_cpu'] / t['warm_one_edit_cpu']:.1f}x) | "
                  f"{t['cold'] / t['refreshed_in_memory']:.1f}x |")  # fmt: skip
        print("\nThe API's whole audit, in process, imports done (medians; Audit.from_corpus(file[, cache]).check):\n")
        print("| corpus | citations | cold s | warm one edit s | cold / warm one edit | results identical |")
        print("|---|---:|---:|---:|---:|---|")
        for (shape, n), a in api.items():
            print(f"| {shape} | {n:,} | {a['cold']:.2f} | {a['warm_one_edit']:.3f} | "
                  f"**{a['cold'] / a['warm_one_edit']:.1f}x** | {a['identical']} |")  # fmt: skip
        print("\nThe per-document store (one file per part), its floor: reading every part back, digests checked,")
        print("beside the one index file the cache reads as a base (digest checked):\n")
        print("| corpus | one file per document s | one index file s (MB) |")
        print("|---|---:|---:|")
        for shape, f in floors.items():
            print(f"| {shape} | {f['many']:.3f} | {f['one']:.3f} ({f['mb']:.0f} MB) |")
        if args.html_pages:
            h = html_extraction(root, args.html_pages)
            ok &= h["equal"] and h["warm_calls"] == 0
            print(
                f"\nHTML extraction, in process: {h['pages']:,} real pages ({h['mb']:.1f} MB) found on this machine\n"
            )
            print("| read | s | pages/s | pages extracted |")
            print("|---|---:|---:|---:|")
            for name, key, extracted in (("no cache", "fresh", h["pages"]), ("empty cache (extract + store)", "fill",
                                         h["pages"]), ("warm cache", "warm", h["warm_calls"])):  # fmt: skip
                print(f"| {name} | {h[key]:.2f} | {h['pages'] / h[key]:,.0f} | {extracted:,} |")
            print(f"\nwarm vs no cache: {h['fresh'] / h['warm']:.1f}x; texts and maps equal: {h['equal']}")
        print(f"\nload after: {load()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
