"""Reading pinned sources and tables, and writing results atomically."""
