"""Drivers, executors and partitions: how the dataflows are run."""
