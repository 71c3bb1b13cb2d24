"""Several simulated overhead cameras over one ring: where they hang, and their calibration photos.

    cams = camera_rig(RingGeometry(layout_radius_m=1.5), cameras=2, coin_px=44)
    sources = [CameraSource(None, cam=c, ...) for c in cams]   # same physics, one view each
    photos = calibration_photos(cams, seed)   # [(name, sheet photo, empty-ring photo)]
    rig = vision.viewcal.calibrate_rig(photos, ring_mm=3000)    # the technician's procedure

Layouts: 1 camera over the centre; 2 over the halves (x < 0, x > 0); 4 over the quadrants. Each
view reaches `overlap_m` past the seam so a coin lying on it is whole in at least one view,
and past the wall so a coin outside the ring is seen. Every camera looks straight down (the
installation rule, hardware/INSTALL.md); position, height, size and scale are per camera
(`PinholeCamera` fields), so other rigs are a list of those.
"""
import cv2
import numpy as np

from .camera import PinholeCamera, scene_spec

COIN_D_M = 0.0308


def camera_rig(ring, cameras=1, coin_px=44.0, height_m=4.0, overlap_m=0.1, floor_m=0.03):
    """[PinholeCamera] for 1, 2 or 4 cameras with coins `coin_px` across on the layout."""
    if cameras not in (1, 2, 4):
        raise ValueError("cameras must be 1, 2 or 4")
    ppm = coin_px / COIN_D_M
    outer = ring.wall_radius_m + ring.wall_thickness_m + floor_m
    if cameras == 1:
        return [PinholeCamera.for_coin_px(ring, coin_px, height_m=height_m)]
    lo, hi = -outer, overlap_m / 2          # one zone along an axis, before mirroring
    span_half = hi - lo
    c_half = (lo + hi) / 2

    def px(m):
        return int(np.ceil(m * ppm / 16) * 16)
    out = []
    if cameras == 2:
        for x_m in (c_half, -c_half):       # left half, right half
            out.append(PinholeCamera(ring, size=(px(span_half), px(2 * outer)), px_per_m=ppm,
                                     height_m=height_m, x_m=x_m))
    else:
        for sx, sy in ((-1, 1), (1, 1), (-1, -1), (1, -1)):
            out.append(PinholeCamera(ring, size=(px(span_half), px(span_half)), px_per_m=ppm,
                                     height_m=height_m, x_m=-sx * c_half, y_m=-sy * c_half))
    return out


def camera_names(n):
    return [chr(ord("A") + k) for k in range(n)]


def calibration_photos(cams, render, rng, sheet_xy_m=(0.04, -0.03), sheet_turn_deg=7.0, noise=2.0):
    """[(name, sheet photo, empty-ring photo)]: every camera photographs the calibration sheet
    laid near the ring centre (a little off it and turned, as a person lays it), then the
    empty ring. `render` is sim.render.render_scene."""
    from ..vision import viewcal
    sheet = viewcal.sheet_image(px_per_mm=2.0)
    n = sheet.shape[0]
    a = np.radians(sheet_turn_deg)
    # sheet px -> layout mm: centre, 2 px/mm, +y up, turned
    S = np.array([[0.5, 0, -n / 4], [0, -0.5, n / 4], [0, 0, 1.0]])
    Rt = np.array([[np.cos(a), -np.sin(a), 1000 * sheet_xy_m[0]],
                   [np.sin(a), np.cos(a), 1000 * sheet_xy_m[1]], [0, 0, 1.0]])
    out = []
    for name, cam in zip(camera_names(len(cams)), cams):
        spec = scene_spec(cam, [], [], None, noise=0.0)
        empty, _ = render(spec, rng)
        to_img = np.linalg.inv(cam.homography_mm()) @ Rt @ S
        w, h = cam.size
        warped = cv2.warpPerspective(sheet, to_img, (w, h), flags=cv2.INTER_AREA,
                                     borderValue=0)
        mask = cv2.warpPerspective(np.full_like(sheet, 255), to_img, (w, h), flags=cv2.INTER_NEAREST)
        photo = empty.copy()
        lit = (warped.astype(np.float32) * 0.85 + 20).astype(np.uint8)     # paper under the lights
        photo[mask > 0] = lit[mask > 0][:, None]
        out.append((name, _noised(photo, rng, noise), _noised(empty, rng, noise)))
    return out


def _noised(img, rng, sigma):
    if not sigma:
        return img
    n = rng.standard_normal(img.shape, dtype=np.float32) * sigma
    return np.clip(img.astype(np.float32) + n, 0, 255).astype(np.uint8)


def commission(cams, ring, coin, rng, render=None):
    """(vision Rig, FaceModel) of a simulated site, made as the technician does it: the sheet
    and the empty ring photographed by every camera (`ring vision calibrate-views`), then ten
    photos of each face of one coin lying flat (`ring vision train`)."""
    from ..vision import train, viewcal
    from .render import render_scene
    render = render or render_scene
    rig = viewcal.calibrate_rig(calibration_photos(cams, render, rng), ring_mm=2000 * ring.layout_radius_m,
                                coin_mm=2000 * coin.radius_m)
    return rig, train(*face_photos(cams[0], ring, coin, rng, render=render), rig.views[0].ring)


def face_photos(cam, ring, coin, rng, n=10, render=None):
    """Photos of one coin lying flat, heads then tails, inside this camera's part of the ring."""
    from .render import render_scene
    from .physics import quat_about, quat_mul
    render = render or render_scene
    out = {"heads": [], "tails": []}
    w, h = cam.size
    for face in out:
        while len(out[face]) < n:
            u, v = rng.uniform(0.2 * w, 0.8 * w), rng.uniform(0.2 * h, 0.8 * h)
            x, y = cam.to_world(u, v)
            if np.hypot(x, y) > 0.8 * ring.layout_radius_m:
                continue
            q = quat_about((0, 0, 1), rng.uniform(0, 2 * np.pi))
            if face == "tails":
                q = quat_mul(q, quat_about((1, 0, 0), np.pi))
            spec = scene_spec(cam, np.array([[x, y, coin.thickness_m / 2]]), np.array([q]), coin, noise=2.0)
            out[face].append(render(spec, rng)[0])
    return out["heads"], out["tails"]
