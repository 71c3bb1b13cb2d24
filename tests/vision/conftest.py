"""The vision tests' shared fixtures: the face model trained once per session on the training
site's scenes, and a simulated two-camera site (1.2 m ring, 44 px coins) commissioned once."""
import pytest

from ringctl.sim import vision_bench


@pytest.fixture(scope="session")
def model():
    return vision_bench.face_model()


@pytest.fixture(scope="session")
def site2():
    from ringctl.sim.restbench import Site
    return Site(ring_mm=1200.0, cameras=2, coin_px=44.0, seed=3)
