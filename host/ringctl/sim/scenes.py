"""Random ring-scene specs for tests, the benchmark and `ring sim scenes` (seeded, reproducible).

Seed ranges are split so that no threshold is tuned on the scenes that measure accuracy:
TRAIN_SEEDS (tuning, and the coin photos `train` learns from) and HELDOUT_SEEDS (accuracy only).
"""
import numpy as np

from .render import full_spec, plane_to_image

TRAIN_SEEDS = range(0, 100_000)
HELDOUT_SEEDS = range(1_000_000, 1_100_000)

KINDS = ("valid", "outside", "rim", "one", "tilted", "leaning", "stacked", "touching")
# how often each kind comes up in a random set: half are valid spins
WEIGHTS = (0.5, 0.08, 0.08, 0.06, 0.08, 0.07, 0.07, 0.06)

LAYOUTS = ([40, 105, 35], [110, 60, 30], [45, 35, 120], [60, 60, 60], [30, 80, 20])
CHIP_COLORS = ([40, 40, 200], [200, 60, 40], [30, 30, 30], [230, 230, 230], [40, 160, 40], [0, 200, 230])
COIN_MM = 30.8


def base_spec(seed, size=(960, 720), conditions=True, layout=None, ellipse=None):
    """Spec of the static scene plus random (but fixed per seed) conditions, without coins."""
    rng = np.random.default_rng(seed)
    w, h = size
    ring_r = 0.42 * min(w, h)
    spec = {"size": [w, h], "ring": {"radius": ring_r, "center": [w / 2, h / 2]},
            "layout": {"color": LAYOUTS[0], "texture": "felt", "strength": 0.08, "seed": int(seed % 97)},
            "lighting": {}, "coins": [], "chips": []}
    if conditions:
        spec["layout"] = {"color": LAYOUTS[int(rng.integers(len(LAYOUTS)))],
                          "texture": ["plain", "felt", "pattern"][int(rng.integers(3))],
                          "strength": float(rng.uniform(0.04, 0.14)), "seed": int(seed % 97)}
        spec["ring"]["center"] = [w / 2 + rng.uniform(-0.03, 0.03) * w, h / 2 + rng.uniform(-0.03, 0.03) * h]
        if rng.random() < 0.2:
            spec["ring"]["ellipse"] = {"ratio": float(rng.uniform(0.78, 0.95)), "angle_deg": float(rng.uniform(0, 180))}
        spec["lighting"] = {"gain": float(rng.uniform(0.8, 1.15)),
                            "gradient": [float(rng.uniform(-0.25, 0.25)), float(rng.uniform(-0.25, 0.25))],
                            "vignette": float(rng.uniform(0, 0.4)), "light_az_deg": float(rng.uniform(0, 360)),
                            "light_elev_deg": float(rng.uniform(60, 85)), "shadows": []}
        for _ in range(int(rng.integers(0, 3)) if rng.random() < 0.3 else 0):
            spec["lighting"]["shadows"].append(
                {"center": [float(rng.uniform(0, w)), float(rng.uniform(0, h))],
                 "axes": [float(rng.uniform(0.1, 0.3) * w), float(rng.uniform(0.05, 0.15) * h)],
                 "angle_deg": float(rng.uniform(0, 180)), "strength": float(rng.uniform(0.15, 0.35)),
                 "softness": float(rng.uniform(0.02, 0.05) * w)})
        spec["blur"] = float(rng.choice([0, 0, rng.uniform(0.5, 1.6)]))
        spec["noise"] = float(rng.uniform(0, 5))
        spec["jpeg"] = int(rng.integers(60, 96)) if rng.random() < 0.4 else None
    if layout is not None:
        spec["layout"].update(layout)
    if ellipse is not None:
        spec["ring"]["ellipse"] = ellipse
    return spec


def coin_radius(spec):
    """Coin radius px used in generated scenes: 45-50 px across at 960x720, scaling with size."""
    return 0.078 * spec["ring"]["radius"]


def ring_mm(spec):
    """The ring diameter in mm that makes a COIN_MM coin the size generated scenes draw."""
    return COIN_MM * spec["ring"]["radius"] / coin_radius(spec)


def empty(spec):
    """The same ring with no coins, chips or passing shadows: what `calibrate` is shown."""
    out = dict(spec, coins=[], chips=[])
    out["lighting"] = dict(spec.get("lighting", {}), shadows=[])
    return out


def _plane_to_image(spec, p):
    m = plane_to_image(full_spec(spec))
    return (m @ np.array([p[0], p[1], 1.0])).tolist()


def _point_in_ring(rng, spec, max_d):
    c = np.array(spec["ring"]["center"])
    d = np.sqrt(rng.random()) * max_d
    a = rng.uniform(0, 2 * np.pi)
    return c + d * np.array([np.cos(a), np.sin(a)])


def _coin(rng, spec, p, r, **kw):
    c = {"center_px": _plane_to_image(spec, p), "radius_px": float(r * rng.uniform(0.98, 1.02)),
         "face": ["heads", "tails"][int(rng.integers(2))], "rotation_deg": float(rng.uniform(0, 360))}
    c.update(kw)
    return c


def _two_flat(rng, spec, r, gap_min=0.4):
    """Two flat coins well inside the ring and apart (a valid spin)."""
    big_r = spec["ring"]["radius"]
    margin = max(0.25 * r, 4)
    while True:
        a = _point_in_ring(rng, spec, big_r - r - margin)
        b = _point_in_ring(rng, spec, big_r - r - margin)
        if np.hypot(*(a - b)) >= 2 * r * (1 + gap_min):
            return a, b


def make(seed, kind=None, size=(960, 720), chips=None, conditions=True, **base_kw):
    """A random scene spec of `kind` (one of KINDS; random by weight when None), fixed by `seed`."""
    spec = base_spec(seed, size, conditions, **base_kw)
    rng = np.random.default_rng([seed, 7])
    if kind is None:
        kind = KINDS[int(rng.choice(len(KINDS), p=np.array(WEIGHTS) / sum(WEIGHTS)))]
    r = coin_radius(spec)
    big_r = spec["ring"]["radius"]
    c0 = np.array(spec["ring"]["center"])
    coins = []
    a, b = _two_flat(rng, spec, r)
    if kind == "valid":
        coins = [_coin(rng, spec, a, r), _coin(rng, spec, b, r)]
    elif kind == "one":
        coins = [_coin(rng, spec, a, r)]
    elif kind in ("outside", "rim", "leaning"):
        ang = rng.uniform(0, 2 * np.pi)
        u = np.array([np.cos(ang), np.sin(ang)])
        if kind == "outside":
            w, h = spec["size"]
            for _ in range(100):   # on the floor, in view
                d = big_r + spec["ring"].get("wall_px", big_r / 12) + r * rng.uniform(1.5, 3)
                p = c0 + d * u
                q = _plane_to_image(spec, p)
                if r < q[0] < w - r and r < q[1] < h - r:
                    break
                ang = rng.uniform(0, 2 * np.pi)
                u = np.array([np.cos(ang), np.sin(ang)])
            extra = _coin(rng, spec, p, r)
        elif kind == "rim":
            extra = _coin(rng, spec, c0 + (big_r + r * rng.uniform(-0.5, 0.6)) * u, r)
        else:
            tilt = float(rng.uniform(55, 80))
            extra = _coin(rng, spec, c0 + (big_r - r * np.cos(np.deg2rad(tilt))) * u, r,
                          leaning=True, tilt_deg=tilt)
        # the other coin stays clear of the extra one
        while np.hypot(*(a - c0 - (big_r * u))) < 3 * r:
            a = _point_in_ring(rng, spec, big_r - 1.3 * r)
        coins = [_coin(rng, spec, a, r), extra]
    elif kind == "tilted":
        coins = [_coin(rng, spec, a, r),
                 _coin(rng, spec, b, r, tilt_deg=float(rng.uniform(25, 60)),
                       tilt_axis_deg=float(rng.uniform(0, 180)))]
    elif kind == "stacked":
        off = rng.uniform(0.15, 0.8) * r
        ang = rng.uniform(0, 2 * np.pi)
        top = a + off * np.array([np.cos(ang), np.sin(ang)])
        coins = [_coin(rng, spec, a, r), _coin(rng, spec, top, r, on_top_of=0, tilt_deg=5.0,
                                                  tilt_axis_deg=float(np.rad2deg(ang)) + 90)]
    elif kind == "touching":
        ang = rng.uniform(0, 2 * np.pi)
        other = a + 2 * r * rng.uniform(0.97, 0.995) * np.array([np.cos(ang), np.sin(ang)])
        if np.hypot(*(other - c0)) > big_r - 1.3 * r:
            other = a - (other - a)
        if np.hypot(*(other - c0)) > big_r - 1.3 * r:   # both ways too close to the wall: recentre
            a, other = c0 - (other - a) / 2, c0 + (other - a) / 2
        coins = [_coin(rng, spec, a, r), _coin(rng, spec, other, r)]
        for c in coins:
            c["radius_px"] = float(r)
    else:
        raise ValueError(f"unknown scene kind {kind!r}; one of {', '.join(KINDS)}")
    spec["coins"] = coins
    n_chips = int(rng.integers(0, 4)) if chips is None else chips
    spec["chips"] = _chips(rng, spec, r, n_chips)
    spec["kind"] = kind
    return spec


def _chips(rng, spec, r, n):
    """Casino chips (bigger) and tokens (coin-sized or smaller, not coin-coloured) on the floor."""
    w, h = spec["size"]
    c0 = np.array(spec["ring"]["center"])
    big_r = spec["ring"]["radius"] + spec["ring"].get("wall_px", spec["ring"]["radius"] / 12)
    out = []
    for _ in range(n * 50):
        if len(out) >= n:
            break
        kind = "chip" if rng.random() < 0.6 else "token"
        cr = r * (rng.uniform(1.22, 1.4) if kind == "chip" else rng.choice([rng.uniform(0.55, 0.72), rng.uniform(0.95, 1.05)]))
        p = np.array([rng.uniform(cr + 2, w - cr - 2), rng.uniform(cr + 2, h - cr - 2)])
        m = plane_to_image(full_spec(spec))
        pp = np.linalg.solve(m[:, :2], p - m[:, 2])
        if np.hypot(*(pp - c0)) < big_r + cr + 3:
            continue
        if any(np.hypot(*(p - np.array(o["center_px"]))) < cr + o["radius_px"] + 3 for o in out):
            continue
        if any(np.hypot(*(p - np.array(c["center_px"]))) < cr + c["radius_px"] + 3 for c in spec["coins"]):
            continue
        out.append({"center_px": p.tolist(), "radius_px": float(cr), "kind": kind,
                    "color": list(CHIP_COLORS[int(rng.integers(len(CHIP_COLORS)))])})
    return out


def training_specs(seed, face, n, size=(960, 720), **base_kw):
    """`n` scenes of ONE coin lying flat in the ring showing `face`, at random rotations/places."""
    out = []
    for k in range(n):
        spec = base_spec(seed, size, conditions=False, **base_kw)
        rng = np.random.default_rng([seed, k, face == "tails"])
        r = coin_radius(spec)
        p = _point_in_ring(rng, spec, spec["ring"]["radius"] - 2 * r)
        spec["coins"] = [_coin(rng, spec, p, r, face=face)]
        spec["noise"] = 2.0
        out.append(spec)
    return out
