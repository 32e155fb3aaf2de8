#!/usr/bin/env python3
"""claimgate's main job from a checkout: ``python run_pipeline.py [gate|audit|...] [options]``.

A thin entry point: everything lives in :mod:`claimgate.cli.main`. Run without a
sub-command it is the default run on the demo fixtures (writes ``output/``).
"""

import sys
from pathlib import Path

try:
    import claimgate  # noqa: F401  (installed: pip install -e . or pip install .)
except ModuleNotFoundError:  # a bare checkout: the package lives in dataflow/
    sys.path.insert(0, str(Path(__file__).resolve().parent / "dataflow"))

from claimgate.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
