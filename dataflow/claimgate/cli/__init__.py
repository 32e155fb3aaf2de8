"""The command line (``claimgate`` and ``python run_pipeline.py``)."""
