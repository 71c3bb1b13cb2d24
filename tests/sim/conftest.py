"""Shared simulated tosses for the simulator tests: each is simulated once per test session."""
import functools

import pytest

from ringctl.sim.physics import simulate_toss


@functools.lru_cache(maxsize=None)
def toss(seed, force=None, angle=None):
    return simulate_toss(seed, force=force, force_angle_deg=angle)


@pytest.fixture
def get_toss():
    return toss
