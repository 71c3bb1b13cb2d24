"""Several cameras, one ring: sheet calibration to ring mm, coverage, and the multi-view judge."""
import numpy as np
import pytest

from ringctl.errors import UserError
from ringctl.sim.cameras import calibration_photos, camera_rig
from ringctl.vision import coverage, viewcal
from ringctl.sim.render import render_scene
from ringctl.vision.views import judge_views

from mvkit import shot


def test_calibration_maps_every_camera_to_one_ring_plane(site2):
    rig = site2.rig
    assert [v.name for v in rig.views] == ["A", "B"]
    # world points on the layout (m), seen by each camera that has them in view
    pts = np.array([[0.0, 0.0], [0.02, 0.3], [-0.4, -0.2], [0.45, 0.1], [0.0, -0.5]])
    mapped = {}
    for cam, view in zip(site2.cams, rig.views):
        px = np.array([cam.project((x, y, 0.0))[:2] for x, y in pts])
        w, h = cam.size
        inside = (px[:, 0] > 0) & (px[:, 0] < w) & (px[:, 1] > 0) & (px[:, 1] < h)
        for i in np.nonzero(inside)[0]:
            mapped.setdefault(i, []).append(view.to_mm(px[i:i + 1])[0])
    # the ring centre is 0 in ring mm (found from the ring's edge and its known diameter)
    assert all(np.hypot(*m) < 3.0 for m in mapped[0]), mapped[0]
    # a point both cameras see maps to the same place
    both = [i for i, ms in mapped.items() if len(ms) == 2]
    assert both
    for i in both:
        assert np.hypot(*(mapped[i][0] - mapped[i][1])) < 2.0
    # distances in ring mm are true distances (scale from the sheet, checked by the ring)
    a, b = mapped[2][0], mapped[3][0]
    true = 1000 * np.hypot(*(pts[2] - pts[3]))
    assert abs(np.hypot(*(a - b)) - true) < 0.003 * true
    ring = rig.report["ring"]
    assert abs(ring["measured_diameter_mm"] - 1200) < 6
    assert rig.report["coverage"]["ok"]


def test_wrong_ring_diameter_or_no_sheet_is_refused_with_the_fix(site2):
    rng = np.random.default_rng(5)
    photos = calibration_photos(site2.cams, render_scene, rng)
    with pytest.raises(UserError, match="measures|not the ring"):
        viewcal.calibrate_rig(photos, ring_mm=1400)
    no_sheet = [(n, empty, empty) for n, _, empty in photos]
    with pytest.raises(UserError, match="marker"):
        viewcal.calibrate_rig(no_sheet, ring_mm=1200)


def _true_rig(cams, ring_mm=1200.0):
    views = []
    for k, cam in enumerate(cams):
        w, h = cam.size
        H = cam.homography_mm()
        views.append(viewcal.CameraView("ABCD"[k], H, viewcal.ring_model_for(H, np.zeros((h, w, 3), np.uint8), ring_mm)))
    return viewcal.Rig(views, ring_mm)


def test_coverage_counts_cameras_per_point_and_fails_under_40_px(site2):
    good = coverage.coverage(_true_rig(site2.cams))
    assert good["ok"] and 43 < good["coin_px_min"] < 45
    assert good["cameras_per_point"][2] > 0 and good["unseen_fraction"] == 0
    # no overlap: a coin lying on the seam is whole in neither view
    seam = coverage.coverage(_true_rig(camera_rig(site2.ring, 2, 44.0, overlap_m=0.0)))
    assert not seam["ok"] and seam["unseen_fraction"] > 0 and "overlap" in seam["text"]
    # four cameras at 30 px per coin: every point seen, but too small to read a face
    small = coverage.coverage(_true_rig(camera_rig(site2.ring, 4, 30.0)))
    assert not small["ok"] and small["coin_px_min"] < 40 and small["under_px_fraction"] == 1.0
    assert "more cameras" in small["text"]


def test_a_coin_cut_by_one_view_is_judged_in_the_view_that_sees_it_whole(site2):
    rng = np.random.default_rng(8)
    # x = +45 mm: whole in camera B only (A's frame ends 50 mm past the centre line)
    coins = [(0.045, 0.2, "heads"), (-0.3, -0.1, "heads")]
    frames = [shot(site2, c, coins, rng) for c in site2.cams]
    out = judge_views(frames, site2.rig, site2.model)
    assert out["result"] == "heads", out["reasons"]
    assert sorted(c["camera"] for c in out["coins"]) == ["A", "B"]
    assert out["views"][0]["cut_objects"] >= 1
    # on the seam (whole in both views): one coin, read in both, same answer
    coins = [(0.0, 0.2, "tails"), (0.3, -0.1, "heads")]
    out = judge_views([shot(site2, c, coins, rng) for c in site2.cams], site2.rig, site2.model)
    assert out["result"] == "odds", out["reasons"]
    assert any(c["cameras"] == ["A", "B"] or sorted(c["cameras"]) == ["A", "B"] for c in out["coins"])


def test_views_that_disagree_make_the_call_unsure(site2):
    rng = np.random.default_rng(9)
    a = shot(site2, site2.cams[0], [(0.0, 0.2, "tails"), (0.3, -0.1, "heads")], rng)
    b = shot(site2, site2.cams[1], [(0.0, 0.2, "heads"), (0.3, -0.1, "heads")], rng)
    out = judge_views([a, b], site2.rig, site2.model)
    assert out["result"] == "unsure"
    assert any("disagree" in r for r in out["reasons"])


def test_one_coin_in_view_is_unsure_not_a_void_and_a_missing_camera_is_named(site2):
    rng = np.random.default_rng(10)
    frames = [shot(site2, c, [(-0.3, 0.1, "heads")], rng) for c in site2.cams]
    out = judge_views(frames, site2.rig, site2.model)
    assert out["result"] == "unsure" and "none seen leaving" in out["reasons"][0]
    out = judge_views([frames[0], None], site2.rig, site2.model)
    assert out["result"] == "unsure" and any("camera B gave no frame" in r for r in out["reasons"])
