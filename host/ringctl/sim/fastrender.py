"""Cheap moving frames for the simulated camera: a cached lit empty ring plus per-frame coin patches.

`render.render_scene` redraws and relights the whole image for every frame (~160 ms at
1984x1984); only the coins change while they move. `FastRenderer.frame(spec)` draws the
empty ring once (with render_scene itself, so it is the reference image), then per frame
replays render_scene's coin drawing (shadow, edge, face; render.py's own helpers) into small
crops of the unlit background around the coins, applies the same lighting factor sampled at
the crop and writes the crops into a pre-noised copy of the background.

The coin loop below mirrors render_scene's; tests/sim/test_fastrender.py compares both
renderers pose by pose, so a change in render.py that is not mirrored here fails there.
Scenes this path does not cover (oblique ring ellipse, blur, chips) return None: the caller
falls back to render_scene.
"""
import functools
import json

import cv2
import numpy as np

from . import faces, render

BANK = 6    # pre-noised empty-ring frames; consecutive frames never reuse the same one


def supported(fs):
    """Can the fast path draw this (full) spec exactly like render_scene?"""
    return not fs["ring"].get("ellipse") and not fs.get("blur") and not fs.get("chips")


class FastRenderer:
    """Frames of a fixed ring (size, ring, layout, floor, lighting) with moving coins."""

    def __init__(self, rng=None, fast_paste=True):
        self.fast_paste = fast_paste    # False: render._paste itself (bit-exact, slower)
        self.rng = np.random.default_rng(0) if rng is None else rng
        self._key = None
        self._bg = None         # lit clean empty ring, uint8 HxWx3 (render_scene's own pixels)
        self._plane = None      # unlit background, float32 0..1 (what render_scene pastes onto)
        self._field = None      # lighting factor HxW float32
        self._bank = None       # (noise sigma, [noised bg uint8 ...])
        self._last = -1

    def _static(self, fs):
        key = json.dumps([fs["size"], fs["ring"], fs["layout"], fs["floor"], fs["lighting"]],
                         sort_keys=True, default=render._plain)
        if key == self._key:
            return
        w, h = (int(v) for v in fs["size"])
        empty = dict(fs, coins=[], chips=[], noise=0.0, jpeg=None, blur=0.0)
        self._bg, _ = render.render_scene(empty)
        self._plane = render._background(fs, w, h)
        self._field = render._lighting(np.ones((h, w, 1), np.float32), fs)[..., 0]
        self._key, self._bank = key, None

    def background(self, noise):
        """A noised empty-ring frame (a fresh copy; never the same bank entry twice in a row)."""
        if not noise:
            return self._bg.copy()
        if self._bank is None or self._bank[0] != noise:
            bank = []
            for _ in range(BANK):
                n = self.rng.standard_normal(self._bg.shape, dtype=np.float32) * float(noise)
                n += self._bg
                bank.append(np.clip(n + 0.5, 0, 255).astype(np.uint8))
            self._bank = (noise, bank)
        k = int(self.rng.integers(BANK - 1))
        k = k + 1 if k >= self._last else k         # any entry but the last one used
        self._last = k
        return self._bank[1][k].copy()

    def patches(self, spec):
        """Clean (noise-free) coin patches of `spec`: ([(x0, y0, uint8 patch)], truth), or
        (None, None) when the fast path does not cover the spec."""
        fs = render.full_spec(spec)
        if not supported(fs):
            return None, None
        self._static(fs)
        w, h = (int(v) for v in fs["size"])
        truth = render._truth(fs, render.plane_to_image(fs))
        draws, boxes = self._draw_list(fs)
        out = []
        for x0, y0, x1, y1 in _merge(boxes, w, h):
            crop = self._plane[y0:y1, x0:x1].copy()
            for (fn, args, center, radius, kw), b in zip(draws, boxes):
                if b[0] < x1 and x0 < b[2] and b[1] < y1 and y0 < b[3]:   # others miss this crop
                    fn(crop, *args, (center[0] - x0, center[1] - y0), radius, **kw)
            crop *= self._field[y0:y1, x0:x1, None]
            crop *= 255
            out.append((x0, y0, np.clip(crop + 0.5, 0, 255).astype(np.uint8)))
        return out, truth

    def compose(self, patches, noise):
        """A frame: noised background with the coin patches (each given fresh noise) written in."""
        img = self.background(noise)
        for x0, y0, p in patches:
            ph, pw = p.shape[:2]
            if noise:
                n = self.rng.standard_normal(p.shape, dtype=np.float32) * float(noise)
                n += p
                p = np.clip(n + 0.5, 0, 255).astype(np.uint8)
            img[y0:y0 + ph, x0:x0 + pw] = p
        return img

    def _draw_list(self, fs):
        """render_scene's coin drawing as a list of _paste calls (square-on camera: plane = image)."""
        li = fs["lighting"]
        az, el = float(li.get("light_az_deg", 135)), float(li.get("light_elev_deg", 70))
        sdir = -np.array([np.cos(np.deg2rad(az)), np.sin(np.deg2rad(az))]) / np.tan(np.deg2rad(max(el, 10)))
        style = fs["coin_style"]
        alpha = faces.disc_alpha()
        ring_c = np.array(fs["ring"]["center"], float)
        coins = fs["coins"]
        order = sorted(range(len(coins)), key=lambda i: 0 if coins[i].get("on_top_of") is None else 1)
        shadows, faces_, sboxes, fboxes = [], [], [], []
        col = style.get("color", [70, 120, 190])
        thick = float(style.get("thickness", 0.13))

        paste = _Paste() if self.fast_paste else render._paste

        def add(lst, args, center, radius, **kw):
            lst.append((paste, args, center, radius, kw))
            (sboxes if lst is shadows else fboxes).append((center[0] - radius - 4, center[1] - radius - 4,
                          center[0] + radius + 4, center[1] + radius + 4))

        for i in order:
            c = coins[i]
            p, r = np.array(c["center_px"], float), float(c["radius_px"])
            tilt, axis = render._coin_pose(c, ring_c, p)
            lift = r * (thick + np.sin(np.deg2rad(tilt)))
            if c.get("on_top_of") is None:
                add(shadows, (None, alpha), p + sdir * lift * 0.6, r * 1.02, tilt_deg=tilt, axis_deg=axis,
                    shade=0.35)
            face = c.get("face", "heads")
            if style.get("face_images"):
                tex = render._photo_coin(str(style["face_images"][face]), float(c.get("rotation_deg", 0.0)), col)
            else:
                tex = render._shaded_coin(faces.height_map(face, int(style.get("design", 0))),
                                          float(c.get("rotation_deg", 0.0)), az, el, col)
            if tilt > 0.5:   # the coin's edge shows on the low side of a tilted coin
                t = thick * r * np.sin(np.deg2rad(tilt))
                a = np.deg2rad(axis + 90)
                n = np.array([np.cos(a), np.sin(a)])
                if np.dot(n, p - ring_c) < 0:
                    n = -n
                edge_col = np.array(col, np.float32) / 255 * 0.55
                for k in (1.0, 0.5):
                    if self.fast_paste:
                        add(faces_, (None, alpha), p + n * t * k, r, tilt_deg=tilt, axis_deg=axis,
                            color=edge_col)
                    else:
                        add(faces_, (np.ones_like(tex) * edge_col, alpha), p + n * t * k, r,
                            tilt_deg=tilt, axis_deg=axis)
            add(faces_, (tex, alpha), p, r, tilt_deg=tilt, axis_deg=axis)
        return shadows + faces_, sboxes + fboxes


class _Paste:
    """render._paste's math with two savings for moving frames: the pre-filtered disc alpha is
    shared by the pastes of one frame with the same radius, and a constant-colour texture (the
    coin's edge) is not blurred (blurring a constant gives the constant) and is warped as one
    channel."""

    def __init__(self):
        self._alpha = {}

    def __call__(self, canvas, tex, alpha, center, radius, tilt_deg=0.0, axis_deg=0.0, shade=None,
                 color=None):
        h, w = canvas.shape[:2]
        s = radius / (faces.TEX / 2 - 1)
        if tex is not None:
            tex, _ = render._prefiltered(tex, s, cv2.BORDER_REPLICATE)
        key = 0.45 / s if s < 0.5 else 0.0
        if key not in self._alpha:
            self._alpha[key] = render._prefiltered(alpha, s)
        alpha, pad = self._alpha[key]
        warp = render._disc_warp(center, radius, s, tilt_deg, axis_deg, w, h, pad)
        if warp is None:
            return
        x0, y0, x1, y1, m, size = warp
        at = cv2.warpAffine(alpha, m, size, flags=cv2.INTER_LINEAR)[..., None]
        roi = canvas[y0:y1, x0:x1]
        if shade is not None:
            roi *= 1 - shade * at
            return
        if tex is None:   # a constant colour (its margin repeats it, as render._paste's blur does)
            tt = cv2.warpAffine(_ones(pad), m, size, flags=cv2.INTER_LINEAR)[..., None] * color
        else:
            tt = cv2.warpAffine(tex, m, size, flags=cv2.INTER_LINEAR)
        roi[:] = roi * (1 - at) + tt * at


@functools.lru_cache(maxsize=4)
def _ones(pad):
    return np.ones((faces.TEX + 2 * pad, faces.TEX + 2 * pad), np.float32)


def _merge(boxes, w, h):
    """Integer boxes clipped to the image, overlapping ones merged (so draw order holds)."""
    out = []
    for b in boxes:
        x0, y0 = max(0, int(np.floor(b[0]))), max(0, int(np.floor(b[1])))
        x1, y1 = min(w, int(np.ceil(b[2]))), min(h, int(np.ceil(b[3])))
        if x1 > x0 and y1 > y0:
            out.append([x0, y0, x1, y1])
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    out[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out
