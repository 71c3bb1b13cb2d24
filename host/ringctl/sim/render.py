"""Renderer of overhead Two-Up ring scenes with ground truth: the project's own camera test data.

`render_scene(spec, rng) -> (image_bgr uint8 HxWx3, truth dict)`. `spec` is a plain dict
(JSON-able); every key is optional and documented in SPEC_DOC below. The simulator turns
physics poses into such a spec to make camera frames.

Geometry: the ring lies in a plane seen by the camera. With `ring.ellipse` the camera is
oblique and the plane appears squashed by an affine map (ring circle -> ellipse); flat coins
then appear as ellipses with the same axis ratio, as they would in a real oblique view.
Coin and chip `center_px` are IMAGE pixels; `radius_px` is the radius in the ring plane at
image scale (= the image radius along the ellipse's long axis).
"""
import copy
import functools
import json

import cv2
import numpy as np

from . import faces

SPEC_DOC = {
    "size": "[width, height] px; default [960, 720]",
    "ring": "{center: [x,y] px (default image centre), radius: inner radius px (default 0.42*min(w,h)),"
            " ellipse: null | {ratio: short/long axis 0<r<=1, angle_deg: long-axis direction},"
            " wall_px: wall width px (default radius/12), wall_color: [b,g,r]}",
    "layout": "{color: [b,g,r] (default green felt), texture: 'plain'|'felt'|'pattern',"
              " strength: 0..0.5 texture contrast, seed: int (same seed = same physical layout), ink: [b,g,r] print, boxes: [[x0,y0,x1,y1,t]]}",
    "floor": "{color: [b,g,r], strength, seed}: what is outside the ring wall",
    "lighting": "{gain: 1.0, gradient: [gx, gy] relative brightness change edge-to-centre,"
                " vignette: 0..1 corner darkening, light_az_deg: 135, light_elev_deg: 70 (coin"
                " relief shading and shadow direction), shadows: [{center:[x,y], axes:[a,b],"
                " angle_deg, strength: 0..1, softness: px}] (e.g. a person's shadow)}",
    "blur": "Gaussian defocus sigma px (0 = sharp)",
    "noise": "sensor noise sigma in grey levels (0..255)",
    "jpeg": "null or JPEG quality 1..100 (the frame is encoded and decoded)",
    "coin_style": "{color: [b,g,r] metal colour (default copper), design: int (which coin),"
                  " thickness: coin thickness / radius (default 0.13), face_images: null |"
                  " {heads: path, tails: path} photos of real coin faces (square, coin filling it)"
                  " used instead of the procedural designs}",
    "coins": "[{center_px: [x,y], radius_px, face: 'heads'|'tails', rotation_deg, tilt_deg (0 = flat),"
             " tilt_axis_deg (axis the coin is rotated about; default tangent to the wall),"
             " leaning: bool (resting on the ring wall; default tilt 70), on_top_of: index of the coin"
             " it lies on (drawn after it; default tilt 5)}]",
    "chips": "[{center_px, radius_px, color: [b,g,r], kind: 'chip'|'token', spots: null | [b,g,r] edge"
             " spot colour (default a pale tint of color), n_spots: 8}] round non-coin objects",
}

DEFAULT_SPEC = {
    "size": [960, 720],
    "ring": {},
    "layout": {"color": [40, 105, 35], "texture": "felt", "strength": 0.08, "seed": 0},
    "floor": {"color": [95, 100, 110], "strength": 0.12, "seed": 1},
    "lighting": {"gain": 1.0, "gradient": [0.0, 0.0], "vignette": 0.0, "light_az_deg": 135.0,
                 "light_elev_deg": 70.0, "shadows": []},
    "blur": 0.0,
    "noise": 0.0,
    "jpeg": None,
    "coin_style": {"color": [70, 120, 190], "design": 0, "thickness": 0.13},
    "coins": [],
    "chips": [],
}


def full_spec(spec):
    """`spec` merged over DEFAULT_SPEC, with derived ring defaults filled in."""
    out = copy.deepcopy(DEFAULT_SPEC)
    for k, v in (spec or {}).items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k].update(v)
        else:
            out[k] = copy.deepcopy(v)
    w, h = (int(x) for x in out["size"])
    ring = out["ring"]
    ring.setdefault("center", [w / 2, h / 2])
    ring.setdefault("radius", 0.42 * min(w, h))
    ring.setdefault("ellipse", None)
    ring.setdefault("wall_px", max(6.0, ring["radius"] / 12))
    ring.setdefault("wall_color", [45, 85, 135])
    return out


def plane_to_image(spec):
    """2x3 affine taking ring-plane px to image px (identity for a square-on camera)."""
    ring = spec["ring"]
    cx, cy = ring["center"]
    ell = ring.get("ellipse")
    if not ell:
        return np.array([[1, 0, 0], [0, 1, 0]], np.float64)
    t = np.deg2rad(ell.get("angle_deg", 0.0))
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    lin = rot @ np.diag([1.0, float(ell["ratio"])]) @ rot.T
    off = np.array([cx, cy]) - lin @ np.array([cx, cy])
    return np.hstack([lin, off[:, None]])


def _inv(m):
    return cv2.invertAffineTransform(m.astype(np.float64))


def _noise_field(seed, w, h, scale):
    """Smooth random field in about -1..1, deterministic per seed (a layout's texture)."""
    rng = np.random.default_rng(seed)
    sw, sh = max(2, int(w / scale)), max(2, int(h / scale))
    small = rng.standard_normal((sh, sw)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _layout(spec, w, h):
    lay = spec["layout"]
    col = np.array(lay["color"], np.float32) / 255
    seed, s = int(lay.get("seed", 0)), float(lay.get("strength", 0.08))
    tex = lay.get("texture", "felt")
    f = np.ones((h, w), np.float32)
    if tex in ("felt", "pattern"):
        f += s * (0.6 * _noise_field(seed, w, h, 40) + 0.4 * _noise_field(seed + 7, w, h, 3))
    img = _tinted(f, col)
    if tex == "pattern":
        # printed layout: grid lines, printed circles and lettering in a lighter ink
        ink = (np.array(lay["ink"]) / 255).tolist() if lay.get("ink") else np.clip(col * 1.35 + 0.08, 0, 1).tolist()
        rng = np.random.default_rng(seed + 11)
        step = max(20, int(min(w, h) / 9))
        for x in range(int(rng.integers(0, step)), w, step):
            cv2.line(img, (x, 0), (x, h), ink, 2, cv2.LINE_AA)
        for y in range(int(rng.integers(0, step)), h, step):
            cv2.line(img, (0, y), (w, y), ink, 2, cv2.LINE_AA)
        for _ in range(6):
            c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            cv2.circle(img, c, int(rng.uniform(0.02, 0.08) * min(w, h)), ink, 3, cv2.LINE_AA)
        for x0, y0, x1, y1, t in lay.get("boxes", ()):   # printed boxes (t < 0: filled), as the lines
            cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), ink, int(t), cv2.LINE_AA)
        txt = np.zeros((h, w), np.uint8)   # putText draws on 8-bit images only
        cv2.putText(txt, "TWO-UP", (int(w * 0.3), int(h * 0.55)), cv2.FONT_HERSHEY_TRIPLEX,
                    min(w, h) / 250, 255, max(2, int(min(w, h) / 200)), cv2.LINE_AA)
        # blended only round the lettering: elsewhere its weight is 0 and the pixel stays as it is
        x, y, bw, bh = cv2.boundingRect(txt)
        if bw and bh:
            a = (txt[y:y + bh, x:x + bw].astype(np.float32) / 255)[..., None]
            img[y:y + bh, x:x + bw] = img[y:y + bh, x:x + bw] * (1 - a) + np.array(ink, np.float32) * a
    for cx, cy, r, width, ink in lay.get("circles", ()):   # a circle printed round the middle
        cv2.circle(img, (round(cx * 16), round(cy * 16)), round(r * 16), (np.array(ink) / 255).tolist(),
                   max(1, round(width)), cv2.LINE_AA, 4)
    return img


def _tinted(f, col):
    """HxWx3 float32: the float32 field `f` times each channel of `col`. The same products as
    `f[..., None] * col` (one rounding each), made plane by plane: numpy's broadcast over a last
    axis of 3 took 70-100 ms of a 4K frame, the planes and cv2.merge a fifth of that."""
    col = np.asarray(col, np.float32)
    return cv2.merge([f * col[0], f * col[1], f * col[2]])


def _background(spec, w, h, origin=(0.0, 0.0)):
    """Floor, ring wall and layout in ring-plane coordinates minus `origin` (float32 0..1, HxWx3)."""
    fl = spec["floor"]
    floor = (1 + float(fl.get("strength", 0.12)) * _noise_field(int(fl.get("seed", 1)), w, h, 6))
    img = _tinted(floor, np.array(fl["color"], np.float32) / 255)
    ring = spec["ring"]
    cx, cy = ring["center"][0] - origin[0], ring["center"][1] - origin[1]
    r, wall = float(ring["radius"]), float(ring["wall_px"])
    # the wall and the blends are worked out only where they change a pixel: beyond the wall the
    # floor stays as it is (weight 0), inside the layout's edge the layout replaces it (weight 1),
    # so the picture is the same, bit for bit, as blending every pixel (the tests' scenes and the
    # held-out sets stay what they were); a 4K frame's background took ~1.2 s, most of it here.
    # Outside the square round the wall every weight is 0: nothing there is measured at all.
    reach = r + wall + 2
    x0, x1 = max(0, int(np.floor(cx - reach))), min(w, int(np.ceil(cx + reach)) + 1)
    y0, y1 = max(0, int(np.floor(cy - reach))), min(h, int(np.ceil(cy + reach)) + 1)
    x1, y1 = max(x0, x1), max(y0, y1)
    dx = np.arange(w, dtype=np.float32)[None, x0:x1] - cx
    dy = np.arange(h, dtype=np.float32)[y0:y1, None] - cy
    d = np.sqrt(dx ** 2 + dy ** 2)
    a_wall = _unit(r + wall - d + 0.5)
    a_in = _unit(r - d + 0.5)
    edge = (a_wall > 0) & (a_in < 1)
    ys, xs = np.nonzero(edge)
    de, aw, ai = d[ys, xs], a_wall[ys, xs][:, None], a_in[ys, xs][:, None]
    ang = np.arctan2(dy[ys, 0], dx[0, xs])
    ys, xs = ys + y0, xs + x0
    # wall: wood with grain, darker just above the layout (its own shadow); antialiased edges
    grain = 1 + 0.08 * np.sin(ang * 90 + 3 * np.sin(ang * 7)) - 0.35 * np.clip(1 - (de - r) / (0.3 * wall), 0, 1)
    wall_img = grain[..., None] * (np.array(ring["wall_color"], np.float32) / 255)
    layout = _layout(spec, w, h)
    blend = img[ys, xs] * (1 - aw) + wall_img * aw
    blend = blend * (1 - ai) + layout[ys, xs] * ai
    np.copyto(img[y0:y1, x0:x1], layout[y0:y1, x0:x1], where=(a_in >= 1)[..., None])
    img[ys, xs] = blend
    return img


def _unit(a):
    """np.clip(a, 0, 1), in place (the same values; np.clip took 40 ms a 4K frame)."""
    np.maximum(a, 0, out=a)
    return np.minimum(a, 1, out=a)


def _plain(o):
    """numpy scalars/arrays in a spec (e.g. from the simulator) -> plain JSON values."""
    if hasattr(o, "tolist"):
        return o.tolist()
    raise TypeError(f"spec value {o!r} is not plain data")


@functools.lru_cache(maxsize=8)
def _cached_background(key):
    """The static scene (same ring, layout, floor) is the same in every frame: draw it once."""
    ring, layout, floor, pw, ph, origin = json.loads(key)
    img = _background({"ring": ring, "layout": layout, "floor": floor}, pw, ph, origin)
    img.setflags(write=False)
    return img


def _shaded_coin(height, rotation_deg, az_deg, elev_deg, color):
    """Coin texture (TEX x TEX x 3 float) with metallic relief shading at a given rotation."""
    c = faces.TEX / 2
    m = cv2.getRotationMatrix2D((c - 0.5, c - 0.5), -rotation_deg, 1.0)
    h = cv2.warpAffine(height, m, (faces.TEX, faces.TEX), flags=cv2.INTER_LINEAR)
    depth = 6.0   # relief depth in texture px: how strongly the design shades
    gx = cv2.Sobel(h, cv2.CV_32F, 1, 0, ksize=3) / 8 * depth
    gy = cv2.Sobel(h, cv2.CV_32F, 0, 1, ksize=3) / 8 * depth
    nz = 1 / np.sqrt(1 + gx * gx + gy * gy)
    az, el = np.deg2rad(az_deg), np.deg2rad(elev_deg)
    lx, ly, lz = np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)
    ndl = np.clip((-gx * lx - gy * ly + lz) * nz, 0, 1)
    hz = lz + 1
    spec = np.clip((-gx * lx - gy * ly + hz) * nz / np.sqrt(lx * lx + ly * ly + hz * hz), 0, 1) ** 24
    # raised areas catch more light (less occlusion): relief reads even under flat light
    inten = 0.42 + 0.38 * ndl + 0.25 * h + 0.35 * spec
    col = np.array(color, np.float32) / 255
    return inten[..., None] * col + 0.25 * spec[..., None]


@functools.lru_cache(maxsize=8)
def _face_photo(path):
    g = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    if g is None:
        raise ValueError(f"coin face image {path!r} cannot be read")
    g = cv2.resize(g, (faces.TEX, faces.TEX), interpolation=cv2.INTER_CUBIC).astype(np.float32) / 255
    g.setflags(write=False)
    return g


def _photo_coin(path, rotation_deg, color):
    """Coin texture from a real photo of a face: its grey levels tint the metal colour."""
    c = faces.TEX / 2
    m = cv2.getRotationMatrix2D((c - 0.5, c - 0.5), -rotation_deg, 1.0)
    g = cv2.warpAffine(_face_photo(path), m, (faces.TEX, faces.TEX), flags=cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)
    inten = 0.3 + 1.0 * g / max(1e-6, float(np.percentile(g, 95)))
    return inten[..., None] * (np.array(color, np.float32) / 255)


def _chip_texture(color, kind, spots=None, n_spots=8):
    t = faces.TEX
    img = np.zeros((t, t, 3), np.float32)
    col = np.array(color, np.float32) / 255
    c, r = t // 2, t // 2 - 1
    img[:] = col
    light = np.clip(col * 0.4 + 0.6, 0, 1).tolist() if spots is None else (np.array(spots, np.float32) / 255).tolist()
    if kind == "chip":
        for k in range(int(n_spots)):
            a = k * 2 * np.pi / int(n_spots)
            p = np.array([[np.cos(a - 0.12), np.sin(a - 0.12)], [np.cos(a + 0.12), np.sin(a + 0.12)]])
            pts = np.vstack([p * r, p[::-1] * r * 0.8]) + c
            cv2.fillConvexPoly(img, pts.astype(np.int32), light, cv2.LINE_AA)
        cv2.circle(img, (c, c), int(r * 0.62), light, 3, cv2.LINE_AA)
        cv2.circle(img, (c, c), int(r * 0.55), (col * 0.85).tolist(), -1, cv2.LINE_AA)
    else:
        cv2.circle(img, (c, c), int(r * 0.7), (col * 0.7).tolist(), 6, cv2.LINE_AA)
        cv2.circle(img, (c, c), int(r * 0.2), light, -1, cv2.LINE_AA)
    return img


def _disc_warp(center, radius, s, tilt_deg, axis_deg, w, h, pad=0):
    """Where a TEX-square texture (with a `pad` px margin, see _prefiltered) lands as a disc of
    `radius` px (scale s) tilted by tilt_deg about axis_deg: -> (x0, y0, x1, y1, affine matrix,
    size) of the clipped box, or None."""
    a = np.deg2rad(axis_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    lin = s * rot @ np.diag([1.0, np.cos(np.deg2rad(tilt_deg))]) @ rot.T
    cx, cy = center
    x0, y0 = int(max(0, np.floor(cx - radius - 3))), int(max(0, np.floor(cy - radius - 3)))
    x1, y1 = int(min(w, np.ceil(cx + radius + 3))), int(min(h, np.ceil(cy + radius + 3)))
    if x1 <= x0 or y1 <= y0:
        return None
    c = faces.TEX / 2 - 0.5 + pad
    off = np.array([cx - x0, cy - y0]) - lin @ np.array([c, c])
    return x0, y0, x1, y1, np.hstack([lin, off[:, None]]), (x1 - x0, y1 - y0)


def _prefiltered(img, s, border=cv2.BORDER_CONSTANT):
    """A TEX-square texture or disc alpha as the warp must sample it at scale s -> (img, pad):
    on a margin of `pad` px (alpha: zero; a texture: its edge repeated), blurred to the output's
    pixel size when it is shrunk (the warp samples only a pixel's neighbours). The margin lets
    the blur fade the disc out inside the sampled image: the disc touches the texture's edges,
    and cut there (blurred with a reflected border, then the warp's zero outside) the rim's four
    extreme pixels were a step edge, their grey jumping ~30 levels for 0.02 px of motion -- no
    camera's pixel, which integrates the light over its area, does that."""
    k = 0.45 / s if s < 0.5 else 0.0
    pad = int(np.ceil(3 * k)) + 2
    img = cv2.copyMakeBorder(img, pad, pad, pad, pad, border, value=0)
    if k:
        img = cv2.GaussianBlur(img, (0, 0), k)
    return img, pad


def _paste(canvas, tex, alpha, center, radius, tilt_deg=0.0, axis_deg=0.0, offset=(0.0, 0.0), shade=None):
    """Alpha-composite a TEX-square texture as a (possibly tilted) disc into `canvas` in place."""
    h, w = canvas.shape[:2]
    s = radius / (faces.TEX / 2 - 1)
    if tex is not None:
        tex, _ = _prefiltered(tex, s, cv2.BORDER_REPLICATE)
    alpha, pad = _prefiltered(alpha, s)
    warp = _disc_warp((center[0] + offset[0], center[1] + offset[1]), radius, s, tilt_deg,
                      axis_deg, w, h, pad)
    if warp is None:
        return
    x0, y0, x1, y1, m, size = warp
    at = cv2.warpAffine(alpha, m, size, flags=cv2.INTER_LINEAR)[..., None]
    roi = canvas[y0:y1, x0:x1]
    if shade is not None:   # a shadow: darken by `shade` where the disc falls
        roi *= 1 - shade * at
        return
    tt = cv2.warpAffine(tex, m, size, flags=cv2.INTER_LINEAR)
    roi[:] = roi * (1 - at) + tt * at


def _coin_pose(coin, ring_c_plane, center_plane):
    tilt = float(coin.get("tilt_deg", 0.0) or 0.0)
    if coin.get("leaning") and tilt == 0:
        tilt = 70.0
    if coin.get("on_top_of") is not None and tilt == 0:
        tilt = 5.0
    axis = coin.get("tilt_axis_deg")
    if axis is None:   # default: rotated about the tangent to the wall (how a leaning coin rests)
        v = np.asarray(center_plane) - np.asarray(ring_c_plane)
        axis = np.rad2deg(np.arctan2(v[1], v[0])) + 90 if np.hypot(*v) > 1e-6 else 0.0
    return tilt, float(axis)


def _truth(spec, m):
    """Ground truth: per-coin flat/inside/in-view and the call rule 7.3 requires."""
    w, h = spec["size"]
    minv = _inv(m)
    ring = spec["ring"]
    rc = np.array(ring["center"], float)
    r_ring = float(ring["radius"])
    coins = spec["coins"]
    out = []
    for i, c in enumerate(coins):
        p = minv @ np.array([c["center_px"][0], c["center_px"][1], 1.0])
        tilt, axis = _coin_pose(c, rc, p)
        # inside = every point of the coin's outline (as seen from above) within the ring (7.3.1)
        a = np.deg2rad(axis)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        lin = float(c["radius_px"]) * rot @ np.diag([1.0, np.cos(np.deg2rad(tilt))]) @ rot.T
        t = np.linspace(0, 2 * np.pi, 90, endpoint=False)
        outline = p[None, :] + (lin @ np.vstack([np.cos(t), np.sin(t)])).T
        dist = float(np.hypot(*(outline - rc).T).max())
        x, y = c["center_px"]
        out.append({"center": [float(x), float(y)], "radius": float(c["radius_px"]), "face": c.get("face"),
                    "flat": bool(tilt < 1.0 and not c.get("leaning") and c.get("on_top_of") is None),
                    "inside": bool(dist <= r_ring),
                    "in_view": bool(0 <= x < w and 0 <= y < h), "plane_center": p.tolist()})
    # touching or lying on the other coin is not lying flat (7.3.4)
    for i in range(len(out)):
        for j in range(i + 1, len(out)):
            d = np.hypot(*(np.subtract(out[i]["plane_center"], out[j]["plane_center"])))
            if d <= out[i]["radius"] + out[j]["radius"]:
                out[i]["flat"] = out[j]["flat"] = False
    view = [c for c in out if c["in_view"]]
    if any(not c["inside"] for c in view):
        result, reasons = "no-spin", ["7.3.1 coin outside the ring"]
    elif len(view) < 2:
        result, reasons = "no-spin", ["7.3.1 fewer than two coins in view"]
    elif any(not c["flat"] for c in view):
        result, reasons = "no-spin", ["7.3.4 coin not lying flat"]
    elif len(view) > 2:
        result, reasons = "unsure", ["unsure: more than two coins"]
    else:
        f = {c["face"] for c in view}
        result, reasons = (f.pop() if len(f) == 1 else "odds"), []
    for c in out:
        del c["plane_center"]
    chips = [{"center": [float(v) for v in ch["center_px"]], "radius": float(ch["radius_px"])}
             for ch in spec["chips"]]
    ell = ring.get("ellipse") or {"ratio": 1.0, "angle_deg": 0.0}
    return {"result": result, "reasons": reasons, "coins": out, "chips": chips,
            "ring": {"center": [float(v) for v in rc], "axes": [r_ring, r_ring * float(ell["ratio"])],
                     "angle_deg": float(ell.get("angle_deg", 0.0))}}


def _lighting(img, spec):
    h, w = img.shape[:2]
    li = spec["lighting"]
    gx, gy = li.get("gradient", [0, 0])
    vig = float(li.get("vignette", 0.0))
    # lighting fields are smooth: compute at 1/8 and upsample
    sw, sh = max(2, w // 8), max(2, h // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xx, yy = (xx + 0.5) / sw * 2 - 1, (yy + 0.5) / sh * 2 - 1
    g = float(li.get("gain", 1.0)) * (1 + gx * xx + gy * yy) * (1 - vig * (xx * xx + yy * yy) / 2)
    field = cv2.resize(g.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    shadows = li.get("shadows", []) or []
    if shadows:   # soft shadows drawn at 1/4 scale (they have no sharp detail) and upsampled
        q = 4
        sh_mask = np.zeros((max(2, h // q), max(2, w // q)), np.float32)
        for s in shadows:
            m = np.zeros_like(sh_mask)
            ax = s.get("axes", [w / 6, h / 6])
            cv2.ellipse(m, (int(s["center"][0] * 16 / q), int(s["center"][1] * 16 / q)),
                        (int(ax[0] * 16 / q), int(ax[1] * 16 / q)), float(s.get("angle_deg", 0)), 0, 360,
                        float(s.get("strength", 0.4)), -1, cv2.LINE_AA, 4)
            soft = float(s.get("softness", 15)) / q
            if soft > 0.3:
                m = cv2.GaussianBlur(m, (0, 0), soft)
            sh_mask = np.maximum(sh_mask, m)
        field *= 1 - cv2.resize(sh_mask, (w, h), interpolation=cv2.INTER_LINEAR)
    img *= field[..., None]     # in place: render_scene owns the canvas, fastrender its ones
    return img


def render_scene(spec, rng=None):
    """Render `spec` (see SPEC_DOC) -> (BGR uint8 image, truth dict). `rng` drives sensor noise only."""
    rng = np.random.default_rng(0) if rng is None else rng
    spec = full_spec(spec)
    w, h = (int(v) for v in spec["size"])
    m = plane_to_image(spec)
    minv = _inv(m)
    # the plane canvas must cover every image pixel's pre-image (larger than the image when oblique)
    if spec["ring"].get("ellipse"):
        corners = np.array([[0, 0, 1], [w, 0, 1], [0, h, 1], [w, h, 1]], float) @ minv.T
        origin = np.floor(corners.min(axis=0)) - 2
        pw, ph = (int(v) for v in np.ceil(corners.max(axis=0) - origin) + 2)
    else:
        origin, pw, ph = np.zeros(2), w, h
    key = json.dumps([spec["ring"], spec["layout"], spec["floor"], pw, ph, origin.tolist()], sort_keys=True,
                     default=_plain)
    canvas = _cached_background(key).copy()
    li = spec["lighting"]
    az, el = float(li.get("light_az_deg", 135)), float(li.get("light_elev_deg", 70))
    # shadows fall away from the light: offset per unit of object height
    sdir = -np.array([np.cos(np.deg2rad(az)), np.sin(np.deg2rad(az))]) / np.tan(np.deg2rad(max(el, 10)))
    style = spec["coin_style"]
    alpha = faces.disc_alpha()
    ring_c = np.array(spec["ring"]["center"], float) - origin

    def plane(p):
        return minv @ np.array([p[0], p[1], 1.0]) - origin

    chips = spec["chips"]
    for ch in chips:
        p, r = plane(ch["center_px"]), float(ch["radius_px"])
        _paste(canvas, None, alpha, p, r * 1.05, offset=sdir * r * 0.25, shade=0.3)
    coins = spec["coins"]
    order = sorted(range(len(coins)), key=lambda i: 0 if coins[i].get("on_top_of") is None else 1)
    poses = {}
    for i in order:
        c = coins[i]
        p, r = plane(c["center_px"]), float(c["radius_px"])
        tilt, axis = _coin_pose(c, ring_c, p)
        poses[i] = (p, r, tilt, axis)
        lift = r * (float(style.get("thickness", 0.13)) + np.sin(np.deg2rad(tilt)))
        if c.get("on_top_of") is None:
            _paste(canvas, None, alpha, p, r * 1.02, tilt, axis, offset=sdir * lift * 0.6, shade=0.35)
    for ch in chips:
        p, r = plane(ch["center_px"]), float(ch["radius_px"])
        tex = _chip_texture(tuple(ch.get("color", [40, 40, 200])), ch.get("kind", "chip"),
                            tuple(ch["spots"]) if ch.get("spots") else None, ch.get("n_spots", 8))
        _paste(canvas, tex, alpha, p, r)
    col = style.get("color", [70, 120, 190])
    for i in order:
        c = coins[i]
        p, r, tilt, axis = poses[i]
        face = c.get("face", "heads")
        if style.get("face_images"):
            tex = _photo_coin(str(style["face_images"][face]), float(c.get("rotation_deg", 0.0)), col)
        else:
            tex = _shaded_coin(faces.height_map(face, int(style.get("design", 0))),
                               float(c.get("rotation_deg", 0.0)), az, el, col)
        if tilt > 0.5:   # the coin's edge shows on the low side of a tilted coin
            t = float(style.get("thickness", 0.13)) * r * np.sin(np.deg2rad(tilt))
            a = np.deg2rad(axis + 90)
            n = np.array([np.cos(a), np.sin(a)])
            if np.dot(n, p - ring_c) < 0:
                n = -n
            edge = np.ones_like(tex) * (np.array(col, np.float32) / 255 * 0.55)
            for k in (1.0, 0.5):
                _paste(canvas, edge, alpha, p, r, tilt, axis, offset=n * t * k)
        _paste(canvas, tex, alpha, p, r, tilt, axis)
    if spec["ring"].get("ellipse"):
        mo = np.hstack([m[:, :2], (m[:, :2] @ origin + m[:, 2])[:, None]])
        canvas = cv2.warpAffine(canvas, mo, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    canvas = _lighting(canvas, spec)
    if spec.get("blur"):
        canvas = cv2.GaussianBlur(canvas, (0, 0), float(spec["blur"]))
    # in place from here (a 4K frame is 100 MB of float32 a step): the same sums in the same order
    canvas *= 255
    if spec.get("noise"):
        noise = rng.standard_normal(canvas.shape, dtype=np.float32)
        noise *= float(spec["noise"])
        canvas += noise
    canvas += 0.5
    img = np.clip(canvas, 0, 255, out=canvas).astype(np.uint8)
    if spec.get("jpeg"):
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(spec["jpeg"])])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img, _truth(spec, m)
