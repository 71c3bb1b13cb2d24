"""Several cameras, one ring plane: each camera's pixels -> ring millimetres, from an ArUco sheet.

The technician's procedure (minutes, hardware/INSTALL.md section 6):
1. `ring vision sheet -o SHEET.png`: print it at 100 % (one A0 sheet, 25 markers of 130 mm).
2. Lay it flat near the ring's centre (exact place and turn do not matter) and take one
   frame from every camera; remove it and take one frame of the empty ring from every camera.
3. `ring vision calibrate-views --camera A SHEET_A.png EMPTY_A.png --camera B ... -o RIG.json`.

Each camera's homography (image px -> sheet mm) comes from the marker corners it sees. The
ring's known diameter then fixes the ring centre: the layout's edge, found along rays in every
view and mapped to mm, is fitted with a circle of that diameter (and with a free diameter too,
as a check of the scale: a wrong sheet print size or a camera that moved shows there). The
result, `Rig`, holds one `CameraView` per camera: the homography to ring mm (centre = 0) and
the single-view RingModel (boundary, background, scale) that `judge.classify` needs.
"""
import json
import math

import cv2
import numpy as np

from ..errors import UserError
from .ring import DEFAULT_COIN_MM, RingModel, _size_warnings

ARUCO_DICT = cv2.aruco.DICT_4X4_50
SHEET_GRID = 5            # markers per side
SHEET_MARKER_MM = 130.0
SHEET_GAP_MM = 40.0       # one A0 sheet: 5 x 130 + 4 x 40 = 810 mm square
MIN_MARKERS = 2           # 8 corners; 4 or more recommended
MAX_REPROJ_MM = 3.0       # marker corners must fit the plane this well


def sheet_corners(grid=SHEET_GRID, marker_mm=SHEET_MARKER_MM, gap_mm=SHEET_GAP_MM):
    """{marker id: (4, 2) corner positions in sheet mm (centre 0, +y up), ArUco corner order}."""
    pitch = marker_mm + gap_mm
    half = (grid * marker_mm + (grid - 1) * gap_mm) / 2
    out = {}
    for k in range(grid * grid):
        i, j = divmod(k, grid)                     # row i from the top, column j
        x0, y0 = -half + j * pitch, half - i * pitch
        out[k] = np.array([[x0, y0], [x0 + marker_mm, y0], [x0 + marker_mm, y0 - marker_mm],
                           [x0, y0 - marker_mm]], np.float64)
    return out


def sheet_image(px_per_mm=4.0, grid=SHEET_GRID, marker_mm=SHEET_MARKER_MM, gap_mm=SHEET_GAP_MM,
                margin_mm=15.0):
    """The printable sheet (grey uint8), its centre at the image centre."""
    d = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    side_mm = grid * marker_mm + (grid - 1) * gap_mm + 2 * margin_mm
    n = int(round(side_mm * px_per_mm))
    img = np.full((n, n), 255, np.uint8)
    c = n / 2
    for k, corners in sheet_corners(grid, marker_mm, gap_mm).items():
        x0, y0 = corners[0]
        m = int(round(marker_mm * px_per_mm))
        mk = cv2.aruco.generateImageMarker(d, k, m)
        u, v = int(round(c + x0 * px_per_mm)), int(round(c - y0 * px_per_mm))
        img[v:v + m, u:u + m] = mk
    cv2.putText(img, "ring calibration sheet: print at 100%%, markers %.0f mm" % marker_mm,
                (int(margin_mm * px_per_mm * 0.3), n - int(margin_mm * px_per_mm * 0.3)),
                cv2.FONT_HERSHEY_SIMPLEX, px_per_mm * 0.35, 0, max(1, int(px_per_mm / 2)), cv2.LINE_AA)
    return img


def sheet_homography(img):
    """(3x3 image px -> sheet mm, markers used, RMS corner error mm) from one photo of the sheet."""
    grey = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICT),
                                  cv2.aruco.DetectorParameters())
    corners, ids, _ = det.detectMarkers(grey)
    known = sheet_corners()
    src, dst, used = [], [], []
    if ids is not None:
        for c, i in zip(corners, ids.ravel()):
            if int(i) in known:
                src.append(c.reshape(4, 2))
                dst.append(known[int(i)])
                used.append(int(i))
    if len(used) < MIN_MARKERS:
        raise UserError(f"the calibration sheet shows {len(used)} marker(s) in this camera's view, "
                        f"need {MIN_MARKERS} or more (4+ better): move the sheet so this camera sees "
                        "more of it, flat, lit evenly, without glare")
    src, dst = np.concatenate(src), np.concatenate(dst)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01)
    src = cv2.cornerSubPix(grey, src.astype(np.float32).reshape(-1, 1, 2), (5, 5), (-1, -1),
                           crit).reshape(-1, 2).astype(np.float64)
    H, _ = cv2.findHomography(src, dst, 0)
    err = float(np.sqrt(np.mean(np.sum((_apply(H, src) - dst) ** 2, axis=1))))
    if not np.isfinite(err) or err > MAX_REPROJ_MM:
        raise UserError(f"the sheet's markers do not fit one flat plane (corner error {err:.1f} mm): "
                        "lay the sheet flat, without folds, and photograph it again")
    return H, sorted(used), err


def _apply(H, pts):
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    p = np.hstack([pts, np.ones((len(pts), 1))]) @ H.T
    return p[:, :2] / p[:, 2:3]


class CameraView:
    """One camera of the rig: homography image px -> ring mm (ring centre 0, +y up) and the
    single-view RingModel (boundary, background, coin scale) the judge uses on its frames."""

    def __init__(self, name, H, ring_model, coin_mm=DEFAULT_COIN_MM):
        self.name = str(name)
        self.H = np.asarray(H, np.float64)
        self.Hinv = np.linalg.inv(self.H)
        self.ring = ring_model
        self.coin_mm = float(coin_mm)

    @property
    def image_size(self):
        return self.ring.image_size

    def to_mm(self, pts):
        return _apply(self.H, pts)

    def to_px(self, pts_mm):
        return _apply(self.Hinv, pts_mm)

    def px_per_mm(self, pts_mm):
        """Smallest image px per mm of layout at each point (the homography's local scale)."""
        pts_mm = np.asarray(pts_mm, np.float64).reshape(-1, 2)
        e = 0.5
        dx = (self.to_px(pts_mm + [e, 0]) - self.to_px(pts_mm - [e, 0])) / (2 * e)
        dy = (self.to_px(pts_mm + [0, e]) - self.to_px(pts_mm - [0, e])) / (2 * e)
        J = np.stack([dx, dy], axis=2)                       # (N, 2, 2) Jacobian mm -> px
        return np.linalg.svd(J, compute_uv=False)[:, -1]

    def whole_in_view(self, pts_mm, radius_mm, margin_px=2.0):
        """True where a disc of radius_mm around the point lies wholly inside the frame."""
        pts_mm = np.asarray(pts_mm, np.float64).reshape(-1, 2)
        w, h = self.image_size
        ok = np.ones(len(pts_mm), bool)
        for a in np.linspace(0, 2 * np.pi, 12, endpoint=False):
            p = self.to_px(pts_mm + radius_mm * np.array([math.cos(a), math.sin(a)]))
            ok &= (p[:, 0] >= margin_px) & (p[:, 1] >= margin_px) & \
                  (p[:, 0] <= w - 1 - margin_px) & (p[:, 1] <= h - 1 - margin_px)
        return ok

    def to_dict(self):
        return {"name": self.name, "H": self.H.tolist(), "coin_mm": self.coin_mm,
                "ring": self.ring.to_dict()}

    @classmethod
    def from_dict(cls, d):
        return cls(d["name"], d["H"], RingModel.from_dict(d["ring"]), d.get("coin_mm", DEFAULT_COIN_MM))


def ring_model_for(H_img_to_mm, empty_img, ring_mm, coin_mm=DEFAULT_COIN_MM, edge_px=0.5):
    """The single-view RingModel of a camera whose pixels map to ring mm by H: the ring circle's
    image (an ellipse; a circle for a camera square above the layout) and the empty background."""
    h, w = empty_img.shape[:2]
    a = np.linspace(0, 2 * np.pi, 180, endpoint=False)
    R = ring_mm / 2
    pts = _apply(np.linalg.inv(H_img_to_mm), np.stack([R * np.cos(a), R * np.sin(a)], 1))
    (cx, cy), (d1, d2), ang = cv2.fitEllipse(pts.astype(np.float32))
    axes = (d1 / 2, d2 / 2)
    if axes[0] < axes[1]:
        axes, ang = (axes[1], axes[0]), ang + 90
    model = RingModel((w, h), (cx, cy), axes, ang % 180, None, coin_mm, ring_mm, edge_px=edge_px)
    model.background = model.small(empty_img)
    model.warnings = _size_warnings(model)
    return model


class Rig:
    """All cameras over one ring (saved as one RIG.json)."""

    def __init__(self, views, ring_mm, coin_mm=DEFAULT_COIN_MM, report=None):
        self.views = list(views)
        self.ring_mm, self.coin_mm = float(ring_mm), float(coin_mm)
        self.report = dict(report or {})

    def to_json(self):
        return json.dumps({"kind": "ringctl.vision.Rig", "version": 1, "ring_mm": self.ring_mm,
                           "coin_mm": self.coin_mm, "report": self.report,
                           "views": [v.to_dict() for v in self.views]})

    def save(self, path):
        with open(path, "w") as f:
            f.write(self.to_json())

    @classmethod
    def load(cls, path):
        try:
            with open(path) as f:
                d = json.load(f)
        except OSError as exc:
            raise UserError(f"cannot read camera rig {path} ({exc.strerror}); make one with "
                            "'ring vision calibrate-views'")
        except ValueError as exc:
            raise UserError(f"camera rig {path} is not JSON ({exc}); make one with 'ring vision calibrate-views'")
        if not isinstance(d, dict) or d.get("kind") != "ringctl.vision.Rig" or not d.get("views"):
            raise UserError(f"{path} is not a camera rig; make one with 'ring vision calibrate-views'")
        return cls([CameraView.from_dict(v) for v in d["views"]], d["ring_mm"], d.get("coin_mm", DEFAULT_COIN_MM),
                   d.get("report"))


def edge_points(empty_img, H, ring_mm, n_rays=720, step_mm=2.0):
    """Layout-edge points (mm, in H's plane) seen by one camera: along rays from the plane's
    origin (the sheet lay near the ring centre), the first strong, lasting step away from the
    layout's colour between 0.7 and 1.25 ring radii. Rays leaving the frame are skipped."""
    R = ring_mm / 2
    h, w = empty_img.shape[:2]
    rr = np.arange(0.7 * R, 1.25 * R, step_mm)
    ang = np.linspace(0, 2 * np.pi, n_rays, endpoint=False)
    mm = np.stack([np.cos(ang)[:, None] * rr[None, :], np.sin(ang)[:, None] * rr[None, :]], 2)
    px = _apply(np.linalg.inv(H), mm.reshape(-1, 2)).reshape(n_rays, len(rr), 2).astype(np.float32)
    inside = (px[..., 0] >= 1) & (px[..., 1] >= 1) & (px[..., 0] <= w - 2) & (px[..., 1] <= h - 2)
    img = cv2.GaussianBlur(empty_img, (0, 0), 1.5)
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)
    samp = cv2.remap(lab, px[..., 0], px[..., 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    inner = (rr < 0.85 * R)
    rows = inside[:, inner].all(axis=1) & inside.all(axis=1)
    if not rows.any():
        return np.empty((0, 2))
    layout = np.median(samp[rows][:, inner].reshape(-1, 3), axis=0)
    d = np.sqrt(((samp - layout) ** 2).sum(axis=2))
    win = max(3, int(round(30 / step_mm)))      # ~3 cm: wider than printed lines
    c = np.cumsum(np.pad(d, ((0, 0), (1, 0))), axis=1)
    k = np.arange(win, len(rr) - win)
    st = np.full(d.shape, -np.inf, np.float32)
    st[:, k] = (c[:, k + win] - c[:, k]) / win - (c[:, k] - c[:, k - win]) / win
    out = []
    for i in np.nonzero(rows)[0]:
        m = st[i].max()
        if not np.isfinite(m) or m < 12:
            continue
        j = int(np.argmax(st[i] >= 0.8 * m))
        while j + 1 < len(rr) and st[i, j + 1] > st[i, j]:
            j += 1
        out.append(mm[i, j])
    return np.array(out).reshape(-1, 2)


def fit_ring(points_mm, radius_mm=None, iters=30):
    """Circle through edge points: (centre, radius, median |residual| mm, inliers). With
    radius_mm the radius is held at the ring's known size and only the centre is fitted."""
    p = np.asarray(points_mm, np.float64)
    keep = np.ones(len(p), bool)
    c = p.mean(axis=0)
    r = radius_mm or float(np.mean(np.hypot(*(p - c).T)))
    for _ in range(iters):
        q = p[keep]
        for _ in range(10):                      # Gauss-Newton on the kept points
            d = np.hypot(*(q - c).T)
            res = d - r
            J = np.column_stack([-(q - c) / d[:, None], -np.ones(len(q))]) if radius_mm is None \
                else -(q - c) / d[:, None]
            step = np.linalg.lstsq(J, -res, rcond=None)[0]
            c = c + step[:2]
            if radius_mm is None:
                r = r + step[2]
        res = np.abs(np.hypot(*(p - c).T) - r)
        new = res < max(3.0, 3 * np.median(res[keep]))
        if (new == keep).all():
            break
        keep = new
    return c, float(r), float(np.median(res[keep])), keep


def calibrate_rig(cameras, ring_mm, coin_mm=DEFAULT_COIN_MM):
    """cameras: [(name, sheet_img, empty_img)] -> Rig (views in ring mm) with its report."""
    if not cameras:
        raise UserError("no camera given: --camera NAME SHEET.png EMPTY.png, once per camera")
    if not (coin_mm > 0 and ring_mm > coin_mm * 4):
        raise UserError(f"coin {coin_mm} mm / ring {ring_mm} mm is not plausible; "
                        "give --coin-mm (e.g. 30.8) and --ring-mm (the ring's inner diameter)")
    Hs, report, pts = [], {"cameras": []}, []
    for name, sheet, empty in cameras:
        if sheet.shape[:2] != empty.shape[:2]:
            raise UserError(f"camera {name}: the sheet photo and the empty-ring photo differ in size; "
                            "take both with the same camera setting")
        try:
            H, used, err = sheet_homography(sheet)
        except UserError as exc:
            raise UserError(f"camera {name}: {exc}")
        Hs.append(H)
        e = edge_points(empty, H, ring_mm)
        pts.append(e)
        report["cameras"].append({"name": name, "markers": len(used), "corner_rms_mm": round(err, 2),
                                  "edge_points": len(e)})
    allp = np.concatenate(pts)
    if len(allp) < 60:
        raise UserError(f"the ring's edge was found at only {len(allp)} places in all views: the "
                        "cameras together must see the layout's edge, with the wall distinct from it")
    c_free, r_free, _, _ = fit_ring(allp)
    c, _, res, keep = fit_ring(allp, radius_mm=ring_mm / 2)
    scale_err = (2 * r_free - ring_mm) / ring_mm
    report["ring"] = {"centre_in_sheet_mm": [round(float(v), 1) for v in c],
                      "edge_points_used": int(keep.sum()), "edge_residual_mm": round(res, 2),
                      "measured_diameter_mm": round(2 * r_free, 1), "known_diameter_mm": ring_mm}
    if keep.sum() < 0.6 * len(allp) or res > 8.0:
        raise UserError(f"the edge found in the views is not the ring of {ring_mm:.0f} mm (only "
                        f"{int(keep.sum())} of {len(allp)} edge points fit, residual {res:.1f} mm): "
                        "check --ring-mm and that the empty-ring photos show nothing on the layout")
    if abs(scale_err) > 0.02:
        raise UserError(f"the ring measures {2 * r_free:.0f} mm across in the calibrated views but "
                        f"--ring-mm says {ring_mm:.0f}: print the sheet at 100 % (markers "
                        f"{SHEET_MARKER_MM:.0f} mm), lay it flat, or correct --ring-mm")
    T = np.array([[1, 0, -c[0]], [0, 1, -c[1]], [0, 0, 1.0]])
    views = []
    for (name, sheet, empty), H in zip(cameras, Hs):
        Hr = T @ H
        edge_px = float(res * np.median(CameraView(name, Hr, None).px_per_mm([[0.0, 0.0]])))
        views.append(CameraView(name, Hr, ring_model_for(Hr, empty, ring_mm, coin_mm,
                                                         edge_px=min(max(edge_px, 0.3), 3.0)), coin_mm))
    rig = Rig(views, ring_mm, coin_mm, report)
    from .coverage import coverage
    rig.report["coverage"] = coverage(rig)
    return rig
