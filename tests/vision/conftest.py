"""The vision tests' shared face model (trained once per session on the training site's scenes);
the two-camera site fixture is in tests/conftest.py (runner tests use it too)."""
import pytest

from ringctl.sim import vision_bench


@pytest.fixture(scope="session")
def model():
    return vision_bench.face_model()
