"""Ring calibration: find the inner boundary (circle or ellipse) in a photo of the empty ring.

The RingModel keeps what the coin detector needs: the boundary, a small copy of the empty
ring (background), the scale and the expected coin size; `to_json`/`from_json` round-trip it.
"""
import base64
import json
import math

import cv2
import numpy as np

from ..errors import UserError

MIN_COIN_PX = 40          # coins narrower than this cannot be read reliably (NOTES.md)
SMALL_COIN_R = 8.0        # coin radius (px) in the downscaled detection image
DEFAULT_COIN_MM = 30.8    # Two-Up pennies
DEFAULT_RING_MM = 3000.0  # a typical ring's inner diameter


class RingModel:
    """The ring as one camera sees it. Lengths in image px; `angle_deg` is the long axis direction."""

    def __init__(self, image_size, center, axes, angle_deg, background, coin_mm, ring_mm, warnings=(),
                 layout_bgr=None):
        self.image_size = (int(image_size[0]), int(image_size[1]))
        self.center = (float(center[0]), float(center[1]))
        self.axes = (float(max(axes)), float(min(axes)))
        self.angle_deg = float(angle_deg) % 180
        self.background = background          # small BGR uint8 image (detection scale)
        self.coin_mm, self.ring_mm = float(coin_mm), float(ring_mm)
        self.warnings = list(warnings)
        self.layout_bgr = list(layout_bgr) if layout_bgr is not None else None

    # --- geometry -------------------------------------------------------------------------
    @property
    def px_per_mm(self):
        return 2 * self.axes[0] / self.ring_mm

    @property
    def coin_radius_px(self):
        """Expected coin radius in ring-plane px (= image px along the long axis)."""
        return self.coin_mm / 2 * self.px_per_mm

    @property
    def factor(self):
        """Downscale factor of the detection image (a coin is about SMALL_COIN_R px there)."""
        return max(1, int(round(self.coin_radius_px / SMALL_COIN_R)))

    @property
    def small_size(self):
        w, h = self.image_size
        return (max(1, w // self.factor), max(1, h // self.factor))

    @property
    def to_plane(self):
        """2x3 affine image px -> ring plane px, in which the ring is a circle of radius axes[0]."""
        t = math.radians(self.angle_deg)
        rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        lin = rot @ np.diag([1.0, self.axes[0] / self.axes[1]]) @ rot.T
        c = np.array(self.center)
        return np.hstack([lin, (c - lin @ c)[:, None]])

    @property
    def radius(self):
        return self.axes[0]

    def plane_points(self, pts):
        """Image points (N,2) -> ring-plane points (N,2)."""
        m = self.to_plane
        return np.asarray(pts, np.float64) @ m[:, :2].T + m[:, 2]

    # --- persistence ----------------------------------------------------------------------
    def to_dict(self):
        ok, png = cv2.imencode(".png", self.background)
        return {"kind": "ringctl.vision.RingModel", "version": 1, "image_size": list(self.image_size),
                "center": list(self.center), "axes": list(self.axes), "angle_deg": self.angle_deg,
                "coin_mm": self.coin_mm, "ring_mm": self.ring_mm,
                "coin_radius_px": round(self.coin_radius_px, 2),
                "coin_diameter_px": round(2 * self.coin_radius_px * self.axes[1] / self.axes[0], 1),
                "warnings": self.warnings, "layout_bgr": self.layout_bgr,
                "background_png": base64.b64encode(png.tobytes()).decode("ascii")}

    def to_json(self):
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d):
        try:
            if d.get("kind") != "ringctl.vision.RingModel":
                raise KeyError("kind")
            bg = cv2.imdecode(np.frombuffer(base64.b64decode(d["background_png"]), np.uint8), cv2.IMREAD_COLOR)
            if bg is None:
                raise ValueError("background")
            return cls(d["image_size"], d["center"], d["axes"], d["angle_deg"], bg, d["coin_mm"], d["ring_mm"],
                       d.get("warnings", ()), d.get("layout_bgr"))
        except (KeyError, ValueError, TypeError, AttributeError) as exc:
            raise UserError(f"not a ring calibration (bad or missing field {exc}); "
                            "make one with 'ring vision calibrate EMPTY_RING_IMAGE -o RING.json'")

    @classmethod
    def from_json(cls, text):
        try:
            d = json.loads(text)
        except ValueError as exc:
            raise UserError(f"ring calibration is not JSON ({exc}); "
                            "make one with 'ring vision calibrate EMPTY_RING_IMAGE -o RING.json'")
        if not isinstance(d, dict):
            raise UserError("ring calibration is not a JSON object; make one with 'ring vision calibrate'")
        return cls.from_dict(d)

    def save(self, path):
        with open(path, "w") as f:
            f.write(self.to_json())

    @classmethod
    def load(cls, path):
        try:
            with open(path) as f:
                return cls.from_json(f.read())
        except OSError as exc:
            raise UserError(f"cannot read ring calibration {path} ({exc.strerror}); "
                            "make one with 'ring vision calibrate EMPTY_RING_IMAGE -o RING.json'")

    def small(self, img):
        """The detection-scale copy of a frame (same sampling as the stored background)."""
        return cv2.resize(img, self.small_size, interpolation=cv2.INTER_LINEAR)

    def check_frame(self, img):
        if img is None or img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
            raise UserError("frame must be a colour (BGR, 8-bit) image")
        if (img.shape[1], img.shape[0]) != self.image_size:
            raise UserError(f"frame is {img.shape[1]}x{img.shape[0]} but the ring was calibrated at "
                            f"{self.image_size[0]}x{self.image_size[1]}; recalibrate with this camera setting")


def _size_warnings(model):
    d = 2 * model.coin_radius_px * model.axes[1] / model.axes[0]
    if d >= MIN_COIN_PX:
        return []
    need = MIN_COIN_PX / d
    w = model.image_size[0]
    return [f"coins will be about {d:.0f} px across, under the {MIN_COIN_PX} px needed to read a face: "
            f"use {need:.1f}x the pixels across the ring, e.g. a sensor at least {int(math.ceil(w * need))} px "
            f"wide with the same view, a {need:.1f}x longer lens per ring zone (several cameras), "
            f"or move the camera {need:.1f}x closer"]


def _fit_ellipse_robust(pts):
    """fitEllipse, then refit without the points far from the first fit (leaks, occluders)."""
    pts = np.asarray(pts, np.float32)
    if len(pts) < 20:
        return None
    for _ in range(3):
        (cx, cy), (d1, d2), ang = cv2.fitEllipse(pts)
        t = math.radians(ang)
        x, y = pts[:, 0] - cx, pts[:, 1] - cy
        u = x * math.cos(t) + y * math.sin(t)
        v = -x * math.sin(t) + y * math.cos(t)
        res = (np.sqrt((u / (d1 / 2)) ** 2 + (v / (d2 / 2)) ** 2) - 1) * (d1 + d2) / 4
        keep = np.abs(res) < max(1.0, 3 * np.median(np.abs(res)))
        if keep.all() or keep.sum() < 20:
            break
        pts = pts[keep]
    return (cx, cy), (d1 / 2, d2 / 2), ang, float(np.median(np.abs(res)))


def find_boundary(img):
    """(center, (a, b), angle_deg, layout_bgr) of the ring's inner boundary; UserError if none."""
    h, w = img.shape[:2]
    f = max(1.0, max(w, h) / 640)
    small = cv2.resize(img, (int(round(w / f)), int(round(h / f))), interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), 2.5), cv2.COLOR_BGR2LAB).astype(np.float32)
    # the layout is what surrounds the image centre (the camera looks at the ring)
    pr = max(4, int(min(sw, sh) * 0.08))
    patch = lab[sh // 2 - pr:sh // 2 + pr, sw // 2 - pr:sw // 2 + pr].reshape(-1, 3)
    mean = np.median(patch, axis=0)
    dist = np.sqrt(((lab - mean) ** 2).sum(axis=2))
    spread = np.percentile(np.sqrt(((patch - mean) ** 2).sum(axis=1)), 95)
    d8 = np.clip(dist * 4, 0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    thr = max(otsu / 4, spread * 1.5, 6.0)
    mask = (dist < thr).astype(np.uint8)
    n, lbl, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    k = lbl[sh // 2, sw // 2]
    if k == 0 or stats[k, cv2.CC_STAT_AREA] < 0.05 * sw * sh:
        raise UserError("no ring found: the image centre is not on a uniform layout; "
                        "point the camera at the ring's centre and photograph it empty")
    region = (lbl == k).astype(np.uint8) * 255
    # close over printed lines and text: the region is the whole layout inside the wall
    cnts, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cnt = max(cnts, key=cv2.contourArea).reshape(-1, 2)
    x, y, bw, bh = cv2.boundingRect(cnt)
    if x <= 1 or y <= 1 or x + bw >= sw - 1 or y + bh >= sh - 1:
        raise UserError("no ring found: the layout runs off the picture; the whole ring must be in view "
                        "with the ring wall distinct from the layout")
    hull = cv2.convexHull(cnt.astype(np.float32)).reshape(-1, 2)
    fit = _fit_ellipse_robust(cnt)
    if fit is None:
        raise UserError("no ring found: boundary too small; move the camera so the ring fills the picture")
    (cx, cy), (a, b), ang, res = fit
    hull_area = cv2.contourArea(hull)
    if res > 0.03 * max(a, b) or hull_area < 0.6 * math.pi * a * b:
        raise UserError("no ring found: the layout's edge is not a circle or ellipse; photograph the empty "
                        "ring from above with nothing on it")
    # refine at full resolution: strongest colour step along rays across the coarse boundary
    coarse = ((cx * f, cy * f), (a * f, b * f), ang)
    layout_bgr = cv2.cvtColor(np.uint8([[np.clip(mean, 0, 255)]]), cv2.COLOR_LAB2BGR)[0, 0]
    refined = _refine(img, coarse, layout_bgr)
    (cx, cy), (a, b), ang = refined or coarse
    if a < b:
        a, b, ang = b, a, ang + 90
    return (cx, cy), (a, b), ang % 180, [int(v) for v in layout_bgr]


def _refine(img, ell, layout_bgr, n=360):
    (cx, cy), (a, b), ang = ell
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    th = math.radians(ang)
    ex, ey = a * np.cos(t), b * np.sin(t)
    px = cx + ex * math.cos(th) - ey * math.sin(th)
    py = cy + ex * math.sin(th) + ey * math.cos(th)
    dx, dy = px - cx, py - cy
    rad = np.hypot(dx, dy)
    ux, uy = dx / rad, dy / rad
    span = max(6.0, 0.04 * max(a, b))
    s = np.linspace(-span, span, int(2 * span * 2) + 1).astype(np.float32)   # half-px steps
    mx = (px[:, None] + ux[:, None] * s[None, :]).astype(np.float32)
    my = (py[:, None] + uy[:, None] * s[None, :]).astype(np.float32)
    samp = cv2.remap(cv2.GaussianBlur(img, (0, 0), 1.0), mx, my, cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    d = np.sqrt(((samp - np.asarray(layout_bgr, np.float32)) ** 2).sum(axis=2))
    g = np.diff(d, axis=1)
    i = np.argmax(g, axis=1)
    ok = (i > 0) & (i < g.shape[1] - 1) & (g[np.arange(n), i] > 8)
    if ok.sum() < n // 3:
        return None
    idx = np.clip(i, 1, g.shape[1] - 2)
    g0, g1, g2 = g[np.arange(n), idx - 1], g[np.arange(n), idx], g[np.arange(n), idx + 1]
    den = g0 - 2 * g1 + g2
    sub = np.where(np.abs(den) > 1e-6, 0.5 * (g0 - g2) / den, 0.0)
    pos = s[idx] + (np.clip(sub, -0.5, 0.5) + 0.5) * (s[1] - s[0])   # diff sits between samples
    pts = np.stack([px + ux * pos, py + uy * pos], axis=1)[ok]
    fit = _fit_ellipse_robust(pts)
    if fit is None:
        return None
    return fit[0], fit[1], fit[2]


def calibrate(empty_ring_img, coin_mm=DEFAULT_COIN_MM, ring_mm=DEFAULT_RING_MM):
    """Find the ring in a photo of the empty ring -> RingModel (boundary, background, scale)."""
    if empty_ring_img is None or getattr(empty_ring_img, "ndim", 0) not in (2, 3):
        raise UserError("calibration image is not an image")
    img = empty_ring_img
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.dtype != np.uint8:
        raise UserError("calibration image must be 8-bit")
    if not (coin_mm > 0 and ring_mm > coin_mm * 4):
        raise UserError(f"coin {coin_mm} mm / ring {ring_mm} mm is not plausible; "
                        "give --coin-mm (e.g. 30.8) and --ring-mm (the ring's inner diameter)")
    center, axes, ang, layout = find_boundary(img)
    h, w = img.shape[:2]
    model = RingModel((w, h), center, axes, ang, None, coin_mm, ring_mm, layout_bgr=layout)
    model.background = model.small(img)
    model.warnings = _size_warnings(model)
    return model
