"""sim.render and sim.faces: the two coin faces differ in relief, not in brightness (the vision must
read the design, not the shade)."""
import cv2
import numpy as np

from ringctl.sim import render


def test_coin_faces_differ_but_not_by_brightness():
    spec = {"coins": [{"center_px": [380, 360], "radius_px": 40, "face": "heads"},
                      {"center_px": [580, 360], "radius_px": 40, "face": "tails"}]}
    img, _ = render.render_scene(spec, np.random.default_rng(0))
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(float)
    yy, xx = np.mgrid[0:720, 0:960]
    means = [grey[(xx - x) ** 2 + (yy - 360) ** 2 < 30 ** 2].mean() for x in (380, 580)]
    assert abs(means[0] - means[1]) < 0.06 * np.mean(means)
    h, t = render.faces.height_map("heads"), render.faces.height_map("tails")
    assert np.abs(h - t).mean() > 0.05
