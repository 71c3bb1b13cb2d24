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


def test_a_coin_moved_a_fiftieth_of_a_pixel_changes_no_pixel_more_than_an_edge_can():
    """A camera's pixel integrates light over its area: a coin's rim (~130 grey levels of
    contrast on the layout) moved 0.02 px changes a pixel by ~3 levels, never by tens. The
    renderer once cut the disc at its texture's edges (the rim's four extreme pixels a step
    edge: 28 levels for 0.02 px), which the stillness rule saw as motion of a coin at rest."""
    from ringctl.sim.fastrender import FastRenderer
    rng = np.random.default_rng(3)
    fast = FastRenderer()
    worst = 0
    for _ in range(6):
        x, y, rot = rng.uniform(300, 600), rng.uniform(250, 450), rng.uniform(0, 360)
        for dx, dy in ((0.02, 0.0), (0.0, 0.02)):
            a, b = ({"noise": 0.0, "coins": [{"center_px": [x + ex, y + ey], "radius_px": 22.0,
                                              "face": "heads", "rotation_deg": rot}]}
                    for ex, ey in ((0, 0), (dx, dy)))
            for draw in (lambda s: render.render_scene(s)[0],
                         lambda s: fast.compose(fast.patches(s)[0], 0.0)):
                ga, gb = (cv2.cvtColor(draw(s), cv2.COLOR_BGR2GRAY).astype(int) for s in (a, b))
                worst = max(worst, int(np.abs(ga - gb).max()))
    assert worst <= 6, worst
