"""Ground truth of simulated tosses agrees with the coin poses and with the forced scenarios."""
import numpy as np
import pytest

from ringctl.sim.physics import FLAT_TILT_DEG, simulate_toss

NORMAL_SEEDS = (0, 1, 2, 3, 4, 5)


def heads_normal_z(q):
    """z of the heads normal (local +z) for a quaternion x, y, z, w: 1 - 2(x^2 + y^2)."""
    x, y = q[0], q[1]
    return 1 - 2 * (x * x + y * y)


@pytest.mark.parametrize("seed", NORMAL_SEEDS)
def test_faces_flat_and_outcome_follow_the_final_poses(get_toss, seed):
    t = get_toss(seed)
    tr = t.truth
    assert tr["rest_t"] is not None, "coins never came to rest"
    faces = []
    for i, c in enumerate(tr["coins"]):
        nz = heads_normal_z(t.quat[-1, i])
        assert c["up_side"] == ("heads" if nz > 0 else "tails")
        tilt = np.degrees(np.arccos(min(1.0, abs(nz))))
        assert abs(tilt - c["tilt_deg"]) < 0.05
        if c["flat"]:
            assert tilt < FLAT_TILT_DEG and c["on_top_of"] is None
            assert c["face"] == c["up_side"]
        else:
            assert c["face"] is None
        faces.append(c["face"])
    if tr["valid"]:
        assert all(c["flat"] and c["inside"] for c in tr["coins"])
        assert tr["outcome"] == (faces[0] if faces[0] == faces[1] else "odds")
        assert tr["outcome_at_rest"] == tr["outcome"]
    else:
        assert tr["outcome"] == "no-spin" and tr["reasons"]


def test_seeded_runs_repeat_exactly():
    a, b = simulate_toss(11, max_s=4), simulate_toss(11, max_s=4)
    assert np.array_equal(a.pos, b.pos) and a.truth == b.truth


def test_coins_start_one_heads_one_tails_and_rise_above_the_head(get_toss):
    t = get_toss(0)
    assert heads_normal_z(t.quat[0, 0]) > 0.9 and heads_normal_z(t.quat[0, 1]) < -0.9   # 6.1
    assert t.pos[:, :, 2].max() > t.ring.spinner_head_m + 0.3                           # 7.1.2


def test_forced_outside_coin_leaves_the_ring(get_toss):
    tr = get_toss(0, "outside", 100).truth
    c = tr["coins"][1]
    assert not c["inside"] and c["r_max_m"] > 0.6
    assert tr["outcome"] == "no-spin"
    assert any(r.startswith("7.3.1 coin 1") for r in tr["reasons"])


def test_forced_wall_strike_is_above_the_layout(get_toss):
    t = get_toss(1, "wall", 100)
    hits = [e for e in t.contacts if e["other"] == "wall" and e["coin"] == 1]
    assert hits and max(e["xyz"][2] for e in hits) > 0
    assert any(r.startswith("7.3.2 coin 1") for r in t.truth["reasons"])


def test_forced_stack_coin_lies_on_the_other(get_toss):
    t = get_toss(1, "stack")       # (the forced pair stays stacked on about half the seeds)
    top = t.truth["coins"][1]
    assert top["on_top_of"] == 0 and not top["flat"] and top["face"] is None
    # really over it: the discs overlap in plan (two flat coins could not) and it sits higher
    assert np.hypot(*(t.pos[-1, 1, :2] - t.pos[-1, 0, :2])) < 2 * t.coin.radius_m
    assert t.pos[-1, 1, 2] > t.pos[-1, 0, 2]
    assert any(r.startswith("7.3.4 coin 1") for r in t.truth["reasons"])


def test_forced_lean_coin_is_not_flat(get_toss):
    c = get_toss(0, "lean", 200).truth["coins"][1]
    assert c["tilt_deg"] > 20 and not c["flat"] and c["leaning"] and not c["inside"]


def test_low_toss_and_mat_are_no_spins(get_toss):
    low = get_toss(0, "low").truth
    assert low["outcome"] == "no-spin" and low["reasons"][0].startswith("7.1.2")
    mat = get_toss(0, "mat").truth
    assert any(r.startswith("7.3.3") for r in mat["reasons"])


def test_bad_force_is_refused():
    with pytest.raises(ValueError):
        simulate_toss(0, force="sideways")
