"""A ledger scanned in parts, the last by a forked helper, gives the items of one scan of the whole file.

``io.ledger_lines``: the file is cut at a line start; the helper sends its part's scan as bytes
(``_scan_bytes``) and this process reads them back (``_from_bytes``). Whatever the cut, and whether the
helper gives its part, fails, sends bytes of another shape or is killed, the items (and refusals) are those
of ``read_ledger_lines``.
"""

from __future__ import annotations

import os

import pytest
from claimgate.io import ledger_lines
from claimgate.io.ledger_append import append_ledger
from claimgate.io.ledger_lines import (
    _canonical,
    _from_bytes,
    _scan_bytes,
    _scanned,
    read_ledger_lines,
    start_ledger_read,
)
from claimgate.runtime.helper_process import helper_available
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.io.test_ledger_fast_read import FILES, KINDS, canonical_row, damaged

needs_fork = pytest.mark.skipif(not helper_available(), reason="the helper is forked (Linux only)")


def line_starts(data: bytes) -> list[int]:
    return [0, *(i + 1 for i, byte in enumerate(data) if byte == 10)]


def items_cut_at(data: bytes, cut: int) -> list | None:
    """The items of ``data`` scanned in two parts, the second one through the helper's bytes."""
    return _canonical(data, [_scanned(data, 0, cut), _from_bytes(_scan_bytes(data, cut, len(data)))])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=FILES, kind=st.sampled_from([*KINDS, "none"]), at=st.integers(0, 10**6), byte=st.integers(0, 255))
def test_every_cut_at_a_line_start_gives_the_items_of_one_scan(tmp_path, rows, kind, at, byte):
    path = tmp_path / "base.jsonl"
    path.unlink(missing_ok=True)
    append_ledger(path, rows)
    data = path.read_bytes() if kind == "none" else damaged(path.read_bytes(), kind, at, byte)
    whole = _canonical(data, [_scanned(data, 0, len(data))])
    for cut in line_starts(data):
        assert repr(items_cut_at(data, cut)) == repr(whole)


def test_the_helpers_bytes_read_back_as_the_scan_of_its_part(tmp_path):
    rows = [canonical_row(f"c{i}", f"doc/{i % 3}", quote=f"q{i} naïve") for i in range(20)]
    path = tmp_path / "l.jsonl"
    append_ledger(path, rows)
    data = path.read_bytes()
    cut = line_starts(data)[7]
    scan = _scanned(data, cut, len(data))
    assert len(scan.items) == 13 and all(scan.held)
    assert _from_bytes(_scan_bytes(data, cut, len(data))) == scan
    assert _from_bytes(_scan_bytes(data, len(data), len(data))) == _scanned(data, len(data), len(data))


@pytest.mark.parametrize("payload", [b"", b"\x01", b"\x02" + b"\x00" * 7, _scan_bytes(b"", 0, 0) + b"\x00"])
def test_bytes_of_another_shape_are_no_scan(payload):
    assert _from_bytes(payload) is None


def big_ledger(tmp_path):
    rows = [canonical_row(f"c{i}", f"doc/{i % 7}", quote=f"the quote {i}") for i in range(300)]
    rows[150] = {**rows[150], "quote": 'a "quoted" word'}  # parsed, not taken apart
    path = tmp_path / "l.jsonl"
    append_ledger(path, rows)
    return path


@needs_fork
def test_the_helper_read_gives_the_items_of_the_plain_read(tmp_path):
    path = big_ledger(tmp_path)
    with start_ledger_read(path, helper=True, helper_from_bytes=0) as pending:
        assert pending._helper is not None and pending._cut > 0  # the helper runs on the last part
        helped = pending.lines()
    assert repr(helped) == repr(read_ledger_lines(path))


def _fails(data, lo, hi):
    raise RuntimeError("the helper fails")


def _killed(data, lo, hi):
    os.kill(os.getpid(), 9)


def _other_shape(data, lo, hi):
    return b"not a scan"


def _stuck(data, lo, hi):
    import time

    time.sleep(60)


@needs_fork
@pytest.mark.parametrize("helper", [_fails, _killed, _other_shape, _stuck])
def test_a_helper_that_gives_nothing_usable_leaves_the_read_unchanged(tmp_path, monkeypatch, helper):
    path = big_ledger(tmp_path)
    plain = read_ledger_lines(path)
    monkeypatch.setattr(ledger_lines, "_scan_bytes", helper)  # the forked child runs it
    monkeypatch.setattr(ledger_lines, "HELPER_PATIENCE_SECONDS", 0.5)  # a stuck one is waited for that long
    with start_ledger_read(path, helper=True, helper_from_bytes=0) as pending:
        assert repr(pending.lines()) == repr(plain)


def test_a_small_ledger_or_no_helper_asked_is_read_in_this_process(tmp_path):
    path = big_ledger(tmp_path)
    assert start_ledger_read(path, helper=True)._helper is None  # under HELPER_FROM_BYTES
    assert start_ledger_read(path, helper=False, helper_from_bytes=0)._helper is None
