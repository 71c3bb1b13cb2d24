"""The simulated camera draws the coins where the physics put them."""
import time

import cv2
import numpy as np

from ringctl.sim.camera import CameraSource, PinholeCamera, placeholder_render
from ringctl.sim.geometry import RingGeometry


def test_projection_of_the_ring():
    ring = RingGeometry()
    cam = PinholeCamera(ring, size=(800, 600))
    u, v, s = cam.project((0, 0, 0))
    assert (u, v) == (400, 300) and abs(s - cam.px_per_m) < 1e-9
    u, v, _ = cam.project((ring.layout_radius_m, 0, 0))
    assert abs(u - 400 - ring.layout_radius_m * cam.px_per_m) < 1e-6
    _, v, _ = cam.project((0, 0.1, 0))
    assert v < 300                                   # world +y is image up
    _, _, s_high = cam.project((0, 0, 2.0))
    assert s_high > cam.px_per_m                     # nearer the camera = bigger
    side = PinholeCamera.for_coin_px(ring, 40).size[0]
    assert side / 2 > (ring.wall_radius_m + ring.wall_thickness_m) * 40 / 0.0308   # it fits


def _blobs(img, empty):
    diff = cv2.absdiff(img, empty).max(axis=2)
    n, lab, stats, cent = cv2.connectedComponentsWithStats((diff > 40).astype(np.uint8))
    return [cent[i] for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] > 30]


def test_coins_are_drawn_where_the_physics_says(get_toss):
    t = get_toss(3)
    cam = CameraSource(t, size=(640, 640), realtime=False, noise=0.0)
    img = cam.still_frames(1)[0]
    empty = CameraSource(None, ring=t.ring, size=(640, 640), realtime=False, noise=0.0).frame_at(0)
    found = _blobs(img, empty)
    want = [cam.cam.project(t.pos[-1, i])[:2] for i in range(2)]
    assert len(found) == 2
    for w in want:
        assert min(np.hypot(*(np.array(f) - w)) for f in found) < 2.0
    faces = [c["face"] for c in cam.last_spec["coins"]]
    assert faces == [c["up_side"] for c in t.truth["coins"]]


def test_recorded_replay_ends_and_live_replay_paces():
    ring = RingGeometry()
    src = CameraSource(None, ring=ring, size=(160, 160), fps=50, realtime=True, render=placeholder_render)
    t0 = time.monotonic()
    for _ in range(4):
        frame, ts = src.read()
        assert frame.shape == (160, 160, 3)
    assert time.monotonic() - t0 >= 0.05               # 3 frame periods at 50 fps
    assert src.size == (160, 160) and src.fps == 50


def test_replay_as_fast_as_asked_ends_after_rest(get_toss):
    t = get_toss(1)
    src = CameraSource(t, size=(160, 160), fps=5, realtime=False, still_s=0.5, render=placeholder_render)
    times = [ts for _, ts in src]
    assert times[0] == 0 and abs(times[-1] - (t.duration_s + 0.5)) <= 0.2
    assert src.read() == (None, None)


def test_stalled_camera_gives_no_frames_until_it_recovers():
    src = CameraSource(None, ring=RingGeometry(), size=(96, 96), fps=100, render=placeholder_render)
    src.stall()
    assert src.read()[0] is None
    src.stall(False)
    assert src.read()[0].shape == (96, 96, 3)


def test_a_prepared_toss_shows_the_frames_the_live_camera_would_draw(get_toss):
    # drawn before the release (off the real-time path), each prepared frame is the frame the
    # camera would have drawn live at that moment of its clock; the coins at rest come from a
    # read-only bank (handed out many times: nobody may change one)
    toss = get_toss(3)
    cam = CameraSource(None, ring=toss.ring, size=(320, 320), fps=25.0, noise=0.0)
    phase = 0.013
    assert cam.prepare(toss, phase, lead_s=0.2, after_s=0.3)
    cam.play(toss, time.monotonic())
    at_rest = phase + int((toss.duration_s + 1.0) * 25) / 25.0      # past the toss: at rest
    for t in [phase + k / 25.0 for k in (-3, 0, 10, 20, int(toss.truth["rest_t"] * 25))] + [at_rest]:
        got = cam._prepared(t)
        assert got is not None and np.array_equal(got, cam.frame_at(t)), t
    rest = cam._prepared(at_rest)
    assert not rest.flags.writeable
    assert cam._prepared(phase + 0.5 / 25.0) is None           # not on the camera's clock: live
    cam.play(None)
    assert cam._prepared(phase) is None                          # another toss (none): live


def test_a_live_camera_delivers_prepared_frames_on_its_own_clock(get_toss):
    toss = get_toss(3)
    cam = CameraSource(None, ring=toss.ring, size=(320, 320), fps=25.0, noise=2.0)
    t0 = cam.next_frame_at(time.monotonic() + 0.05) - 0.011     # released at a known phase
    cam.prepare(toss, 0.011)
    cam.play(toss, t0)
    stamps = [cam.read()[1] for _ in range(4)]
    assert cam.prepared_frames == 4
    assert np.allclose(np.diff(stamps), 1 / 25.0)                 # one frame per period of its clock
