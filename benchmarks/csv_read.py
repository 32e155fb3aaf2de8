#!/usr/bin/env python3
"""Benchmark: reading a 1,000,000-row CSV case table with the standard library and with ``pyarrow.csv``, in one run.

    .venv/bin/python benchmarks/csv_read.py                  # 1,000,000 rows
    .venv/bin/python benchmarks/csv_read.py --rows 20000     # a quick smoke run

The table is ``claimgate.synthetic.gate_inputs.case_rows(..., portable=True)`` written
by ``write_case_table`` (the gate's benchmark cases: about 4% bad rows, 0.5% repeated ids;
it holds no ``"``, so the fast path's quote check is one scan), over 200 generated pages.
Three figures, each from the file's bytes:

- **parse**: ``csv.reader(strict=True)`` over the decoded text (a list of records)
  against ``pyarrow.csv.read_csv`` with every column a string (an Arrow table): the
  parsers alone;
- **whole read**, to the raw case rows the gate loads (``candidate_ids`` split;
  ``tables.read_case_rows``, tables up to 8 MiB):
  the standard-library reader (``tables.iter_csv_rows`` over the decoded text, the path
  before ``io.csv_arrow``) against the reader as it is now (``pyarrow.csv`` where it can
  vouch for the rows, ``io.csv_arrow``);
- **streamed** (``case_stream.CaseChunks``, the gate's path above 8 MiB), every chunk
  made into a case frame: with Arrow refused (the standard library) and as it is now.
  A table holding ``"`` is not streamed by Arrow (``io.csv_arrow``).

Both reads of each pair must give equal rows (frames), or the benchmark fails (exit 1).
The fastest of ``--repeat`` runs counts.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def stdlib_parse(path: Path) -> int:
    import csv

    return len(list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8-sig"), newline=""), strict=True))) - 1


def arrow_parse(path: Path) -> int:
    import pyarrow as pa
    import pyarrow.csv as pacsv
    from claimgate.io import csv_arrow

    raw = path.read_bytes()
    names = csv_arrow._names(pa.py_buffer(raw), csv_arrow._parse_options())
    options = csv_arrow._parse_options()
    return pacsv.read_csv(
        pa.py_buffer(raw), parse_options=options, convert_options=csv_arrow._convert_options(names)
    ).num_rows


def stdlib_whole(path: Path) -> list:
    """The whole read before the fast path: decode, ``csv.reader`` over physical lines, ids split."""
    from claimgate.io import tables

    text = path.read_bytes().decode("utf-8-sig")
    lines = tables.physical_lines(io.StringIO(text, newline=""))
    rows = tables.iter_csv_rows(lines, path.name, "invalid_case_table", tables.CSV_CASE_COLUMNS)
    return [tables.csv_case_row(row) for row in rows]


def arrow_whole(path: Path) -> list:
    from claimgate.io.tables import read_case_rows

    return read_case_rows(path)


def streamed(path: Path, arrow: bool):
    """Every chunk of ``CaseChunks`` (50,000 rows) made; ``arrow=False`` refuses the Arrow stream."""
    import pandas as pd
    from claimgate.io import case_stream
    from claimgate.io.csv_arrow import NotVouched, arrow_csv_stream

    def refused(*_args, **_kwargs):
        raise NotVouched("benchmark: the standard library")
        yield  # pragma: no cover

    original = case_stream.arrow_csv_stream
    case_stream.arrow_csv_stream = arrow_csv_stream if arrow else refused
    try:
        return pd.concat(list(case_stream.CaseChunks(path, 50_000)), ignore_index=True)
    finally:
        case_stream.arrow_csv_stream = original


def best(repeat: int, work):
    """(fastest seconds, last result) of ``repeat`` runs of ``work()``."""
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - started)
    return min(times), result


def main() -> int:
    from claimgate.synthetic.gate_inputs import case_rows, write_case_table, write_sources

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        manifest = write_sources(folder / "src", n_sources=200, seed=4, mean_bytes=800)
        path = write_case_table(folder / "cases.csv", case_rows(manifest, args.rows, portable=True))
        size = path.stat().st_size / 1e6
        print(f"{args.rows:,} rows, {size:.1f} MB, Python {sys.version.split()[0]}, fastest of {args.repeat}\n")
        print("| read | standard library (s) | pyarrow.csv (s) | speed-up | same rows |")
        print("|---|---|---|---|---|")
        pairs = (
            ("parse (records / Arrow table)", stdlib_parse, arrow_parse, lambda a, b: a == b),
            ("whole read (case rows)", stdlib_whole, arrow_whole, lambda a, b: a == b),
            ("streamed (case frames, 50,000-row chunks)", lambda t: streamed(t, False), lambda t: streamed(t, True),
             lambda a, b: a.equals(b)),
        )  # fmt: skip
        for label, slow, fast, same in pairs:
            slow_s, slow_out = best(args.repeat, lambda f=slow: f(path))
            fast_s, fast_out = best(args.repeat, lambda f=fast: f(path))
            equal = same(slow_out, fast_out)
            failed |= not equal
            print(f"| {label} | {slow_s:.2f} | {fast_s:.2f} | {slow_s / fast_s:.1f}x | {equal} |")
            del slow_out, fast_out
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
