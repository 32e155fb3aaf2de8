"""The command's progress bars start no thread (``runtime.bars``): a thread would keep the row helper from
forking (docs/audit-rules.md, "Auditing rows from both ends")."""

from __future__ import annotations

import io
import subprocess
import sys

_CODE = """
import io, threading
from claimgate.runtime.bars import progress_bar
before = threading.active_count()
shown = io.StringIO()
for disable in (True, False):
    with progress_bar(total=3, desc="audit", file=shown, disable=disable) as bar:
        bar.update(3)
import tqdm
print(before, threading.active_count(), "3/3" in shown.getvalue())
with tqdm.tqdm(total=1, disable=True):
    print(threading.active_count())
"""


def test_a_bar_enabled_or_not_starts_no_thread_where_tqdms_own_starts_its_monitor():
    done = subprocess.run([sys.executable, "-c", _CODE], capture_output=True, text=True, check=True)
    bars, plain = done.stdout.split("\n")[:2]
    assert bars == "1 1 True"
    assert plain == "2"  # tqdm's monitor thread: what the bar class turns off


def test_a_bar_counts_like_tqdm():
    from claimgate.runtime.bars import progress_bar

    shown = io.StringIO()
    with progress_bar(total=10, desc="audit", unit="citation", file=shown) as bar:
        bar.update(4)
        bar.update(6)
    assert "10/10" in shown.getvalue() and "audit" in shown.getvalue()
