"""Ring calibration: find the inner boundary (circle or ellipse) in a photo of the empty ring.

The RingModel keeps what the coin detector needs: the boundary, a small copy of the empty
ring (background), the scale and the expected coin size; `to_json`/`from_json` round-trip it.
"""
import base64
import datetime
import json
import math

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..errors import UserError

MIN_COIN_PX = 40          # coins narrower than this cannot be read reliably
SMALL_COIN_R = 8.0        # coin radius (px) in the downscaled detection image
DEFAULT_COIN_MM = 30.8    # Two-Up pennies
DEFAULT_RING_MM = 3000.0  # a typical ring's inner diameter
WALL_CHROMA_TOL = 0.06    # the wall's chromaticity round the ring (b, g, r shares) varies less
EDGE_CHROMA_TOL = 0.05    # full-res edge: the colour just outside is the wall's (b, g, r shares)
EDGE_REL = 0.35           # full-res edge: a step at least this share of the ring's typical step
EDGE_TOL = 1.0            # full-res edge: px from the fit that a direction's edge may lie
EDGE_SHARE = 0.5          # full-res edge: directions that must lie on the fit
HALF_FROM = 3000          # px: a photo this wide or wider that is refused is measured again at half size
ROUND_CENTRE = 0.2       # `_round`: the wall past a printed circle, its centre within this share of the radius of the circle's fit
EDGE_GAP_DEG = 90.0       # full-res edge: the widest arc without an edge on the fit
# A layout of the wall's chromaticity (a brown cloth by a wooden wall) differs from it only in
# brightness: its edge is then a step of L* (CIE, 0-100), measured as the median over the
# ring's directions of the step across the ellipse (2 px either side). Inside a layout that
# median stays within 0.2 (noise, felt and print are not concentric: 6 rings of sealed-16, green,
# maroon, blue, black and brown); the wall's own structure (the layout's edge, the wall foot's
# shading) seen from the wall's outer edge measured 1.5-17.
EDGE_L_MIN = 1.5          # L*: the least median brightness step that is the layout's edge
INNER_L_MIN = 1.0         # L*: a median step this big inside the boundary is an edge concentric with it
LIKE_WALL_DIR_MIN = 0.75  # L*: one direction's step that may be on that edge (half EDGE_L_MIN: one direction is noisier)
ALIKE_CHROMA_TOL = 0.12   # a refusal's "about the same colour": sealed-16's brown cloths lie 0.01-0.10
                          # from its walls' chromaticity, its green, blue, maroon and black 0.15 or more
SHARP_REL = 0.08          # its median step 4.5-6 px inside / at it: <= 0.06 on 26 fits within
                          # 1.5 px of the truth, 0.11-0.23 on 3 fits 3.7-8 px out (on a ramp)
INNER_FROM_PX = 5.0       # px: inside the edge, its own step (2 px windows, blur up to 1.6 px) has ended
# A concentric edge with the layout's own colour again just inside a later one (the median colour
# just inside it nearer the layout's, inside 0.75 of the ring, than LINE_BACK of the distance
# from it of what lies just beyond the edge) is a line printed on the layout, not the wall (a
# printed circle at 0.85 of the ring was taken for it; a wall's outer edge has wall just inside it)
LINE_BACK = 0.35
# ... or the same measured from the cloth just inside the line, direction by direction, LINE_LOCAL
# scan windows short of its far edge (by the wall the light's fall-off can leave the cloth further
# from the middle's colour than a faint line: sealed-31 3890086326)
LINE_LOCAL = (2, 5)
# ... or from each direction's own cloth at LINE_RAY of the radius (its median there)
LINE_RAY, LINE_RAY_CHROMA, LINE_RAY_SHARE = (0.6, 0.75), 0.02, 0.95
# ... or, over printed artwork of two or more colours beyond the line (which defeats the median
# over directions: sealed-25 2839296033, black cloth and beige boxes beyond a circle at 0.87, the
# wall refused and the circle taken, 85 px inside), the colour comes back in LINE_PALETTE_SHARE
# of the directions one by one to one of the layout's colours, and in LINE_CLOTH_SHARE to the
# layout's own (a wall's inner band, the same all round, comes back to the layout nowhere)
LINE_PALETTE_SHARE = 0.9
LINE_CLOTH_SHARE = 0.25
LINE_RUN = 4              # samples (half px of the detection scale) in a row that must come back
# a printed line round the ring (a step and one back) that _inner_edge passes over is at most this
# wide: 1 cm on a 3 m ring is 0.7% of its radius, a ring wall 3-10% (sim: 5-10%); a wider border
# is passed over only with the layout's cloth seen between it and the wall (_line_beyond)
LINE_PX, LINE_REL = 8.0, 0.02
# ... and a wider one, a circle printed at 0.75-0.95 of the radius (up to 40 px at 1080p; 10-20
# rings in 150 of sealed-25 to -28 refused for it), is passed over when the colour comes back,
# L* and chromaticity (L* and a*, b* within WIDE_LINE_TOL: the light falls off by up to 1.1 L*
# across a 30 px band near the wall), and the edge found has one band beyond it and the floor
# past that (_steps_beyond: one step), as a wall has. A wall of two colours, its outer part of
# the cloth's colour, on a plain floor has none beyond it: refused as before (its inner part
# could be the line); on a floor with a mat or a band round the wall it has one, and from above
# it looks just like a printed circle and a wall: told apart only where its inner part is a
# darker shade of the cloth (WIDE_INK below), not where it is of another colour (docs/VISION.md
# Known limits). Looked for from WIDE_FROM_REL of the radius in (a line straddling 0.8)
WIDE_LINE_REL, WIDE_LINE_TOL, WIDE_FROM_REL = 0.1, 2.0, 0.3
SIDE_SPAN = 4.0           # px: either side of a wide line, its colour is the median over this (_side)
# ... and only when it is ink, this far from the cloth (L*a*b*; the sealed sets' printed circles
# 12-80), and not a darker shade of the cloth's own colour (b, g, r shares within
# EDGE_CHROMA_TOL): a wall's foot in shadow, the wall above it of the cloth's colour and a mat
# beyond, looks like such a line and the wall beyond it
WIDE_INK = 10.0
# beyond the boundary, out to this share of its radius (a wall 3-10%, a border against it a few
# %), a step of at least this much (L*a*b*, median over the directions) is a band's edge
TWO_BANDS_REACH, TWO_BANDS_STEP = 0.15, 10.0
# the edge found beside a band, measured on as a candidate (band_candidates): another edge all
# round inside it within this share of the band's width (or BAND_SAME_PX) of the band's inner
# side is that side (a 20% band's inner side was seen at 17% by the detection-scale scan: sealed-34
# 2383307796); the band's inner side, measured again on its own at full resolution, within the
# same of where the band's scan put it
BAND_SAME, BAND_SAME_PX = 0.25, 2.0
# a line printed round the layout, seen at full resolution (L*a*b*, L* 0-100): at least LINE_INK
# from the layout's colour, and the cloth between it and the wall within LINE_CLOTH of the
# layout's own spread just inside the line; the wall beyond at least LINE_INK from that cloth
LINE_INK, LINE_CLOTH = 16.0, 4.0


# what an unsettled calibration (calibrate's `unsettled_ok`) says to anything but training
NOT_SETTLED = ("the ring's edge is not settled yet ({}): train the coin faces in the ring first ('ring vision "
               "train ... --ring RING.json'), which settles it by the coins' size, or mark the wall's foot with "
               "contrasting tape and calibrate again")
SETTLED = "the ring's edge settled by the coins' size"   # how a settled ring's warning begins (faceid.settle)
# what a ring settled by the coins' size says until the technician confirms the boundary drawn:
# the diameters given were taken as right, and one off by about the band's width settles on the
# other boundary (docs/VISION.md), which only a look at the picture catches
NOT_CONFIRMED = ("the ring's edge was settled by the coins' size but nobody has confirmed it yet: look at {}; if "
                 "the white boundary lies on the wall's foot all round, run 'ring vision confirm-edge --ring {} --by "
                 "NAME', else mark the wall's foot with contrasting tape and calibrate again")
# ... and what it says when no confirmation can be made: the picture of this boundary is not known
AGAIN = ("the ring's edge was settled by the coins' size, but {}: calibrate again ('ring vision calibrate "
         "--settle-band', then 'ring vision train', which draws it) or mark the wall's foot with contrasting tape "
         "and calibrate again")
# a ring settled before the confirmation was kept (its warning only): its picture is not known
NOT_DRAWN = ""
BAD_SETTLED = ("ring calibration's settled_by_coins is not as 'ring vision train' wrote it ({}); calibrate again "
               "('ring vision calibrate --settle-band', then 'ring vision train') or restore the file")
BOUNDARY_SAME = 0.011   # px / deg: a boundary as confirmed or drawn (each value kept to 0.01)


def _name_problem(by):
    """What is wrong with `by` as a confirmer's name (shown on one line, kept in the audit log),
    or None."""
    if not isinstance(by, str) or not by.strip():
        return "no name"
    if not by.isprintable():   # controls, format characters, and the surrogates undecodable bytes become
        return "a name with a character that cannot be shown (a control, format or undecodable one)"
    return None


def _boundary_of(values):
    """A boundary's five numbers as written (centre, semi-axes, angle), or None if not five
    finite numbers."""
    if not isinstance(values, list) or len(values) != 5:
        return None
    try:
        out = [float(v) for v in values]
    except (TypeError, ValueError):
        return None
    return out if all(math.isfinite(v) for v in out) else None


def same_boundary(a, b):
    """Whether two boundaries (centre, semi-axes, angle) are one, to the 0.01 they are kept to
    (the angle modulo 180: an ellipse's long axis)."""
    turn = abs(a[4] - b[4]) % 180
    return all(abs(x - y) <= BOUNDARY_SAME for x, y in zip(a[:4], b[:4])) and min(turn, 180 - turn) <= BOUNDARY_SAME


def _settled_by_coins(d, model):
    """RingModel.settled_by_coins from to_dict's `d`: checked as written (BAD_SETTLED), a
    confirmation kept only for the boundary it names ("stale" otherwise), and a ring settled
    before confirmations were kept (only SETTLED among its warnings) unconfirmed."""
    if "settled_by_coins" not in d:
        how = next((w for w in model.warnings if isinstance(w, str) and w.startswith(SETTLED)), None)
        return {"how": how, "drawn": NOT_DRAWN} if how else None
    got = d["settled_by_coins"]
    if not isinstance(got, dict) or not isinstance(got.get("how"), str) or not isinstance(got.get("drawn"), str) \
            or not isinstance(got.get("drawn_sha256", ""), str):
        raise UserError(BAD_SETTLED.format("how, drawn and drawn_sha256 must be text"))
    out = {k: got[k] for k in ("how", "drawn", "drawn_sha256") if k in got}
    if "drawn_boundary" in got:
        out["drawn_boundary"] = _boundary_of(got["drawn_boundary"])
        if out["drawn_boundary"] is None:
            raise UserError(BAD_SETTLED.format("drawn_boundary must be five numbers"))
    done = got.get("confirmed")
    if done is None:
        return out
    boundary = _boundary_of(done.get("boundary")) if isinstance(done, dict) else None
    if not isinstance(done, dict) or _name_problem(done.get("by")) or not isinstance(done.get("at"), str) \
            or boundary is None:
        raise UserError(BAD_SETTLED.format("confirmed must name who (by), when (at) and the boundary"))
    try:
        when = datetime.datetime.fromisoformat(done["at"])
    except ValueError:
        when = None
    if when is None or when.tzinfo is None or "T" not in done["at"]:
        raise UserError(BAD_SETTLED.format("confirmed's time (at) is not a time with its zone"))
    if not same_boundary(boundary, model.boundary()):
        out["stale"] = (f"the boundary confirmed by {done['by']} at {done['at']} is not this file's: "
                        "it was changed after")
        return out
    return out | {"confirmed": {"by": done["by"], "at": done["at"], "boundary": boundary}}


class RingModel:
    """The ring as one camera sees it. Lengths in image px; `angle_deg` is the long axis direction."""

    def __init__(self, image_size, center, axes, angle_deg, background, coin_mm, ring_mm, warnings=(),
                 layout_bgr=None, edge_px=0.0):
        self.image_size = (int(image_size[0]), int(image_size[1]))
        self.center = (float(center[0]), float(center[1]))
        self.axes = (float(max(axes)), float(min(axes)))
        self.angle_deg = float(angle_deg) % 180
        self.background = background          # small BGR uint8 image (detection scale)
        self.coin_mm, self.ring_mm = float(coin_mm), float(ring_mm)
        self.warnings = list(warnings)
        self.layout_bgr = list(layout_bgr) if layout_bgr is not None else None
        self.edge_px = float(edge_px)   # median distance of edge points from the fitted boundary
        # a boundary not settled yet (calibrate's `unsettled_ok`): the reason, and the other
        # candidate, the band's inner side; training in the ring settles it (faceid.settle)
        self.unsettled, self.band_inner = None, None
        # a boundary settled by the coins' size: {"how": settle's line, "drawn": the picture of
        # both boundaries, "drawn_sha256", "drawn_boundary"} until the technician confirms it,
        # then "confirmed": {"by", "at", "boundary"} too; "stale": why a confirmation read was
        # not kept (never saved)
        self.settled_by_coins = None

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
        key = (self.center, self.axes, self.angle_deg)
        cached = getattr(self, "_to_plane", None)
        if cached is None or cached[0] != key:   # judged per object per frame: computed once
            cached = self._to_plane = (key, self._plane_affine())
        return cached[1]

    def _plane_affine(self):
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

    def image_points(self, pts):
        """Ring-plane points (N,2) -> image points (N,2)."""
        m = cv2.invertAffineTransform(self.to_plane)
        return np.asarray(pts, np.float64) @ m[:, :2].T + m[:, 2]

    # --- persistence ----------------------------------------------------------------------
    def to_dict(self):
        ok, png = cv2.imencode(".png", self.background)
        d = {"kind": "ringctl.vision.RingModel", "version": 1, "image_size": list(self.image_size),
             "center": list(self.center), "axes": list(self.axes), "angle_deg": self.angle_deg,
             "coin_mm": self.coin_mm, "ring_mm": self.ring_mm,
             "coin_radius_px": round(self.coin_radius_px, 2),
             "coin_diameter_px": round(2 * self.coin_radius_px * self.axes[1] / self.axes[0], 1),
             "warnings": self.warnings, "layout_bgr": self.layout_bgr, "edge_px": round(self.edge_px, 3),
             "background_png": base64.b64encode(png.tobytes()).decode("ascii")}
        if self.unsettled:
            d["unsettled"] = {"why": self.unsettled, "band_inner": self.band_inner.to_dict()}
        if self.settled_by_coins:
            d["settled_by_coins"] = {k: v for k, v in self.settled_by_coins.items() if k != "stale"}
        return d

    @property
    def unconfirmed(self):
        """Settled by the coins' size and not yet confirmed by the technician (NOT_CONFIRMED)."""
        return bool(self.settled_by_coins) and not self.settled_by_coins.get("confirmed")

    def boundary(self):
        """The boundary as a confirmation names it: centre, semi-axes, angle (0.01 px / deg)."""
        return [round(v, 2) for v in (*self.center, *self.axes, self.angle_deg)]

    def confirm(self, by, at):
        """The technician `by` looked at the boundary settled by the coins' size at `at` (ISO time)
        and found it on the wall's foot all round; the confirmation names that boundary."""
        if not self.settled_by_coins:
            raise UserError("this ring's edge was not settled by the coins' size: there is nothing to confirm")
        problem = _name_problem(by)
        if problem:
            raise UserError(f"--by: {problem}; give the name of whoever checked the boundary drawn")
        if self.cannot_confirm():
            raise UserError(AGAIN.format(self.cannot_confirm()))
        self.settled_by_coins = {k: v for k, v in self.settled_by_coins.items() if k != "stale"} | {
            "confirmed": {"by": by.strip(), "at": at, "boundary": self.boundary()}}

    def cannot_confirm(self):
        """Why no confirmation can be made on this file (AGAIN's reason), or None: the boundary's
        picture not known (settled before confirmations were kept), a confirmation void (the
        boundary changed after it), or a boundary other than the one drawn."""
        how = self.settled_by_coins
        if not how["drawn"]:
            return ("no picture of its boundary was drawn (settled before confirmations were kept, or not saved by "
                    "'ring vision train')")
        if how.get("stale"):
            return how["stale"]
        if how.get("drawn_boundary") and not same_boundary(how["drawn_boundary"], self.boundary()):
            return "its boundary is not the one drawn in " + how["drawn"]
        return None

    def not_confirmed(self, path=None):
        """The line refusing this ring until it is confirmed (NOT_CONFIRMED), or until it is
        calibrated and trained again where no confirmation can be made (AGAIN)."""
        why = self.cannot_confirm()
        if why:
            return AGAIN.format(why)
        return NOT_CONFIRMED.format(self.settled_by_coins["drawn"], path or "RING.json")

    def to_json(self):
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d, unsettled_ok=False, path=None):
        """The model of `d` (to_dict's); an unsettled one, or one settled by the coins' size and
        not yet confirmed, only with `unsettled_ok` (training, confirm-edge), else UserError
        saying how to settle or confirm it (`path`: the file, for that line)."""
        try:
            if d.get("kind") != "ringctl.vision.RingModel":
                raise KeyError("kind")
            bg = cv2.imdecode(np.frombuffer(base64.b64decode(d["background_png"]), np.uint8), cv2.IMREAD_COLOR)
            if bg is None:
                raise ValueError("background")
            model = cls(d["image_size"], d["center"], d["axes"], d["angle_deg"], bg, d["coin_mm"], d["ring_mm"],
                        d.get("warnings", ()), d.get("layout_bgr"), d.get("edge_px", 1.0))
            if "unsettled" in d:
                model.unsettled = str(d["unsettled"]["why"]) or "ring edge uncertain"
                model.band_inner = cls.from_dict(d["unsettled"]["band_inner"])
        except (KeyError, ValueError, TypeError, AttributeError) as exc:
            raise UserError(f"not a ring calibration (bad or missing field {exc}); "
                            "make one with 'ring vision calibrate EMPTY_RING_IMAGE -o RING.json'")
        model.settled_by_coins = _settled_by_coins(d, model)
        if model.unsettled and not unsettled_ok:
            raise UserError(NOT_SETTLED.format(model.unsettled))
        if model.unconfirmed and not unsettled_ok:
            raise UserError(model.not_confirmed(path))
        return model

    @classmethod
    def from_json(cls, text, unsettled_ok=False, path=None):
        try:
            d = json.loads(text)
        except ValueError as exc:
            raise UserError(f"ring calibration{' ' + str(path) if path else ''} is not JSON ({exc}); "
                            "make one with 'ring vision calibrate EMPTY_RING_IMAGE -o RING.json'")
        if not isinstance(d, dict):
            raise UserError("ring calibration is not a JSON object; make one with 'ring vision calibrate'")
        return cls.from_dict(d, unsettled_ok, path)

    def save(self, path):
        with open(path, "w") as f:
            f.write(self.to_json())

    @classmethod
    def load(cls, path, unsettled_ok=False):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError:
            raise UserError(f"ring calibration {path} is not text (a JSON file); "
                            "make one with 'ring vision calibrate EMPTY_RING_IMAGE -o RING.json'") from None
        except OSError as exc:
            raise UserError(f"cannot read ring calibration {path} ({exc.strerror}); "
                            "make one with 'ring vision calibrate EMPTY_RING_IMAGE -o RING.json'")
        return cls.from_json(text, unsettled_ok, path)

    def small(self, img):
        """The detection-scale copy of a frame (same sampling as the stored background).

        The last one is kept: the stillness rule, the multi-view judge and the single-view
        judge all ask for the same frame's copy (frames are never changed in place); so is the
        one handed over by prime_small."""
        for last in (getattr(self, "_small_last", None), getattr(self, "_small_primed", None)):
            if last is not None and last[0] is img:
                return last[1]
        out = cv2.resize(img, self.small_size, interpolation=cv2.INTER_LINEAR)
        self._small_last = (img, out)
        return out

    def prime_small(self, img, small):
        """Hand over `small(img)`, made earlier (the judge's thread gets the rule's copies).
        Kept in its own slot, which small() never overwrites: the rule's thread, asking for a
        newer frame's copy meanwhile, only costs the judge a resize, never a wrong copy."""
        self._small_primed = (img, small)

    def small_region(self, img, x0, y0, x1, y1):
        """`small(img)[y0:y1, x0:x1]`. Without a copy of this frame at hand, and when the frame
        is a whole number of small pixels across and down, only that region is resized: each
        small pixel is made from its own factor x factor block, so the pixels are the same."""
        last = getattr(self, "_small_last", None)
        f = self.factor
        w, h = self.small_size
        primed = getattr(self, "_small_primed", None)
        if (last is not None and last[0] is img) or (primed is not None and primed[0] is img) \
                or (w * f, h * f) != self.image_size:
            return self.small(img)[y0:y1, x0:x1]
        key = (x0, y0, x1, y1)
        last = getattr(self, "_region_last", None)   # the last one is kept, as in small()
        if last is not None and last[0] is img and last[1] == key:
            return last[2]
        out = cv2.resize(img[y0 * f:y1 * f, x0 * f:x1 * f], (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
        self._region_last = (img, key, out)
        return out

    def check_frame(self, img):
        if self.unsettled:   # neither boundary is this ring's until training settles it
            raise UserError(NOT_SETTLED.format(self.unsettled))
        if img is None or img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
            raise UserError("frame must be a colour (BGR, 8-bit) image")
        if (img.shape[1], img.shape[0]) != self.image_size:
            raise UserError(f"frame is {img.shape[1]}x{img.shape[0]} but the ring was calibrated at "
                            f"{self.image_size[0]}x{self.image_size[1]}; recalibrate with this camera setting")


# what a refusal on print asks for: the calibration photo is also the empty ring every frame is
# compared with, so print covered for it must stay covered in play
COVER = "covered with plain cloth of the layout's colour, left there for play (every frame is compared with this photo)"

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


def _steps(d, w, w_in=None, fill=-np.inf):
    """Outward step strength along each row: mean of the next w samples minus the previous w_in
    (`fill` where the windows do not fit).

    A long inside window (w_in) averages printed lines and lettering into the layout's level,
    and a line running along the ray raises both sides alike, so only the wall makes a step.
    """
    w_in = w if w_in is None else w_in
    c = np.cumsum(np.pad(d, ((0, 0), (1, 0))), axis=1)
    n = d.shape[1]
    r = np.arange(w_in, n - w)
    out = np.full(d.shape, fill, np.float32)
    out[:, r] = (c[:, r + w] - c[:, r]) / w - (c[:, r] - c[:, r - w_in]) / w_in
    return out


def _ransac_ellipse(pts, tol, rng, iters=150, k=8):
    """Ellipse through most points: random k-point fits, keep the one with most inliers (the
    first of those tied)."""
    pts = np.asarray(pts, np.float32)
    fits = []
    for _ in range(iters):
        sub = pts[rng.choice(len(pts), k, replace=False)]
        try:
            e = cv2.fitEllipse(sub)
        except cv2.error:
            continue
        if min(e[1]) >= 10:
            fits.append(e)
    if not fits:
        return None, None
    inl = np.abs(_fit_residuals(pts, fits)) < tol
    best = int(np.argmax(inl.sum(axis=1)))
    return fits[best], inl[best]


def _fit_residuals(pts, fits):
    """(len(fits), len(pts)) `_ell_residual`s of float32 `pts` from cv2.fitEllipse's `fits`, in one
    pass: fitEllipse's numbers are Python floats, which float32 points take in as float32, so each
    row is `_ell_residual`'s for its fit bit for bit."""
    cols = np.array([_ell_terms(e) for e in fits], np.float32).T[:, :, None]
    return _residual_of(pts, *cols)


def _ell_residual(pts, e):
    """About the distance (px) of each point from ellipse `e`: negative inside, positive outside."""
    return _residual_of(pts, *_ell_terms(e))


def _ell_terms(e):
    """(cx, cy, cos, sin of the angle, half axes, axes' sum) of ellipse `e`, for `_residual_of`."""
    (cx, cy), (d1, d2), ang = e
    t = math.radians(ang)
    return cx, cy, math.cos(t), math.sin(t), d1 / 2, d2 / 2, d1 + d2


def _residual_of(pts, cx, cy, c, s, a, b, d):
    x, y = pts[:, 0] - cx, pts[:, 1] - cy
    u = x * c + y * s
    v = -x * s + y * c
    return (np.sqrt((u / a) ** 2 + (v / b) ** 2) - 1) * d / 4


def _layout_inside(dist, e, win, thin_wall=False):
    """True when the band just inside ellipse `e` looks like the layout and the band just outside
    does not (guards against fitting the wall's outer edge or a printed circle); `thin_wall`: the
    band just outside is only the half window next to `e`."""
    (cx, cy), (d1, d2), an = e
    h, w = dist.shape
    k = 2 * win / max(1.0, (d1 + d2) / 2)
    def band(s0, s1):
        m = np.zeros((h, w), np.uint8)
        cv2.ellipse(m, ((cx, cy), (d1 * s1, d2 * s1), an), 255, -1)
        cv2.ellipse(m, ((cx, cy), (d1 * s0, d2 * s0), an), 0, -1)
        v = dist[m > 0]
        return float(np.median(v)) if v.size else None
    inner = band(1 - 3 * k, 1 - k / 2)
    # the wall itself, or (thin_wall) only the half window just outside: a narrow wall on a floor
    # of about the layout's colour leaves the wider band beyond it looking like the layout
    outer = band(1, 1 + k / 2) if thin_wall else band(1 + k / 2, 1 + 2 * k)
    return inner is not None and outer is not None and inner < 0.5 * outer


def _ellipse_points(ell, t, rho):
    """(x, y) of ellipse `ell` scaled by rho at parameter angles t (broadcast together)."""
    (cx, cy), (d1, d2), an = ell
    th = math.radians(an)
    ex, ey = (d1 / 2) * np.cos(t) * rho, (d2 / 2) * np.sin(t) * rho
    return cx + ex * math.cos(th) - ey * math.sin(th), cy + ex * math.sin(th) + ey * math.cos(th)


def _ellipse_grid(ell, t, rho):
    """(x, y) maps (len(t), len(rho)) of ellipse `ell` scaled by each rho, at parameter angles t."""
    x, y = _ellipse_points(ell, t[:, None], rho[None, :])
    return x.astype(np.float32), y.astype(np.float32)


class _Scan:
    """The picture around an ellipse, unrolled: rows are directions, columns the ellipse scaled by
    `rho` (half-px steps); `edge` the colour step across each place (wall-width windows), `peak`
    where a step is a local maximum of at least STEP_MIN (an edge seen in that direction)."""

    STEP_MIN = 8.0   # LAB units

    def __init__(self, lab, ell, lo, hi, n=360):
        (_, _), (d1, d2), _ = ell
        self.ell, self.n = ell, n
        self.r = (d1 + d2) / 4
        self.rho = np.arange(lo, hi, 0.5 / self.r, dtype=np.float64)
        self.t = np.linspace(0, 2 * np.pi, n, endpoint=False)
        mx, my = _ellipse_grid(ell, self.t, self.rho)
        h, w = lab.shape[:2]
        self.inside = (mx >= 0) & (my >= 0) & (mx <= w - 1) & (my <= h - 1)
        self.lab = cv2.remap(lab, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        self.w = self.window(self.r)
        c = np.cumsum(np.pad(self.lab, ((0, 0), (1, 0), (0, 0))), axis=1)
        J, k = len(self.rho), self.w
        j = np.arange(k, J - k)
        edge = np.zeros((n, J), np.float32)
        edge[:, j] = np.linalg.norm((c[:, j + k] - c[:, j]) - (c[:, j] - c[:, j - k]), axis=2) / k
        edge[~self.inside] = 0
        self.edge = edge
        nb = np.maximum(np.roll(edge, 1, axis=1), np.roll(edge, -1, axis=1))
        self.peak = (edge >= nb) & (edge >= self.STEP_MIN)

    @staticmethod
    def window(r):
        """Edge window (samples) round an ellipse of radius r: 2% of a radius, inside the narrowest wall."""
        return max(4, int(round(0.04 * r)))

    def j_of(self, rho):
        return int(np.clip(np.searchsorted(self.rho, rho), 0, len(self.rho) - 1))

    def support(self, tol):
        """Share of directions with an edge within `tol` samples of each column."""
        k = np.ones((1, 2 * tol + 1), np.uint8)
        return cv2.dilate(self.peak.astype(np.uint8), k).mean(axis=0)

    def band(self, j0, j1):
        """Per direction, the median colour of columns j0..j1."""
        j0, j1 = max(0, j0), min(len(self.rho), j1)
        return np.median(self.lab[:, j0:j1], axis=1)


def _layout_lab(lab, ell):
    """The layout's colour, print and all: the median of `lab` inside 0.75 of `ell` (inf where
    the ellipse's centre is off the picture and none of it is in)."""
    (cx, cy), (d1, d2), an = ell
    inner = np.zeros(lab.shape[:2], np.uint8)
    cv2.ellipse(inner, ((cx, cy), (0.75 * d1, 0.75 * d2), an), 255, -1)
    return np.median(lab[inner > 0], axis=0) if inner.any() else np.full(3, np.inf, np.float32)


def _wall_edge(lab, ell, min_support=0.6, lo=0.8):
    """The innermost edge concentric with `ell` (`lo`-1.12 of it) seen in most directions, refitted
    -> (ellipse, inliers share, wall colour, colour just inside) or None. (Past 0.8 the picture is
    unrolled from two edge windows short of `lo`, so an edge just beyond `lo` is seen too.)

    The layout ends where the wall begins: a raised band all round with its own colour. Rays from
    the centre measured against the layout's colours lose that edge where printed ink of about the
    wall's colour is among those colours (the ink's boxes and lettering then make the wall look
    like more layout, and the wall's OUTER edge is taken); any colour step, wherever it is seen
    round a ring already found, does not: the wall's inner edge shows all round, ink interrupted."""
    r = sum(ell[1]) / 4
    sc = _Scan(lab, ell, lo if lo <= 0.8 else max(0.8, lo - _Scan.window(r) / r), 1.12)
    tol = 3                                     # samples (1.5 px)
    sup = sc.support(tol)
    cands = [j for j in range(max(sc.w, sc.j_of(lo)), len(sup) - sc.w)
             if sup[j] >= min_support and sup[j] == sup[j - sc.w:j + sc.w + 1].max()]
    rng = np.random.default_rng(2)
    layout = _layout_lab(lab, ell)
    last = -10 ** 9
    for jc in cands:
        if jc - last <= sc.w:                  # one edge, a plateau of equal support
            continue
        last = jc
        pts = []
        for k in range(sc.n):
            j0, j1 = max(0, jc - 2 * tol), min(len(sc.rho), jc + 2 * tol + 1)
            js = np.flatnonzero(sc.peak[k, j0:j1])
            if js.size:
                j = j0 + js[np.argmax(sc.edge[k, j0 + js])]
                pts.append((k, j))
        if len(pts) < min_support * sc.n:
            continue
        k, j = np.array(pts).T
        xy = np.stack(_ellipse_points(ell, sc.t[k], sc.rho[j]), 1)
        e, inl = _ransac_ellipse(xy, max(1.5, 0.01 * sc.r), rng, iters=60)
        if e is None or inl.sum() < min_support * sc.n:
            continue
        e = cv2.fitEllipse(xy[inl].astype(np.float32))
        bw = max(6, int(round(0.06 * sc.r)))   # samples: 3% of a radius, inside the narrowest wall
        wall_lab = np.median(sc.band(jc + 3, jc + bw), axis=0)
        line = np.linalg.norm(wall_lab - layout)
        if any(np.linalg.norm(np.median(sc.band(jn - bw, jn - 2), axis=0) - layout) < LINE_BACK * line
               for jn in cands if jn - jc > 2 * bw):
            continue   # a line printed on the layout: the layout's own colour again short of a later edge
        inside_lab = np.median(sc.band(jc - bw, jc - 2), axis=0)
        return e, inl.sum() / sc.n, wall_lab, inside_lab
    return None


def _check_edge(lab, bgr, ell, n=360, seen_min=0.7, palette=None):
    """Refuse a boundary that is not the layout's edge all round (UserError saying why).

    Whatever found it, a colour step must cross the ellipse in most directions, the colour just
    outside it must be the wall's all round (a raised band with its own colour: an ellipse part
    on the layout's edge and part on the wall's outer edge, or on a printed box or circle, has
    floor or layout outside it somewhere), and no edge concentric with it a wall's width or so
    inside may show in most directions (that would be the layout's edge, and this one the wall's
    outer edge), unless the layout's colour comes back between it and this one (a printed line's
    edge: _line_inside). Printed ink is flat and interrupted: where ink of the wall's colour meets the
    wall the step may be missing, but the wall is still there. `seen_min`: the share of
    directions that must show the colour step; `palette`: the layout's colours (Lab), for
    _line_inside."""
    sc = _Scan(lab, ell, 0.8, 1.06, n)
    j1 = sc.j_of(1.0)
    bw = max(6, int(round(0.06 * sc.r)))    # samples: 3% of a radius, inside the narrowest wall
    step = np.median(sc.lab[:, j1 + 3:j1 + bw], axis=1) - np.median(sc.lab[:, j1 - bw:j1 - 2], axis=1)
    seen = float(np.mean(np.linalg.norm(step, axis=1) >= _Scan.STEP_MIN))
    # the wall's chromaticity just outside, direction by direction (the light's gain, gradient and
    # vignetting change its brightness round the ring, not its chromaticity)
    mx, my = _ellipse_grid(ell, sc.t, sc.rho[j1 + 3:j1 + bw])
    out = np.median(cv2.remap(bgr, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                    .astype(np.float32), axis=1) + 1.0
    chrom = out / out.sum(axis=1, keepdims=True)
    wall = float(np.mean(np.linalg.norm(chrom - np.median(chrom, axis=0), axis=1) <= WALL_CHROMA_TOL))
    what = ("photograph the empty ring again from above with nothing on it, the whole ring in view, "
            "and any print that meets the wall " + COVER)
    if seen < seen_min or wall < 0.9:
        raise UserError(f"ring edge uncertain: round the edge found a colour step shows in only "
                        f"{int(round(seen * n))} of {n} directions and the wall's colour just outside in "
                        f"{int(round(wall * n))} (printed artwork reaching the wall?); {what}")
    sup = sc.support(3)[:sc.j_of(0.975)]
    jl = int(np.flatnonzero(sup >= 0.6)[-1]) if sup.size and sup.max() >= 0.6 else None
    if jl is not None and not _line_inside(sc, lab, ell, jl, j1, palette):
        exc = BandRefusal(f"ring edge uncertain: another edge {(1 - sc.rho[jl]) * 100:.0f}% "
                          f"inside the one found also runs all round (the wall's inner edge?); {what}",
                          None, None, False)
        exc.inside = float(1 - sc.rho[jl])
        raise exc


def _line_inside(sc, lab, ell, jl, j1, palette=None):
    """True when the outermost edge all round short of the boundary (column `jl` of `sc`; the
    boundary at `j1`) has the layout's own colour again beyond it, before the boundary: a line
    printed round the layout near the wall, not the wall's inner edge (a wall has wall beyond it).
    The layout's colour is the median inside 0.75 of `ell`; the colour must come back to within
    LINE_BACK of the farthest it went from it, over the directions' median; or, the same, from
    the cloth just inside the line in each direction (LINE_LOCAL: the light's fall-off towards
    the wall); or, direction by direction, to one of `palette`'s colours (Lab) in
    LINE_PALETTE_SHARE of them and to the layout's in LINE_CLOTH_SHARE (artwork of several
    colours beyond the line)."""
    layout = _layout_lab(lab, ell)
    if not np.isfinite(layout).all():
        return False
    dirs = np.linalg.norm(sc.lab - layout, axis=2)
    d = np.median(dirs, axis=0)
    far = d[max(0, jl - 2 * sc.w):jl + 1].max()   # the line's own colour, short of its far edge
    if not (j1 - 2 > jl + 2 and far >= _Scan.STEP_MIN):
        return False
    if d[jl + 2:j1 - 2].min() < LINE_BACK * far:
        return True
    # ... or to the layout's colour just inside the line, direction by direction (LINE_LOCAL): the
    # light falls off towards the wall, and by the wall the cloth can lie further from the middle's
    # colour than a faint line does (sealed-31 3890086326, opened: a light green line 7 px wide at
    # 0.91 of a green ring, 18 from the middle's colour, the cloth either side of it 9-10 from it:
    # refused; 21.5 and 4.6 from the cloth just inside it). A wall beyond the edge stays far from
    # that cloth; a line wider than LINE_LOCAL's gap puts itself in the reference, and stays refused
    ref = np.median(sc.lab[:, max(0, jl - LINE_LOCAL[1] * sc.w):max(1, jl - LINE_LOCAL[0] * sc.w)], axis=1)
    d_loc = np.median(np.linalg.norm(sc.lab - ref[:, None, :], axis=2), axis=0)
    far_loc = d_loc[max(0, jl - 2 * sc.w):jl + 1].max()
    if far_loc >= _Scan.STEP_MIN and d_loc[jl + 2:j1 - 2].min() < LINE_BACK * far_loc:
        return True
    # ... or to each direction's own cloth further in (LINE_RAY of the radius): a light falling off
    # from one side leaves the cloth beyond the line far from the middle's colour on the dim side,
    # and a line wider than LINE_LOCAL's gap is itself in that reference (sealed-30 2940754135,
    # opened: a white line 16 px wide at 0.86 of a mint ring lit from above; 18 from the middle's
    # colour beyond it, 15.3 asked). The light, not print: only where that cloth is of one colour
    # all round but for its brightness (b, g, r shares within LINE_RAY_CHROMA of their median in
    # LINE_RAY_SHARE of the directions; 0.007 at most on that mint ring, 0.06-0.09 in a tenth of
    # them on sealed-25 2839296033's artwork, where a wall's inner band painted in an artwork
    # colour came back to it in enough directions: test_a_walls_inner_band_of_a_layout_...)
    mx, my = _ellipse_grid(ell, sc.t, np.linspace(LINE_RAY[0], LINE_RAY[1], 8))
    ref = np.median(cv2.remap(lab, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), axis=1)
    chroma = _chroma(cv2.cvtColor(np.clip(ref, 0, 255).astype(np.uint8)[None], cv2.COLOR_LAB2BGR)[0]
                     .astype(np.float32))
    plain = np.linalg.norm(chroma - np.median(chroma, axis=0), axis=1) <= LINE_RAY_CHROMA
    if np.mean(plain) >= LINE_RAY_SHARE:
        d_ray = np.median(np.linalg.norm(sc.lab - ref[:, None, :], axis=2), axis=0)
        far_ray = d_ray[max(0, jl - 2 * sc.w):jl + 1].max()
        if far_ray >= _Scan.STEP_MIN and d_ray[jl + 2:j1 - 2].min() < LINE_BACK * far_ray:
            return True
    if palette is None:
        return False
    beyond = sc.lab[:, jl + 2:j1 - 2]
    if beyond.shape[1] < LINE_RUN:
        return False
    to_palette = np.linalg.norm(beyond[:, :, None, :] - np.asarray(palette, np.float32)[None, None], axis=3).min(axis=2)
    back = LINE_BACK * far

    def comes_back(dist):   # per direction: LINE_RUN samples in a row back (not one lit or grained sample)
        return sliding_window_view(dist, LINE_RUN, axis=1).max(axis=2).min(axis=1) < back
    return bool(np.mean(comes_back(to_palette)) >= LINE_PALETTE_SHARE
                and np.mean(comes_back(dirs[:, jl + 2:j1 - 2])) >= LINE_CLOTH_SHARE)


def _ray_ellipse(st, near, dist, win, ang, sw, sh, rng, layout_test=True):
    """(points, ellipse, inliers) of the boundary the rays from the image centre find in their
    step strengths `st` (-inf where not to look), or None.

    Per ray: the innermost step at least `frac` of the ray's strongest. The strongest step may be
    the wall's OUTER edge (a floor far from the layout's colour, a wall close to it), so every
    level is tried and the innermost ellipse with support all round is the boundary; print
    inside the ring is thin and scattered and does not make a whole ellipse. Without
    `layout_test` no ellipse is asked to have the layout's look just inside it (past a printed
    circle the band inside the wall holds the circle: `_layout_between` asks instead)."""
    n_ang = st.shape[0]
    m = st.max(axis=1)
    rays = np.flatnonzero(np.isfinite(m) & ~(m < 8))   # the rays with a step to take
    if len(rays) < n_ang // 3:
        return None
    st, near, m = st[rays], near[rays], m[rays]
    top = _climbed(st)
    # (the points as Python's math made them: numpy's cos may differ in the last bit)
    cos_a, sin_a = (np.array([f(a) for a in ang[rays]]) for f in (math.cos, math.sin))
    best, found, thin = None, [], []
    for frac in (0.8, 1.0, 0.6, 0.4, 0.25, 0.15, 0.1):
        # per ray the first step at least frac of its strongest (and 8), climbed to its peak
        v = frac * m
        i0 = (st >= np.where(v > 8.0, v, np.float32(8.0))[:, None]).argmax(axis=1)
        i = top[np.arange(len(rays)), i0]
        # a narrow wall's two edges merge into one ramp of the wide step, and the climb runs
        # on to its OUTER edge: then the short-window step's peak near the crossing is the edge
        j = _window_argmax(near, np.maximum(0, i0 - win // 2), i0 + win + 1)
        i = np.where(np.abs(j - i) > max(2, win // 3), j, i)
        pts = np.stack([sw / 2 + i * cos_a, sh / 2 + i * sin_a], 1).astype(np.float32)   # a fresh array each frac
        e, inl = _ransac_ellipse(pts, max(1.5, 0.01 * min(sw, sh)), rng)
        if e is None or (layout_test and not _layout_inside(dist, e, win)):
            # e.g. the wall's outer edge: what lies just inside must be layout (a narrow wall on a
            # floor of the layout's colour is kept aside: its band just outside is the test)
            if e is not None and layout_test and inl.sum() >= 0.75 * n_ang and _layout_inside(dist, e, win, thin_wall=True):
                thin.append((sum(e[1]), pts, e, inl))
            continue
        if best is None or inl.sum() > best[2].sum():
            best = (pts, e, inl)
        if inl.sum() >= 0.75 * n_ang:
            found.append((sum(e[1]), pts, e, inl))
    if found:
        return min(found, key=lambda t: t[0])[1:]
    if best is None and thin:
        # none with the layout's look beyond the wall: a narrow wall on a floor of about the
        # layout's colour (sealed-22 2505097369: green floor, a wall 25 px of 1920, 360 of 360
        # directions on one ellipse, refused). Only then is the band just outside it the test,
        # and the outermost such ellipse taken
        return max(thin, key=lambda t: t[0])[1:]
    return best


def _climbed(st):
    """(rows, cols): where a climb along each row from each place stops, the first place from it
    on whose next value is not higher (the row's last at the latest)."""
    rows, cols = st.shape
    stop = np.ones((rows, cols), bool)
    stop[:, :-1] = ~(st[:, 1:] > st[:, :-1])
    at = np.where(stop, np.arange(cols), cols)
    return np.minimum.accumulate(at[:, ::-1], axis=1)[:, ::-1]


def _window_argmax(a, lo, hi):
    """Per row k the column of np.argmax(a[k, lo[k]:hi[k]]) (the first largest; a NaN the largest)."""
    cols = np.arange(a.shape[1])
    inside = (cols >= lo[:, None]) & (cols < hi[:, None])
    top = np.where(inside, a, -np.inf).max(axis=1)
    return (inside & ((a == top[:, None]) | np.isnan(a))).argmax(axis=1)


def _ellipse_rho(e, sw, sh, ang, max_r):
    """(n_ang, max_r): each ray's points from the image centre, in ellipse `e`'s own radius (1 on it)."""
    r = np.arange(max_r, dtype=np.float32)[None, :]
    x, y = sw / 2 + r * np.cos(ang)[:, None], sh / 2 + r * np.sin(ang)[:, None]
    return 1 + _ell_residual(np.stack([x.ravel(), y.ravel()], 1), e).reshape(x.shape) * 4 / (e[1][0] + e[1][1])


def _short_of_past(polar, e, win, ang, sw, sh):
    """(n_ang, max_r) True along each ray short of where it has crossed ellipse `e` and left the
    line on it (its distance from the layout's colours back under halfway from the band just
    inside `e` to the band on its edge): there the rays look on for the wall."""
    rho = _ellipse_rho(e, sw, sh, ang, polar.shape[1])
    k = 2 * win / max(1.0, (e[1][0] + e[1][1]) / 2)
    inside = (rho > 1 - 3 * k) & (rho < 1 - k / 2)
    lay = np.median(polar[inside]) if inside.any() else 0.0
    edge = polar[(rho >= 1) & (rho < 1 + k / 4)]
    level = (lay + (np.median(edge) if edge.size else lay)) / 2
    r = np.arange(polar.shape[1])[None, :]
    on = (rho > 1 - k / 4) & (polar >= level)      # on the line (its edge blurred either side of `e`)
    start = np.where(on.any(axis=1), np.argmax(on, axis=1), polar.shape[1])[:, None]
    left = (r > start) & (polar < level)
    end = np.where(left.any(axis=1), np.argmax(left, axis=1), polar.shape[1])
    return r <= end[:, None]


def _line_far_side(short, e, ang, sw, sh, seen):
    """Where the rays left the printed line they crossed (the median over the rays in the picture
    of the end of `short`, _short_of_past), in ellipse `e`'s own radius; None if no ray did."""
    end = short.shape[1] - 1 - np.argmax(short[:, ::-1], axis=1)
    k = np.flatnonzero(seen[np.arange(len(end)), end] & (end < short.shape[1] - 1))
    rho = _ellipse_rho(e, sw, sh, ang, short.shape[1])
    return float(np.median(rho[k, end[k]])) if k.size else None


def _round(past, e, sw, sh):
    """True when the ellipse the rays found past ellipse `e` (points, ellipse, inliers) lies round
    it: its inliers all outside `e`, its centre within ROUND_CENTRE of `e`'s radius of `e`'s (the
    rays' first fit may take in artwork: sealed-26 2412410500's lay 0.196 of it off), and the whole
    of it in the picture (a floor's straight edge or a table's is no wall round the ring)."""
    pts, (c, axes, an), inl = past
    r = (e[1][0] + e[1][1]) / 4
    out = _ell_residual(pts[inl], e) > 0
    return bool(out.all() and math.dist(c, e[0]) < ROUND_CENTRE * r and
                c[0] - max(axes) / 2 > -1 and c[1] - max(axes) / 2 > -1 and
                c[0] + max(axes) / 2 < sw + 1 and c[1] + max(axes) / 2 < sh + 1)


def _layout_between(polar, short, outer, win, ang, sw, sh, seen):
    """True when, along the rays, what lies past the line they crossed (not `short`) and short of
    ellipse `outer` looks like the layout, and not like what lies just outside `outer`: the line
    is print on the layout, `outer` the wall. `polar`: the rays' distance from the layout's colours;
    `seen`: where the rays are in the picture (beyond it `polar` is 0, the layout's own value)."""
    rho = _ellipse_rho(outer, sw, sh, ang, polar.shape[1])
    k = win / max(1.0, (outer[1][0] + outer[1][1]) / 2)
    gap = seen & ~short & (rho < 1 - k / 2)
    beyond = polar[seen & (rho > 1) & (rho < 1 + k)]
    # some of the gap seen on a third of the rays at least
    if np.count_nonzero(gap.sum(axis=1) >= 2) < polar.shape[0] // 3 or not beyond.size:
        return False
    return bool(np.median(polar[gap]) < 0.5 * np.median(beyond))


def find_boundary(img, notes=None):
    """(center, (a, b), angle_deg, layout_bgr, edge_px) of the ring's inner boundary; UserError if none.

    A photo of HALF_FROM px or wider that is refused is measured again at half its size, and the
    full size's refusal stands unless that finds the ring: a camera's own marks on every edge
    (a lens's colour fringes, its sharpening's halos) are a few px wide, which at 4K's full size
    the checks below take for a band printed round the layout or a wall of two colours
    (camera-tune: 5 of its 38 4K rings refused, every one for a lens's colour fringes), and at
    half size are under a px. When it was, a line for the technician saying so and why (the
    full size's reason) is added to the list `notes`, when given; so is one where print over the
    centre hid the layout's cloth (_find_boundary)."""
    try:
        return _find_boundary(img, notes)
    except UserError as exc:
        if max(img.shape[:2]) < HALF_FROM:
            raise
        h2, w2 = img.shape[0] // 2, img.shape[1] // 2   # (an odd last row or column left out: exactly half)
        try:
            (cx, cy), (a, b), an, layout, edge_px = _find_boundary(
                cv2.resize(img[:2 * h2, :2 * w2], (w2, h2), interpolation=cv2.INTER_AREA), notes)
        except UserError:
            raise exc from None
        if notes is not None:
            # the full size's reason without its fix (which the half size made needless)
            notes.append(f"the ring's edge was measured at half the photo's size ({w2} x {h2} px): at full size "
                         f"it was refused ({str(exc).split(';')[0]}); a lens's colour fringes or the camera's "
                         "sharpening do this; check the boundary `ring vision calibrate` printed (centre, semi-axes) lies "
                         "on the wall's foot all round on the photo (once the faces are trained, `ring vision classify "
                         "--annotate` draws it)")
        # a half-size pixel's centre c is the full size's 2 c + 0.5
        return (2 * cx + 0.5, 2 * cy + 0.5), (2 * a, 2 * b), an, layout, 2 * edge_px


def _find_boundary(img, notes=None):
    """find_boundary at `img`'s own size (`notes`: as find_boundary's).

    Along rays from the image centre (which must be on the layout), the boundary is the first
    strong, lasting step away from the layout's colour: printed lines and lettering are thin
    (a short blip), the wall is wide. A RANSAC ellipse through those points ignores the rest. A
    circle printed round the layout makes such a step all round too: the rays are followed on
    past it, and a wall round it with only the layout between is taken instead (`_round`,
    `_layout_between`). An edge past which the cloth shows again and then another edge (a line
    printed short of the wall those checks did not pass over) is refused (`_cloth_past`). Where a
    box of ink over the centre hides the cloth from the colours sampled, the colours it leaves
    unexplained are added and the rays sent again (`_grown_palettes`, `_search_grown`).
    """
    h, w = img.shape[:2]
    f = max(1.0, max(w, h) / 640)
    small = cv2.resize(img, (int(round(w / f)), int(round(h / f))), interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), 1.5), cv2.COLOR_BGR2LAB).astype(np.float32)
    # the layout's colours (cloth, print, lettering) from a disc around the image centre; a
    # pixel's distance to the NEAREST of them is low all over a printed layout, high on the wall
    yy, xx = np.mgrid[0:sh, 0:sw]
    disc = (xx - sw / 2) ** 2 + (yy - sh / 2) ** 2 < (0.2 * min(sw, sh)) ** 2
    centres = _colours(lab[disc][::3], 4, 0.03)   # (clusters under 3% are specks)
    try:
        found = _search(img, small, lab, centres)
    except _Unfound as exc:
        first = exc
    else:
        # a line printed short of the wall in a tint the rays stop at, the cloth past it and then
        # the wall (edge-tune 3210010690 and 2631370539, sealed-41 219507142, edge-4k 1961703260
        # with a circle at 0.83-0.92 of the radius in a tint of the ring's colours: taken for the
        # wall, 44-122 px inside it)
        back = _cloth_past(lab, found, sw / w, _window(sw, sh))
        if back >= CLOTH_PAST_DIRS:
            raise UserError(CLOTH_PAST.format(*found[1], round(100 * back)))
        return found
    # A box of ink over the centre fills the disc sampled: the cloth is not among the layout's
    # colours, the rays stop at the box's edges, and no ellipse has support all round (sealed-45
    # 1974744012, sealed-42 4091115665). The colours none of the sampled ones explains, inside
    # the rays' best ellipse (and then also just past the rays' points off it), are added and
    # the search made again; what it finds stands only with the wall beyond it, no layout just
    # past it and the colours added seen well inside it (_search_grown: a colour added can carry
    # the rays past the wall, or a line short of it can be found from them).
    for grown in _grown_palettes(lab, centres, first):
        found = _search_grown(img, small, lab, centres, grown, first.win)
        if found is not None:
            if notes is not None:
                notes.append(GROWN_NOTE)
            return found
    raise first.error


# the refusal of an edge past which the colour just inside it comes back and ends again
CLOTH_PAST = ("ring edge uncertain: past the edge found (semi-axes {:.0f} x {:.0f} px) the layout's colour from just "
              "inside it shows again, and then another edge, in {}% of the directions round it: most likely a line "
              "printed round the layout short of the wall (or a wall of about the cloth's colour); mark the wall's "
              "foot with a strip of contrasting tape, or photograph the empty ring again with that line " + COVER)
# _cloth_past: the share of the directions round the edge found that refuses it; the share of one
# direction's samples (1 px to a ray window past the edge) where the colour just inside is back;
# how far past the edge (of its radius) the cloth back past a line ends again (a line at 0.7: 0.43)
CLOTH_PAST_DIRS, CLOTH_PAST_SHARE, CLOTH_PAST_REACH = 0.5, 0.25, 0.5


def _window(sw, sh):
    """The rays' step window (px at the detection scale `sw` x `sh`): about a wall's width, so thin
    print barely registers."""
    return max(4, int(0.03 * min(sw, sh)))


def _cloth_past(lab, found, scale, win, n=180):
    """The share of `n` directions round the boundary `found` (find_boundary's answer, full-res
    px; `scale`: detection px per full-res px) where the colour just inside it (the median from 2
    to half a ray window `win` in) is back past it, and then ends again: the cloth either side of
    a line printed short of the wall, and then the wall.

    Back: over CLOTH_PAST_SHARE of the samples from 1 px to one window past the boundary lie
    within LINE_BACK of the step at it (the largest distance from that colour in the half window
    past it), and within GROW_DIST: a wall of about the cloth's colour (3-9 apart) is its own step
    and never back (tune-1080p's walls made 0.85-1.25 x the cloth: 15 of 19 right boundaries
    refused without the LINE_BACK share, 1 with it). Ends again: a window's length not back,
    within CLOTH_PAST_REACH of the radius; a floor of about the cloth's colour past a narrow wall
    is back but does not end (0.43 of the directions at most on 50 such rings)."""
    (cx, cy), (a, b), an = found[:3]
    r = (a + b) / 2 * scale
    ell = ((cx * scale, cy * scale), (2 * a * scale, 2 * b * scale), an)
    s = np.arange(-2.0 * win, max(win, CLOTH_PAST_REACH * r) + 0.5, 0.5)
    mx, my = _ellipse_grid(ell, np.linspace(0, 2 * np.pi, n, endpoint=False), 1 + s / r)
    prof = cv2.remap(lab, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    inside = np.median(prof[:, s <= -win / 2], axis=1)
    d = np.linalg.norm(prof - inside[:, None, :], axis=2)
    step = d[:, (s >= 0) & (s <= win / 2)].max(axis=1)
    near = d <= np.minimum(GROW_DIST, LINE_BACK * step)[:, None]
    back = near[:, (s >= 1) & (s <= win)].mean(axis=1) > CLOTH_PAST_SHARE
    # past where it is first back, not back for a window's length (2 win samples): the wall
    after = np.cumsum(near & (s >= 1), axis=1) > 0
    gone = ~near & after & (s > win / 2)
    run = cv2.morphologyEx(gone.astype(np.uint8), cv2.MORPH_ERODE, np.ones((1, 2 * win), np.uint8),
                           borderType=cv2.BORDER_CONSTANT, borderValue=0)
    return float(np.mean(back & run.any(axis=1)))


# the technician's line for a boundary found from the colours round print over the centre
GROWN_NOTE = ("print covers the ring's centre: the layout's colours were taken from round it too, and the "
              "boundary found from them; check the boundary `ring vision calibrate` printed (centre, semi-axes) "
              "lies on the wall's foot all round on the photo (once the faces are trained, `ring vision classify "
              "--annotate` draws it)")
GROW_DIST = 12.0      # L*a*b*: a pixel this far from every sampled layout colour is unexplained
GROW_SHARE = 0.02     # of the ellipse's inside: unexplained pixels at least this share for new colours
GROW_INSIDE = 0.85    # the share of the boundary's size inside which the added colours must be seen ...
GROW_SEEN = 0.02      # ... together over this share of that area at least ...
GROW_SEEN_EACH = 0.003  # ... and each over this share (a blend of the cloth and the ink: 0.7-1.6%)
GROW_BEYOND = 0.2     # of the pixels just beyond the boundary: more of the layout's colours than this is print short of the wall


def _colours(px, k, least):
    """The colours (L*a*b*, rows) of `k` clusters of the pixels `px`, each kept where it holds
    `least` of them or more."""
    sample = px.astype(np.float32)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    # kmeans++ draws from OpenCV's process-wide RNG: seed it so the same photo always
    # gives the same calibration, whatever ran before in this process.
    cv2.setRNGSeed(12345)
    _, labels, centres = cv2.kmeans(sample, k, None, crit, 2, cv2.KMEANS_PP_CENTERS)
    return centres[np.bincount(labels.ravel(), minlength=k) > least * len(sample)]


def _palette_dist(px, palette):
    """(n, k): each of the pixels `px` (L*a*b*, rows)'s distance to each colour of `palette`."""
    return np.sqrt(((px[:, None, :] - palette[None]) ** 2).sum(axis=2))


class _Unfound(Exception):
    """_search's "no ring found" for too few directions on one ellipse: `error` (the UserError),
    `coarse` (the rays' best ellipse, detection scale, cv2.fitEllipse form), `stops` (the rays'
    points off it, detection px) and `win` (the rays' step window, px)."""

    def __init__(self, error, coarse, stops, win):
        super().__init__(str(error))
        self.error, self.coarse, self.stops, self.win = error, coarse, stops, win


def _grown_palettes(lab, centres, unfound):
    """`centres` and the colours (L*a*b*) more than GROW_DIST from all of them, when those are
    GROW_SHARE or more of the pixels inside 0.9 of the rays' best ellipse; then of those and the
    pixels just past (one to two windows) each ray's point off it (`unfound`, an _Unfound)."""
    sh, sw = lab.shape[:2]
    inside = np.zeros((sh, sw), np.uint8)
    (cx, cy), (d1, d2), an = unfound.coarse
    cv2.ellipse(inside, ((cx, cy), (0.9 * d1, 0.9 * d2), an), 255, -1)
    c = np.array([sw / 2, sh / 2], np.float32)
    d = unfound.stops - c
    r = np.linalg.norm(d, axis=1, keepdims=True)
    t = np.arange(unfound.win, 2 * unfound.win + 1, dtype=np.float32)[None, :, None]
    q = np.rint(c + d[:, None, :] / np.maximum(r, 1.0)[:, None, :] * (r[:, None, :] + t)).astype(int).reshape(-1, 2)
    q = q[(q[:, 0] >= 0) & (q[:, 0] < sw) & (q[:, 1] >= 0) & (q[:, 1] < sh)]
    for px in (lab[inside > 0], np.vstack([lab[inside > 0], lab[q[:, 1], q[:, 0]]])):
        grown = _grown(px, centres)
        if grown is not None:
            yield grown


def _grown(px, centres):
    """`centres` and up to 3 colours of the pixels `px` more than GROW_DIST from all of them,
    when those are GROW_SHARE of `px` or more; else None."""
    far = _palette_dist(px, centres).min(axis=1) > GROW_DIST
    if far.sum() < GROW_SHARE * len(px) or far.sum() < 50:
        return None
    new = _colours(px[far][::3], 3, 0.1)
    return np.vstack([centres, new]).astype(np.float32) if len(new) else None


def _search_grown(img, small, lab, centres, grown, win):
    """_search from the palette `grown` (`centres` and colours added), or None: its answer stands
    where one band (the wall) lies beyond it before the floor (_steps_beyond: a wall of about a
    colour added is taken for more layout, and the floor's edge found, with no band beyond),
    little like the layout lies just beyond it (_layout_beyond, over the rays' window `win`), and
    the colours added are seen well inside it (_seen_inside), GROW_SEEN together and
    GROW_SEEN_EACH each; a colour added and not seen so is left out and the search made again."""
    for _ in range(2):
        try:
            found = _search(img, small, lab, grown)
        except (UserError, _Unfound):
            return None
        scale = small.shape[1] / img.shape[1]
        (cx, cy), (a, b), an = found[:3]
        if _steps_beyond(img, ((cx, cy), (2 * a, 2 * b), an)) != 1 \
                or _layout_beyond(lab, grown, found, scale, win) > GROW_BEYOND:
            return None
        seen = _seen_inside(lab, grown, len(centres), found, scale)
        if seen.sum() >= GROW_SEEN and seen.min() >= GROW_SEEN_EACH:
            return found
        keep = seen >= GROW_SEEN_EACH
        if keep.all() or not keep.any():
            return None
        grown = np.vstack([centres, grown[len(centres):][keep]])
    return None


def _layout_beyond(lab, palette, found, scale, win):
    """The share of the pixels just beyond the boundary `found` (1 px to the rays' window `win`
    past it at the detection scale; full-res px, `scale` as _seen_inside) within GROW_DIST of a
    colour of `palette`: about none beyond the wall's foot, much beyond a line printed short of it."""
    (cx, cy), (a, b), an = found[:3]
    sh, sw = lab.shape[:2]
    ring = np.zeros((sh, sw), np.uint8)
    cv2.ellipse(ring, ((cx * scale, cy * scale), (2 * (a * scale + win), 2 * (b * scale + win)), an), 255, -1)
    cv2.ellipse(ring, ((cx * scale, cy * scale), (2 * (a * scale + 1), 2 * (b * scale + 1)), an), 0, -1)
    px = lab[ring > 0]
    if not len(px):
        return 0.0
    return float(np.count_nonzero(_palette_dist(px, palette).min(axis=1) <= GROW_DIST)) / len(px)


def _seen_inside(lab, palette, n_first, found, scale):
    """The share of the area inside GROW_INSIDE of the boundary `found` (find_boundary's answer,
    full-res px; `scale`: detection px per full-res px) where each colour of `palette` after the
    first `n_first` is the nearest, within GROW_DIST."""
    (cx, cy), (a, b), an = found[:3]
    sh, sw = lab.shape[:2]
    inside = np.zeros((sh, sw), np.uint8)
    cv2.ellipse(inside, ((cx * scale, cy * scale), (2 * GROW_INSIDE * a * scale, 2 * GROW_INSIDE * b * scale), an),
                255, -1)
    px = lab[inside > 0]
    d = _palette_dist(px, palette)
    nearest = np.where(d.min(axis=1) <= GROW_DIST, d.argmin(axis=1), -1)
    return np.array([np.count_nonzero(nearest == k) for k in range(n_first, len(palette))]) / max(len(px), 1)


def _search(img, small, lab, centres):
    """_find_boundary's search from the layout's colours `centres` (L*a*b*, rows); raises
    _Unfound where the rays' best ellipse has too little support and nothing else was found."""
    sh, sw = small.shape[:2]
    f = max(1.0, max(img.shape[:2]) / 640)   # full-res px per detection px, as _find_boundary scaled `small`
    dist = np.sqrt(((lab[:, :, None, :] - centres[None, None]) ** 2).sum(axis=3)).min(axis=2)
    n_ang = 360
    max_r = int(math.hypot(sw, sh) / 2)
    polar = cv2.warpPolar(dist, (max_r, n_ang), (sw / 2, sh / 2), max_r,
                          cv2.INTER_LINEAR + cv2.WARP_FILL_OUTLIERS + cv2.WARP_POLAR_LINEAR)
    win = _window(sw, sh)
    st = _steps(polar, win)
    ang = np.linspace(0, 2 * np.pi, n_ang, endpoint=False)
    # a ray stops where it leaves the picture
    with np.errstate(divide="ignore"):
        tx = np.where(np.cos(ang) > 0, (sw / 2 - 1) / np.cos(ang), np.where(np.cos(ang) < 0, -(sw / 2) / np.cos(ang), np.inf))
        ty = np.where(np.sin(ang) > 0, (sh / 2 - 1) / np.sin(ang), np.where(np.sin(ang) < 0, -(sh / 2) / np.sin(ang), np.inf))
    r_end = np.minimum(tx, ty) - win
    r_idx = np.arange(max_r)[None, :]
    st[(r_idx > r_end[:, None]) | (r_idx < 0.08 * min(sw, sh))] = -np.inf
    near = _steps(polar, max(2, win // 4))
    rng = np.random.default_rng(0)
    best = _ray_ellipse(st, near, dist, win, ang, sw, sh, rng)
    # a printed circle inside the ring has the layout beyond it, and the wall further out: the
    # rays are sent on past it, and an ellipse beyond it in a third of the directions or more,
    # with only the layout between, is where the boundary is looked for (a circle printed at
    # 0.5-0.93 of the ring's radius was taken for it in 149 of 440 rings)
    printed = printed_short = None   # the outermost printed circle passed over, and the rays short of its far side
    seen = r_idx <= r_end[:, None] + win   # the rays' points in the picture
    for _ in range(3) if best is not None else ():
        short = _short_of_past(polar, best[1], win, ang, sw, sh)
        past = _ray_ellipse(np.where(short, -np.inf, st), np.where(short, -np.inf, near), dist, win, ang, sw, sh, rng,
                            layout_test=False)
        if past is None or past[2].sum() < n_ang // 3 or not _round(past, best[1], sw, sh) \
                or not _layout_between(polar, short, past[1], win, ang, sw, sh, seen):
            break
        printed, best, printed_short = best[1], past, short
    if best is None:
        raise UserError("no ring found: no layout edge around the image centre; point the camera at the "
                        "ring's centre and photograph it empty, with the wall distinct from the layout; "
                        "or, where a large print lies over the ring's centre, photograph it with the print " + COVER)
    pts, e, inl = best
    coarse = cv2.fitEllipse(pts[inl])
    # the candidates, in turn, each refined and checked (_check_edge): the ellipse the rays found,
    # when it has support all round, then the wall's inner edge concentric with it (_wall_edge);
    # the first that passes is the boundary, and when none does, the last one's reason is given
    cands = []
    # the wall's inner edge lies beyond any printed circle passed over (sealed-15 1060499390, a
    # circle at 0.9 and boxes meeting the wall: the circle was taken for it): from 1.5 px (of the
    # detection scale: up to 9 px at 4K) past
    # where the rays left it (a line at 0.96 of the ring lies a few px short of the wall)
    far = None if printed is None else _line_far_side(printed_short, coarse, ang, sw, sh, seen)
    if far is None:   # (no ray in the picture left it: two windows past the line, as before)
        lo = 0.8 if printed is None else max(0.8, (sum(printed[1]) + 4 * win) / sum(coarse[1]))
    else:
        lo = max(0.8, far + 1.5 / (sum(coarse[1]) / 4))
    wall = _wall_edge(lab, coarse, lo=lo) if min(coarse[1]) > 20 and lo < 1.05 else None
    pal, local = centres, False
    if wall is not None:
        ell, _, wall_lab, inside_lab = wall
        # ink of about the wall's colour would hide the layout's edge from the refinement, which
        # measures the step away from the layout's colours: keep the layout's own (cloth) colour
        # and the inks not like the wall, and measure from the colour just inside too
        dw = np.linalg.norm(centres - wall_lab, axis=1)
        keep = (dw > 20.0) | (np.arange(len(centres)) == np.argmin(np.linalg.norm(centres - inside_lab, axis=1)))
        pal, local = centres[keep], not keep.all()
        cands.append((ell, pal, local))
    if inl.sum() >= 0.75 * n_ang:
        cands.insert(0, (coarse, pal, local))
    none = UserError(f"no ring found: only {int(inl.sum())} of {n_ang} directions show the same "
                     "circular/elliptic edge; photograph the empty ring from above with nothing on it, "
                     "the whole ring in view, the wall distinct from the layout")
    if not cands and inl.sum() < n_ang // 3:
        raise _Unfound(none, coarse, pts[~inl], win)
    blurred = cv2.GaussianBlur(small, (0, 0), 1.5)
    refusal = None
    if not cands:
        # print meeting the wall over much of it: the rays' ellipse is only a start, and stands
        # only where the full-resolution edge measurement and the check find the layout's edge
        # all round (a wrong boundary would misjudge every coin near the wall)
        try:
            return _measure(img, small, blurred, lab, f, coarse, pal, local)
        except UserError:
            raise _Unfound(none, coarse, pts[~inl], win) from None
    for ell, pal, local in cands:
        cand = ((ell[0][0] * f, ell[0][1] * f), (ell[1][0] * f, ell[1][1] * f), ell[2])
        if isinstance(refusal, BandRefusal) and refusal.walled:
            r_edge = sum(refusal.edge[1]) / 4
            inside = sum(cand[1]) / 4 < r_edge - max(3.0, 0.01 * r_edge)
            on_band = refusal.band is not None and _ell_gap(refusal.band, cand) <= 0.5 * refusal.width
            if inside or on_band:
                # the edge refused, for a band or another edge all round inside it, had a wall and
                # the floor beyond it: it is most likely the layout's, and taking what lies inside
                # it is the same guess the other way round (sealed-25 2839296033: a circle at 0.83
                # among artwork taken, 85 px inside the wall; sealed-30
                # 2033041379 and 3155147022: a wide circle at 0.82 and 0.88 taken 96 and 61 px
                # inside), so the ring is refused. (With a mat beyond the wall, the edge refused may
                # be the wall's outer edge and the band the wall: refused too, where before the band
                # was taken, rightly.) With nothing beyond, the band is taken as before (sealed-28
                # 1821290394: the wall's outer edge first). `on_band` keeps a narrow band's own
                # inner side, less than the tolerance inside the edge, from being taken.
                continue
        try:
            return _measure(img, small, blurred, lab, f, ell, pal, local)
        except UserError as exc:
            refusal = exc
    raise refusal


class BandRefusal(UserError):
    """The refusal of an edge found (`edge`, full-res px) for a band or another edge all round
    just inside it (`band`: the ellipse of a band's inner side, full-res px, None for an edge;
    `width`: px to the edge found; `walled`: a wall and the floor beyond the edge found,
    _steps_beyond). For a band, `retry` and `measure_band` measure the two boundaries it leaves
    (`band_candidates`); else None."""

    def __init__(self, message, band, width, walled, edge=None):
        super().__init__(message)
        self.band, self.width, self.walled, self.edge = band, width, walled, edge
        self.retry = self.measure_band = None
        self.inside = None


def band_candidates(exc):
    """(outer, inner) find_boundary answers for a band refused (BandRefusal), or None: the edge
    found, measured on and checked as ever but for the band (None when that ends on another
    edge: a line printed short of the wall passed over), and the band's inner side measured
    again at full resolution on its own (`_edge_full_res`: standing all round, within BAND_SAME
    of its width of where the band's scan put it), with the layout's colour and its own edge
    width (what lies beyond it is the band, then the wall: the boundary checks would refuse it
    for that band). Which of them is the wall's foot the coins' size says at training
    (faceid.settle)."""
    if exc.retry is None or exc.band is None or exc.edge is None:
        return None
    try:
        outer = exc.retry()
    except UserError:
        return None
    if _ell_gap(exc.edge, (outer[0], (2 * outer[1][0], 2 * outer[1][1]), outer[2])) > BAND_SAME_PX:
        return None
    full = exc.measure_band()
    if not _stands(full) or _ell_gap(exc.band, full[0]) > max(BAND_SAME * exc.width, BAND_SAME_PX):
        return None
    (cx, cy), (d1, d2), an = full[0]
    a, b, an = (d1 / 2, d2 / 2, an) if d1 >= d2 else (d2 / 2, d1 / 2, an + 90)
    return outer, ((cx, cy), (a, b), an % 180, outer[3], full[3])


def _measure(img, small, blurred, lab, f, ell, centres, local, passes=0, line=None, band_ok=None):
    """Refine a coarse boundary at full resolution and check it -> find_boundary's answer (`passes`:
    how many printed lines short of the wall were passed over to reach this one, `line`: the inner
    edge of the last, full res). `band_ok`: the share of the radius of a band just inside that is
    let be (the edge found beside a band, measured as a candidate for the coins' size to settle:
    band_candidates)."""
    sh, sw = small.shape[:2]
    (cx, cy), (d1, d2), an = ell
    a, b = d1 / 2, d2 / 2
    if min(a, b) / max(a, b) < 0.5 or cx - max(a, b) < -1 or cy - max(a, b) < -1 \
            or cx + max(a, b) > sw + 1 or cy + max(a, b) > sh + 1:
        raise UserError("no ring found: the boundary found is not a whole ring in view; "
                        "the whole ring must be in the picture, seen from above")
    # the layout colour from well inside the ring, then refine at full resolution
    inner = np.zeros((sh, sw), np.uint8)
    cv2.ellipse(inner, ((cx, cy), (d1 * 0.8, d2 * 0.8), an), 255, -1)
    layout_bgr = np.median(blurred[inner > 0], axis=0)
    palette = cv2.cvtColor(np.clip(centres, 0, 255).astype(np.uint8)[None], cv2.COLOR_LAB2BGR)[0]
    coarse = ((cx * f, cy * f), (a * f, b * f), an)
    refined = _refine(img, coarse, palette, f, local=local)
    # the edge measured again at full resolution, round the refined ellipse (or the coarse one
    # when the refinement found too few points: print meeting the wall): corrected, or refused
    c0, (a0, b0), an0 = coarse if refined is None else refined[:3]
    # from the refinement's ellipse, the wall's chromaticity outside it keeps the wall's outer edge
    # out; from the coarse one, the layout's colours just inside must
    layout = np.vstack([palette, layout_bgr[None]]) if refined is None else None
    full = _edge_full_res(img, (c0, (2 * a0, 2 * b0), an0), f, layout)
    for _ in range(2):   # a start further off than the profiles reach: again round the new fit
        if full is None or _ell_gap(full[0], (c0, (2 * a0, 2 * b0), an0)) < 2.0:
            break
        c0, (a0, b0), an0 = full[0][0], (full[0][1][0] / 2, full[0][1][1] / 2), full[0][2]
        full = _edge_full_res(img, full[0], f, layout)
    # the wall's OUTER edge measured (a layout of about the wall's colour looks like more layout
    # on the wall)? A band that runs all round just inside the edge found, of the layout's colour
    # but lighter or darker, is the wall's inner part or a border printed on the layout: from above
    # they look alike, and taking the wrong one misjudges every coin near the wall. Refused,
    # unless the layout's cloth and then the wall show beyond the band (a border printed a few px
    # short of the wall: _line_beyond); a narrow printed line, a step and one back, is neither:
    # _inner_edge passes over it
    steps = _steps_beyond(img, full[0]) if _stands(full) else None   # bands beyond the edge, for below too
    walled = steps == 1
    s_in = _inner_edge(img, full[0], wide=walled) if _stands(full) else None
    if s_in is not None and line is not None and abs(s_in + _ell_gap(line, full[0])) <= 3.0:
        s_in = None   # the band is the line passed over, with the layout beyond it (_line_beyond)
    if s_in is not None:
        r_full = sum(full[0][1]) / 4
        k = 1 + s_in / r_full
        band = (full[0][0], (full[0][1][0] * k, full[0][1][1] * k), full[0][2])
    if s_in is not None and passes < 2:
        # the band may be a line printed round the layout whose far edge was measured: then the
        # layout's own colour lies beyond it, and the wall beyond that
        outer = _line_beyond(img, band, layout_bgr)
        if outer is not None:
            return _past_line(img, small, blurred, lab, f, outer, centres, local, passes, band)
    if s_in is not None and band_ok is None:
        exc = BandRefusal(f"ring edge uncertain: a band {-s_in / r_full * 100:.0f}% of the radius wide runs all round "
                          "just inside the edge found, of the layout's colour but lighter or darker (the wall's inner "
                          "part, the layout being of the wall's colour, or a border printed on the layout); mark the "
                          "layout's edge with a strip of contrasting tape along the wall's foot, or cover a printed "
                          "border with plain cloth of the layout's colour, and photograph the empty ring again",
                          band, -s_in, walled, full[0])
        # the two candidates the coins' size can settle (band_candidates): the edge found,
        # measured on as if the band were not there, and the band's inner side measured on its own
        exc.retry = lambda: _measure(img, small, blurred, lab, f, ell, centres, local, passes, line,
                                     band_ok=-s_in / r_full)
        exc.measure_band = lambda: _edge_full_res(img, band, f)
        raise exc
    if not _stands(full):
        _, d_wall, dl = _layout_like_wall(img, (c0, (2 * a0, 2 * b0), an0))
        if d_wall <= ALIKE_CHROMA_TOL:
            raise _not_visible(dl)
        if refined is None and local:   # print of about the wall's colour was found (_wall_edge)
            raise UserError("ring edge not sharp enough to measure all round (printed artwork of about the "
                            "wall's colour meets the wall); photograph the empty ring again with the print "
                            "that meets the wall " + COVER)
        if refined is None:
            raise UserError("ring edge not sharp enough to measure all round (out of focus, or print at the "
                            "wall); focus the camera on the layout and photograph the empty ring again")
        where = ("in under a third of 360 directions" if full is None else
                 f"in only {int(round(full[1] * 360))} of 360 directions (widest arc without it "
                 f"{int(round(full[2]))} deg)")
        raise UserError(f"ring edge not exact enough: at full resolution the layout's edge lies on one "
                        f"boundary {where} (print meeting the wall, or out of focus); focus the camera on the layout and "
                        f"photograph the empty ring again with any print that meets the wall " + COVER)
    (cx, cy), (d1, d2), an = full[0]
    a, b = d1 / 2, d2 / 2
    # the judge's margin at the wall grows with edge_px: never smaller than the refinement's
    edge_px = full[3] if refined is None else max(full[3], refined[3])
    # a layout of the wall's colour steps only in brightness, by as little as EDGE_L_MIN: too
    # little for the detection-scale picture's colour step, which is not asked; in its place the
    # full-resolution fit stood on a step of LIKE_WALL_DIR_MIN or more in EDGE_SHARE of the
    # directions (no gap over EDGE_GAP_DEG), sharp at the fit (_sharp), no band inside it
    try:
        _check_edge(lab, blurred, ((cx / f, cy / f), (2 * a / f, 2 * b / f), an), seen_min=0.0 if full[4] else 0.7,
                    palette=centres)
    except BandRefusal as exc:     # another edge all round inside: what lies beyond this one says
        # (the band let be has its own inner side for that edge: within BAND_SAME of its width,
        # or BAND_SAME_PX)
        if band_ok is None or abs(exc.inside - band_ok) > max(BAND_SAME * band_ok,
                                                              BAND_SAME_PX / (sum(full[0][1]) / 4)):
            exc.walled, exc.edge = walled, full[0]
            raise
    outer = _line_beyond(img, full[0], layout_bgr) if passes < 2 else None
    if outer is not None:   # the edge found is a line printed round the layout, a few px short of the wall
        return _past_line(img, small, blurred, lab, f, outer, centres, local, passes, full[0])
    if line is not None and steps == 0:
        raise UserError("ring edge uncertain: past a line printed round the layout, no wall shows beyond the edge "
                        "found (a floor that changes colour?); photograph the empty ring again with that line "
                        + COVER)
    if steps >= 2:
        raise UserError("ring edge uncertain: beyond the edge found two bands of different colours run all round "
                        "before the floor (a border printed against the wall, or a wall of two colours): from above "
                        "they look alike, and taking the wrong one misjudges every coin near the wall; cover a printed "
                        "border with plain cloth of the layout's colour, or a wall's inner band with tape of its "
                        "outer colour, and photograph the empty ring again")
    if a < b:
        a, b, an = b, a, an + 90
    return (cx, cy), (a, b), an % 180, [int(v) for v in layout_bgr], edge_px


def _past_line(img, small, blurred, lab, f, outer, centres, local, passes, line):
    """The boundary measured again from `outer` (full res), the wall's edge beyond a printed line
    whose inner edge is `line`; refused with the fix when it cannot be."""
    (ox, oy), (o1, o2), oa = outer
    try:
        return _measure(img, small, blurred, lab, f, ((ox / f, oy / f), (o1 / f, o2 / f), oa), centres, local,
                        passes + 1, line)
    except UserError as exc:
        raise UserError("ring edge uncertain: a line printed round the layout lies just short of the wall, "
                        f"and the wall's edge beyond it cannot be measured all round ({str(exc).split(';')[0]}); "
                        "photograph the empty ring again with that line " + COVER) from exc


def _steps_beyond(img, ell, n=360):
    """How many concentric steps run all round beyond the boundary `ell` (full res), within
    TWO_BANDS_REACH of its radius (local maxima of the step across 3 px windows, TWO_BANDS_STEP or
    more; the median over the directions keeps only what runs round the ring).

    A wall seen from above is one band: its only step is onto the floor (22 empty rings of
    tune-1080p, sealed-22 and sealed-17: one step each, at the wall's width; one with a faint
    step, none). Two are a line printed against the wall's foot (its band, then the wall, then
    the floor: a white line 52-62 L*a*b* at 4% of the radius, then the wall's) or a wall of two
    colours; none past a printed line passed over is no wall there (a floor that changes colour
    beyond a narrow wall looked like a line, the layout and a wall)."""
    r = sum(ell[1]) / 4
    s = np.arange(-4.0, TWO_BANDS_REACH * r, 0.5)
    _, lab = _across(img, ell, s, n, 3)
    # the colour step across 3 px windows (6 samples) of the directions' median profile
    st = np.linalg.norm(_steps(np.median(lab, axis=0).T, 6, fill=0.0), axis=0)
    # every local maximum counts: a rippled step may count twice and refuse a ring (safe); keeping
    # only the strongest within the windows let 12 more lines against the wall through (held-out 1)
    peak = (st >= TWO_BANDS_STEP) & (st >= np.roll(st, 1)) & (st >= np.roll(st, -1)) & (s > 3.0)
    return int(np.count_nonzero(peak[1:-1]))


def _line_beyond(img, ell, layout_bgr, n=360):
    """The wall's edge (full-res ellipse) beyond a line printed round the layout that `ell` (full
    res) is the inner edge of, or None when `ell` is no such line.

    Seen from the edge found, outwards: a line is a band away from the layout's colour, then the
    layout's colour again (2 px at least, back within LINE_BACK of the way), then the wall; the
    wall's inner edge has the wall beyond it, and then the floor, not the layout and another
    step (and a wall of about the layout's colour is no layout: the colour between must be as
    near the layout's as the layout just inside the line is). The direction by direction
    crossings into the wall, in 60% of the directions on one
    ellipse, are that edge (a circle at 0.96 of the ring, 16 px wide, lies 9 px short of the
    wall at 1080p: the detection scale, a third of that, blurs the layout between away)."""
    r = sum(ell[1]) / 4
    s = np.arange(-12.0, 0.15 * r, 0.5)
    bgr, lab = _across(img, ell, s, n, 3)
    ref = cv2.cvtColor((np.asarray(layout_bgr, np.float32) / 255.0)[None, None], cv2.COLOR_BGR2LAB)[0, 0]
    if _darker_shade(bgr[:, (s > 0.5) & (s <= 3.5)], lab[:, (s > 0.5) & (s <= 3.5)],
                     bgr[:, (s >= -12.0) & (s <= -3.0)], lab[:, (s >= -12.0) & (s <= -3.0)]):
        return None   # the wall's foot in its shadow, not a line (_darker_shade)
    d = np.linalg.norm(lab - ref, axis=2)
    # the layout's own spread from its median colour (felt, light), just inside, in each direction
    inside = np.median(d[:, (s >= -12.0) & (s <= -3.0)], axis=1)
    level = float(np.median(inside))
    out = s > 0
    line = d[:, (s > 0.5) & (s <= 3.5)].max(axis=1)   # the line's own colour, just beyond its edge
    back = level + LINE_BACK * (line - level)
    pts = []
    for k in range(n):
        if line[k] - level < LINE_INK:
            continue
        on = np.flatnonzero(out & (d[k] >= (level + line[k]) / 2))   # on the line (past its blurred edge)
        low = np.flatnonzero(out & (d[k] < back[k]) & (np.arange(len(s)) > (on[0] if on.size else len(s))))
        if low.size < 4:
            continue
        b = int(low[0])
        gap_end = b
        while gap_end + 1 < len(s) and d[k, gap_end + 1] < back[k]:
            gap_end += 1
        if gap_end - b < 4 or gap_end + 1 >= len(s):
            continue
        gap, top = float(np.median(d[k, b:gap_end + 1])), float(d[k, gap_end + 1:].max())
        # the layout's own colour between (not a wall of about its colour), and a wall beyond (not
        # more layout, or a floor of its colour)
        if gap > inside[k] + LINE_CLOTH or top - gap < LINE_INK:
            continue
        rise = (gap + top) / 2
        c = gap_end + 1 + int(np.argmax(d[k, gap_end + 1:] >= rise))
        t = 2 * np.pi * k / n
        pts.append(np.stack(_ellipse_points(ell, np.array([t]), np.array([1 + s[c] / r])), 1)[0])
    if len(pts) < 0.6 * n:
        return None
    e, inl = _ransac_ellipse(np.array(pts, np.float32), max(1.5, 0.005 * r), np.random.default_rng(3), iters=60)
    if e is None or inl.sum() < 0.6 * n:
        return None
    return cv2.fitEllipse(np.array(pts, np.float32)[inl])


def _darker_shade(bgr, lab, bgr_cloth, lab_cloth):
    """Is the colour of profiles `bgr`/`lab` (directions first; the median over everything) a
    darker shade of the cloth's (the same b, g, r shares within EDGE_CHROMA_TOL, lower L*)?"""
    shade = np.median(bgr.reshape(-1, 3), axis=0), np.median(bgr_cloth.reshape(-1, 3), axis=0)
    return bool(np.median(lab[..., 0]) < np.median(lab_cloth[..., 0])
                and np.linalg.norm(_chroma(shade[0]) - _chroma(shade[1])) < EDGE_CHROMA_TOL)


def _stands(full):
    """An _edge_full_res answer on which the boundary may stand (enough directions, no wide gap)."""
    return full is not None and full[1] >= EDGE_SHARE and full[2] <= EDGE_GAP_DEG


def _layout_like_wall(img, ell):
    """_like_wall round `ell` (full-res px)."""
    return _like_wall(*_across_bands(img, ell))


def _not_visible(dl):
    """The refusal when the layout's edge is not seen: the layout and the wall alike (`dl`: the
    step of L* between them, _like_wall)."""
    return UserError(f"ring edge not visible all round: the layout and the wall are about the same colour "
                     f"where they meet (or a line printed round the layout was taken for its edge), and their "
                     f"brightness differs by only {abs(dl):.1f} L* or too gradually "
                     "to measure; light the wall differently from the layout, or mark the layout's edge (a strip "
                     "of contrasting tape along the wall's foot), and photograph the empty ring again")


def _ell_gap(e1, e2, n=72):
    """The largest distance (px) of ellipse e2 from e1, round e2."""
    x, y = _ellipse_points(e2, np.linspace(0, 2 * np.pi, n, endpoint=False), 1.0)
    return float(np.abs(_ell_residual(np.stack([x, y], 1), e1)).max())


def _across(img, ell, s, n, sub):
    """Profiles across ellipse `ell` at offsets `s` (px along the radius), each the mean of `sub`
    neighbouring rays -> (n, len(s), 3) BGR float32 and the same in LAB (L* 0-100)."""
    (cx, cy), (d1, d2), an = ell
    r = (d1 + d2) / 4
    t = np.linspace(0, 2 * np.pi, n * sub, endpoint=False) - np.pi / n + np.pi / (n * sub)
    mx, my = _ellipse_grid(ell, t, 1 + s / r)
    bgr = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    bgr = bgr.astype(np.float32).reshape(n, sub, len(s), 3).mean(axis=1)
    lab = cv2.cvtColor((bgr / 255.0).reshape(1, -1, 3), cv2.COLOR_BGR2LAB).reshape(n, len(s), 3)
    return bgr, lab


def _chroma(v):
    """b, g, r shares: the light changes a colour's brightness, not these."""
    return (v + 1.0) / (v.sum(axis=-1, keepdims=True) + 3.0)


def _band(bgr, s, a, b):
    """Each direction's median colour of profiles `bgr` (n, len(s), 3) from offset a to b (px;
    4 samples at least)."""
    j0, j1 = np.searchsorted(s, [a, b])
    return np.median(bgr[:, j0:max(j1, j0 + 4)], axis=1)


def _like_wall(bgr, s, r):
    """(layout of the wall's chromaticity?, their chromaticity distance, L* step) from profiles
    `bgr` (n, len(s), 3) across an ellipse of radius r: the bands 3 px to 3% of r + 3 px inside
    (the layout) and outside (the wall) it, each direction's median, then the ring's."""
    inside = np.median(_band(bgr, s, -(0.03 * r + 3.0), -3.0), axis=0)
    outside = np.median(_band(bgr, s, 3.0, 0.03 * r + 3.0), axis=0)
    d = float(np.linalg.norm(_chroma(inside) - _chroma(outside)))
    lab = cv2.cvtColor((np.stack([inside, outside]) / 255.0).astype(np.float32)[None], cv2.COLOR_BGR2LAB)[0]
    return d <= EDGE_CHROMA_TOL, d, float(lab[1, 0] - lab[0, 0])


def _inner_edge(img, ell, n=360, wide=False):
    """The offset (px, < 0) of the innermost lasting edge concentric with `ell` inside it, from
    INNER_FROM_PX to 20% of its radius in, at full resolution, or None.

    The median over all directions of the brightness step keeps only what runs round the ring
    (print, felt and noise are not concentric: they cancel). Inside the layout's edge there is
    none but a printed line round the ring, a step and one back within LINE_REL of the radius
    (or LINE_PX: _line_end; _line_start when its near side is too faint to be a step), which
    is passed over; inside the wall's OUTER edge there is the wall's own inner part and the
    layout's edge, which a layout of the wall's colour may show only as a step of brightness a
    few L* high. `wide` (a wall and then the floor beyond `ell`): a line up to WIDE_LINE_REL of
    the radius wide whose colour comes back is passed over too, and one that begins further in
    than 20% of the radius (from WIDE_FROM_REL) is looked at whole."""
    (cx, cy), (d1, d2), an = ell
    r = (d1 + d2) / 4
    # from 20% in (WIDE_FROM_REL when `wide`) to where the edge's own step (2 px windows, blur) no
    # longer reaches, and the windows' 2 px beyond
    s = np.arange(-(WIDE_FROM_REL if wide else 0.2) * r, -INNER_FROM_PX + 2.01, 0.5)
    bgr, lab = _across(img, ell, s, n, 3)
    med = np.median(_steps(lab[..., 0], 4, fill=0.0), axis=0)
    med[s > -INNER_FROM_PX] = 0.0
    line = max(LINE_PX, LINE_REL * r)
    j = 0
    while True:
        big = np.flatnonzero(np.abs(med[j:]) >= INNER_L_MIN)
        if not big.size:
            return None
        start = j   # where this search began: past the last line passed over
        j += int(big[0])
        sign = np.sign(med[j])
        while j + 1 < len(s) and med[j + 1] * sign > med[j] * sign:   # the step's own peak
            j += 1
        end = _line_end(lab[..., 0], med, s, j, line)
        if end is None:
            end = _line_start(lab[..., 0], med, s, j, line, start)
        if end is None and wide:
            end = _wide_line_end(bgr, lab, med, s, j, WIDE_LINE_REL * r)
        if end is None and s[j] < -0.2 * r:   # (only `wide` looks there) not a line: on past the step
            while j + 1 < len(s) and med[j + 1] * sign >= INNER_L_MIN:
                j += 1
            end = j + 1
        if end is None:
            return float(s[j])
        j = end   # a printed line: on past it


def _wide_line_end(bgr, lab, med, s, j, reach):
    """Where a wide line printed round the ring ends, if the step med[j] is one side of one, else
    None: the first step back at least half as far within `reach` px, to the colour it had (L*,
    and a* and b*, within WIDE_LINE_TOL; the median over the directions and SIDE_SPAN px, from
    2 px before the near side's ramp starts and from 3 px after the far side's ends: a wide
    line's far edge must bring back the cloth, not only its brightness); and the line is ink
    (WIDE_INK from the cloth at its middle), not a darker shade of the cloth (the wall's foot in
    its shadow, or painted darker, with the wall above it of the cloth's colour: a review's
    case, 21-51 px off)."""
    sign = np.sign(med[j])
    back = np.flatnonzero((s > s[j]) & (s <= s[j] + reach) & (med * sign <= -0.5 * abs(med[j])))
    if not back.size:
        return None
    k = int(back[0])
    while k < len(s) and med[k] * sign < -0.1 * abs(med[j]):   # to the far side's step's end
        k += 1
    i = j
    while i > 0 and med[i - 1] * sign > 0.1 * abs(med[j]):   # to the near side's start (a blurred ramp)
        i -= 1
    level = np.median(lab, axis=0)
    before, after = _side(level, s, s[i] - 2.0, -1), _side(level, s, s[k - 1] + 3.0, 1)
    d = after - before
    if abs(d[0]) >= WIDE_LINE_TOL or np.hypot(d[1], d[2]) >= WIDE_LINE_TOL:
        return None
    mid, b0 = (j + int(back[0])) // 2, max(0, np.searchsorted(s, s[i] - 2.0))
    if np.linalg.norm(level[mid] - before) < WIDE_INK or \
            _darker_shade(bgr[:, mid], lab[:, mid], bgr[:, b0], lab[:, b0]):
        return None
    while k < len(s) and med[k] * sign < 0:   # on past the step's faint tail (as _line_end walks)
        k += 1
    return k


def _side(level, s, at, way, span=SIDE_SPAN):
    """The median colour of profile `level` (len(s), 3) over `span` px from offset `at` on
    (`way` 1) or back (-1): one sample on a blurred line's long ramp (a 16 px white circle,
    blur 1.6 px: still 2 L* off the cloth 2 px before the ramp seemed to start) is not the
    cloth's colour; where the profile ends, what there is of the span."""
    lo, hi = sorted((at, at + way * span))
    j0, j1 = np.searchsorted(s, [lo, hi + 1e-6])
    j0, j1 = min(j0, len(s) - 1), max(j1, min(j0, len(s) - 1) + 1)
    return np.median(level[j0:j1], axis=0)


def _edge_full_res(img, ell, f, layout=None, n=360):
    """_edge_by(colour), and where that does not stand on a layout of the wall's chromaticity,
    _edge_by(brightness) -> the answer that stands (the last item: measured by brightness), the
    colour's if neither does, or None."""
    full = _edge_by(img, ell, f, layout, n, bright=False)
    if _stands(full) or not _like_wall(*_across_bands(img, ell))[0]:
        return full
    by_l = _edge_by(img, ell, f, layout, n, bright=True)
    # else the colour's fit, not standing, may still be a start for measuring again round it
    return by_l if _stands(by_l) or full is None else full


def _across_bands(img, ell):
    """(profiles, offsets, radius) for _like_wall round `ell` (full-res px), 120 directions."""
    r = sum(ell[1]) / 4
    s = np.arange(-(0.03 * r + 4.0), 0.03 * r + 4.01, 0.5)
    return _across(img, ell, s, 120, 3)[0], s, r


def _edge_by(img, ell, f, layout=None, n=360, bright=False):
    """The layout's edge measured again at full resolution round ellipse `ell` (full-res px)
    -> (ellipse, share of directions on it, widest gap in degrees, median |residual| px, measured
    by brightness alone: the layout of the wall's chromaticity) or None.

    The refinement's points and the check's picture are a detection-scale pixel (~6 px at 4K) or
    more apart, so a fit a few px off passes both (issue 12). Here each of `n` directions is a
    short profile across the ellipse (five neighbouring rays averaged, half-px steps); an edge is
    a step of colour at least EDGE_REL of the ring's typical step, with the wall's chromaticity
    (its median just outside the ellipse) outside it and not inside it. Where print meets the
    wall, or ink of the wall's colour lies along it, a direction has no such step, or one off the
    ellipse: RANSAC over single directions' edges finds the ellipse most directions agree on
    within EDGE_TOL px, and it is refitted on those. `layout` (BGR rows), given when `ell` is only
    a coarse start (which may be the wall's outer edge: the floor's chromaticity all round outside
    it): just inside the edge must be one of those colours in most directions on the fit.
    `bright`: the layout is of the wall's chromaticity, its edge a step of brightness (_sharp)."""
    (cx, cy), (d1, d2), an = ell
    r = (d1 + d2) / 4
    span = max(3.0 * f, 0.015 * r) + 8.0         # px either side: the refinement's search and more
    s = np.arange(-span, span + 0.01, 0.5)
    sub, k = 5, 4                                # rays averaged per direction; step window (samples)
    bgr, lab = _across(img, ell, s, n, sub)
    J, m = len(s), 2 * k
    c = np.cumsum(np.pad(lab, ((0, 0), (1, 0), (0, 0))), axis=1)
    cb = np.cumsum(np.pad(bgr, ((0, 0), (1, 0), (0, 0))), axis=1)
    j = np.arange(m + k, J - m - k)
    step = np.zeros((n, J), np.float32)
    step[:, j] = np.linalg.norm((c[:, j + k] - c[:, j]) - (c[:, j] - c[:, j - k]), axis=2) / k
    wall = np.median(_chroma(_band(bgr, s, 3.0, 0.03 * r + 3.0)), axis=0)
    out = np.linalg.norm(_chroma((cb[:, j + k + m] - cb[:, j + k]) / m) - wall, axis=2) <= EDGE_CHROMA_TOL
    inn = np.linalg.norm(_chroma((cb[:, j - k] - cb[:, j - k - m]) / m) - wall, axis=2) <= EDGE_CHROMA_TOL
    if bright:
        # (a layout of the wall's chromaticity) inside the edge is not told by its colour, only by
        # its brightness. The edge is the step of L* whose sign the ring's innermost concentric
        # step has (the cloth lighter or darker than the wall's foot; the wall's shading further
        # out may step the other way)
        sl = _steps(lab[..., 0], k, fill=0.0)
        med = np.median(sl, axis=0)
        big = np.flatnonzero(np.abs(med) >= EDGE_L_MIN)
        if not big.size:
            return None
        step = np.where(sl * np.sign(med[big[0]]) > 0, np.abs(sl), 0.0).astype(np.float32)
        inn = np.zeros_like(inn)
        least = LIKE_WALL_DIR_MIN
    else:
        least = 3.0
    e = step[:, j]
    cand = (e >= step[:, j - 1]) & (e >= step[:, j + 1]) & (e >= least) & out & ~inn
    top = np.where(cand, e, 0).max(axis=1)
    if not (top > 0).any():
        return None
    kk, jj = np.nonzero(cand & (e >= EDGE_REL * np.median(top[top > 0])))
    dirs = np.unique(kk)
    if len(dirs) < n // 3:
        return None
    jj = jj + m + k
    e0, e1, e2 = step[kk, jj - 1], step[kk, jj], step[kk, jj + 1]
    den = e0 - 2 * e1 + e2
    sub_px = np.where(np.abs(den) > 1e-6, 0.5 * (e0 - e2) / np.where(np.abs(den) > 1e-6, den, 1.0), 0.0)
    pos = s[jj] + 0.5 * np.clip(sub_px, -0.5, 0.5)
    x, y = _ellipse_points(ell, np.linspace(0, 2 * np.pi, n, endpoint=False)[kk], 1 + pos / r)
    pts = np.stack([x, y], 1).astype(np.float32)
    best = _ransac_dirs(pts, kk, dirs, (d1, d2), 4 * span, n)
    if best is None:
        return None
    for _ in range(3):   # per direction the edge nearest the fit, within EDGE_TOL; refit
        res = np.abs(_ell_residual(pts, best))
        order = np.lexsort((res, kk))
        first = np.ones(len(order), bool)
        first[1:] = kk[order][1:] != kk[order][:-1]
        sel = order[first]
        sel = sel[res[sel] < EDGE_TOL]
        if len(sel) < 6:
            return None
        best = cv2.fitEllipse(pts[sel])
    on = np.unique(kk[sel])
    gap = np.diff(np.concatenate([on, [on[0] + n]])).max() * 360.0 / n
    if layout is not None:
        inside = _chroma((cb[kk[sel], jj[sel] - k] - cb[kk[sel], jj[sel] - k - m]) / m)
        pal = _chroma(np.asarray(layout, np.float32).reshape(-1, 3))
        if (np.linalg.norm(inside[:, None] - pal[None], axis=2).min(axis=1) <= EDGE_CHROMA_TOL).mean() < 0.5:
            return None
    if bright and not _sharp(img, best):
        return None
    return best, len(on) / n, float(gap), float(np.median(np.abs(_ell_residual(pts[sel], best)))), bright


def _ransac_dirs(pts, kk, dirs, axes, size_tol, n):
    """`_edge_by`'s RANSAC: of 300 ellipses, each through one edge in each of 6 random directions
    (those whose axes sum to within size_tol of `axes`' sum), the first with edges within EDGE_TOL
    in the most directions, or None. `kk`, each point's direction, is sorted (np.nonzero's order),
    so a direction's points are one run of it; the counts are taken for all fits in one pass."""
    d1, d2 = axes
    rng = np.random.default_rng(3)
    lo, hi = np.searchsorted(kk, dirs), np.searchsorted(kk, dirs, side="right")
    of_dir = {d: np.arange(a, b) for d, a, b in zip(dirs.tolist(), lo, hi)}
    fits = []
    for _ in range(300):
        pick = [rng.choice(of_dir[d]) for d in rng.choice(dirs, 6, replace=False).tolist()]
        try:
            cand_e = cv2.fitEllipse(pts[pick])
        except cv2.error:
            continue
        if abs(sum(cand_e[1]) - d1 - d2) > size_tol:
            continue
        fits.append(cand_e)
    if not fits:
        return None
    row, col = np.nonzero(np.abs(_fit_residuals(pts, fits)) < EDGE_TOL)
    hit = np.zeros((len(fits), n), bool)
    hit[row, kk[col]] = True
    return fits[int(np.argmax(hit.sum(axis=1)))]


def _sharp(img, ell, n=360):
    """True when the brightness steps at ellipse `ell` itself, not along a ramp through it: the
    ring's median L* step across it peaks within 1 px of it, at least EDGE_L_MIN, and 4.5-6 px
    inside it is under SHARP_REL of that (the layout is flat up to its edge; a wall's shading
    ramping up from a layout of its own colour and brightness has no edge to measure, yet its
    directions' steps fit some ellipse on the ramp)."""
    line = max(LINE_PX, LINE_REL * sum(ell[1]) / 4)
    s = np.arange(-INNER_FROM_PX - 3.0, line + 3.01, 0.5)
    _, lab = _across(img, ell, s, n, 3)
    med = np.median(_steps(lab[..., 0], 4, fill=0.0), axis=0)
    at = np.flatnonzero(np.abs(s) <= 1.0)
    j = int(at[np.argmax(np.abs(med[at]))])
    inside = np.abs(med[(s <= -INNER_FROM_PX + 0.5) & (s >= -INNER_FROM_PX - 1.0)])
    # and it lasts: not one side of a printed line round the ring
    return abs(med[j]) >= EDGE_L_MIN and inside.max() <= SHARP_REL * abs(med[j]) and \
        _line_end(lab[..., 0], med, s, j, line) is None


def _line_end(L, med, s, j, line):
    """Where a printed line round the ring ends, if the step med[j] (median L* step over the
    directions of profiles `L`, at offsets `s`) is one side of one, else None: within `line` px
    it steps back at least half as far, to the brightness it had (within INNER_L_MIN, median over
    the directions 3 px before and after). A wall's foot also steps and steps back (its own
    shadow, then the wood), but onto the wood's brightness, not the cloth's."""
    sign = np.sign(med[j])
    back = np.flatnonzero((s > s[j]) & (s <= s[j] + line) & (med * sign <= -0.5 * abs(med[j])))
    if not back.size:
        return None
    k = int(back[-1])
    while k < len(s) and med[k] * sign < 0:   # to the far side's whole step
        k += 1
    return k if _back_to(L, s, s[j] - 3.0, s[k - 1] + 3.0) else None


def _back_to(L, s, before, after):
    """Is the brightness at offset `after` what it was at `before` (within INNER_L_MIN, the
    median over the directions of profiles `L`)?"""
    level = np.median(L, axis=0)
    at = np.searchsorted(s, before), min(len(s) - 1, np.searchsorted(s, after))
    return abs(level[at[1]] - level[at[0]]) < INNER_L_MIN


def _line_start(L, med, s, j, line, lo=0):
    """Where a printed line round the ring ends, if the step med[j] is its far side and its near
    side was too faint to be taken for a step (under INNER_L_MIN: a yellow line on an orange
    cloth, 6 px wide, steps 0.7 L* up and 1.0 down; its colour is in a* and b*), else None:
    within `line` px before j, and from `lo` on, where _inner_edge's search for this step began
    (so not a step a line passed over already ended on, and under INNER_L_MIN: one as big would
    have been found first), it steps the other way at least half as far, and past j's step the
    brightness is back to what it was before that (_back_to, 3 px before and after), as
    _line_end asks the other way round. (A review found the limit needed: without it the rise
    into a two-colour wall's inner band, already passed over as a line's far side, was taken
    again as the near side of the band's far edge, and the boundary put on the wall's outer
    edge, 28-38 px out.)"""
    sign = np.sign(med[j])
    ahead = s[lo:]
    near = lo + np.flatnonzero((ahead < s[j]) & (ahead >= s[j] - line) & (med[lo:] * sign <= -0.5 * abs(med[j])))
    if not near.size:
        return None
    i = int(near[0])
    while i > lo and med[i - 1] * sign < 0:   # to the near side's whole step
        i -= 1
    k = j
    while k < len(s) and med[k] * sign > 0:   # to the far side's whole step
        k += 1
    return k if _back_to(L, s, s[i] - 3.0, s[k - 1] + 3.0) else None


def _refine(img, ell, layout_bgr, f, n=360, local=False):
    (cx, cy), (a, b), ang = ell
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    th = math.radians(ang)
    ex, ey = a * np.cos(t), b * np.sin(t)
    px = cx + ex * math.cos(th) - ey * math.sin(th)
    py = cy + ex * math.sin(th) + ey * math.cos(th)
    dx, dy = px - cx, py - cy
    rad = np.hypot(dx, dy)
    ux, uy = dx / rad, dy / rad
    win = max(3, int(round(0.01 * max(a, b))))          # px: wider than printed lines
    span = max(3.0 * f, 0.015 * max(a, b)) + win
    s = np.arange(-span, span + 0.01, 0.5, dtype=np.float32)   # half-px steps
    mx = (px[:, None] + ux[:, None] * s[None, :]).astype(np.float32)
    my = (py[:, None] + uy[:, None] * s[None, :]).astype(np.float32)
    samp = cv2.remap(cv2.GaussianBlur(img, (0, 0), 1.0), mx, my, cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    pal = np.asarray(layout_bgr, np.float32).reshape(-1, 3)   # the layout's colours
    d = np.sqrt(((samp[:, :, None, :] - pal[None, None]) ** 2).sum(axis=3)).min(axis=2)
    if local:
        inner = np.median(samp[:, :2 * win], axis=1)
        d = np.minimum(d, np.linalg.norm(samp - inner[:, None], axis=2))
    st = _steps(d, 2 * win)
    # the innermost strong step, not the strongest: the wall's outer edge (a floor far from
    # the layout's colour) can out-step the layout's own edge within the search span
    top = st.max(axis=1)
    i = np.argmax(st >= np.maximum(8.0, 0.12 * top)[:, None], axis=1)
    for k in range(n):
        while i[k] + 1 < st.shape[1] and st[k, i[k] + 1] > st[k, i[k]]:
            i[k] += 1
    ok = np.isfinite(st[np.arange(n), i]) & (st[np.arange(n), i] > 8)
    if ok.sum() < n // 3:
        return None
    # the step's exact place: the steepest rise of the colour distance near the window centre
    g = np.diff(d, axis=1)
    lo = np.clip(i - win, 0, g.shape[1] - 1)
    hi = np.clip(i + win, 1, g.shape[1])
    pos = np.empty(n)
    for k in range(n):
        seg = g[k, lo[k]:hi[k]]
        # the first sharp rise from the inside: where the layout ends (the wall's own shading
        # further out must not pull the edge outwards)
        j = int(np.argmax(seg >= 0.5 * seg.max())) + lo[k]
        while j + 1 < hi[k] and g[k, j + 1] > g[k, j]:
            j += 1
        if 0 < j < g.shape[1] - 1:
            g0, g1, g2 = g[k, j - 1], g[k, j], g[k, j + 1]
            den = g0 - 2 * g1 + g2
            sub = 0.5 * (g0 - g2) / den if abs(den) > 1e-6 else 0.0
        else:
            sub = 0.0
        pos[k] = s[j] + (np.clip(sub, -0.5, 0.5) + 0.5) * 0.5   # a diff sits between samples
    pts = np.stack([px + ux * pos, py + uy * pos], axis=1)[ok]
    # on artwork (issue 12) an arc where print meets the wall can hold nearly half the points a few
    # px off the layout's edge: more, smaller samples find the edge's own consensus among them
    e, inl = (_ransac_ellipse(pts, 1.0 + 0.5 * f, np.random.default_rng(1), iters=200, k=6) if local
              else _ransac_ellipse(pts, 1.0 + 0.5 * f, np.random.default_rng(1), iters=60))
    if e is None or inl.sum() < 0.6 * n:
        return None
    (cx, cy), (d1, d2), an = cv2.fitEllipse(pts[inl].astype(np.float32))
    close = np.abs(_ell_residual(pts, ((cx, cy), (d1, d2), an))) < 0.5 + 0.25 * f
    if local:
        # then only the points close to that fit, and at least half the directions must be: such
        # an arc, inside RANSAC's tolerance, would pull the fit
        if close.sum() < 0.5 * n:
            return None
        inl = close
        (cx, cy), (d1, d2), an = cv2.fitEllipse(pts[inl].astype(np.float32))
    res = _ell_residual(pts[inl], ((cx, cy), (d1, d2), an))
    return (cx, cy), (d1 / 2, d2 / 2), an, float(np.median(np.abs(res)))


def calibrate(empty_ring_img, coin_mm=DEFAULT_COIN_MM, ring_mm=DEFAULT_RING_MM, unsettled_ok=False):
    """Find the ring in a photo of the empty ring -> RingModel (boundary, background, scale).

    A band all round just inside the edge found (the wall's inner part, or a border printed on
    the layout: from above they look alike) is refused (BandRefusal), unless `unsettled_ok`:
    then, when both boundaries it leaves can be measured (band_candidates), the model of the edge
    found comes back with the band's inner side's as `band_inner` and the refusal's reason as
    `unsettled`; training in the ring settles it by the coins' size (faceid.settle), and nothing
    else takes an unsettled ring (`from_dict`)."""
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
    notes = []
    try:
        found = find_boundary(img, notes)
    except BandRefusal as exc:
        both = band_candidates(exc) if unsettled_ok else None
        if both is None:
            raise
        model = _ring_model(img, both[0], coin_mm, ring_mm, notes)
        model.band_inner = _ring_model(img, both[1], coin_mm, ring_mm, notes)
        model.unsettled = str(exc).split(";")[0]
        return model
    return _ring_model(img, found, coin_mm, ring_mm, notes)


def _ring_model(img, found, coin_mm, ring_mm, notes):
    """The RingModel of one find_boundary answer on the empty ring's photo `img`."""
    center, axes, ang, layout, edge_px = found
    h, w = img.shape[:2]
    model = RingModel((w, h), center, axes, ang, None, coin_mm, ring_mm, layout_bgr=layout, edge_px=edge_px)
    model.background = model.small(img)
    model.warnings = notes + _size_warnings(model)
    return model
