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


def _background_every_pixel(spec, w, h, origin):
    """The background blended at every pixel, as render._background did before it worked out the
    wall only where it shows (the held-out sets and the tests' scenes were made this way)."""
    fl = spec["floor"]
    floor = (1 + float(fl.get("strength", 0.12)) * render._noise_field(int(fl.get("seed", 1)), w, h, 6))
    img = floor[..., None] * (np.array(fl["color"], np.float32) / 255)
    ring = spec["ring"]
    cx, cy = ring["center"][0] - origin[0], ring["center"][1] - origin[1]
    r, wall = float(ring["radius"]), float(ring["wall_px"])
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2)
    ang = np.arctan2(yy - cy, xx - cx)
    grain = 1 + 0.08 * np.sin(ang * 90 + 3 * np.sin(ang * 7)) - 0.35 * np.clip(1 - (d - r) / (0.3 * wall), 0, 1)
    wall_img = grain[..., None] * (np.array(ring["wall_color"], np.float32) / 255)
    a_wall = np.clip(r + wall - d + 0.5, 0, 1)[..., None]
    img = img * (1 - a_wall) + wall_img * a_wall
    a_in = np.clip(r - d + 0.5, 0, 1)[..., None]
    return img * (1 - a_in) + render._layout(spec, w, h) * a_in


def test_the_background_is_the_same_bit_for_bit_as_blending_every_pixel(monkeypatch):
    """render._background blends the wall only where it shows and the lettering only round it
    (for speed: a 4K background took ~1.2 s): every pixel must come out as before, or every
    held-out set and every test scene would change under the tests."""
    cases = [({"size": [640, 480], "ring": {"center": [321.3, 240.7], "radius": 190.2, "wall_px": 17.6}}, (0.0, 0.0)),
             ({"size": [800, 600], "ring": {"radius": 250.0, "wall_px": 31.0, "wall_color": [30, 60, 90]},
               "layout": {"color": [120, 62, 22], "texture": "pattern", "seed": 5, "boxes": [[100, 100, 300, 200, -1]],
                          "circles": [[400.0, 300.0, 210.0, 12.0, [200, 200, 200]]]}}, (-13.0, 7.0)),
             # worked out only in the square round the wall: a ring that leaves the picture, and
             # one wholly outside it
             ({"size": [640, 480], "ring": {"center": [20.0, 460.0], "radius": 150.0, "wall_px": 12.0}}, (0.0, 0.0)),
             ({"size": [640, 480], "ring": {"center": [900.0, -300.0], "radius": 100.0, "wall_px": 10.0}}, (0.0, 0.0))]
    for spec, origin in cases:
        spec = render.full_spec(spec)
        w, h = spec["size"]
        got = render._background(spec, w, h, origin)
        with monkeypatch.context() as m:   # the lettering's box: the whole picture
            m.setattr(render.cv2, "boundingRect", lambda a: (0, 0, a.shape[1], a.shape[0]))
            want = _background_every_pixel(spec, w, h, origin)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_a_tinted_field_is_the_broadcast_product():
    """render._tinted makes `f[..., None] * col` plane by plane (cv2.merge): the same bits."""
    f = np.random.default_rng(1).standard_normal((37, 53)).astype(np.float32)
    col = np.array([40, 105, 35], np.float32) / 255
    assert np.array_equal(render._tinted(f, col), f[..., None] * col)
