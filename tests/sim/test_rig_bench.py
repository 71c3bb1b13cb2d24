"""sim.rig_bench (`ring bench rig`): its scenes are what they say, and the two-camera judge voids
no valid spin for a third coin on the floor (forty-sixth session) and calls two coins beside each
other across a seam (forty-ninth session)."""
import numpy as np
import pytest

from ringctl.errors import UserError
from ringctl.sim import rig_bench


def test_each_kind_lays_its_coins_where_it_says(site2):
    R = site2.ring.layout_radius_m
    floor = site2.ring.wall_radius_m + site2.ring.wall_thickness_m
    for kind, on_floor in (("valid", 0), ("third", 1), ("outside", 1), ("outside-third", 2), ("seam", 0)):
        for seed in range(5):
            coins, truth = rig_bench.scene(site2, kind, seed)
            r = [np.hypot(x, y) for x, y, _ in coins]
            assert sum(d > floor + site2.coin.radius_m for d in r) == on_floor, (kind, seed, r)
            assert sum(d < R - site2.coin.radius_m for d in r) == len(coins) - on_floor
            assert all(rig_bench._whole_in_a_frame(site2, x, y) for x, y, _ in coins)
            if kind == "seam":   # the first cut by a frame (whole in another), the other beside it
                d = np.hypot(coins[0][0] - coins[1][0], coins[0][1] - coins[1][1]) / (2 * site2.coin.radius_m)
                assert rig_bench._cut_by_a_frame(site2, *coins[0][:2]) and 1.25 <= d <= 3.0, (seed, d)
            faces = {f for *_, f in coins[:2]}
            assert truth == ("no-spin" if kind.startswith("outside") else
                             faces.pop() if len(faces) == 1 else "odds")


def test_a_third_coin_on_the_floor_voids_no_valid_spin_and_a_coin_outside_still_voids(site2):
    out = rig_bench.sweep(site2, 3)
    assert out["bad"] == [], out["bad"]
    assert out["kinds"]["third"]["right"] + out["kinds"]["third"]["unsure"] == 3
    assert out["kinds"]["outside"]["right"] == 3 and out["kinds"]["outside-third"]["right"] == 3
    assert out["kinds"]["valid"]["right"] == 3
    assert out["kinds"]["seam"]["right"] == 3


def test_bad_sites_are_one_line_errors():
    with pytest.raises(UserError, match="COIN_PX:SEED"):
        rig_bench.main(["--sites", "44"])
    with pytest.raises(UserError, match="--scenes"):
        rig_bench.main(["--scenes", "0"])
    with pytest.raises(UserError, match="names no site"):
        rig_bench.main(["--sites", ","])
    for bad in ("0:3", "nan:3", "inf:3", "44:-3", "-44:3", "1e6:3"):
        with pytest.raises(UserError, match="px across"):
            rig_bench.main([f"--sites={bad}"])
    with pytest.raises(UserError, match="2 or 4"):
        rig_bench.main(["--cameras", "3"])
