"""Process plumbing with no claimgate imports: signal handling and cutting frames into partitions.

A leaf below every other room, so ``io`` (atomic writes), ``gate`` and ``audit`` (batching) and
``execution`` (runs) can all use it without an import running up a layer.
"""
