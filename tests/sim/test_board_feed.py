"""The simulated spin played into the real firmware (simulated board): it bars a coin that leaves."""
import os
import threading
import time

from ringctl.fw import ringmsg
from ringctl.link import client
from ringctl.sim import simboard
from ringctl.sim.camera import placeholder_render
from ringctl.sim.physics import simulate_toss
from ringctl.sim.play import SimRing


def test_coin_leaving_the_ring_bars_the_spin_on_the_board(tmp_path):
    key = os.urandom(32)
    board = simboard.SimBoard(tmp_path / "flash", key).start()
    link = client.LinkClient(board.tty, key)
    events = []

    def pump():
        for ev in link.events(None):
            events.append(ev)
            link.ack(ev)

    threading.Thread(target=pump, daemon=True).start()
    ring = None
    try:
        assert link.wait_up(10)
        ring = SimRing(sensor_socket=board.send_sensor,
                       camera={"size": (64, 64), "render": placeholder_render})
        assert board.wait_light("idle", 5), board.lines()     # self-test passed, host seen
        ring.mat(True)
        link.send_cmd(ringmsg.CMD_ARM, "")
        assert board.wait_line("phase in-flight", 3)
        toss = simulate_toss(0, force="outside", force_angle_deg=100)
        # released 1 s ago: the flight is over, the coin reaches the boundary 0.085 s from now
        ring.play(toss, t0=time.monotonic() - 1.0)
        since = time.monotonic()
        lit = board.wait_line("light barred ", timeout=3, since=since)
        assert lit is not None, board.lines(since)
        barred_at = lit[0] - toss.t0
        crossed = toss.truth["beam_breaks"][0]["t"]
        assert crossed - 0.005 <= barred_at <= crossed + 0.1          # barred at the crossing
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and not any(
                e.code == ringmsg.EV_BARRED for e in events):
            time.sleep(0.02)
        bar = [e for e in events if e.code == ringmsg.EV_BARRED]
        assert bar and bar[0].a == ringmsg.BAR_BEAM and bar[0].b == 2      # sector of 100 deg
    finally:
        if ring is not None:
            ring.close()
        link.close()
        board.stop()
