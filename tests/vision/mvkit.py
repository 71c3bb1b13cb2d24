"""Helpers for the multi-view and stillness tests: coin poses and one camera's frame of them."""
import numpy as np


def flat_pose(face, yaw=0.3, tilt_deg=0.0, tilt_axis=0.0):
    """Quaternion (x, y, z, w) of a coin `face` up, turned by yaw, tilted about a horizontal axis."""
    from ringctl.sim.physics import quat_about, quat_mul
    q = quat_about((0, 0, 1), yaw)
    if face == "tails":
        q = quat_mul(q, quat_about((1, 0, 0), np.pi))
    if tilt_deg:
        q = quat_mul(quat_about((np.cos(tilt_axis), np.sin(tilt_axis), 0), np.radians(tilt_deg)), q)
    return q


def shot(site, cam, coins, rng, noise=2.0):
    """One camera's frame of coins [(x_m, y_m, face)] lying flat."""
    from ringctl.sim.camera import scene_spec
    from ringctl.sim.render import render_scene
    pos = np.array([[x, y, site.coin.thickness_m / 2] for x, y, _ in coins]).reshape(-1, 3)
    quat = np.array([flat_pose(f, yaw=0.4 * k) for k, (_, _, f) in enumerate(coins)]).reshape(-1, 4)
    return render_scene(scene_spec(cam, pos, quat, site.coin, noise=noise), rng)[0]
