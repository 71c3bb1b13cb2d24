"""Ring and coin geometry shared by the physics, the sensor synthesis and the camera.

World frame: metres, origin at the ring centre on the layout surface, +z up. Angles are
measured counter-clockwise from +x; boundary-beam sector k covers [k*45°, (k+1)*45°).
"""
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RingGeometry:
    """The ring as built. Defaults are the small demo ring (1.5 m layout)."""
    layout_radius_m: float = 0.75     # layout edge = boundary curtain radius (7.3.1)
    # How far the spinner's toss reaches from the centre: it does not grow with the ring. A
    # landing coin bounces and rolls up to ~0.6 m, so in a 1.2 m ring a clean toss rolled out
    # about 1 in 4 times; in 1.5 m it stays inside as in a casino (`ring bench sim`:
    # clean_valid_share).
    toss_radius_m: float = 0.6
    gutter_m: float = 0.025           # trough between layout edge and wall: narrower than a
    gutter_depth_m: float = 0.02      # coin, so a coin in it leans on the wall below the layout
    wall_height_m: float = 0.15       # wall above the layout: the strike zone (7.3.2)
    wall_thickness_m: float = 0.04
    wall_segments: int = 64
    curtain_height_m: float = 0.02    # beams span 0..this above the layout (7.3.1 sensors)
    sectors: int = 8
    piezo_xy: tuple = None            # two piezo discs under the layout; None: (±R/2, 0)
    spinner_xy: tuple = None          # spinner's mat centre; None: (-0.65 R, 0) on the layout
    spinner_head_m: float = 1.75      # head height: coins must clear it (7.1.2)
    hand_height_m: float = 1.9        # the kip at release
    spinner_body: bool = False        # True: the spinner is a capsule the coins can hit (7.3.2)
    layout_restitution: float = 0.3
    layout_friction: float = 0.3     # felt over board: low enough that edge landings do not shoot off

    @property
    def wall_radius_m(self):
        return self.layout_radius_m + self.gutter_m

    def piezos(self):
        if self.piezo_xy is not None:
            return np.asarray(self.piezo_xy, float).reshape(-1, 2)
        r = self.layout_radius_m
        return np.array([[r / 2, 0.0], [-r / 2, 0.0]])

    def spinner(self):
        if self.spinner_xy is not None:
            return np.asarray(self.spinner_xy, float)
        return np.array([-0.65 * self.toss_radius_m, 0.0])

    def sector_of(self, x, y):
        ang = np.mod(np.arctan2(y, x), 2 * np.pi)
        return (ang // (2 * np.pi / self.sectors)).astype(int) % self.sectors


@dataclass(frozen=True)
class CoinSpec:
    """An Australian penny: 30.8 mm, 9.4 g. Local +z is the heads face."""
    radius_m: float = 0.0154
    thickness_m: float = 0.0015
    mass_kg: float = 0.0094
    restitution: float = 0.5          # bullet multiplies pairs: coin-layout 0.15, coin-coin 0.25
    friction: float = 0.5
    rolling_friction: float = 2e-4
    spinning_friction: float = 2e-4


def quat_to_matrix(q):
    """(…, 4) quaternions in pybullet order (x, y, z, w) -> (…, 3, 3) rotation matrices."""
    q = np.asarray(q, float)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    m = np.empty(q.shape[:-1] + (3, 3))
    m[..., 0, 0] = 1 - 2 * (y * y + z * z)
    m[..., 0, 1] = 2 * (x * y - z * w)
    m[..., 0, 2] = 2 * (x * z + y * w)
    m[..., 1, 0] = 2 * (x * y + z * w)
    m[..., 1, 1] = 1 - 2 * (x * x + z * z)
    m[..., 1, 2] = 2 * (y * z - x * w)
    m[..., 2, 0] = 2 * (x * z - y * w)
    m[..., 2, 1] = 2 * (y * z + x * w)
    m[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return m


_N_RIM = 32


_LOCAL = {}


def coin_local_points(coin):
    """Coin-frame points: rims of both faces (2*_N_RIM) then both face centres (2)."""
    key = (coin.radius_m, coin.thickness_m)
    if key not in _LOCAL:
        a = np.linspace(0, 2 * np.pi, _N_RIM, endpoint=False)
        h = coin.thickness_m / 2
        rim = np.stack([coin.radius_m * np.cos(a), coin.radius_m * np.sin(a), np.zeros_like(a)], 1)
        _LOCAL[key] = np.concatenate([rim + [0, 0, h], rim - [0, 0, h], [[0, 0, h], [0, 0, -h]]])
    return _LOCAL[key]


def coin_points(pos, rot, coin):
    """World points of a coin (see coin_local_points) for centre pos and rotation rot."""
    return np.asarray(pos)[None, :] + coin_local_points(coin) @ np.asarray(rot).T


def near_curtain(pos, ring, coin):
    """Cheap pre-test: can this coin touch the boundary curtain at all?"""
    r = (pos[0] ** 2 + pos[1] ** 2) ** 0.5
    return (abs(r - ring.layout_radius_m) <= coin.radius_m + 0.001 and
            -coin.radius_m - 0.001 <= pos[2] <= ring.curtain_height_m + coin.radius_m)


def _segments():
    i = np.arange(_N_RIM)
    j = (i + 1) % _N_RIM
    top, bot, ct, cb = 0, _N_RIM, 2 * _N_RIM, 2 * _N_RIM + 1
    segs = [np.stack([top + i, top + j], 1), np.stack([bot + i, bot + j], 1),
            np.stack([top + i, bot + i], 1),
            np.stack([np.full(_N_RIM, ct), top + i], 1), np.stack([np.full(_N_RIM, cb), bot + i], 1)]
    return np.concatenate(segs)


_SEGS = _segments()


def curtain_crossings(points, ring):
    """Where a coin's surface meets the boundary curtain (r = R, 0 <= z <= curtain height).

    Returns the (k, 3) crossing points; empty if the coin does not break any beam. A coin
    flying over the boundary above the curtain height breaks nothing (faithful to the
    hardware: the beams sit at layout height).
    """
    r = np.hypot(points[:, 0], points[:, 1])
    R = ring.layout_radius_m
    a, b = points[_SEGS[:, 0]], points[_SEGS[:, 1]]
    ra, rb = r[_SEGS[:, 0]], r[_SEGS[:, 1]]
    cross = (ra - R) * (rb - R) <= 0
    if not cross.any():
        return np.empty((0, 3))
    a, b, ra, rb = a[cross], b[cross], ra[cross], rb[cross]
    den = np.where(np.abs(rb - ra) < 1e-12, 1.0, rb - ra)
    s = np.clip((R - ra) / den, 0, 1)[:, None]
    p = a + s * (b - a)
    # 0.5 mm below the surface: contact penetration of a coin lying on the layout edge.
    keep = (p[:, 2] >= -0.0005) & (p[:, 2] <= ring.curtain_height_m)
    return p[keep]


def sector_mask(crossings, ring):
    """Bitmask of the beam sectors a coin's crossing points fall in (bit k = sector k)."""
    if len(crossings) == 0:
        return 0
    m = 0
    for k in np.unique(ring.sector_of(crossings[:, 0], crossings[:, 1])):
        m |= 1 << int(k)
    return m
