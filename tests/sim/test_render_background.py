"""The background drawn only where it changes (render._background) is the full-frame blend, bit for bit."""
import numpy as np
import pytest

from ringctl.sim import render


def _full_frame(spec, w, h, origin=(0.0, 0.0)):
    """The blend worked out over every pixel, as render drew it before the twenty-eighth session."""
    fl = spec["floor"]
    floor = (1 + float(fl.get("strength", 0.12)) * render._noise_field(int(fl.get("seed", 1)), w, h, 6))
    img = floor[..., None] * (np.array(fl["color"], np.float32) / 255)
    ring = spec["ring"]
    cx, cy = ring["center"][0] - origin[0], ring["center"][1] - origin[1]
    r, wall = float(ring["radius"]), float(ring["wall_px"])
    dx = np.arange(w, dtype=np.float32)[None, :] - cx
    dy = np.arange(h, dtype=np.float32)[:, None] - cy
    d = np.sqrt(dx ** 2 + dy ** 2)
    a_wall = np.clip(r + wall - d + 0.5, 0, 1)[..., None]
    a_in = np.clip(r - d + 0.5, 0, 1)[..., None]
    ang = np.arctan2(np.broadcast_to(dy, d.shape), np.broadcast_to(dx, d.shape))
    grain = 1 + 0.08 * np.sin(ang * 90 + 3 * np.sin(ang * 7)) - 0.35 * np.clip(1 - (d - r) / (0.3 * wall), 0, 1)
    wall_img = grain[..., None] * (np.array(ring["wall_color"], np.float32) / 255)
    layout = render._layout(spec, w, h)
    return (img * (1 - a_wall) + wall_img * a_wall) * (1 - a_in) + layout * a_in


def _spec(center, radius, wall, texture, ring_colour=(60, 90, 120)):
    return {"floor": {"color": [90, 90, 95], "seed": 3, "strength": 0.12},
            "ring": {"center": list(center), "radius": radius, "wall_px": wall, "wall_color": list(ring_colour)},
            "layout": {"color": [40, 105, 35], "texture": texture, "strength": 0.09, "seed": 5}}


@pytest.mark.parametrize("center, radius, wall, texture, origin", [
    ((320.0, 240.0), 200.0, 14.0, "felt", (0.0, 0.0)),
    ((331.7, 228.2), 180.5, 9.5, "pattern", (0.0, 0.0)),
    ((20.0, 460.0), 150.0, 12.0, "plain", (0.0, 0.0)),       # a ring that leaves the frame
    ((900.0, -300.0), 100.0, 10.0, "felt", (0.0, 0.0)),      # ... and one wholly outside it
    ((330.0, 250.0), 210.0, 11.0, "felt", (-12.0, 7.0)),     # the oblique camera's canvas origin
])
def test_the_background_is_the_full_frame_blend_bit_for_bit(center, radius, wall, texture, origin):
    w, h = 640, 480
    spec = _spec(center, radius, wall, texture)
    got = render._background(spec, w, h, origin)
    want = _full_frame(spec, w, h, origin)
    assert got.dtype == np.float32 and got.shape == (h, w, 3)
    assert want.dtype == np.float32 and np.array_equal(got, want)


def test_a_tinted_field_is_the_broadcast_product():
    rng = np.random.default_rng(1)
    f = rng.standard_normal((37, 53)).astype(np.float32)
    col = np.array([40, 105, 35], np.float32) / 255
    assert np.array_equal(render._tinted(f, col), f[..., None] * col)
