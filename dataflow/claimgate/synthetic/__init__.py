"""Deterministic synthetic inputs (pinned sources, case tables, corpora, citations) for tests and benchmarks."""
