"""Coin-toss physics in pybullet (DIRECT, CPU) and the ground truth of each spin.

`simulate_toss(seed, ring=RingGeometry(), force=None)` -> Toss: trajectory, contacts,
boundary-curtain samples and `truth` (faces, flat, inside, rest time, outcome with the
casino rule numbers that decide it). Seeded and deterministic; t = 0 is the release.
"""
import contextlib
import ctypes
import os
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from .geometry import (CoinSpec, RingGeometry, coin_points, curtain_crossings, near_curtain,
                       quat_to_matrix, sector_mask)

G = 9.81
FORCES = (None, "outside", "wall", "stack", "lean", "low", "mat")
FLAT_TILT_DEG = 5.0          # 7.3.4: a coin tilted more than this does not lie flat
MIN_CLEARANCE_M = 0.3        # 7.1.2: the coins must rise this far above the spinner's head
REST_V = 0.01                # m/s   } both coins this slow, then no point of either coin
REST_W = 1.0                 # rad/s } further than REST_MOVE_M from that pose for REST_HOLD_S
REST_MOVE_M = 0.0005         # = at rest. 0.5 mm: 0.7 px at 44 px per coin; the engine's contact
                             # jitter (a resting coin kicked 0.8 deg = 0.2 mm at the rim) is not motion
REST_HOLD_S = 0.25
# Under this tilt a coin lying on the layout is flat to the engine's contact margin: resting
# coins settle anywhere in 0-1.5 deg (camera.RENDER_FLAT_DEG draws them flat), and the contact
# solver can lift a coin that lay flat and slow to 1.4 deg with no motion in plan (seed 506 on a
# 3 m ring: 0.01 -> 1.42 deg, its centre 0.035 mm). A flat coin on a flat layout is in stable
# equilibrium and cannot tilt itself up, so the rest's pose test does not count those tilt
# changes (it counted them, and dated that toss's rest 154 ms late: 2.075 s, now 1.921 s).
JITTER_TILT_DEG = 2.0
IMPACT_MIN_SPEED = 0.02      # m/s: slower contact onsets are not recorded
STRIKE_MIN_SPEED = 0.08      # m/s: slower is a coin settling, not a "hit" (7.3.2); the wall piezo
                             # reaches its 8000 strike threshold at this speed (sensors.WALL_GAIN)


@dataclass
class Toss:
    """One simulated spin. Arrays are indexed [sample, coin, ...]; quaternions are x,y,z,w."""
    seed: int
    ring: RingGeometry
    coin: CoinSpec
    force: str
    dt: float
    t: np.ndarray                 # (N,) sample times, s
    pos: np.ndarray               # (N, 2, 3) coin centres, m
    quat: np.ndarray              # (N, 2, 4)
    vel: np.ndarray               # (N, 2, 3) linear velocity, m/s
    angvel: np.ndarray            # (N, 2, 3) angular velocity, rad/s
    curtain_t: np.ndarray         # (M,) every physics step
    curtain_mask: np.ndarray      # (M, 2) beam sectors each coin breaks (bit k = sector k)
    contacts: list                # dicts: t, coin, other, xyz, speed, above_layout
    mat: list                     # (t, on) spinner's mat switch (7.3.3)
    launch: dict
    truth: dict = field(default_factory=dict)
    wall_time_s: float = 0.0
    final_vel: list = None        # [(v, w)] per coin at the end, as reported by the engine
    t0: float = None              # time.monotonic() of the release when played live (SimRing)

    @property
    def duration_s(self):
        return float(self.t[-1])

    @property
    def speedup(self):
        """Simulated seconds per wall-clock second."""
        return self.duration_s / max(self.wall_time_s, 1e-9)

    def pose_at(self, t):
        """(pos (2,3), quat (2,4)) at time t: nearest earlier sample (after rest: the last)."""
        i = int(np.clip(np.searchsorted(self.t, t, side="right") - 1, 0, len(self.t) - 1))
        return self.pos[i], self.quat[i]

    @property
    def sensor_timeline(self):
        from .sensors import timeline
        return timeline(self)


def _same_pose(anchor, P, Q, radius_m):
    """No point of either coin has moved more than REST_MOVE_M from the anchor pose (bound:
    centre shift + radius x rotation angle). A coin lying flat in both poses (tilt under
    JITTER_TILT_DEG) counts its centre's shift and its turn about the vertical only: its tilt
    changes there are the engine's contact margin, not motion (see JITTER_TILT_DEG)."""
    P0, Q0 = anchor
    for i in range(2):
        d = sum((a - b) ** 2 for a, b in zip(P0[i], P[i])) ** 0.5
        if _tilt_deg(Q0[i]) < JITTER_TILT_DEG and _tilt_deg(Q[i]) < JITTER_TILT_DEG:
            turn = abs((_yaw(Q[i]) - _yaw(Q0[i]) + np.pi) % (2 * np.pi) - np.pi)
        else:
            turn = 2 * np.arccos(min(1.0, abs(sum(a * b for a, b in zip(Q0[i], Q[i])))))
        if d + radius_m * turn > REST_MOVE_M:
            return False
    return True


def _tilt_deg(q):
    """Angle between the coin's axis and the vertical (either face up), degrees."""
    x, y, _, _ = q
    return float(np.degrees(np.arccos(min(1.0, abs(1 - 2 * (x * x + y * y))))))


def _yaw(q):
    """The coin's turn about the vertical: the heading of its own x axis, radians."""
    x, y, z, w = q
    return float(np.arctan2(2 * (x * y + w * z), 1 - 2 * (y * y + z * z)))


def quat_about(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    s = np.sin(angle / 2)
    return np.array([axis[0] * s, axis[1] * s, axis[2] * s, np.cos(angle / 2)])


def quat_mul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw,
                     aw * bw - ax * bx - ay * by - az * bz])


def _flight_time(h, vz):
    return (vz + np.sqrt(vz * vz + 2 * G * h)) / G


def plan_launch(rng, ring, coin, force=None, force_angle_deg=None):
    """Initial state of both coins as they leave the kip (rule 6.1: one heads up, one tails).

    Returns {"pos","quat","v","w"} (2 rows each), plus "mat_off_t" and "target" (the
    intended landing points, which forced scenarios aim at the boundary, wall, other coin).
    """
    if force not in FORCES:
        raise ValueError(f"force must be one of {FORCES}")
    R = ring.layout_radius_m
    spin = ring.spinner()
    inward = -spin / (np.linalg.norm(spin) or 1.0) if np.linalg.norm(spin) > 0 else np.array([1.0, 0])
    side = np.array([-inward[1], inward[0]])
    hand = np.append(spin + 0.25 * inward, ring.hand_height_m)
    tilt = rng.normal(0, 0.05, 2)          # the kip is not held perfectly level
    kip_q = quat_mul(quat_about([1, 0, 0], tilt[0]), quat_about([0, 1, 0], tilt[1]))
    pos = np.array([hand + np.append(0.03 * side, 0), hand - np.append(0.03 * side, 0)])
    quat = np.array([kip_q, quat_mul(kip_q, quat_about([1, 0, 0], np.pi))])

    vz = rng.uniform(3.6, 5.0, 2)
    vz[1] = vz[0] + rng.normal(0, 0.1)     # both leave the same kip together
    reach = ring.toss_radius_m              # the spinner's toss, whatever the ring's size
    centre = rng.uniform(0, 2 * np.pi), 0.35 * reach * np.sqrt(rng.uniform())
    c = np.array([np.cos(centre[0]), np.sin(centre[0])]) * centre[1]
    target = np.array([c + rng.normal(0, 0.06 * reach, 2), c + rng.normal(0, 0.06 * reach, 2)])
    mat_off_t = None
    ang = np.deg2rad(force_angle_deg) if force_angle_deg is not None else rng.uniform(0, 2 * np.pi)
    radial = np.array([np.cos(ang), np.sin(ang)])
    if force == "outside":                 # 7.3.1: lands across the boundary, falls out low
        target[1] = radial * (R + 0.010)
    elif force == "wall":                  # 7.3.2: comes down on the wall above the layout
        target[1] = radial * (ring.wall_radius_m + ring.wall_thickness_m / 2)
    elif force == "lean":                  # 7.3.4: ends tilted in the gutter against the wall
        target[1] = radial * (R + ring.gutter_m / 2)
    elif force == "stack":                 # 7.3.4: the second coin comes down on the first
        target[1] = target[0]
        vz[1] = vz[0] + 1.0
    elif force == "low":                   # 7.1.2: not spun above the spinner's head
        vz[:] = rng.uniform(0.6, 1.0)
    elif force == "mat":                   # 7.3.3: the spinner steps off the mat mid-spin
        mat_off_t = 0.25

    # Each coin leaves from the side of the kip nearer its landing point, so the two do not
    # cross paths just after release (they still may later: that is physics, not a plan).
    if np.dot(target[0] - target[1], side) < 0:
        pos = pos[::-1].copy()
    v = np.zeros((2, 3))
    w = np.zeros((2, 3))
    for i in range(2):
        T = _flight_time(pos[i, 2] - coin.thickness_m / 2, vz[i])
        v[i, :2] = (target[i] - pos[i, :2]) / T
        v[i, 2] = vz[i]
        # flip about a horizontal axis across the throw, plus wobble and a twist
        d = v[i, :2] / (np.linalg.norm(v[i, :2]) or 1.0)
        axis = np.array([-d[1], d[0], 0.0]) if np.linalg.norm(v[i, :2]) > 1e-6 else np.array([1.0, 0, 0])
        rate = rng.uniform(25, 60) * rng.choice([-1, 1])
        w[i] = axis * rate + rng.normal(0, 4, 3)
    if force == "stack":
        # Contrived on purpose: both coins go straight up and down over one spot, flat and
        # without spin, the second higher and later, so it comes down on the first.
        # The first is already down (lying flat where it landed).
        pos[0] = np.append(target[0], coin.thickness_m / 2 + 0.001)
        pos[1] = np.append(target[0], ring.hand_height_m)
        quat[0] = [0, 0, 0, 1]
        quat[1] = quat_about([1, 0, 0], np.pi)
        v[:] = 0
        v[1, 2] = vz[1]
        w[:] = 0
    elif force == "lean":
        # Contrived: the second coin drops edge-first into the gutter, face towards the wall.
        pos[1] = np.append(target[1], 0.3)
        quat[1] = quat_about([-radial[1], radial[0], 0], np.pi / 2 - 0.4)
        v[1] = 0
        w[1] = 0
    return {"pos": pos, "quat": quat, "v": v, "w": w, "mat_off_t": mat_off_t, "target": target,
            "vz": vz}


_QUIETED = False


@contextlib.contextmanager
def _quiet():
    """pybullet prints its build date (C stdio) on import/connect: keep it off our output."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            os.dup2(null.fileno(), 2)
            try:
                yield
            finally:
                try:                   # flush the C library's buffer while it still goes nowhere
                    ctypes.CDLL(None).fflush(None)
                except (OSError, AttributeError):
                    pass
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved:
            os.close(fd)


class _World:
    """The pybullet scene: layout disc, gutter/outside floor, ring wall, optional spinner."""

    def __init__(self, ring, coin, dt, substeps=8):
        global _QUIETED
        # only the first connect prints; later ones must not touch fds other threads write to
        with (_quiet() if not _QUIETED else contextlib.nullcontext()):
            import pybullet as p
            self.cid = p.connect(p.DIRECT)
        _QUIETED = True
        self.p = p
        c = self.cid
        p.setGravity(0, 0, -G, physicsClientId=c)
        # 8 substeps (1/3840 s): a 1.5 mm coin landing at 7 m/s must not tunnel the layout.
        p.setPhysicsEngineParameter(fixedTimeStep=dt, numSubSteps=substeps, numSolverIterations=20,
                                    physicsClientId=c)
        R, d = ring.layout_radius_m, ring.gutter_depth_m
        ground = p.createMultiBody(0, p.createCollisionShape(p.GEOM_PLANE, physicsClientId=c),
                                   basePosition=[0, 0, -d], physicsClientId=c)
        # The layout is a thick disc (top at z=0) so a coin landing at 7 m/s cannot tunnel it.
        layout = p.createMultiBody(
            0, p.createCollisionShape(p.GEOM_CYLINDER, radius=R, height=0.5, physicsClientId=c),
            basePosition=[0, 0, -0.25], physicsClientId=c)
        n = ring.wall_segments
        rw = ring.wall_radius_m + ring.wall_thickness_m / 2
        half_len = rw * np.tan(np.pi / n) * 1.02
        hz = (ring.wall_height_m + d) / 2
        walls = []
        for k0 in range(0, n, 16):          # pybullet compounds hold at most 16 children
            ks = range(k0, min(n, k0 + 16))
            a = [2 * np.pi * k / n for k in ks]
            wshape = p.createCollisionShapeArray(
                shapeTypes=[p.GEOM_BOX] * len(a),
                halfExtents=[[ring.wall_thickness_m / 2, half_len, hz]] * len(a),
                collisionFramePositions=[[rw * np.cos(x), rw * np.sin(x), ring.wall_height_m - hz]
                                         for x in a],
                collisionFrameOrientations=[list(quat_about([0, 0, 1], x)) for x in a],
                physicsClientId=c)
            walls.append(p.createMultiBody(0, wshape, physicsClientId=c))
        self.kind = {ground: "ground", layout: "layout"}
        self.kind.update({wb: "wall" for wb in walls})
        if ring.spinner_body:
            sx, sy = ring.spinner()
            sp = p.createMultiBody(0, p.createCollisionShape(
                p.GEOM_CAPSULE, radius=0.18, height=ring.spinner_head_m - 0.36, physicsClientId=c),
                basePosition=[sx, sy, ring.spinner_head_m / 2], physicsClientId=c)
            self.kind[sp] = "spinner"
        for b in [ground, layout] + walls:
            p.changeDynamics(b, -1, restitution=ring.layout_restitution,
                             lateralFriction=ring.layout_friction, physicsClientId=c)
        cshape = p.createCollisionShape(p.GEOM_CYLINDER, radius=coin.radius_m,
                                        height=coin.thickness_m, physicsClientId=c)
        self.coins = []
        for i in range(2):
            b = p.createMultiBody(coin.mass_kg, cshape, basePosition=[0, 0, 1 + i],
                                  physicsClientId=c)
            p.changeDynamics(b, -1, restitution=coin.restitution, lateralFriction=coin.friction,
                             rollingFriction=coin.rolling_friction,
                             spinningFriction=coin.spinning_friction,
                             linearDamping=0.0, angularDamping=0.02,
                             ccdSweptSphereRadius=coin.thickness_m / 2,
                             physicsClientId=c)
            self.kind[b] = "coin"
            self.coins.append(b)

    def close(self):
        self.p.disconnect(physicsClientId=self.cid)


def simulate_toss(seed, ring=None, coin=None, force=None, force_angle_deg=None,
                  dt=1 / 480, sample_hz=240, max_s=20.0, tail_s=0.5):
    """Simulate one spin until both coins rest (+tail_s) or max_s. Deterministic per seed."""
    ring = ring or RingGeometry()
    coin = coin or CoinSpec()
    rng = np.random.default_rng(seed)
    launch = plan_launch(rng, ring, coin, force, force_angle_deg)
    wall0 = time.perf_counter()
    world = _World(ring, coin, dt)
    p, c = world.p, world.cid
    try:
        for i, b in enumerate(world.coins):
            p.resetBasePositionAndOrientation(b, launch["pos"][i], launch["quat"][i], physicsClientId=c)
            p.resetBaseVelocity(b, launch["v"][i], launch["w"][i], physicsClientId=c)
        every = max(1, int(round(1 / (dt * sample_hz))))
        ts, poss, quats, vels, avels, ct, cm, contacts = [], [], [], [], [], [], [], []
        in_contact = set()
        prev_v = [tuple(v) for v in launch["v"]]
        prev_w = [tuple(w) for w in launch["w"]]
        still_since = None
        anchor = None
        rest_t = None
        cur_sub = 8
        nsteps = int(max_s / dt)
        for k in range(nsteps + 1):
            t = k * dt
            P, Q, V, W = [], [], [], []
            for b in world.coins:
                pp, qq = p.getBasePositionAndOrientation(b, physicsClientId=c)
                vv, ww = p.getBaseVelocity(b, physicsClientId=c)
                P.append(pp)
                Q.append(qq)
                V.append(vv)
                W.append(ww)
            ct.append(t)
            mask = [0, 0]
            for i in range(2):
                if near_curtain(P[i], ring, coin):
                    rot = np.reshape(p.getMatrixFromQuaternion(Q[i]), (3, 3))
                    mask[i] = sector_mask(curtain_crossings(coin_points(P[i], rot, coin), ring), ring)
            cm.append(mask)
            if k % every == 0:
                ts.append(t)
                poss.append(P)
                quats.append(Q)
                vels.append(V)
                avels.append(W)
            # contact onsets = impacts (piezo pulses, wall strikes, coin on coin)
            now = set()
            for i, b in enumerate(world.coins):
                for cp in p.getContactPoints(bodyA=b, physicsClientId=c):
                    other = cp[2]
                    kind = world.kind.get(other, "other")
                    j = world.coins.index(other) if kind == "coin" else None
                    key = (i, other, cp[4])
                    now.add(key)
                    if key in in_contact or (j is not None and j < i):
                        continue
                    xyz = np.array(cp[5])
                    n = np.array(cp[7])          # normal on B, pointing to the coin
                    va = np.add(prev_v[i], np.cross(prev_w[i], xyz - P[i]))
                    vb = (np.add(prev_v[j], np.cross(prev_w[j], xyz - P[j]))
                          if j is not None else 0.0)
                    speed = float(max(0.0, -np.dot(va - vb, n)))
                    if kind == "ground":
                        kind = "gutter" if np.hypot(*xyz[:2]) < ring.wall_radius_m else "outside"
                    if speed >= IMPACT_MIN_SPEED or kind in ("wall", "spinner"):
                        contacts.append({"t": t, "coin": i, "other": kind if j is None else "coin",
                                         "with_coin": j, "xyz": xyz.tolist(), "speed": speed,
                                         "above_layout": bool(xyz[2] > 0.0005)})
            in_contact = now
            prev_v, prev_w = V, W
            # At rest = slow, and the pose has stayed put for REST_HOLD_S. The pose test
            # ignores the engine's contact jitter (a flat coin "rocking" at 0.4 rad/s in
            # place) that never moves the coin.
            slow = all(vx * vx + vy * vy + vz * vz < REST_V ** 2 for vx, vy, vz in V) and \
                all(wx * wx + wy * wy + wz * wz < REST_W ** 2 for wx, wy, wz in W)
            if still_since is not None and not _same_pose(anchor, P, Q, coin.radius_m):
                still_since = None
            if still_since is None and slow:
                still_since, anchor = t, (P, Q)
            if still_since is not None and rest_t is None and t - still_since >= REST_HOLD_S:
                rest_t = still_since
            if still_since is None:
                rest_t = None
            if rest_t is not None and t >= rest_t + max(tail_s, REST_HOLD_S):
                break
            # Substeps only where they matter: a fast coin near a surface (no tunnelling,
            # <= ~1.5 mm per substep); high in the air or nearly still, one step will do.
            low = min(P[0][2], P[1][2]) < 0.3 or force == "lean"
            vmax = max(vx * vx + vy * vy + vz * vz for vx, vy, vz in V) ** 0.5
            sub = int(np.clip(np.ceil(vmax * dt / 0.0015), 2, 8)) if low else 1
            if sub != cur_sub:
                p.setPhysicsEngineParameter(numSubSteps=sub, physicsClientId=c)
                cur_sub = sub
            p.stepSimulation(physicsClientId=c)
    finally:
        world.close()
    mat = [(-1.0, True)]
    if launch["mat_off_t"] is not None:
        mat.append((launch["mat_off_t"], False))
    toss = Toss(seed=seed, ring=ring, coin=coin, force=force, dt=dt, t=np.array(ts),
                pos=np.array(poss), quat=np.array(quats), vel=np.array(vels),
                angvel=np.array(avels), curtain_t=np.array(ct),
                curtain_mask=np.array(cm, dtype=np.int64), contacts=contacts, mat=mat,
                launch={k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in launch.items()},
                wall_time_s=0.0, final_vel=[(V[i], W[i]) for i in range(2)])
    toss.truth = ground_truth(toss, rest_t)
    toss.wall_time_s = time.perf_counter() - wall0
    return toss


def coin_state(toss, i, pos, quat, other_pos):
    """Truth for one coin in its final pose."""
    ring, coin = toss.ring, toss.coin
    rot = quat_to_matrix(quat)
    nz = float(rot[2, 2])                 # heads normal (local +z), z component
    tilt = float(np.degrees(np.arccos(min(1.0, abs(nz)))))
    pts = coin_points(pos, rot, coin)
    r_max = float(np.hypot(pts[:, 0], pts[:, 1]).max())
    on_layout = pos[2] > -0.002
    # lying on the other coin: above it and overlapping it in plan
    on_top = (pos[2] - other_pos[2] > coin.thickness_m * 0.5 and
              np.hypot(*(pos[:2] - other_pos[:2])) < 2 * coin.radius_m)
    inside = bool(on_layout and r_max <= ring.layout_radius_m)
    flat = bool(tilt < FLAT_TILT_DEG and not on_top and on_layout)
    up = "heads" if nz > 0 else "tails"
    # tilt axis: the horizontal direction about which the face normal is tipped
    n = rot[:, 2] * (1 if nz > 0 else -1)
    return {
        "face": up if flat else None, "up_side": up, "flat": flat, "inside": inside,
        "tilt_deg": round(tilt, 2), "tilt_axis_deg": round(float(np.degrees(np.arctan2(n[0], -n[1]))), 1),
        "rotation_deg": round(float(np.degrees(np.arctan2(rot[1, 0], rot[0, 0]))) % 360, 1),
        "on_top_of": (1 - i) if on_top else None,
        "leaning": bool(tilt >= FLAT_TILT_DEG and not on_top),
        "xyz": [round(float(x), 5) for x in pos], "r_max_m": round(r_max, 4),
        "apex_m": round(float(toss.pos[:, i, 2].max()), 3),
    }


def ground_truth(toss, rest_t):
    """Faces, flatness, inside, rest time and the outcome with the deciding rules (7.x)."""
    P, Q = toss.pos[-1], toss.quat[-1]
    coins = [coin_state(toss, i, P[i], Q[i], P[1 - i]) for i in range(2)]
    reasons = []
    ring = toss.ring
    head = ring.spinner_head_m + MIN_CLEARANCE_M
    if max(c["apex_m"] for c in coins) < head:
        reasons.append(f"7.1.2 coins not spun a reasonable height above the spinner's head "
                       f"(apex {max(c['apex_m'] for c in coins):.2f} m < {head:.2f} m)")
    beams = []
    for i in range(2):
        broken = np.nonzero(toss.curtain_mask[:, i])[0]
        if len(broken):
            k = broken[0]
            secs = [s for s in range(ring.sectors) if toss.curtain_mask[k, i] >> s & 1]
            beams.append({"coin": i, "t": round(float(toss.curtain_t[k]), 4), "sectors": secs})
            reasons.append(f"7.3.1 coin {i} crossed the ring boundary at layout height "
                           f"(sector {secs[0]}, t={toss.curtain_t[k]:.3f} s)")
    for i, c in enumerate(coins):
        if not c["inside"] and not any(b["coin"] == i for b in beams):
            reasons.append(f"7.3.1 coin {i} came to rest outside the ring")
    landed = {}
    for e in toss.contacts:
        landed.setdefault(e["coin"], e)
    for i, e in landed.items():
        if e["other"] in ("gutter", "outside"):
            if not any(r.startswith(f"7.3.1 coin {i}") for r in reasons):
                reasons.append(f"7.3.1 coin {i} landed outside the ring")
    strikes = [e for e in toss.contacts if e["other"] == "wall" and e["above_layout"]
               and e["speed"] >= STRIKE_MIN_SPEED]
    for i in sorted({e["coin"] for e in strikes}):
        e = next(s for s in strikes if s["coin"] == i)
        reasons.append(f"7.3.2 coin {i} hit the ring wall above the layout (t={e['t']:.3f} s)")
    for i in sorted({e["coin"] for e in toss.contacts if e["other"] == "spinner"}):
        reasons.append(f"7.3.2 coin {i} hit the spinner")
    off = [t for t, on in toss.mat if not on and t >= 0]
    if off:
        reasons.append(f"7.3.3 spinner left the spinning area (t={off[0]:.2f} s)")
    for i, c in enumerate(coins):
        if not c["flat"] and c["inside"]:
            how = (f"lies on coin {c['on_top_of']}" if c["on_top_of"] is not None
                   else f"tilted {c['tilt_deg']:.0f} deg")
            reasons.append(f"7.3.4 coin {i} does not lie flat ({how})")
    faces = [c["face"] for c in coins]
    if rest_t is None:
        outcome = "no-rest"
    elif reasons:
        outcome = "no-spin"
    elif faces[0] == faces[1]:
        outcome = faces[0]
    else:
        outcome = "odds"
    # What a camera alone can tell from the coins at rest (no beams, wall, mat, height):
    # a spin the sensors bar can still look valid here.
    if rest_t is None:
        at_rest = "no-rest"
    elif not all(c["inside"] and c["flat"] for c in coins):
        at_rest = "no-spin"
    else:
        at_rest = faces[0] if faces[0] == faces[1] else "odds"
    impacts = [e["t"] for e in toss.contacts if e["other"] in ("layout", "coin")]
    return {"outcome": outcome, "reasons": reasons, "outcome_at_rest": at_rest, "valid": not reasons and rest_t is not None,
            "rest_t": None if rest_t is None else round(float(rest_t), 4),
            "first_impact_t": round(min(impacts), 4) if impacts else None,
            "coins": coins, "beam_breaks": beams, "seed": toss.seed, "force": toss.force}
