"""The citation audit (after generation): corpus loading, normalization, quote matching, judge."""
