"""``runtime.collector.gc_paused``: the collector is paused for a bulk build and resumes as it was."""

from __future__ import annotations

import gc

import pytest
from claimgate.runtime.collector import gc_paused


@pytest.fixture
def unfrozen():
    gc.unfreeze()
    yield
    gc.unfreeze()


@pytest.mark.parametrize("was_enabled", [True, False])
def test_the_collector_is_paused_inside_and_restored_after(unfrozen, was_enabled):
    (gc.enable if was_enabled else gc.disable)()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is was_enabled
        assert gc.get_freeze_count() == 0  # nothing is kept from collection unless asked
    finally:
        gc.enable()


def test_keep_moves_what_the_build_made_out_of_the_collectors_reach(unfrozen):
    with gc_paused(keep=True):
        built = [[i] for i in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(built)  # the lists are in the permanent generation
    young = {id(obj) for obj in gc.get_objects(0)}
    assert not any(id(item) in young for item in built)


def test_keep_still_restores_the_collector_when_the_build_fails(unfrozen):
    with pytest.raises(ValueError), gc_paused(keep=True):
        raise ValueError("a refusal inside the build")
    assert gc.isenabled()
