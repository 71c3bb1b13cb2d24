"""Training a ring's face model in that ring, under its own lights (issue 12): struck (relief)
coins lit low from the side read at every turn they land in, and training photos that do not
cover the coin's turns are refused with how to retake them."""
import numpy as np
import pytest

from ringctl.errors import UserError
from ringctl.sim import heldout, vision_bench as bench
from ringctl.vision import judge, ring as ringmod

# a small ring lit low (36-45 deg high): relief shading then turns with the coin
LOW_LIGHT = dict(size=(1280, 720), coin_px=(44, 60), coin="brass", stream=(9, 12), light_elev=(36, 45),
                 blur_p=0.5, blur=(0.4, 1.2), motion_p=0.0)


def _ring(design, seed):
    cfg = dict(LOW_LIGHT, faces=f"render:{design}")
    spec, _ = heldout.make(seed, "valid", cfg)
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    return cfg, spec, rm


def _reads(model, spec, seed, rm, turns):
    """[(true face, face read)] of the scene's two coins laid at each pair of `turns`."""
    out = []
    for k, (a, b) in enumerate(turns):
        sp = dict(spec, coins=[dict(spec["coins"][0], rotation_deg=a, face=("heads", "tails")[k % 2]),
                               dict(spec["coins"][1], rotation_deg=b, face=("tails", "heads")[k % 3 == 0])])
        v = judge.classify(heldout.render_frame(sp, seed + 7 * k), rm, model)
        for c in sp["coins"]:
            near = [r for r in v["coins"] if np.hypot(r["center"][0] - c["center_px"][0],
                                                      r["center"][1] - c["center_px"][1]) < 0.3 * c["radius_px"]]
            out.append((c["face"], near[0]["face"] if near else None))
    return out


@pytest.mark.parametrize("design,seed", [(100, 11), (101, 23)])
def test_a_ring_trained_under_its_own_low_light_reads_relief_coins_at_every_turn(design, seed):
    """Relief struck from real coins, lit 36-45 deg high: a model trained elsewhere (the set's
    training site, lit ~76 deg high) left most such coins unread (tune-relief: every uncalled
    valid spin was lit under 58 deg). Trained in the ring itself - 12 photos per face, a
    clock-hour turn apart, at different spots - every coin reads right at any of 12 turns."""
    cfg, spec, rm = _ring(design, seed)
    model = bench.ring_model(spec, seed, rm)
    turns = [(17 + 30 * k, 200 + 47 * k) for k in range(6)]
    pairs = _reads(model, spec, seed, rm, turns)
    wrong = [p for p in pairs if p[1] is not None and p[1] != p[0]]
    assert not wrong, pairs
    assert all(read == true for true, read in pairs), pairs


def test_six_photos_a_sixth_of_a_turn_apart_are_refused_under_a_low_light_with_how_to_retake():
    """Under a light 42 deg high, 6 photos per face a sixth of a turn apart do not separate the
    faces (a coin between two photos' turns looks like neither); the refusal says to take 12, a
    clock-hour apart - and 12 such photos train the ring."""
    cfg = heldout.SETS["tune-relief"]
    seed = 1822388060   # a tune-relief ring lit from 173 deg, 42 deg high
    spec, _ = heldout.make(seed, None, cfg)
    assert spec["lighting"]["light_elev_deg"] < 45
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    with pytest.raises(UserError, match="take 12 photos per face, turning the coin a clock-hour"):
        bench.ring_model(spec, seed, rm, n=6)
    assert bench.ring_model(spec, seed, rm, n=12).report["loo_errors"] == 0


def test_a_coin_across_a_printed_edge_is_refused_with_what_to_do():
    """sealed-6's one refused training photo (opened): a coin lying flat across the edge of a
    printed box close to its colour; its outline fits no circle. The refusal says so and how to
    retake, not "0 coin-like objects"; the same ring's next photo trains."""
    from ringctl.vision import faceid
    seed = 2450304478
    spec, _ = heldout.make(seed, None, heldout.SETS["sealed-6"])
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    photos = heldout.ring_training_frames(spec, seed, "heads", 12)
    with pytest.raises(faceid.TrainingPhotoError) as err:
        faceid._one_coin(photos[3], rm, "heads#3")
    assert "printed line or box edge" in str(err.value) and "retake" in str(err.value)
    blob, _ = faceid._one_coin(photos[4], rm, "heads#4")
    assert abs(blob.axes[0] / rm.coin_radius_px - 1) < 0.1
