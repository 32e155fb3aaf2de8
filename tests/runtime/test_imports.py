"""``pandas_held_back`` (runtime/imports.py): pandas refused inside the block, importable after it, pyarrow unharmed."""

from __future__ import annotations

import subprocess
import sys

from ..helpers import ROOT

SCRIPT = """
import sys
from claimgate.runtime.imports import pandas_held_back
import pyarrow as pa
import numpy as np
with pandas_held_back():
    try:
        import pandas
        print("imported")
    except ModuleNotFoundError:
        print("refused")
    print(pa.array(np.array([3, 1])).to_pylist(), pa.array(["a"]).to_pylist())
print("pandas" in sys.modules, any(getattr(f, "__name__", "") == "_PandasHeldBack" for f in sys.meta_path))
import pandas as pd
print(pa.Table.from_pandas(pd.DataFrame({"a": [1, 2]})).num_rows, pa.table({"a": [1]}).to_pandas().shape)
"""


def run(script: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_pandas_is_refused_in_the_block_and_pyarrow_arrays_still_build():
    refused, arrays, after, frames = run(SCRIPT)
    assert refused == "refused" and arrays == "[3, 1] ['a']"
    assert after == "False False"  # not imported, and the finder is gone from sys.meta_path
    assert frames == "2 (1, 1)"  # pandas imports afterwards and pyarrow converts frames both ways


def test_the_block_is_a_no_op_once_pandas_is_imported():
    script = "import pandas\nfrom claimgate.runtime.imports import pandas_held_back\n"
    script += "with pandas_held_back():\n    import pandas.api\n    print('ok')\n"
    assert run(script) == ["ok"]
