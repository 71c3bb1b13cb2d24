"""Soak (make soak, not in make test): a long seeded game end to end, zero wrong calls."""
import pytest

from ringctl.sim.demo import SCENARIOS
from ringctl.sim.session import DemoSession

pytestmark = pytest.mark.slow


def test_long_game_makes_no_wrong_call_and_the_chain_verifies(tmp_path):
    import numpy as np
    rng = np.random.default_rng(2026)
    with DemoSession(str(tmp_path), seed=2026, say=lambda s: None) as demo:
        for _ in range(60):
            demo.play_spin(seed=int(rng.integers(1 << 30)),
                           force=SCENARIOS[int(rng.integers(len(SCENARIOS)))])
        summary = demo.summary()
    print(summary)
    assert summary["wrong"] == 0
    assert summary["agree"] >= 0.9 * summary["spins"]
    assert summary["chain_ok"]
