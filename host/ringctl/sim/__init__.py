"""Ring simulator: coin-toss physics (pybullet), sensor timelines and camera frames from it.

    from ringctl.sim.physics import simulate_toss
    from ringctl.sim.geometry import RingGeometry
    toss = simulate_toss(seed, ring=RingGeometry(layout_radius_m=0.6), force=None)
    toss.truth            # outcome heads|tails|odds|no-spin|no-rest, reasons (rule-cited),
                          # outcome_at_rest (what the coins at rest alone show),
                          # rest_t, first_impact_t, coins [{face, up_side, flat, inside, tilt_deg,
                          # on_top_of, leaning, xyz, apex_m}], beam_breaks
    toss.sensor_timeline  # [(t_s, kind, channel, value)], t = 0 at release (sensors.py)
    SensorFeeder(socket_path or send_line).play(timeline, t0)   # firmware/SIM.md lines
    CameraSource(toss, coin_px=40, fps=15)                        # frame source (camera.py)
    SimRing(sensor_socket=..., camera={...}).spin(seed)          # all of it, live (play.py)

`force` provokes a case: "outside" (7.3.1), "wall" (7.3.2), "mat" (7.3.3), "stack" / "lean"
(7.3.4), "low" (7.1.2). CLI: `ring sim toss|frames|bench|board`. pybullet is imported only
when a toss is simulated.
"""
