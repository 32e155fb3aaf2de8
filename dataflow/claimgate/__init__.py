"""claimgate: evidence gates for documentation assistants, as Hamilton dataflows.

Importing this package sets ``HAMILTON_TELEMETRY_ENABLED=false`` (overriding the
environment) before Hamilton is
imported anywhere in the process. Current Hamilton releases send no telemetry at
all; the variable keeps older releases quiet too. claimgate runs offline on other
people's documents and makes no network calls.
"""

import os

os.environ["HAMILTON_TELEMETRY_ENABLED"] = "false"  # forced, whatever the environment says

__version__ = "0.1.0"
