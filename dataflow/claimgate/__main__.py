"""``python -m claimgate``: the command line (see :mod:`claimgate.cli.main`)."""

import sys

from claimgate.cli.main import main

sys.exit(main())
