"""The simulated overhead camera: coin poses -> pinhole projection -> scene spec -> rendered frame.

`CameraSource(toss, ...)` is a frame source like the vision package's (`read() -> (frame or
None, t_s)`, `size`, `fps`, `close()`), replaying a toss in real time (a live camera) or as
fast as asked (a recording). Frames are drawn by `render.render_scene` from a
plain-dict spec; `scene_spec()` is the one place that maps physics to that spec. With the vision renderer,
frames are composed by `fastrender.FastRenderer` (cached lit empty ring + per-frame coin
patches, ~10x cheaper while coins move); `fast=False` renders every new scene in full.

A real camera costs the host nothing to take a picture: its frames arrive on its own clock.
So that the simulator does not compete with the host for the CPU while a toss plays (the host's
latency would then measure the simulator), `prepare(toss, phase_s)` draws a toss's frames
before it is released, on the camera's frame grid (the physics is known in advance): every
moving frame's coin patches, and a bank of noised frames of the coins at rest. Played in real
time, a prepared frame costs one copy of the noised empty ring (while coins move) or nothing
(once they rest: a read-only bank frame); frames are never changed in place by their readers.
"""
import math
import json
import time
from dataclasses import dataclass

import cv2
import numpy as np

from ..vision.sources import Source
from .geometry import RingGeometry, quat_to_matrix
from .fastrender import FastRenderer
from .render import render_scene

RENDER_FLAT_DEG = 2.0   # rest tilt below this is contact-margin noise in the engine: draw flat
NOISE_BANK = 6          # pre-drawn noise frames, picked at random per frame
REST_BANK = 4           # prepared noised frames of the coins at rest (never the same twice running)


def placeholder_render(spec, rng=None):
    """A cheap drawing with render_scene's signature (green disc, copper coins, H/T letter):
    for tests that need frames from a toss, not frames the vision can judge."""
    w, h = spec.get("size", [960, 720])
    img = np.full((h, w, 3), (100, 100, 100), np.uint8)
    ring = spec.get("ring", {})
    c = tuple(int(v) for v in ring.get("center", [w / 2, h / 2]))
    cv2.circle(img, c, int(ring.get("radius", 0.42 * min(w, h))), (35, 105, 40), -1)
    for coin in spec.get("coins", []):
        x, y = coin["center_px"]
        r = coin["radius_px"]
        ax = (int(r), max(1, int(r * np.cos(np.deg2rad(coin.get("tilt_deg", 0))))))
        cv2.ellipse(img, (int(x), int(y)), ax, coin.get("tilt_axis_deg", 0), 0, 360, (70, 120, 190), -1)
        cv2.putText(img, "H" if coin.get("face") == "heads" else "T", (int(x - r / 3), int(y + r / 3)),
                    cv2.FONT_HERSHEY_SIMPLEX, max(0.3, r / 25), (20, 40, 60), 2)
    return img, {"coins": spec.get("coins", [])}


@dataclass
class PinholeCamera:
    """A camera looking straight down from `height_m` above the point (x_m, y_m) of the layout
    (default the ring centre; +x right, +y up). Several of them over one ring: sim/cameras.py."""
    ring: RingGeometry
    size: tuple = (1280, 1280)
    px_per_m: float = None       # at the layout surface; None: fit the ring and wall in view
    height_m: float = 4.0        # above the coins' highest apex, as a ceiling mount would be
    x_m: float = 0.0
    y_m: float = 0.0

    def __post_init__(self):
        w, h = self.size
        if self.px_per_m is None:
            outer = self.ring.wall_radius_m + self.ring.wall_thickness_m
            self.px_per_m = 0.48 * min(w, h) / outer
        self.f = self.px_per_m * self.height_m
        self.cx, self.cy = w / 2, h / 2

    @classmethod
    def for_coin_px(cls, ring, coin_px=40, coin_diameter_m=0.0308, **kw):
        """The smallest square image showing the whole ring with coins `coin_px` across."""
        ppm = coin_px / coin_diameter_m
        outer = ring.wall_radius_m + ring.wall_thickness_m
        side = int(np.ceil(2 * outer * ppm / 0.96 / 16) * 16)
        return cls(ring, size=(side, side), px_per_m=ppm, **kw)

    def project(self, xyz):
        """World point -> (u, v, px per metre at its depth)."""
        x, y, z = xyz
        depth = max(self.height_m - z, 0.05)
        s = self.f / depth
        return self.cx + s * (x - self.x_m), self.cy - s * (y - self.y_m), s

    def to_world(self, u, v):
        """Image px -> the point of the layout surface (z = 0) it shows."""
        return (u - self.cx) / self.px_per_m + self.x_m, -(v - self.cy) / self.px_per_m + self.y_m

    def homography_mm(self):
        """3x3 image px -> layout mm (ring centre = 0, +y up): the truth a calibration finds."""
        k = 1000.0 / self.px_per_m
        return np.array([[k, 0, -k * self.cx + 1000 * self.x_m],
                         [0, -k, k * self.cy + 1000 * self.y_m], [0, 0, 1.0]])


def scene_spec(cam, pos, quat, coin, noise=2.0, jpeg=None, extra=None):
    """Render spec (see render.SPEC_DOC) for both coins at poses pos (2,3), quat (2,4)."""
    ring = cam.ring
    rot = quat_to_matrix(np.asarray(quat)) if len(pos) else []
    coins, zs = [], []
    for i in range(len(pos)):
        u, v, s = cam.project(pos[i])
        R = rot[i]
        n = R[:, 2]                                   # heads normal
        to_cam = np.array([0, 0, cam.height_m]) - pos[i]
        heads = float(np.dot(n, to_cam)) > 0
        nv = n if heads else -n                       # normal of the face the camera sees
        tilt = float(np.degrees(np.arccos(np.clip(nv[2], -1, 1))))
        if tilt < RENDER_FLAT_DEG:
            tilt = 0.0
        xa = R[:, 0] if heads else -R[:, 0]           # the visible face's own x axis, mirrored
        rotation = float(np.degrees(np.arctan2(-xa[1], xa[0])))
        axis = float(np.degrees(np.arctan2(-nv[1], nv[0]))) + 90.0
        coins.append({"center_px": [float(u), float(v)], "radius_px": float(s * coin.radius_m),
                      "face": "heads" if heads else "tails", "rotation_deg": rotation % 360,
                      "tilt_deg": min(tilt, 89.0), "tilt_axis_deg": axis % 360})
        zs.append(float(pos[i][2]))
    # a coin above and overlapping the other is drawn over it
    if len(coins) == 2:
        d = np.hypot(*np.subtract(coins[0]["center_px"], coins[1]["center_px"]))
        if d < coins[0]["radius_px"] + coins[1]["radius_px"]:
            top = 0 if zs[0] > zs[1] else 1
            coins[top]["on_top_of"] = 1 - top
            coins[top]["tilt_deg"] = max(coins[top]["tilt_deg"], 0.5)
    wall_px = (ring.gutter_m + ring.wall_thickness_m) * cam.px_per_m
    spec = {"size": [int(cam.size[0]), int(cam.size[1])],
            "ring": {"center": [cam.cx - cam.x_m * cam.px_per_m, cam.cy + cam.y_m * cam.px_per_m],
                     "radius": ring.layout_radius_m * cam.px_per_m,
                     "wall_px": wall_px},
            "noise": noise, "jpeg": jpeg, "coins": coins}
    if extra:
        spec.update(extra)
    return spec


class CameraSource(Source):
    """Frames of a simulated toss. Real time: `read()` paces to `fps` and shows the pose at
    (now - release); after the toss the coins stay where they rested. Not real time: frame
    k shows t = start_s + k / fps and the source ends `still_s` after the toss ends.

    `play(toss, t0)` switches to the next toss (t0 = time.monotonic() of its release).
    With no toss yet, the ring is empty. t_s of a real-time frame is seconds since open.
    """

    def __init__(self, toss=None, ring=None, size=None, coin_px=None, fps=30.0, realtime=True,
                 noise=2.0, jpeg=None, seed=0, t0=None, start_s=0.0, still_s=1.0, extra=None,
                 render=None, fast=True, cam=None):
        ring = toss.ring if toss is not None else (ring or RingGeometry())
        if cam is not None:      # one view of several (sim/cameras.py)
            self.cam = cam
        elif coin_px:
            self.cam = PinholeCamera.for_coin_px(ring, coin_px)
        else:
            self.cam = PinholeCamera(ring, size=tuple(size) if size else (1280, 1280))
        self.size = tuple(self.cam.size)
        self.fps = float(fps)
        self.realtime = realtime
        self.noise, self.jpeg, self.extra = noise, jpeg, extra
        self.rng = np.random.default_rng(seed)
        self.render = render or render_scene
        self._fast = None
        if fast and render is None:
            self._fast = FastRenderer(self.rng)
        self.still_s = still_s
        self._clock0 = time.monotonic()
        self._next = self._clock0
        self._k = 0
        self._start_s = start_s
        self.last_spec = None
        self.last_truth = None
        self.toss = None
        self.t0 = None
        self.stalled = False
        self._clean_key = None
        self._clean = None
        self._bank = None
        self._prep = None          # a prepared toss (see prepare)
        self._rest_last = -1
        self.prepared_frames = 0   # frames delivered from a preparation (not drawn live)
        self.live_frames = 0       # frames of a toss drawn as they were read (real time)
        if toss is not None:
            self.play(toss, t0)

    @property
    def coin_px(self):
        """Diameter of a coin lying on the layout, in px (vision needs about 40)."""
        coin = self.toss.coin if self.toss is not None else None
        return 2 * (coin.radius_m if coin else 0.0154) * self.cam.px_per_m

    def play(self, toss, t0=None):
        """Show `toss` released at t0 (time.monotonic(); default now); None: the empty ring."""
        self.t0 = time.monotonic() if t0 is None else t0     # t0 first: a reader never pairs
        self._k = 0                                          # the new toss with the old t0
        self.toss = toss

    def _spec(self, toss, t):
        if toss is None:
            return scene_spec(self.cam, [], [], None, self.noise, self.jpeg, self.extra)
        pos, quat = toss.pose_at(t)
        return scene_spec(self.cam, pos, quat, toss.coin, self.noise, self.jpeg, self.extra)

    def prepare(self, toss, phase_s, lead_s=0.3, after_s=0.5):
        """Draw `toss`'s frames ahead, for frames taken at toss times phase_s + k / fps (from
        lead_s before the release to after_s past the toss's end; later ones show the coins at
        rest). -> True, or False when this camera cannot (no fast renderer, JPEG, a scene the
        fast path does not draw): it then draws live."""
        if self._fast is None or self.jpeg or toss is None:
            return False
        k0 = -int(math.ceil(lead_s * self.fps)) - 1
        k1 = int(math.ceil((toss.duration_s + after_s - phase_s) * self.fps))
        end = self._spec(toss, toss.duration_s + after_s)
        end_key = json.dumps(dict(end, noise=0, jpeg=None), sort_keys=True)
        patches, truth = self._fast.patches(end)
        if patches is None:
            return False
        rest = []
        for _ in range(REST_BANK):
            f = self._fast.compose(patches, self.noise)
            f.flags.writeable = False        # handed out many times: nobody may change it
            rest.append(f)
        frames = []
        for k in range(k0, k1 + 1):
            spec = self._spec(toss, phase_s + k / self.fps)
            if json.dumps(dict(spec, noise=0, jpeg=None), sort_keys=True) == end_key:
                frames.append((spec, None, truth))
                continue
            p, tr = self._fast.patches(spec)
            if p is None:
                return False
            frames.append((spec, p, tr))
        self._prep = {"toss": toss, "phase": phase_s, "k0": k0, "frames": frames,
                      "rest": (end, rest, truth)}
        return True

    def _prepared(self, t):
        """The prepared frame taken at toss time t, or None (not prepared: drawn live)."""
        prep, toss = self._prep, self.toss
        if prep is None or toss is None or prep["toss"] is not toss:
            return None
        k = int(round((t - prep["phase"]) * self.fps))
        if abs(prep["phase"] + k / self.fps - t) > 1e-4 or k < prep["k0"]:
            return None
        i = k - prep["k0"]
        spec, patches, truth = prep["frames"][i] if i < len(prep["frames"]) else (None, None, None)
        if patches is None:                  # the coins at rest
            spec, bank, truth = prep["rest"]
            j = int(self.rng.integers(len(bank) - 1))
            j = j + 1 if j >= self._rest_last else j
            self._rest_last = j
            img = bank[j]
        else:
            img = self._fast.compose(patches, self.noise)
        self.last_spec, self.last_truth = spec, truth
        self._clean_key = None               # the live path draws its next scene afresh
        self.prepared_frames += 1
        return img

    def frame_at(self, t):
        """Render the scene at toss time t (s after release); None toss: the empty ring."""
        toss = self.toss             # one read: play() may swap it from another thread
        spec = self._spec(toss, t)
        self.last_spec = spec
        key = json.dumps(dict(spec, noise=0, jpeg=None), sort_keys=True)
        if self._fast is not None:
            if key != self._clean_key:
                self._patches, truth = self._fast.patches(spec)
                if self._patches is not None:
                    self.last_truth, self._clean_key, self._clean = truth, key, None
            if key == self._clean_key and self._clean is None:
                # coins moving or still: only their patches are drawn and noised per frame
                return self._jpeg(self._fast.compose(self._patches, self.noise))
        if key != self._clean_key:
            # a new scene: render it clean once; a still scene (coins at rest, empty ring)
            # is then only re-noised per frame, ~20x cheaper than a full render
            clean = dict(spec, noise=0.0, jpeg=None)
            self._clean, self.last_truth = self.render(clean, self.rng)
            self._clean_key = key
        return self._sensor(self._clean)

    def _sensor(self, clean):
        """Sensor noise (Gaussian, sigma = noise grey levels) and JPEG on a clean frame."""
        img = clean
        if self.noise:
            if self._bank is None or self._bank[0][0].shape != clean.shape:
                self._bank = []
                for _ in range(NOISE_BANK):
                    n = np.rint(self.rng.standard_normal(clean.shape, dtype=np.float32) * self.noise)
                    self._bank.append((np.clip(n, 0, 255).astype(np.uint8),
                                       np.clip(-n, 0, 255).astype(np.uint8)))
            pos, neg = self._bank[int(self.rng.integers(NOISE_BANK))]
            img = cv2.subtract(cv2.add(clean, pos), neg)
        elif img is clean:
            img = clean.copy()
        return self._jpeg(img)

    def _jpeg(self, img):
        if self.jpeg:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(self.jpeg)])
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return img

    def stall(self, on=True):
        """Fault drill: a stalled camera delivers no frames (read() -> (None, t) each period)."""
        self.stalled = on

    def read(self):
        if self.stalled:
            time.sleep(1 / self.fps)
            return None, time.monotonic() - self._clock0
        if not self.realtime:
            t = self._start_s + self._k / self.fps
            if self.toss is not None and t > self.toss.duration_s + self.still_s:
                return None, None
            self._k += 1
            return self.frame_at(t), t
        now = time.monotonic()
        if self._next > now:
            time.sleep(self._next - now)
            taken = self._next
        else:
            # a slow reader gets the newest frame taken, not a backlog (as a live camera drops
            # frames); frames are taken on the camera's own clock
            taken = self._next + math.floor((now - self._next) * self.fps) / self.fps
        self._next = taken + 1 / self.fps
        t0 = self.t0
        t = (taken - t0) if t0 is not None else 0.0
        frame = self._prepared(t) if t0 is not None else None
        if frame is None:
            frame = self.frame_at(t)
            self.live_frames += self.toss is not None
        return frame, taken - self._clock0

    def next_frame_at(self, t):
        """time.monotonic() of the first frame this camera takes at or after t."""
        n = math.ceil(round((t - self._next) * self.fps, 6))
        return self._next + max(0, n) / self.fps

    def share_clock(self, other):
        """Take frames on `other`'s clock (cameras of one rig, triggered together)."""
        self._clock0, self._next = other._clock0, other._next

    def still_frames(self, n=3):
        """n frames of the coins at rest (fresh sensor noise each)."""
        t = self.toss.duration_s if self.toss is not None else 0.0
        return [self.frame_at(t) for _ in range(n)]

    def close(self):
        self.toss = None

